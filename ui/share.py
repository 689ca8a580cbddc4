""""Copy link to this view": a link that reopens a demo with its parameters and its seed.

Every main widget is bound to the URL (bind="query-params"), so the browser's address
bar already holds the view. The link is that address with the seed written out, even
when it is the default, so that the same picture comes back after a default changes.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ui.course import HOME, LESSONS
from ui.seeds import SEED_KEY, current_seed


def view_link(slug: str) -> str:
    """The page's address with every URL parameter of this view and the seed."""
    params = {key: st.query_params.get_all(key) for key in st.query_params}
    params[SEED_KEY] = [str(current_seed())]
    return f"{app_root()}/{'' if slug == HOME.slug else slug}?{urlencode(params, doseq=True)}"


def app_root() -> str:
    """The app's address without the page path ("" outside a browser session, e.g. in AppTest).

    st.context.url is documented to trim the page path but, under st.navigation in 1.67,
    does not, so the page's slug is trimmed here.
    """
    url = (st.context.url or "").rstrip("/")
    for lesson in LESSONS:
        if lesson is not HOME and url.endswith(f"/{lesson.slug}"):
            return url.removesuffix(f"/{lesson.slug}")
    return url


def copy_link(slug: str, demo: str) -> None:
    """A small popover with the link to this view and a copy button."""
    with st.popover("🔗 Copy link to this view", key=f"{demo}_share"):
        st.code(view_link(slug), language=None, wrap_lines=True)
        st.caption("The copy button is at the right of the link. It reopens this page with the "
                   "same settings, and the same seed, so the same random pictures.")
