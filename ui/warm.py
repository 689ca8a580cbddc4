"""Warm the slowest first visits once per server process, in the background (issue 16).

A page's caches are process-wide (st.cache_data / st.cache_resource), so the first student
to move a slider to a value pays for everyone: on the graphs page a new network size costs
a graph's statistics and its spring layout, on the machine-learning page a new n a ridge fit
and its membership attack, 50–100 ms of CPU on the server's one core while every other
session waits. Here the server visits those pages itself, soon after it starts, at every
value of their main slider (other settings and the seed at their defaults, which is where a
class starts), so that those first visits find the caches full.

The visit is a real session of the running server with a client that discards what it is
sent (Streamlit's Runtime, as a browser's websocket would open it): the page's own code runs,
with the same arguments as a student's, so nothing here repeats a page's internals. Each
value is one page run in a session of its own, one after another, in a script thread like any session's: the GIL
is shared with real sessions from the first second, and the whole walk takes about 10 s
of CPU once per process (4-5 s the decks, 4-5 s the sliders).

First, it opens every lesson's deck once at its defaults (present=1, at the title slide),
as a lecturer's link does: a deck runs all of its page, the steps off screen included (every
tab of a page with tabs), and learns the steps its demos span, so the first lecturer or
student on a page finds its modules imported and its caches full at the default settings
(issue 27: a deck's title slide cost a fresh server 0.4-1.7 s of CPU, a warm one 0.1-0.2 s;
docs/PERFORMANCE.md, "Presenter deck"). The class pages are left out: they show the class's
own state (the database), with nothing slow to compute.

It starts from app.py on the first run of any session, so it works under a plain
`streamlit run app.py` (Community Cloud) as under `python -m serve`. DPLAB_WARM=0 turns it
off. It never runs under AppTest (no real Runtime there), and a failure only logs.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import urllib.parse

from streamlit.logger import get_logger
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime import Runtime

from ui.course import LESSONS

DECKS = tuple(lesson.slug for lesson in LESSONS if lesson.section != "Classroom")  # at defaults
WARM_PAGES = ("graphs", "machine-learning")  # at every value of the main slider
START_DELAY = 2.0  # seconds after the first session's run: let it draw first
RUN_TIMEOUT = 120.0
MAIN = 0  # delta_path[0] of the main area

_LOG = get_logger(__name__)  # Streamlit's handler: the server's log shows it
_lock = threading.Lock()
_started = False
done = threading.Event()  # set when the walk has finished (or given up); for tests
visited: dict[str, list[str]] = {}  # page -> main-slider values it was run at
opened: list[str] = []  # the decks opened at their defaults


class _Discard:
    """A SessionClient that takes the page's messages as a browser would, and keeps only
    what the walk needs: the main slider, and when each run has finished."""

    def __init__(self) -> None:
        self.finished = asyncio.Event()
        self.status: int | None = None
        self.slider = None  # (delta_path, proto) of the first slider in the main area

    def write_forward_msg(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            path = tuple(msg.metadata.delta_path)
            if (element.WhichOneof("type") == "slider" and path and path[0] == MAIN
                    and element.slider.query_param_key
                    and (self.slider is None or path < self.slider[0])):
                self.slider = (path, element.slider)
        elif kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            self.status = msg.script_finished
            self.finished.set()

    @property
    def client_context(self):
        return None


def _real_runtime() -> Runtime | None:
    if not Runtime.exists():
        return None
    runtime = Runtime.instance()
    return runtime if type(runtime) is Runtime else None  # AppTest installs a stand-in


def start() -> bool:
    """Start the walk once per process (app.py calls this on every run); True if it started."""
    global _started
    if os.environ.get("DPLAB_WARM", "1") == "0":
        return False
    with _lock:
        if _started:
            return False
        runtime = _real_runtime()
        if runtime is None:
            return False
        _started = True
    try:
        loop = runtime._get_async_objs().eventloop  # noqa: SLF001 (sessions live on this loop)
        asyncio.run_coroutine_threadsafe(_walk(runtime), loop)
    except Exception:  # noqa: BLE001 - a warm-up must never break the app
        _LOG.warning("DP Lab warm-up did not start", exc_info=True)
        done.set()
        return False
    return True


async def _run(runtime: Runtime, session_id: str, client: _Discard, slug: str,
               query: dict[str, str]) -> None:
    message = BackMsg()
    message.rerun_script.page_name = slug
    message.rerun_script.query_string = urllib.parse.urlencode(query)
    client.finished.clear()
    runtime.handle_backmsg(session_id, message)
    await asyncio.wait_for(client.finished.wait(), RUN_TIMEOUT)
    if client.status not in (ForwardMsg.FINISHED_SUCCESSFULLY,
                             ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
        raise RuntimeError(f"{slug} at {query}: script finished with status {client.status}")


async def _visit(runtime: Runtime, slug: str, query: dict[str, str]) -> _Discard:
    """One page run in a session of its own, as a browser opening the link would."""
    client = _Discard()
    session_id = runtime.connect_session(client=client, user_info={})
    try:
        await _run(runtime, session_id, client, slug, query)
    finally:
        runtime.close_session(session_id)
    return client


async def _walk(runtime: Runtime) -> None:
    try:
        await asyncio.sleep(START_DELAY)
        started = time.process_time(), time.monotonic()
        for slug in DECKS:
            await _visit(runtime, slug, {"present": "1"})
            opened.append(slug)
        decks = time.process_time() - started[0]
        for slug in WARM_PAGES:
            first = await _visit(runtime, slug, {})
            if first.slider is None:
                continue
            proto = first.slider[1]
            visited[slug] = []
            for value in proto.options:  # select sliders: the labels a link carries
                await _visit(runtime, slug, {proto.query_param_key: value})
                visited[slug].append(f"{proto.query_param_key}={value}")
        _LOG.info("DP Lab warm-up done: decks %s; %s (%.1f s of process CPU, %.1f of it the "
                  "decks; %.1f s)", ", ".join(opened),
                  "; ".join(f"{slug} at {', '.join(values)}" for slug, values in visited.items()),
                  time.process_time() - started[0], decks, time.monotonic() - started[1])
    except Exception:  # noqa: BLE001 - a warm-up must never break the app
        _LOG.warning("DP Lab warm-up stopped early", exc_info=True)
    finally:
        done.set()
