"""The one seed scheme: every random picture is a function of (sidebar seed, demo, draw).

The sidebar seed is bound to the URL, and so is each demo's draw counter, so a copied
link reproduces the same picture, and so does next year's lecture.
"""

from __future__ import annotations

import zlib

import numpy as np
import streamlit as st

from ui.params import note_if_ignored, url_value

SEED_KEY = "seed"
DEFAULT_SEED = 2014  # the year of Dwork & Roth's textbook
MAX_SEED = 2**31 - 1


def _next_seed() -> None:
    st.session_state[SEED_KEY] = (st.session_state.get(SEED_KEY, DEFAULT_SEED) + 1) % MAX_SEED


def seed_controls() -> int:
    """Sidebar widgets: the global seed and a button that moves every demo to a new seed.

    The seed is kept in the URL by hand rather than with bind="query-params": Streamlit
    1.67's number_input raises on some URL values (1e400 overflows int).
    """
    link_value = None
    if SEED_KEY not in st.session_state:
        link_value = url_value(SEED_KEY)
        valid = (link_value is not None and link_value.isdigit() and len(link_value) <= 10
                 and int(link_value) <= MAX_SEED)  # int() refuses over 4,300 digits
        st.session_state[SEED_KEY] = int(link_value) if valid else DEFAULT_SEED
    seed = st.number_input("Seed", min_value=0, max_value=MAX_SEED, step=1, key=SEED_KEY,
                           help="Every random picture in DP Lab is drawn from this seed. "
                                "The same seed gives the same picture.")
    note_if_ignored(SEED_KEY, "seed", link_value, str(seed))
    if seed == DEFAULT_SEED:
        st.query_params.pop(SEED_KEY, None)
    else:
        st.query_params[SEED_KEY] = str(seed)
    st.button("🎲 Resample everything", on_click=_next_seed, width="stretch",
              help="Move to the next seed: new random data and noise on every page.")
    return int(seed)


def current_seed() -> int:
    return int(st.session_state.get(SEED_KEY, DEFAULT_SEED))


def _draw_key(demo: str) -> str:
    return f"{demo}_draw"


def draw_number(demo: str) -> int:
    """How many times this demo has been resampled; carried in the URL as <demo>_draw.

    A link value that is not a count is dropped from the URL and kept for the note that
    resample_button shows.
    """
    key = _draw_key(demo)
    if key not in st.session_state:
        raw = st.query_params.get(key, "0")
        valid = raw.isdigit() and len(raw) < 10
        st.session_state[key] = int(raw) if valid else 0
        if not valid and raw:  # an empty ?<demo>_draw= is a cleared value, not a wrong one
            st.session_state[f"{key}__bad_link"] = raw
            st.query_params.pop(key, None)
    return st.session_state[key]


def _resample(demo: str) -> None:
    st.session_state[_draw_key(demo)] = draw_number(demo) + 1
    st.query_params[_draw_key(demo)] = str(st.session_state[_draw_key(demo)])


def resample_button(demo: str, label: str = "🎲 Resample") -> None:
    """A button that redraws this demo's randomness, and only this demo's."""
    st.button(label, key=f"{demo}_resample", on_click=_resample, args=(demo,))
    key = _draw_key(demo)
    number = draw_number(demo)
    note_if_ignored(key, "number of resamples (a whole number)",
                    st.session_state.pop(f"{key}__bad_link", None), str(number))


def demo_seed(demo: str) -> list[int]:
    """The seed of one demo: [sidebar seed, a stable hash of its name, its draw number]."""
    return [current_seed(), zlib.crc32(demo.encode()), draw_number(demo)]


def rng_for(demo: str) -> np.random.Generator:
    """A fresh generator for one demo, from the one seed scheme."""
    return np.random.default_rng(demo_seed(demo))
