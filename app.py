"""DP Lab: an interactive course on differential privacy.  Run: streamlit run app.py

This one file is both the server and the page. `streamlit run app.py` finds `app = st.App(...)`
below (Streamlit reads the file's syntax tree for it) and serves that app: the pages, plus the
route the live class's phones ask for their session's version (ui.live.version_routes), so a
waiting phone costs a small request instead of a script run every 2 s. To serve it, Streamlit
imports this file once as the module `app`; every browser session then runs it as the page
script, as `__main__` (so does AppTest). Keeping both here means every way of starting DP Lab,
Community Cloud (main file app.py), the README's command, `python -m serve`, deploy/'s replicas
and the tests' server, serves the route with no change to how it is started.
"""

import streamlit as st

import serve
from ui import admin_store, heavy, warm
from ui import lessons as deck
from ui.course import navigation
from ui.live import ask_the_class, version_routes
from ui.params import forget_link_widgets, note_unknown_link_keys
from ui.presenter import presenter_requested, presenter_style, presenter_toggle
from ui.seeds import seed_controls
from ui.server_log import limit_repeated_tracebacks
from ui.share import fill_links
from ui.show import CHART_CSS

if __name__ != "__main__":  # imported by `streamlit run` to find the server: no page here
    app = st.App("app.py", routes=version_routes())
else:  # a browser session's run of the page
    limit_repeated_tracebacks()  # a script's malformed widget states must not flood the log

    serve.nodelay_in_process()  # no 40 ms Nagle stall per move under plain `streamlit run` (docs/NAGLE.md)
    deck.set_quiz_action(ask_the_class)  # "Ask the class" beside every lesson quiz, for a running session
    warm.start()  # once per process, in the background: the slowest first visits' caches (ui/warm.py)
    # Presenter mode folds the sidebar, whether a link asked for it or the sidebar's own switch
    # was just turned on (its new value is in the session state before this line runs).
    st.set_page_config(page_icon="🔒", layout="wide",
                       initial_sidebar_state="collapsed" if presenter_requested() else "auto")
    page = st.navigation(navigation(), expanded=True)
    st.html(CHART_CSS)
    with st.sidebar:
        presenting = presenter_toggle()
        seed = seed_controls()
        # The instructor's running sessions, from this browser's storage (the instructor pages wait for it).
        admin_store.sync(ask=page.url_path in ("live-instructor", "poll-instructor"))
    note_unknown_link_keys(page.url_path)
    forget_link_widgets(page.url_path)  # a new page registers its URL-bound widgets as it runs
    if presenting:
        presenter_style()
        deck.begin_deck(page.url_path)
    else:
        deck.no_deck()
    try:
        page.run()
    finally:  # also after a page's st.rerun() (after st.stop() Streamlit runs no more st calls)
        fill_links()  # the links, now that every widget of the page has run
        heavy.run_finished()  # a session that asks for heavy computations pays for its runs
        if presenting:
            deck.end_deck(seed)
