"""The live class poll's Streamlit side: the one cached database engine, links and QR codes,
the server's coin flips, the client's address and the per-session limits both poll pages share.

Storage is in classroom.store and the rules of the limits in classroom.limits (no Streamlit);
the debiasing maths in dp.rr_inference.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import secrets
import time
from urllib.parse import urlencode

import numpy as np
import segno
import streamlit as st
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from classroom import limits, store
from dp import randomized_response, rr_keep_probability
from dp.local_dp import coin_report
from ui import lessons
from ui.charts.poll import cut_note, percent_text, shown_share
from ui.params import url_value
from ui.text import plain  # noqa: F401 (the poll pages call ui.poll.plain)

log = logging.getLogger(__name__)

INSTRUCTOR_SLUG = "poll-instructor"
JOIN_SLUG = "poll-join"
SECRET_KEY = "poll_database_url"
ADMIN_KEY = "poll_admin"  # {"code": …, "token": …}: the admin token lives here, not in the URL
STARTED_KEY = "poll_session_started"  # when this browser session first opened a poll page
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

# Typed questions are shown with ui.text.plain (re-exported here for the poll pages): Markdown,
# HTML, formulas and GFM autolinks ("www.", "WWW.", "http://", "a@b.c") all shown literally.


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


# ── Who is asking, and how often ────────────────────────────────────────────────────────────

def client_address() -> str:
    """This session's client address for the limits (see classroom.limits.client_address):
    the TCP peer, or, when the peer is loopback (our reverse proxy), the proxy's headers."""
    headers = st.context.headers
    real_ip = headers.get_all("X-Real-IP")
    return limits.client_address(st.context.ip_address, headers.get_all("X-Forwarded-For"),
                                 real_ip[-1] if real_ip else None)


def session_started() -> float:
    """When this browser session first opened a poll page (time.monotonic)."""
    if STARTED_KEY not in st.session_state:
        st.session_state[STARTED_KEY] = time.monotonic()
    return st.session_state[STARTED_KEY]


def warmup_remaining() -> float:
    return limits.warmup_remaining(session_started(), time.monotonic())


def attempt_wait(kind: str) -> float:
    """Seconds before this session may try `kind` again ("join" codes, "admin" tokens)."""
    return limits.attempt_wait(st.session_state.get(f"poll_failures_{kind}", {}), time.monotonic())


def record_failure(kind: str, free: int = limits.FREE_FAILURES) -> float:
    state = st.session_state.setdefault(f"poll_failures_{kind}", {})
    return limits.record_failure(state, time.monotonic(), free)


# Per address and per server process, sized for a full hall behind one NAT address
# (classroom.limits: FAILED_JOINS_PER_ADDRESS, CREATIONS_PER_ADDRESS).
@st.cache_resource(show_spinner=False)
def _address_limiter(name: str, limit: int, window: float) -> limits.WindowLimiter:
    return limits.WindowLimiter(limit, window)


def failed_joins_limiter() -> limits.WindowLimiter:
    return _address_limiter("failed joins", *limits.FAILED_JOINS_PER_ADDRESS)


def _creations_limiter() -> limits.WindowLimiter:
    return _address_limiter("creations", *limits.CREATIONS_PER_ADDRESS)


def holds_admin_token() -> bool:
    """True when this session runs an open poll or live session (its admin token checks out):
    then no one else's creations from its address can hold it back."""
    from classroom import live  # the live tables live beside the poll's, in the same database

    poll_admin = st.session_state.get(ADMIN_KEY) or {}
    live_admin = st.session_state.get("live_admin") or {}  # ui.live.ADMIN_KEY (ui.live imports this module)
    with database_guard():
        if poll_admin.get("code") and poll_admin.get("token"):
            poll = store.poll_for_admin(engine(), poll_admin["code"], poll_admin["token"])
            if poll is not None and poll.open:
                return True
        if live_admin.get("code") and live_admin.get("token"):
            live.ensure_schema(engine())
            session = live.session_for_admin(engine(), live_admin["code"], live_admin["token"])
            if session is not None and session.open:
                return True
    return False


def creation_wait() -> float:
    """Seconds before this session may create another poll or live session (0: now). Does not
    count one."""
    now = time.monotonic()
    return limits.creation_wait(st.session_state.get("poll_created_at", []), now,
                                _creations_limiter().wait(client_address(), now),
                                holds_admin_token())


def record_creation() -> None:
    now = time.monotonic()
    st.session_state.setdefault("poll_created_at", []).append(now)
    _creations_limiter().record(client_address(), now)


def say_seconds(seconds: float) -> str:
    """A wait as a person reads it: '1 second', '8 seconds', '3 minutes'."""
    whole = limits.whole_seconds(seconds)
    if whole >= 120:
        minutes = math.ceil(whole / 60)
        return f"{minutes} minutes"
    return f"{whole} second{'s' if whole != 1 else ''}"


def keep_percent(poll: store.Poll) -> str:
    return f"{100 * rr_keep_probability(poll.epsilon):.1f}%"


# ── The debiased estimate in large type (both instructor pages) ─────────────────────────────

# An interval at least this wide (in percentage points of 0–100%) says little about the class.
UNINFORMATIVE_SPAN = 90.0


def latest_estimate(running: dict[str, np.ndarray]) -> dict[str, float | str | bool]:
    """The newest point of dp.rr_inference.rr_running_estimates, as the projector shows it, in %:
    the estimate cut to 0–100% ("shown"), the unbiased one ("raw"), the 95% interval, and
    whether that interval is too wide to say much ("few")."""
    raw, lower, upper = (100 * float(running[key][-1]) for key in ("estimate", "lower", "upper"))
    return {"raw": raw, "raw_text": percent_text(raw), "shown": 100 * float(shown_share(raw / 100)),
            "lower": lower, "upper": upper, "cut": bool(cut_note(raw)),
            "few": upper - lower >= UNINFORMATIVE_SPAN}


def estimate_metric(running: dict[str, np.ndarray], where=st) -> dict[str, float | str | bool]:
    """The "Debiased estimate" metric: the estimate cut to 0–100% and its 95% interval, with "too
    few answers to tell" under it while that interval spans nearly all of 0–100%, and in its ⓘ
    the unbiased value and why it can leave 0–100%. Returns latest_estimate's numbers."""
    numbers = latest_estimate(running)
    help_text = lessons.section_text(INSTRUCTOR_SLUG, "overshoot" if numbers["cut"] else "estimate-help",
                                     raw=numbers["raw_text"], shown=numbers["shown"])
    where.metric("Debiased estimate", f"{numbers['shown']:.0f}%",
                 delta=f"95%: {numbers['lower']:.0f}–{numbers['upper']:.0f}%", delta_color="off",
                 delta_arrow="off", help=help_text)
    if numbers["few"]:  # under the metric, not in its delta: a long delta is cut off on a projector
        where.caption(lessons.section_text(INSTRUCTOR_SLUG, "too-few", lower=numbers["lower"],
                                           upper=numbers["upper"]))
    return numbers


# ── The join pages' code form (class poll and live class) ───────────────────────────────────

def join_code_form(prefix: str, slug: str, button: str, problem: str | None = None) -> None:
    """Where a student lands without a usable code: say what is wrong, ask for the code, stop.
    `prefix` ("poll", "live") names the widgets; `slug`'s lesson file has the enter-code section."""
    if problem:
        st.warning(problem, icon="⚠️")
    lessons.render(slug, "enter-code")
    with st.form(f"{prefix}_join_form", border=False):
        st.text_input("Join code", max_chars=20, key=f"{prefix}_join_code_input",
                      placeholder="e.g. K7PQ3M", autocomplete="off")
        st.form_submit_button(button, type="primary", on_click=_go_to_code, args=(prefix,))
    if st.session_state.get(f"{prefix}_join_code_error"):
        st.error(f"A join code is {store.CODE_LENGTH} letters and digits, like K7PQ3M "
                 "(no 0, 1, I or O). Check the code on the projector and type it again.")
    st.stop()


def _go_to_code(prefix: str) -> None:
    code = store.normalise_code(st.session_state.get(f"{prefix}_join_code_input", ""))
    if code is None:
        st.session_state[f"{prefix}_join_code_error"] = True
    else:
        st.session_state.pop(f"{prefix}_join_code_error", None)
        st.query_params["code"] = code


def join_code(prefix: str, slug: str, button: str, what: str) -> tuple[str, str]:
    """The link's join code and this client's address; or, with no usable code in the link or
    after too many codes that matched nothing (per session, and per address so that a script
    cannot try codes at full speed), the code form (and st.stop()). `what` ends "The code in
    this link is not …" ("a poll code")."""
    raw_code = url_value("code")
    if not raw_code:
        lessons.render(slug, "intro")
        join_code_form(prefix, slug, button)
    code = store.normalise_code(raw_code)
    if code is None:
        join_code_form(prefix, slug, button, f"The code in this link is not {what}. "
                       f"A join code is {store.CODE_LENGTH} letters and digits, like K7PQ3M.")
    # Only this session's own wrong codes make it wait: what others on the same address do never
    # keeps a right code out (the address's count only takes away free tries, record_failed_join).
    wait = attempt_wait("join")
    if wait > 0:
        join_code_form(prefix, slug, button,
                       lessons.section_text(slug, "too-many-codes", wait=say_seconds(wait)))
    return code, client_address()


def record_failed_join(address: str) -> None:
    """A code that matched nothing open: counted for this session and for the address. Over the
    address's ceiling (a script guessing codes from new sessions), a session has no free tries."""
    over = failed_joins_limiter().take(address, time.monotonic()) > 0
    record_failure("join", limits.FREE_FAILURES_OVER_CEILING if over else limits.FREE_FAILURES)
