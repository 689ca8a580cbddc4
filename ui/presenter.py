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
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { line-height: 1.45; }
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
