"""DP Lab: an interactive course on differential privacy.  Run: streamlit run app.py"""

import streamlit as st

import serve
from ui.course import navigation
from ui.params import note_unknown_link_keys
from ui.presenter import link_asks_for_presenter_mode, presenter_style, presenter_toggle
from ui.seeds import seed_controls
from ui.server_log import limit_repeated_tracebacks

limit_repeated_tracebacks()  # a script's malformed widget states must not flood the log

serve.nodelay_in_process()  # no 40 ms Nagle stall per move under plain `streamlit run` (docs/NAGLE.md)
st.set_page_config(page_icon="🔒", layout="wide",
                   initial_sidebar_state="collapsed" if link_asks_for_presenter_mode() else "auto")
page = st.navigation(navigation(), expanded=True)
with st.sidebar:
    presenting = presenter_toggle()
    seed = seed_controls()
note_unknown_link_keys(page.url_path)
if presenting:
    presenter_style(seed)
page.run()
