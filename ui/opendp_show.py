"""'Show this in OpenDP' on a page: a folded box with the snippet and what differs.

The text comes from ui.opendp_snippets (no Streamlit there, so tests can run every snippet
against opendp). The app itself never imports opendp: it only shows text.
"""

from __future__ import annotations

import streamlit as st

from ui.opendp_snippets import OPENDP_VERSION, Snippet


def opendp_expander(snippet: Snippet) -> None:
    """The snippet, folded, with one line on what differs from the page's own mechanism."""
    with st.expander(f"🧰 Show this in OpenDP ({OPENDP_VERSION})"):
        st.code(snippet.code, language="python")  # scrolls sideways on a phone: no broken indentation
        st.caption(f"**What differs:** {snippet.differs}")
