"""Presenter mode: the projector view of a lesson, switched on in the sidebar or by `present=1`.

On a 1280×720 projector the back row needs large type and thick lines, and the class
needs the demo, not paragraphs. Presenter mode therefore enlarges the page and the
charts, collapses the sidebar, hides prose that a lesson does not mark `present`, hides
the instructor notes, and shows the seed in use so the same picture comes back next year.
"""

from __future__ import annotations

import streamlit as st

from ui.params import note_if_ignored, url_value

PRESENT_KEY = "present"
ON, OFF = "1", "0"

# Streamlit sizes almost everything in rem, so one root font size scales the whole page.
_PRESENTER_CSS = """
<style>
html { font-size: 22px; }
/* The header holds only the sidebar's » button, at its left: a thin transparent strip, with
   the page's left margin clear of the button, gives a step the screen's height. */
[data-testid="stHeader"] { height: 2.5rem; background: transparent; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 1rem 2rem 4rem 3rem; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { line-height: 1.4; }
/* A step fits one screen (a clicker cannot scroll): tighter gaps and headings than a page's. */
[data-testid="stMain"] [data-testid="stVerticalBlock"] { gap: 0.6rem; }
[data-testid="stMain"] h1 { padding: 0.25rem 0 0.5rem; }
[data-testid="stMain"] :is(h2, h3) { padding: 0.1rem 0 0.3rem; }
/* Prose and quiz options at 24 px, read from the back row (tests/deck_probe.js checks it);
   a control's label, a button and the deck's bar keep the page's size. */
[data-testid="stMain"] :is([data-testid="stMarkdownContainer"], [data-testid="stTable"]) :is(p, li, td, th):not(
  :is([data-testid="stWidgetLabel"], [data-testid="stMetricLabel"], [data-testid="stMetricValue"], button, summary,
      .st-key-dplab_deck) *) {
  font-size: 24px; }
/* Code in a sentence at the sentence's size (Streamlit sets it at 0.75em) */
[data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(p, li) code { font-size: 1em; }
/* A metric's number need not be a headline: one line less per row of metrics */
[data-testid="stMain"] [data-testid="stMetricValue"] { font-size: 1.6rem; }
/* A column left empty on the projector (its prose hidden) gives its room to the others, so a
   chart is never alone in half the screen. */
[data-testid="stMain"] [data-testid="stColumn"]:not(:has([data-testid="stElementContainer"])) { display: none; }
[data-testid="stMain"] [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"]:not(:has([data-testid="stElementContainer"])))
  > [data-testid="stColumn"] { flex: 1 1 0; }
/* The lesson's question, under the title on the deck's first step (ui.lessons.render) */
[data-testid="stMain"] .st-key-dplab_question [data-testid="stMarkdownContainer"] p {
  font-size: 2.2rem; line-height: 1.3; font-weight: 600; margin-top: 2rem; max-width: 28em; }
/* No focus frame on the page itself: a click on empty space focuses the main area (tabindex=0). No angle brackets in this CSS:
   Streamlit's HTML sanitiser drops a style element whose text holds a tag. */
[data-testid="stMain"]:focus, [data-testid="stMain"]:focus-visible { outline: none; }
/* HTML tables keep pace with the text (st.dataframe's canvas grid already scales with rem) */
[data-testid="stTable"] table { font-size: 1rem; }
</style>
"""


def link_asks_for_presenter_mode() -> bool:
    """What the URL says, before any widget exists (set_page_config needs it first)."""
    return url_value(PRESENT_KEY) == ON


def presenter_requested() -> bool:
    """Presenter mode as app.py must know it before any widget: the switch, or the link."""
    if PRESENT_KEY in st.session_state:
        return bool(st.session_state[PRESENT_KEY])
    return link_asks_for_presenter_mode()


def presenter_mode() -> bool:
    return bool(st.session_state.get(PRESENT_KEY, False))


def presenter_toggle() -> bool:
    """The sidebar switch. The URL carries it as present=1 so a shared link opens projected."""
    link_value = None
    if PRESENT_KEY not in st.session_state:
        link_value = url_value(PRESENT_KEY)
        st.session_state[PRESENT_KEY] = link_value == ON
    on = st.toggle("📽️ Presenter mode", key=PRESENT_KEY,
                   help="Large type and thick lines for a projector; prose and instructor notes "
                        "hidden. The link carries it as present=1.")
    note_if_ignored(PRESENT_KEY, "presenter switch (use 1 or 0)", link_value, ON if on else OFF)
    if on:
        st.query_params[PRESENT_KEY] = ON
    else:
        st.query_params.pop(PRESENT_KEY, None)
    return on


def presenter_style() -> None:
    """Enlarge the page (the deck's controls, at its bottom right, name the seed)."""
    st.html(_PRESENTER_CSS)
