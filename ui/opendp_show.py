"""'Show this in OpenDP' on a page: a folded box with the snippet and what differs.

The text comes from ui.opendp_snippets (no Streamlit there, so tests can run every snippet
against opendp). The app itself never imports opendp: it only shows text.
"""

from __future__ import annotations

import sys

import streamlit as st

from ui.opendp_snippets import OPENDP_VERSION, Snippet
from ui.presenter import presenter_mode
from ui.show import fold


def opendp_expander(snippet: Snippet) -> None:
    """The snippet, folded, with one line on what differs from the page's own mechanism.

    Built only while open (ui.show.fold); a page has several, so each call site is its own.
    Not in presenter mode: a deck step fits one screen, and code is read up close.
    """
    if presenter_mode():  # for students at their own pace; the projector keeps the demo
        return
    caller = sys._getframe(1)
    key = f"opendp_{caller.f_code.co_name}_{caller.f_lineno}_fold"
    if (box := fold(f"🧰 Show this in OpenDP ({OPENDP_VERSION})", key=key)) is None:
        return
    with box:
        st.code(snippet.code, language="python")  # scrolls sideways on a phone: no broken indentation
        st.caption(f"**What differs:** {snippet.differs}")
