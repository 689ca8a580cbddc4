"""The live class's Streamlit side: the engine and the shared cache, the device id each phone
keeps, the quiz catalogue, and the "Ask the class" control beside every lesson quiz.

The model (sessions, questions, votes, the version counter) is classroom.live, with no
Streamlit; the pages are app_pages/live-instructor.py and app_pages/live-join.py.
"""

from __future__ import annotations

import os
import signal
import time

import streamlit as st
from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from classroom import follow, limits, live
from ui import lessons
from ui import poll as ui_poll
from ui.course import LESSONS, Lesson

INSTRUCTOR_SLUG = "live-instructor"
JOIN_SLUG = "live-join"
ADMIN_KEY = "live_admin"  # {"code": …, "token": …}: the admin token lives here, not in the URL
# A waiting phone's browser holds a request to the version route (below), which the server
# answers when the version moves (or after follow.HOLD_SECONDS), and reruns its follow fragment
# when it moved: a push from this process shows after one rerun, one from another replica up to
# twice CACHE_SECONDS later (the watch's re-read, of a cache that old). Two asks of a page start at least FOLLOW_SECONDS apart, which is also the
# pace of a page whose route fails (then each ask is a fragment rerun, as every tick was before
# issue 28). A request costs the server about 1-1.5 ms of CPU; a fragment rerun 3-7 ms, nearly
# all of it Streamlit's own (docs/PERFORMANCE.md, "The live class" and "Lecture on one
# process"). DPLAB_LIVE_FOLLOW_SECONDS (0.5 to 10) sets it. The projector re-reads the votes
# every PROJECTOR_SECONDS.
FOLLOW_ENV = "DPLAB_LIVE_FOLLOW_SECONDS"


def _follow_seconds(raw: str | None, default: float = 2.0) -> float:
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return value if 0.5 <= value <= 10 else default


FOLLOW_SECONDS = _follow_seconds(os.environ.get(FOLLOW_ENV))
PROJECTOR_SECONDS = 1.0
# The follow fragment's own server-side tick, a safety net under the browser's requests: a
# phone whose component script never runs still shows a push within this long (a reload at
# once). 300 phones at 60 s are 5 reruns a second, about 0.04 of a core (measured on a slow day:
# a waiting hall of 300 cost 0.10 with it, 0.06 without; PERFORMANCE.md). When the route cannot
# be reached or refuses, the script itself falls back to rerunning the fragment every
# FOLLOW_SECONDS (the cost of a tick, as before the route), so no phone is stranded.
SAFETY_SECONDS = 60.0
# How stale a process's cached view may get before it reads the version counter again. Changes
# made through this process are seen at once (the cache is invalidated); another replica's
# within this.
CACHE_SECONDS = 0.5


# ── The database ────────────────────────────────────────────────────────────────────────────

@st.cache_resource(max_entries=4, show_spinner=False)
def _live_tables(_engine: Engine, url_key: str) -> bool:
    live.ensure_schema(_engine)
    return True


def engine() -> Engine:
    """The poll's engine (one per database URL), with the live tables created and migrated."""
    shared = ui_poll.engine()
    _live_tables(shared, repr(shared.url))  # repr hides any password
    return shared


@st.cache_resource(show_spinner=False)
def session_cache() -> live.SessionCache:
    """One cache per server process, shared by every phone it serves."""
    return live.SessionCache(max_age=CACHE_SECONDS)


def published(session_id: int) -> None:
    """After an instructor action: this process's phones see it now (their held requests are
    answered) or, for a phone whose route is not reached, at its next rerun."""
    session_cache().invalidate(session_id)
    version_watch.poke(session_id)


database_guard = ui_poll.database_guard
plain = ui_poll.plain


# ── The phones' version route ───────────────────────────────────────────────────────────────

VERSION_ROUTE = "live-version"  # GET /live-version/<ticket> (under server.baseUrlPath)
FOLLOW_TICKET_KEY = "live_follow_ticket"
FOLLOW_RUNS_KEY = "live_follow_runs"
# The tickets this process issued (classroom.follow): one registry per process, shared by the
# pages' script threads and the route on the server's event loop.
follow_tickets = follow.FollowTickets(ask_every=FOLLOW_SECONDS)


def _server_stopping() -> bool:
    """True once the server shuts down, so held requests are answered then and the shutdown does
    not wait follow.HOLD_SECONDS for them. Under `streamlit run` of an st.App, uvicorn owns the
    signals: its SIGTERM/SIGINT handler is its server's `handle_exit`, which sets `should_exit`
    and then waits for every open request before Streamlit's runtime hears of it."""
    from streamlit.runtime import Runtime, RuntimeState

    uvicorn_server = getattr(signal.getsignal(signal.SIGTERM), "__self__", None)
    if getattr(uvicorn_server, "should_exit", False):
        return True
    return Runtime.exists() and Runtime.instance().state in (RuntimeState.STOPPING, RuntimeState.STOPPED)


version_watch = follow.VersionWatch(recheck=CACHE_SECONDS, stopping=_server_stopping)


def how_it_works() -> str:
    """The instructor page's account of how the phones follow, with this server's figures."""
    return lessons.section_text(INSTRUCTOR_SLUG, "how-it-works", follow=FOLLOW_SECONDS,
                                hold=follow.HOLD_SECONDS)


def version_route_path() -> str:
    from streamlit import config

    base = (config.get_option("server.baseUrlPath") or "").strip("/")
    return "/" + "/".join(part for part in (base, VERSION_ROUTE) if part)


async def _answer_version(request: Request) -> Response:
    """The version of the live session a ticket follows, as text; 404 for a ticket this
    process did not issue, 429 with Retry-After over a ticket's or an address's limit, 410 when
    the session is gone, 503 when the database cannot be read. Never anything but the number."""
    now = time.monotonic()
    headers = request.headers
    real_ip = headers.getlist("x-real-ip")
    address = limits.client_address(request.client.host if request.client else None,
                                    headers.getlist("x-forwarded-for"), real_ip[-1] if real_ip else None)
    refusal, ticket = follow_tickets.admit(request.path_params["ticket"], address, now)
    no_store = {"Cache-Control": "no-store"}
    if refusal is not None:
        if refusal.status is follow.Status.LIMITED:
            no_store["Retry-After"] = str(limits.whole_seconds(refusal.retry_after))
        return Response(status_code=refusal.status.value, headers=no_store)
    drawn = _drawn_version(request.query_params.get("v"))
    try:
        if drawn is not None:  # held until the version moves (classroom.follow, "Held requests")
            version = await version_watch.wait(ticket, drawn)
        else:
            fresh, version = ticket.cached_version(now)
            if not fresh:  # at most once per session and CACHE_SECONDS: off the event loop
                version = await run_in_threadpool(ticket.read_version)
    except Exception:  # noqa: BLE001 (the page's own rerun shows the database's message)
        return Response(status_code=503, headers=no_store)
    if version is None:
        return Response(status_code=410, headers=no_store)
    return PlainTextResponse(str(version), headers=no_store)


def _drawn_version(raw: str | None) -> int | None:
    """The `v=` a page sends (the version it drew), or None: then the route answers at once."""
    return int(raw) if raw is not None and raw.isascii() and raw.isdigit() and len(raw) <= 12 else None


def version_routes() -> list[Route]:
    """The routes app.py serves beside the app (st.App): the phones' version route."""
    return [Route(version_route_path() + "/{ticket}", _answer_version, methods=["GET"])]


# Runs in the phone's browser, inside the follow fragment. It asks the version route with the
# version this run drew (`?v=`); the server holds the request until the version moves (or
# follow.HOLD_SECONDS pass, then it answers the same number and the page asks again). When the
# answer differs, it triggers a rerun of the fragment (a trigger of a widget inside a fragment
# reruns only the fragment). Two asks start at least every_ms apart, whatever happens, so a
# page asks at most at the honest rate the route allows. A failed or refused request also
# triggers a rerun, so a phone whose route is unreachable (a proxy that does not pass it, a
# replica that did not issue the ticket) follows by reruns every every_ms, as every phone did
# before. The drawing's own deadline (a countdown, the new-session wait) reruns it at
# rerun_in_ms. Each rerun draws the component again with new data (its run number), which ends
# this loop (and aborts its held request) and starts the next.
_FOLLOW_JS = """
export default function (component) {
  const { data, setTriggerValue } = component;
  // Streamlit calls this function again with each run's new data, without ending the previous
  // call's loop: one loop per page, kept on the window, and the previous one stopped here.
  const slot = (window.__dplabLiveFollow = window.__dplabLiveFollow || {});
  if (slot.stop) slot.stop();
  slot.stop = null;
  if (!data || !data.url) return;
  let done = false;
  const timers = [];
  const asking = new AbortController();
  const later = (task, ms) => timers.push(setTimeout(task, Math.max(0, ms)));
  const rerun = (why) => { if (!done) setTriggerValue("rerun", why + " " + data.run); };
  const url = data.url + "?v=" + encodeURIComponent(data.version);
  const nextAsk = () => (slot.askedAt || 0) + data.every_ms - Date.now();
  async function ask() {
    if (done) return;
    slot.askedAt = Date.now();
    // The same number after a hold: ask again at once. Anything else triggers a rerun, whose
    // new run asks again; this loop asks again only every every_ms, in case the rerun is lost.
    let wait = data.every_ms;
    try {
      const response = await fetch(url, { cache: "no-store", credentials: "same-origin",
                                          signal: asking.signal });
      const text = response.ok ? (await response.text()).trim() : "";
      if (done) return;
      if (response.status === 429) {
        const retry = Number(response.headers.get("Retry-After"));
        if (retry > 0) wait = Math.max(wait, 1000 * retry);
        rerun("limited");
      } else if (!response.ok) {
        rerun("route " + response.status);
      } else if (text !== String(data.version)) {
        rerun("moved");
      } else {
        wait = 0;
      }
    } catch (error) {
      if (done) return;
      rerun("unreachable");
    }
    later(ask, Math.max(wait, nextAsk()));
  }
  later(ask, nextAsk());
  if (typeof data.rerun_in_ms === "number") later(() => rerun("due"), data.rerun_in_ms);
  const stop = () => { done = true; timers.forEach(clearTimeout); asking.abort(); };
  slot.stop = stop;
  return stop;
}
"""
_follow_component = st.components.v2.component("dplab_live_follow", js=_FOLLOW_JS)
FOLLOW_KEY = "live_follow"


def follow_changes(db: Engine, views: live.SessionCache, session_id: int,
                   current: live.View | None, rerun_in: float | None) -> None:
    """Inside the phone's follow fragment: the browser reruns it when the session's version
    moves (its request to the version route is answered), and after `rerun_in` seconds when
    the drawing changes by itself. Nothing is polled once the session is gone or over."""
    runs = st.session_state[FOLLOW_RUNS_KEY] = st.session_state.get(FOLLOW_RUNS_KEY, 0) + 1
    ticket = st.session_state.setdefault(FOLLOW_TICKET_KEY, follow.FollowTickets.new_ticket())
    following = current is not None and current.session.open
    if following:
        follow_tickets.register(ticket, session_id, views, db, time.monotonic())
    data = {"url": f"{version_route_path()}/{ticket}" if following else None,
            "version": current.session.version if current is not None else None,
            "every_ms": round(1000 * FOLLOW_SECONDS), "run": runs,
            "rerun_in_ms": None if rerun_in is None else max(100, round(1000 * rerun_in))}
    _follow_component(key=FOLLOW_KEY, data=data, on_rerun_change=lambda: None,
                      width="stretch", height="content")


# ── The device ──────────────────────────────────────────────────────────────────────────────

# Runs in the phone's browser. It keeps one random id in localStorage, so that a reload or a
# second tab of the same browser is the same device, and reports it to the server (once per
# page, and again only if it differs from what the server already knows). A browser that
# refuses storage reports kept = false; the session then gets a server-made id of its own.
# A browser whose report came too late (the session had already answered under a server-made
# id: data.keep) stores that id instead of its own and reports it, so that its next vote, its
# reload and its second tab agree with what it answered as, instead of being refused as
# another device.
_DEVICE_JS = """
export default function (component) {
  const { setStateValue, data } = component;
  const KEY = "dplab-live-device";
  const shape = /^[A-Za-z0-9_-]{16,64}$/;
  let id = null;
  let kept = false;
  try {
    id = window.localStorage.getItem(KEY);
    if (!id || !shape.test(id)) {
      const bytes = new Uint8Array(16);
      window.crypto.getRandomValues(bytes);
      id = btoa(String.fromCharCode(...bytes)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
      window.localStorage.setItem(KEY, id);
    }
    kept = window.localStorage.getItem(KEY) === id;
  } catch (error) {
    id = null;
    kept = false;
  }
  let adopted = false;
  if (data && data.keep && shape.test(data.known || "") && id !== data.known) {
    try {
      window.localStorage.setItem(KEY, data.known);
      id = data.known;
      kept = window.localStorage.getItem(KEY) === id;
      adopted = true;
    } catch (error) {
      // no storage: the server's id lives in this session only, as before
    }
  }
  if (!data || data.known !== id || !kept || adopted) {
    setStateValue("device", { id: id, kept: kept });
  }
}
"""
_device_component = st.components.v2.component("dplab_live_device", js=_DEVICE_JS)
DEVICE_KEY = "live_device"
DEVICE_WAIT_KEY = "live_device_waited"
# The identity this Streamlit session answers as, fixed the first time it is known: a session is
# one device, whatever later messages claim.
IDENTITY_KEY = "live_device_id"
# True while the session's identity is one the server made because the browser had not reported
# its own yet (a slow phone): until the session answers, a late report replaces it.
PROVISIONAL_KEY = "live_device_provisional"
# True while the identity is a stand-in the server made for a browser that had not reported yet.
# Once final (it answered), the browser is asked to keep it (_DEVICE_JS, data.keep); until it
# has, its late report of its own id is not a claim to be another device.
STAND_IN_KEY = "live_device_stand_in"
# Links made before issue 25 carried the device id (dev=). A link travels: whoever opens a copied
# one would inherit the sender's votes. So the parameter is never read, and leaves the address.
OLD_DEVICE_PARAM = "dev"

def _reported(value) -> dict | None:
    """The component's report ({"id": …, "kept": …}) from its state, or None."""
    reported = value.get("device") if hasattr(value, "get") else None
    return reported if isinstance(reported, dict) else None


def _report() -> dict | None:
    known = st.session_state.get(IDENTITY_KEY)
    final = known is not None and not st.session_state.get(PROVISIONAL_KEY, False)
    result = _device_component(key=DEVICE_KEY, data={"known": known, "keep": final},
                               default={"device": None},
                               on_device_change=lambda: None, width="stretch", height="content")
    return _reported(result)


def _usable(reported: dict | None) -> str | None:
    """The id of a report from a browser that keeps it in its storage (None otherwise)."""
    if reported and reported.get("kept") and live.plausible_device_id(reported.get("id")):
        return reported["id"]
    return None


def device_id(*, settle: bool = False) -> str | None:
    """This session's device id, or None while the browser has not reported one yet.

    The first id the session learns is kept for the rest of the session (IDENTITY_KEY): the one
    in the browser's localStorage, or, from a browser without storage (or after DEVICE_WAIT_TICKS
    without a report, or at once with `settle`), one the server makes for this session alone.
    A server-made id stands in for a slow browser's report only until the session answers
    (PROVISIONAL_KEY, answering). A `dev=` in the link is dropped unread (OLD_DEVICE_PARAM).
    """
    reported = _report()
    if OLD_DEVICE_PARAM in st.query_params:
        del st.query_params[OLD_DEVICE_PARAM]
    pinned = st.session_state.get(IDENTITY_KEY)
    if _usable(reported) and (pinned is None or st.session_state.get(PROVISIONAL_KEY)):
        pinned = _usable(reported)
        st.session_state[PROVISIONAL_KEY] = st.session_state[STAND_IN_KEY] = False
    elif pinned is None:
        if not (reported or settle or st.session_state.get(DEVICE_WAIT_KEY, 0) >= DEVICE_WAIT_TICKS):
            return None
        pinned = live.new_device_id()  # no storage, or no report yet: this session only
        st.session_state[PROVISIONAL_KEY] = not reported  # a late report may still replace it
        st.session_state[STAND_IN_KEY] = not reported
    st.session_state[IDENTITY_KEY] = pinned
    return pinned


def answering() -> None:
    """Called by every path that stores an answer, before it stores: from now on the session's
    identity is final, even if it was a provisional one."""
    st.session_state[PROVISIONAL_KEY] = False


def claims_another_device() -> bool:
    """True when the message being handled claims a device other than the session's own: the
    browser's report (a script can send any) or a `dev=` in the link. For answer callbacks,
    which run before the page reads the report: such an answer is refused and counted."""
    pinned = st.session_state.get(IDENTITY_KEY)
    if pinned is None:
        return False
    reported = _usable(_reported(st.session_state.get(DEVICE_KEY)))
    if reported and st.session_state.get(PROVISIONAL_KEY):  # a slow browser's first report
        st.session_state[IDENTITY_KEY] = pinned = reported
        st.session_state[PROVISIONAL_KEY] = st.session_state[STAND_IN_KEY] = False
    elif st.session_state.get(STAND_IN_KEY):  # a late report, before the browser adopts ours
        reported = None
    claims = {reported, st.query_params.get(OLD_DEVICE_PARAM)} - {None}
    return any(claim != pinned for claim in claims)


def current_device() -> str | None:
    """The session's device id as it stands now (in a callback: after claims_another_device)."""
    return st.session_state.get(IDENTITY_KEY)


DEVICE_WAIT_TICKS = 3


@st.fragment(run_every=2)
def wait_for_device() -> None:
    """Shown until the browser reports its device id; after a few seconds without a report the
    page makes one for this session."""
    waited = st.session_state.get(DEVICE_WAIT_KEY, 0) + 1
    st.session_state[DEVICE_WAIT_KEY] = waited
    if waited > DEVICE_WAIT_TICKS:
        st.rerun()
    st.info("Connecting this device…", icon="📱")


# ── Quizzes ─────────────────────────────────────────────────────────────────────────────────

def quiz_lessons() -> list[Lesson]:
    """The lessons that have quizzes, in course order."""
    return [lesson for lesson in LESSONS
            if (lessons.LESSON_DIR / f"{lesson.slug}.quiz.toml").is_file()]


def quiz_ref(slug: str, quiz_id: str) -> str:
    return f"{slug}/{quiz_id}"


def push_lesson_quiz(session_id: int, slug: str, quiz_id: str) -> live.Question:
    """Ask the class a lesson's quiz: a snapshot of it becomes the session's current question."""
    quiz = lessons.quizzes(slug)[quiz_id]
    question = live.push_quiz(engine(), session_id, quiz_ref(slug, quiz_id), quiz.question,
                              list(quiz.options), quiz.answer, quiz.explanation)
    published(session_id)
    return question


# ── The instructor's session in this browser ────────────────────────────────────────────────

def admin_record() -> dict:
    return st.session_state.get(ADMIN_KEY) or {}


def instructor_session() -> live.Session | None:
    """The open live session this browser session controls (checked against the database)."""
    admin = admin_record()
    if not admin.get("code") or not admin.get("token"):
        return None
    with database_guard():
        session = live.session_for_admin(engine(), admin["code"], admin["token"])
    return session if session is not None and session.open else None


def ask_the_class(slug: str, quiz_id: str) -> None:
    """Beside a lesson quiz: a button that pushes it to the live class. Renders nothing unless
    this browser session runs an open live session (so students never see it)."""
    if not admin_record():
        return
    session = instructor_session()
    if session is None:
        return
    key = f"{slug}_quiz_{quiz_id}_ask"
    current = session_cache().view(engine(), session.id)
    asked = (current is not None and current.question is not None
             and current.question.ref == quiz_ref(slug, quiz_id))
    ask, status = st.columns([1, 3], vertical_alignment="center")
    if ask.button("📣 Ask the class" if not asked else "📣 Ask again", key=key,
                  help=f"Show this quiz on every phone of live session {session.code}."):
        with database_guard():
            push_lesson_quiz(session.id, slug, quiz_id)
        asked = True
    if asked:
        status.page_link(f"app_pages/{INSTRUCTOR_SLUG}.py", icon="📡",
                         label=f"Live on the phones of session {session.code}: votes and reveal")
