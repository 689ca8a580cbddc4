"""The live class poll's Streamlit side: the one cached database engine, links and QR codes,
the server's coin flips, and the widgets both poll pages share.

Storage is in classroom.store (no Streamlit); the debiasing maths in dp.rr_inference.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import re
import secrets
from urllib.parse import urlencode

import numpy as np
import segno
import streamlit as st
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from classroom import store
from dp import randomized_response, rr_keep_probability
from dp.local_dp import coin_report

log = logging.getLogger(__name__)

INSTRUCTOR_SLUG = "poll-instructor"
JOIN_SLUG = "poll-join"
SECRET_KEY = "poll_database_url"
SESSION_TOKEN_KEY = "poll_session_token"
ADMIN_KEY = "poll_admin"  # {"code": …, "token": …}: the admin token lives here, not in the URL
LN3 = math.log(3)

DATABASE_TROUBLE = ("The poll database is not answering right now, so nothing was saved. "
                    "Wait a few seconds and try again; if it keeps happening, tell your instructor.")


# ── The database ────────────────────────────────────────────────────────────────────────────

def _configured_url() -> str | None:
    """poll_database_url from st.secrets, or None when there is no secrets file or no such key."""
    try:
        value = st.secrets.get(SECRET_KEY)
    except Exception:  # no secrets.toml (StreamlitSecretNotFoundError), or one that does not parse
        return None
    return str(value) if value else None


@st.cache_resource(max_entries=4, show_spinner=False, on_release=lambda engine: engine.dispose())
def _engine_for(url: str) -> Engine:
    engine = store.make_engine(url)
    store.ensure_schema(engine)
    return engine


def engine() -> Engine:
    """The app's one engine (per database URL), created and migrated on first use."""
    return _engine_for(store.resolve_database_url(_configured_url()))


@contextlib.contextmanager
def database_guard():
    """Turn a database failure into a friendly message and stop the run (or fragment run).

    The details go to the server log, never to the page: they may hold a host name or a URL.
    """
    try:
        yield
    except store.SchemaTooNewError:
        log.exception("poll database schema is newer than this app")
        st.error("The poll database was set up by a newer version of DP Lab. Update the app.")
        st.stop()
    except (SQLAlchemyError, OSError):
        log.exception("poll database error")
        st.error(DATABASE_TROUBLE, icon="🛑")
        st.stop()


# ── Text, links and QR codes ────────────────────────────────────────────────────────────────

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


# GitHub-style autolinks ("http://…", "www.…", "a@b.c") are found after escapes are resolved,
# so an invisible word joiner is what stops them.
_AUTOLINK_STARTS = {"://": ":\u2060//", "www.": "www\u2060.", "@": "@\u2060"}


def plain(text: str) -> str:
    """Text that someone typed, escaped so that Markdown shows it literally (no links, no images,
    no formulas, no colour directives, no autolinked addresses)."""
    for start, broken in _AUTOLINK_STARTS.items():
        text = text.replace(start, broken)
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def epsilon_label(poll: store.Poll) -> str:
    return "fair coins, ε = ln 3 ≈ 1.10" if poll.fair_coins else f"ε = {poll.epsilon:g}"


def app_base_url(current_slug: str) -> str:
    """The app's address as the browser sees it (behind any proxy), without the page path."""
    url = st.context.url or "http://localhost:8501"
    return url.removesuffix("/").removesuffix(f"/{current_slug}")


def page_url(current_slug: str, target_slug: str, **params: str) -> str:
    return f"{app_base_url(current_slug)}/{target_slug}?{urlencode(params)}"


def qr_png(url: str) -> bytes:
    """A QR code of the link as a PNG (segno: pure Python), dark on white, with a quiet zone."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="png", scale=10, border=3)
    return buffer.getvalue()


# ── Students' answers ───────────────────────────────────────────────────────────────────────

# Real privacy, not a teaching demo: these coins must be unpredictable to everyone, including
# anyone who knows the sidebar seed, so they come from the operating system's entropy pool
# and never from ui.seeds (whose whole point is that the same seed gives the same draw).
_OS_RANDOM = secrets.SystemRandom()


def server_flip(poll: store.Poll, truth: int) -> int:
    """The randomized answer for a student who asked the app to flip: only this is stored."""
    if poll.fair_coins:
        first_heads, second_heads = _OS_RANDOM.getrandbits(1), _OS_RANDOM.getrandbits(1)
        return coin_report(truth, bool(first_heads), bool(second_heads))
    # default_rng() with no seed draws its seed from the OS entropy pool, fresh for each answer.
    return int(randomized_response(np.array([truth]), poll.epsilon, np.random.default_rng())[0])


def session_token() -> str:
    """A random token for this browser session: the database allows one answer per token and poll."""
    if SESSION_TOKEN_KEY not in st.session_state:
        st.session_state[SESSION_TOKEN_KEY] = secrets.token_urlsafe(24)
    return st.session_state[SESSION_TOKEN_KEY]


def keep_percent(poll: store.Poll) -> str:
    return f"{100 * rr_keep_probability(poll.epsilon):.1f}%"
