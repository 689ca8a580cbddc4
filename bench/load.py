"""A lecture hall against one server: concurrent sessions moving sliders, and session churn.

    python bench/load.py load  [--sessions 25 50 100 200] [--moves 15] [--max-seconds 300]
                               [--replicas N [--nginx]] [--every 2]
    python bench/load.py churn [--minutes 30] [--concurrent 25] [--lifetime 20]
    python bench/load.py single [--moves 15]
    python bench/load.py validate [slug ...]
    python bench/load.py live  [--phones 300] [--idle-seconds 20] [--vote-seconds 20]
    python bench/load.py lecture [--phones 300] [--voters 250] [--laptops 60] [--pushes 3]
                               [--push-every 60] [--vote-within 20] [--lesson randomized-response]

Each session is a lightweight websocket client speaking Streamlit's own protocol (protobuf
BackMsg / ForwardMsg over ws://127.0.0.1:PORT/_stcore/stream), not a browser: 200 Chromium
tabs on 2 cores would measure Chromium. A session sends what the browser sends (checked by
`validate`): a first rerun_script naming the page, then, for every slider move, a rerun with
the state of every widget on the page (each at the value the browser would hold), the moved
slider's new value, the page's script hash, the fragment the slider lives in (so only that
demo reruns, as in the browser), the query string the browser would show, and the hashes of
the cached messages it already holds.

"Time until the update" is server-side: from sending the move until the server's
script_finished message, so it includes queueing behind other sessions, the rerun, and
sending every delta. The browser's drawing is not included (bench/browser.py measures that).

`load`: for each N, a fresh server (the repo's .streamlit/config.toml), warmed by one visit
of every page. N sessions open (ramped, `--ramp-per-second`), each on a page of the mix
(every lesson page with a slider in the main area, round robin); after they idle, the
server's resident memory gives MB per idle session. Then every session moves its page's
main slider every 2 s (`--every`; a move still in flight when the next is due skips that turn),
walking to the end of the range and back, for `--moves` moves or `--max-seconds`. Reports
p50 / p95 of the move latency, errors (exceptions on the page, compile errors, timeouts,
dropped connections), and server CPU.

`single`: one session at a time on each page: move latency and the server's CPU time
per move, which bounds how many moves per second one server process can serve.

`churn`: sessions that come and go for `--minutes`: `--concurrent` sessions at a time, each
living about `--lifetime` seconds (±50 %) while moving its slider every 2 s, then closing
and being replaced. Server RSS is sampled every `--sample-seconds`. Streamlit keeps a closed
session for reconnection for server.disconnectedSessionTTL (120 s, at most 128 sessions),
so memory should rise for the first minutes and then stay flat; the report gives RSS per
minute and the slope over the second half of the run.

`live`: a lecture hall on the live class. One server, one live session, N phones on the join
page (`--phones`, default 300), each following as the browser does (Follower: it holds a
request to the version route, which the server answers when the version moves, and reruns its
`follow` fragment only when the version moved or the drawing is due; `--follow route` asks
every 2 s instead, as the browser did when the route came, and `--follow tick` reruns every 2 s,
as phones did before issue 28),
plus the instructor's projector (every second). Reports the server's CPU
while the phones wait, the publish-to-phone latency of a quiz pushed through the database
(the worst case: as from another replica, so this process sees it only when its cached view
is half a second old), and, with every phone voting once within `--vote-seconds`, tap-to-
confirmed and tap-to-projector latency. The client does not run the page's JavaScript, so a
phone sends its device id as the browser's device component would (report_device).

`lecture`: all of a lecture at once, on one server process. The phones join and follow
while only the projector (the instructor page's view=projector) is open: the server's CPU
then is the idle phones' cost. Then `--laptops` sessions move the lesson's main slider every
2 s, and the instructor pushes `--pushes` quizzes `--push-every` s apart (through the
database, as another replica would: the worst case); after each, `--voters` phones tap an
option at a random moment within `--vote-within` s. Reports push → phone shows it, vote →
projector count, slider move → reply (p95 each), the idle phones' CPU, errors and skipped
beats (a phone's request or rerun, or a laptop's move, still running when the next was due). A quick check:
`lecture --phones 60 --voters 50 --laptops 12 --pushes 2 --push-every 30`.

Loopback only; every loop is bounded in count and in time.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import math
import os
import random
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ui.course import HOME, LESSONS  # noqa: E402

# The lesson pages, each with a slider in its main area. Left out: home (no slider) and the
# class-poll pages (section "Classroom"): no slider either; their load is a hall of phones
# answering at once, which writes to the poll database rather than rerunning a demo.
SLIDER_PAGES = [lesson.slug for lesson in LESSONS
                if lesson is not HOME and lesson.section != "Classroom"]

MOVE_EVERY = 2.0  # seconds between one session's slider moves
RUN_TIMEOUT = 60.0  # a rerun slower than this counts as an error
FINISHED_OK = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
MAIN, SIDEBAR = 0, 1  # the root containers of delta paths
MAX_CACHED_MESSAGE_AGE = 2  # Streamlit's global.maxCachedMessageAge default


class SessionError(Exception):
    """Something a user would have noticed: an exception on the page, a dead connection."""


# ── The server ────────────────────────────────────────────────────────────────────────────────


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_serving(port: int, server: subprocess.Popen, timeout: float = 60,
                       detail=lambda: "") -> None:
    """Wait until the Streamlit server on loopback `port` answers its health check. If it exits
    or takes longer than `timeout` s, kill it and raise, with `detail()` (e.g. its log)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
            return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError(f"streamlit did not start: {detail()}") from None
            time.sleep(0.3)


# Extra `streamlit run` options (--option name=value), to measure a candidate fix.
SERVER_OPTIONS: list[str] = []


@contextlib.contextmanager
def streamlit_server():
    """`streamlit run app.py` on loopback, with the repo's .streamlit/config.toml (cwd)."""
    port = free_port()
    log = tempfile.TemporaryFile()  # a pipe nobody reads would block a chatty server
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", *SERVER_OPTIONS],
        cwd=ROOT, stdout=log, stderr=log,
    )

    def server_log() -> str:
        log.seek(0)
        return log.read().decode(errors="replace")

    try:
        wait_until_serving(port, server, detail=server_log)
        _wait_for_warm_up(port, server_log)
        print(f"(server pid {server.pid}, port {port})", file=sys.stderr, flush=True)  # for py-spy
        yield server.pid, port
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


WARM_UP_DONE = "DP Lab warm-up done"  # ui/warm.py's log line


def _wait_for_warm_up(port: int, server_log, timeout: float = 120) -> None:
    """The server warms its slowest caches once, after its first session (ui/warm.py): start
    that with one visit and wait for it, so that its CPU is not counted in what is measured."""
    if os.environ.get("DPLAB_WARM", "1") == "0":
        return

    async def visit() -> None:
        session = Session(port, "")
        await session.open()
        await session.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # callers may be in a running loop
        pool.submit(asyncio.run, visit()).result()
    deadline = time.monotonic() + timeout
    while WARM_UP_DONE not in server_log():
        if "warm-up stopped early" in server_log() or time.monotonic() > deadline:
            raise RuntimeError(f"the server's warm-up did not finish: {server_log()[-2000:]}")
        time.sleep(0.3)


@contextlib.contextmanager
def nginx_deployment(replicas: int):
    """deploy/replicas.py's set-up: replicas (python -m serve) behind nginx on free ports.
    Yields (replica pids, replica ports, [nginx port], nginx master pid). The lesson pages
    need no database; the poll's goes to $DPLAB_DATABASE_URL, or a temporary SQLite file."""
    from deploy.replicas import deployment

    with tempfile.TemporaryDirectory(prefix="dplab-load.") as scratch:
        base = free_port_block(replicas)
        database = os.environ.get("DPLAB_DATABASE_URL") or f"sqlite:///{scratch}/poll.sqlite3"
        with deployment(replicas, f"127.0.0.1:{free_port()}", base, database,
                        streamlit_options=tuple(SERVER_OPTIONS), log_to=Path(scratch)) as running:
            print(f"(nginx {running.url}, pid {running.nginx_pid}; replicas "
                  f"{running.replica_pids} on {running.replica_ports})", file=sys.stderr, flush=True)
            yield (running.replica_pids, running.replica_ports,
                   [int(running.url.rsplit(":", 1)[1])], running.nginx_pid)


def free_port_block(count: int) -> int:
    """The first of `count` consecutive free loopback ports."""
    for _ in range(200):
        base = random.randint(20_000, 60_000)
        with contextlib.ExitStack() as stack:
            try:
                for port in range(base, base + count):
                    stack.enter_context(socket.socket()).bind(("127.0.0.1", port))
            except OSError:
                continue
        return base
    raise RuntimeError("no block of free ports")


def nginx_cpu_seconds(master: int) -> float:
    """CPU time of nginx's master and its (live) worker processes."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return cpu_seconds(master) + sum(cpu_seconds(int(pid)) for pid in children)


def rss_mb(pid: int) -> float:
    """Resident memory of the server process, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS line")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the server process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ── One browser-like session ──────────────────────────────────────────────────────────────────


@dataclass
class Widget:
    kind: str  # the element type: slider, checkbox, radio, ...
    proto: object  # the widget's element proto as last sent
    fragment_id: str
    path: tuple[int, ...]


@dataclass
class Session:
    port: int
    slug: str
    widgets: dict[str, Widget] = field(default_factory=dict)
    values: dict[str, WidgetState] = field(default_factory=dict)
    cache: dict[str, ForwardMsg] = field(default_factory=dict)  # what the browser caches
    last_used: dict[str, int] = field(default_factory=dict)  # hash -> run it was last used in
    runs: int = 0
    query: dict[str, str] = field(default_factory=dict)
    page_script_hash: str = ""
    charts: dict[tuple[int, ...], str] = field(default_factory=dict)  # path -> plotly spec
    slider_id: str | None = None
    direction: int = 1
    ws: object = None
    last_sent: BackMsg | None = None
    cookie: str = ""  # sent with the websocket handshake, e.g. nginx's route cookie (--nginx)
    replica: str = ""  # the X-DPLab-Replica header of the handshake's answer, behind nginx
    elements: int = 0  # deltas (elements, blocks, references to cached ones) in the last run
    blocks: int = 0  # of which blocks (columns, containers, expanders, popovers)
    fragments: dict[str, float] = field(default_factory=dict)  # run_every fragments: id -> seconds
    texts: list[str] = field(default_factory=list)  # markdown and alert bodies of the last run

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/{self.slug}"

    async def open(self) -> float:
        """Connect and run the page once, as a browser tab opening the link; returns seconds."""
        self.ws = await asyncio.wait_for(connect(
            f"ws://127.0.0.1:{self.port}/_stcore/stream", subprotocols=["streamlit"],
            additional_headers={"Cookie": self.cookie} if self.cookie else None,
            max_size=None, open_timeout=RUN_TIMEOUT), RUN_TIMEOUT)
        self.replica = self.ws.response.headers.get("X-DPLab-Replica", "")
        message = BackMsg()
        message.rerun_script.page_name = self.slug
        message.rerun_script.query_string = urllib.parse.urlencode(self.query)
        self._add_context(message)
        seconds = await self._run(message)
        self.slider_id = self.main_slider()
        return seconds

    async def rerun_fragment(self, fragment_id: str, clicked: str | None = None,
                             event: tuple[str, str, str] | None = None) -> float:
        """Rerun one fragment, as the browser does every run_every seconds (is_auto_rerun), or
        with a button of it clicked, or with a component's trigger `event` (component id, event
        name, value: what the component's setTriggerValue sends); returns seconds."""
        message = BackMsg()
        client_state = message.rerun_script
        client_state.query_string = urllib.parse.urlencode(self.query)
        client_state.page_script_hash = self.page_script_hash
        client_state.fragment_id = fragment_id
        client_state.is_auto_rerun = clicked is None and event is None
        client_state.widget_states.widgets.extend(self.values.values())
        if clicked is not None:
            client_state.widget_states.widgets.append(WidgetState(id=clicked, trigger_value=True))
        if event is not None:
            component, name, value = event
            client_state.widget_states.widgets.append(WidgetState(
                id=_make_trigger_id(component, "events"),
                json_trigger_value=json.dumps([{"event": name, "value": value}])))
        client_state.cached_message_hashes.extend(sorted(self.cache))
        self._add_context(message)
        self.last_sent = message
        return await self._run(message)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    def main_slider(self) -> str | None:
        """The first slider of the main area, as a reader meets it (delta-path order)."""
        sliders = [(w.path, wid) for wid, w in self.widgets.items()
                   if w.kind == "slider" and w.path[0] == MAIN]
        return min(sliders)[1] if sliders else None

    def position(self):
        """The main slider's current value (hashable)."""
        state = self.values[self.slider_id]
        if state.HasField("string_array_value"):
            return tuple(state.string_array_value.data)
        return tuple(state.double_array_value.data)

    async def move(self) -> float:
        """One step of the main slider (to the end of its range, then back); returns seconds."""
        widget = self.widgets[self.slider_id]
        slider = widget.proto
        state = self.values[self.slider_id]
        if slider.options:
            index = list(slider.options).index(state.string_array_value.data[0])
            if not 0 <= index + self.direction < len(slider.options):
                self.direction *= -1
            label = slider.options[index + self.direction]
            state.string_array_value.data[:] = [label]
            link_value = label
        else:
            value = state.double_array_value.data[0]
            if not slider.min <= value + self.direction * slider.step <= slider.max:
                self.direction *= -1
            value += self.direction * slider.step
            state.double_array_value.data[:] = [value]
            link_value = str(int(value)) if float(value).is_integer() else repr(value)
        if slider.query_param_key:
            self.query[slider.query_param_key] = link_value
        message = BackMsg()
        client_state = message.rerun_script
        client_state.query_string = urllib.parse.urlencode(self.query)
        client_state.page_script_hash = self.page_script_hash
        client_state.fragment_id = widget.fragment_id
        client_state.widget_states.widgets.extend(self.values.values())
        client_state.cached_message_hashes.extend(sorted(self.cache))
        self._add_context(message)
        self.last_sent = message
        return await self._run(message)

    def _add_context(self, message: BackMsg) -> None:
        context = message.rerun_script.context_info
        context.timezone, context.timezone_offset, context.locale = "UTC", 0, "en-US"
        context.url, context.color_scheme = self.url, "light"

    async def _run(self, message: BackMsg) -> float:
        start = time.perf_counter()
        await self.ws.send(message.SerializeToString())
        started = False
        self.elements = 0
        self.blocks = 0
        self.texts = []
        async with asyncio.timeout(RUN_TIMEOUT):
            while True:
                forward = ForwardMsg()
                forward.ParseFromString(await self.ws.recv())
                if forward.WhichOneof("type") == "ref_hash":
                    self.last_used[forward.ref_hash] = self.runs
                    forward = resolve_reference(forward, self.cache)
                    self.elements += 1
                elif forward.WhichOneof("type") == "delta":
                    self.elements += 1
                kind = forward.WhichOneof("type")
                if kind == "new_session":
                    started = True
                elif kind == "navigation":
                    self.page_script_hash = forward.navigation.page_script_hash
                elif kind == "delta":
                    self.blocks += forward.delta.WhichOneof("type") == "add_block"
                    self._take_delta(forward)
                elif kind == "auto_rerun":
                    self.fragments[forward.auto_rerun.fragment_id] = forward.auto_rerun.interval
                elif kind == "script_finished" and started:
                    if forward.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                        continue  # a callback asked for another run (e.g. st.rerun(scope=keys))
                    self._age_cache()
                    if forward.script_finished not in FINISHED_OK:
                        raise SessionError(f"{self.slug}: script finished with status "
                                           f"{forward.script_finished}")
                    return time.perf_counter() - start

    def _age_cache(self) -> None:
        """Forget cached messages unused for more than MAX_CACHED_MESSAGE_AGE runs, as the
        browser does (global.maxCachedMessageAge, sent to it in NewSession)."""
        self.runs += 1
        for message_hash, run in list(self.last_used.items()):
            if self.runs - run > MAX_CACHED_MESSAGE_AGE:
                del self.cache[message_hash], self.last_used[message_hash]

    def _take_delta(self, forward: ForwardMsg) -> None:
        if forward.metadata.cacheable:
            self.cache[forward.hash] = forward
            self.last_used[forward.hash] = self.runs
        delta = forward.delta
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        path = tuple(forward.metadata.delta_path)
        if kind == "exception":
            raise SessionError(f"{self.slug}: exception on the page: {element.exception.message}")
        if kind == "plotly_chart":
            self.charts[path] = element.plotly_chart.spec
            return
        if kind in ("markdown", "alert"):
            self.texts.append(getattr(element, kind).body)
            return
        proto = getattr(element, kind)
        widget_id = getattr(proto, "id", "")
        if not widget_id or not hasattr(proto, "form_id"):
            return
        self.widgets[widget_id] = Widget(kind, proto, delta.fragment_id, path)
        if widget_id not in self.values or getattr(proto, "set_value", False):
            state = initial_state(widget_id, kind, proto)
            if state is not None:
                self.values[widget_id] = state


def resolve_reference(reference: ForwardMsg, cache: dict[str, ForwardMsg]) -> ForwardMsg:
    """A message the server sent by hash, because the client said it holds it already."""
    forward = ForwardMsg()
    forward.CopyFrom(cache[reference.ref_hash])
    forward.metadata.CopyFrom(reference.metadata)
    return forward


def initial_state(widget_id: str, kind: str, proto) -> WidgetState | None:
    """The value the browser holds for a widget it has just drawn (None: it sends nothing).

    Buttons send a trigger only when clicked; a radio or select box with no preselected
    option is sent as an id with no value, as the browser does for the quizzes.
    """
    state = WidgetState(id=widget_id)
    if kind == "slider":
        values = proto.value if proto.set_value else proto.default
        if proto.options:
            state.string_array_value.data.extend(proto.options[int(i)] for i in values)
        else:
            state.double_array_value.data.extend(values)
    elif kind == "checkbox":
        state.bool_value = proto.value if proto.set_value else proto.default
    elif kind == "number_input":
        value = proto.value if proto.set_value else proto.default
        if proto.data_type == proto.INT:
            state.int_value = int(value)
        else:
            state.double_value = value
    elif kind in ("radio", "selectbox"):
        if proto.set_value and proto.raw_value:
            state.string_value = proto.raw_value
        elif proto.HasField("default"):
            state.string_value = proto.options[proto.default]
    elif kind == "button_group":  # pills and segmented controls: the chosen labels
        if proto.set_value:
            state.string_array_value.data.extend(proto.raw_values)
        else:
            state.string_array_value.data.extend(proto.options[i].content for i in proto.default)
    elif kind in ("text_input", "text_area"):
        state.string_value = proto.value if proto.set_value else proto.default
    elif kind in ("button", "download_button", "link_button", "dataframe", "bidi_component"):
        # A dataframe without row selection holds no state; a component (the live class's
        # device id) sends its state only once its JavaScript reports, which this client has not.
        return None
    else:
        raise SessionError(f"the load client does not know the {kind} widget yet")
    return state


# ── Pages, statistics, output ─────────────────────────────────────────────────────────────────


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


async def _stopped_before(wake: float, stop: asyncio.Event) -> bool:
    """Sleep until the monotonic time `wake`; True if `stop` was set first."""
    if wake <= time.monotonic():
        return False
    try:
        await asyncio.wait_for(stop.wait(), wake - time.monotonic())
        return True
    except TimeoutError:
        return False


async def pages_with_sliders(port: int, visited: dict[str, set] | None = None,
                             only: list[str] | None = None) -> list[str]:
    """Every lesson page whose main area has a slider (or those of `only`); visiting them also
    warms the server. `visited` collects, per page, the main slider's values shown."""
    slugs = []
    for slug in only or SLIDER_PAGES:
        session = Session(port, slug)
        await session.open()
        if session.slider_id:
            slugs.append(slug)
            seen = {session.position()}
            for _ in range(3):  # the first moves import and fill caches
                await session.move()
                seen.add(session.position())
            if visited is not None:
                visited[slug] = seen
        await session.close()
    return slugs


async def ramp_open(ports: list[int], slugs: list[str], count: int, per_second: float,
                    errors: list[str], cookies: bool = False) -> tuple[list[Session], list[float]]:
    sessions = [Session(ports[i % len(ports)], slugs[i % len(slugs)],
                        cookie=f"dplab_route={secrets.token_hex(16)}" if cookies else "")
                for i in range(count)]

    async def open_one(i: int, session: Session) -> float | None:
        await asyncio.sleep(i / per_second)
        try:
            return await session.open()
        except (SessionError, OSError, TimeoutError, Exception) as error:  # noqa: BLE001
            errors.append(f"open {session.slug}: {type(error).__name__}: {error}")
            await session.close()
            return None

    opened = await asyncio.gather(*(open_one(i, s) for i, s in enumerate(sessions)))
    alive = [s for s, t in zip(sessions, opened, strict=True) if t is not None]
    return alive, [t for t in opened if t is not None]


async def move_every_two_seconds(session: Session, moves: int, stop_at: float,
                                 latencies: list[float], errors: list[str],
                                 skipped: list[int]) -> None:
    """Move on a fixed 2 s beat from a random phase; a move still running skips a beat."""
    next_at = time.monotonic() + random.uniform(0, MOVE_EVERY)
    for _ in range(moves):
        delay = next_at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        if time.monotonic() >= stop_at:
            return
        try:
            latencies.append(await session.move())
        except Exception as error:  # noqa: BLE001 (every failure is reported, none is fatal)
            errors.append(f"move {session.slug}: {type(error).__name__}: {error}")
            return
        next_at += MOVE_EVERY
        while next_at < time.monotonic():
            next_at += MOVE_EVERY
            skipped[0] += 1


async def load_run(count: int, moves: int, max_seconds: float, per_second: float,
                   idle_seconds: float, replicas: int = 1, nginx: bool = False) -> dict:
    """One load level. With replicas > 1, that many servers share the sessions round robin,
    as a load balancer with sticky sessions would; RSS and CPU are then their sums.
    With nginx, the replicas run behind deploy/replicas.py's nginx and every session goes
    through it with its own route cookie, as a browser would."""
    with contextlib.ExitStack() as stack:
        proxy_pid = None
        if nginx:
            pids, ports, entry, proxy_pid = stack.enter_context(nginx_deployment(replicas))
        else:
            servers = [stack.enter_context(streamlit_server()) for _ in range(replicas)]
            pids, ports = [pid for pid, _ in servers], [port for _, port in servers]
            entry = ports
        for port in ports:
            slugs = await pages_with_sliders(port)
        await asyncio.sleep(idle_seconds)
        base_rss = sum(map(rss_mb, pids))
        errors: list[str] = []
        sessions, open_times = await ramp_open(entry, slugs, count, per_second, errors, nginx)
        await asyncio.sleep(idle_seconds)
        idle_rss = sum(map(rss_mb, pids))
        latencies: list[float] = []
        skipped = [0]
        cpu_before, wall_before = sum(map(cpu_seconds, pids)), time.monotonic()
        proxy_before = nginx_cpu_seconds(proxy_pid) if proxy_pid else 0.0
        client_before = time.process_time()
        stop_at = time.monotonic() + max_seconds
        await asyncio.gather(*(move_every_two_seconds(s, moves, stop_at, latencies, errors, skipped)
                               for s in sessions))
        wall = time.monotonic() - wall_before
        server_cpu = (sum(map(cpu_seconds, pids)) - cpu_before) / wall
        proxy_cpu = (nginx_cpu_seconds(proxy_pid) - proxy_before) / wall if proxy_pid else None
        per_replica = {r: sum(s.replica == r for s in sessions)
                       for r in sorted({s.replica for s in sessions})}
        client_cpu = (time.process_time() - client_before) / wall
        busy_rss = sum(map(rss_mb, pids))
        await asyncio.gather(*(s.close() for s in sessions))
    return {
        "sessions": count, "replicas": replicas, "pages": slugs, "opened": len(sessions),
        "open_p50": statistics.median(open_times) if open_times else math.nan,
        "open_p95": percentile(open_times, 0.95) if open_times else math.nan,
        "moves": len(latencies),
        "p50": statistics.median(latencies) if latencies else math.nan,
        "p95": percentile(latencies, 0.95) if latencies else math.nan,
        "max": max(latencies) if latencies else math.nan,
        "skipped": skipped[0], "errors": errors,
        "base_rss": base_rss, "idle_rss": idle_rss, "busy_rss": busy_rss,
        "per_session_mb": (idle_rss - base_rss) / max(1, len(sessions)),
        "server_cpu": server_cpu, "client_cpu": client_cpu, "seconds": wall,
        "proxy_cpu": proxy_cpu, "per_replica": per_replica if nginx else None,
    }


def print_load(rows: list[dict]) -> None:
    print(f"Pages in the mix: {', '.join(rows[0]['pages'])}"
          + (f"; {rows[0]['replicas']} server processes" if rows[0]["replicas"] > 1 else "")
          + ("; behind nginx (deploy/replicas.py)" if rows[0]["proxy_cpu"] is not None else "")
          + f"; a move every {MOVE_EVERY:g} s per session")
    print(f"{'sessions':>8}{'moves':>7}{'/s':>6}{'p50 ms':>8}{'p95 ms':>8}{'max ms':>8}{'skipped':>8}"
          f"{'errors':>7}{'open p95':>9}{'MB/idle':>8}{'RSS MB':>16}{'server CPU':>11}"
          f"{'client CPU':>11}")
    for row in rows:
        rss = f"{row['base_rss']:.0f}/{row['idle_rss']:.0f}/{row['busy_rss']:.0f}"
        print(f"{row['sessions']:>8}{row['moves']:>7}{row['moves'] / row['seconds']:>6.1f}"
              f"{1000 * row['p50']:>8.0f}"
              f"{1000 * row['p95']:>8.0f}{1000 * row['max']:>8.0f}{row['skipped']:>8}"
              f"{len(row['errors']):>7}{1000 * row['open_p95']:>9.0f}"
              f"{row['per_session_mb']:>8.2f}{rss:>16}{row['server_cpu']:>10.2f}c"
              f"{row['client_cpu']:>10.2f}c")
    print("/s: moves completed per second (all sessions). "
          "Latency: move sent → script_finished received (server side). skipped: beats a "
          "session missed because its previous move was still running. MB/idle: (RSS with the "
          "sessions open and idle − RSS before) / sessions. RSS MB: before / idle / after the "
          "moves. CPU in cores (of 2) over the moving phase.")
    for row in rows:
        if row["proxy_cpu"] is not None:
            print(f"  {row['sessions']} sessions: nginx used {row['proxy_cpu']:.3f} of a core; "
                  f"sessions per replica {row['per_replica']}")
    for row in rows:
        for error in row["errors"][:5]:
            print(f"  error at {row['sessions']} sessions: {error}")


# ── One session at a time ─────────────────────────────────────────────────────────────────────


async def single_run(moves: int, only: list[str] | None = None) -> list[dict]:
    """Per page, with nothing else on the server: move latency, server CPU and elements sent
    per move, split into first visits (a slider value this server process has not shown
    before) and warm moves (back over the same values, so every cache holds them)."""
    rows = []
    with streamlit_server() as (pid, port):
        visited: dict[str, set] = {}
        slugs = await pages_with_sliders(port, visited, only)
        for slug in slugs:
            session = Session(port, slug)
            await session.open()
            seen = visited[slug]
            passes: dict[bool, list[tuple[float, float, int, int]]] = {True: [], False: []}
            for walk in range(2):
                if walk:
                    session.direction *= -1  # retrace the walk: every value is cached now
                for _ in range(moves):
                    cpu_before = cpu_seconds(pid)
                    latency = await session.move()
                    cpu = cpu_seconds(pid) - cpu_before
                    new = session.position() not in seen
                    seen.add(session.position())
                    passes[new].append((latency, cpu, session.elements, session.blocks))
            await session.close()
            warm, first = passes[False], passes[True]
            rows.append({
                "page": slug, "p50": statistics.median(t for t, *_ in warm),
                "p95": percentile([t for t, *_ in warm], 0.95),
                "cpu": statistics.fmean(c for _, c, *_ in warm),
                "first_cpu": statistics.fmean(c for _, c, *_ in first) if first else math.nan,
                "first_p50": statistics.median(t for t, *_ in first) if first else math.nan,
                "first_moves": len(first),
                "elements": statistics.fmean(e for _, _, e, _ in warm),
                "blocks": statistics.fmean(b for _, _, _, b in warm),
                "fragment": session.widgets[session.slider_id].fragment_id != ""})
    return rows


def print_single(rows: list[dict], moves: int) -> None:
    print(f"One session at a time, {moves} moves of each page's main slider and {moves} back "
          "over the same values (server side)")
    print(f"{'page':<22}{'warm: p50 ms':>13}{'p95 ms':>8}{'CPU ms':>8}{'elements':>10}{'blocks':>8}"
          f"{'first visits: n':>17}{'p50 ms':>8}{'CPU ms':>8}  reruns")
    for row in rows:
        print(f"{row['page']:<22}{1000 * row['p50']:>13.0f}{1000 * row['p95']:>8.0f}"
              f"{1000 * row['cpu']:>8.1f}{row['elements']:>10.0f}{row['blocks']:>8.0f}{row['first_moves']:>17}"
              f"{1000 * row['first_p50']:>8.0f}{1000 * row['first_cpu']:>8.1f}  "
              f"{'its fragment' if row['fragment'] else 'the whole page'}")
    mean_cpu = statistics.fmean(row["cpu"] for row in rows)
    firsts = [row["first_cpu"] for row in rows if row["first_moves"]]
    print(f"Warm CPU per move, mean over the mix: {1000 * mean_cpu:.1f} ms (worst page "
          f"{1000 * max(row['cpu'] for row in rows):.1f} ms), so one process (one core under "
          f"the GIL) serves at most ~{1 / mean_cpu:.0f} warm moves/s, i.e. ~{2 / mean_cpu:.0f} "
          f"sessions moving every 2 s, before queueing.")
    if firsts:
        print(f"First visits: mean {1000 * statistics.fmean(firsts):.1f} ms, worst page "
              f"{1000 * max(firsts):.1f} ms of CPU per move. CPU is read from /proc in "
              "10 ms ticks: single moves are coarse, means over many moves are not.")
    print("elements: deltas sent per warm move (elements, blocks and references to cached "
          "messages); blocks: of which layout blocks (columns, containers, expanders, popovers).")


# ── Churn ─────────────────────────────────────────────────────────────────────────────────────


async def churn_run(minutes: float, concurrent: int, lifetime: float,
                    sample_seconds: float) -> dict:
    with streamlit_server() as (pid, port):
        slugs = await pages_with_sliders(port)
        end = time.monotonic() + 60 * minutes
        samples: list[tuple[float, float]] = []
        errors: list[str] = []
        latencies: list[float] = []
        opened = [0]
        skipped = [0]
        start = time.monotonic()

        async def sampler() -> None:
            while time.monotonic() < end:
                samples.append((time.monotonic() - start, rss_mb(pid)))
                await asyncio.sleep(sample_seconds)
            samples.append((time.monotonic() - start, rss_mb(pid)))

        async def one_seat(seat: int) -> None:
            await asyncio.sleep(seat * lifetime / concurrent)  # spread the arrivals
            while time.monotonic() < end:
                session = Session(port, random.choice(slugs))
                opened[0] += 1
                try:
                    await session.open()
                    life = random.uniform(0.5, 1.5) * lifetime
                    moves = max(1, int(life / MOVE_EVERY))
                    await move_every_two_seconds(session, moves, end, latencies, errors, skipped)
                except Exception as error:  # noqa: BLE001
                    errors.append(f"{session.slug}: {type(error).__name__}: {error}")
                finally:
                    await session.close()

        await asyncio.gather(sampler(), *(one_seat(i) for i in range(concurrent)))
    return {"samples": samples, "errors": errors, "opened": opened[0], "latencies": latencies,
            "skipped": skipped[0], "minutes": minutes, "concurrent": concurrent,
            "lifetime": lifetime}


def slope_mb_per_hour(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of RSS over time."""
    xs, ys = [t for t, _ in samples], [m for _, m in samples]
    if len(xs) < 2:
        return math.nan
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mean_x) ** 2 for x in xs)
    return 3600 * sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / var


def print_churn(result: dict) -> None:
    samples = result["samples"]
    print(f"Churn: {result['concurrent']} sessions at a time, each ~{result['lifetime']:.0f} s, "
          f"for {result['minutes']:g} min; {result['opened']} sessions opened, "
          f"{len(result['latencies'])} moves, {len(result['errors'])} errors")
    print(f"{'minute':>7}{'RSS MB':>9}")
    next_minute = 0.0
    for t, mb in samples:
        if t >= next_minute:
            print(f"{t / 60:>7.1f}{mb:>9.1f}")
            next_minute += 60
    second_half = [(t, m) for t, m in samples if t >= samples[-1][0] / 2]
    lats = result["latencies"]
    print(f"RSS start {samples[0][1]:.1f} MB, max {max(m for _, m in samples):.1f} MB, "
          f"end {samples[-1][1]:.1f} MB; slope over the second half "
          f"{slope_mb_per_hour(second_half):+.1f} MB/hour")
    if lats:
        print(f"Move latency p50 {1000 * statistics.median(lats):.0f} ms, "
              f"p95 {1000 * percentile(lats, 0.95):.0f} ms")
    for error in result["errors"][:5]:
        print(f"  error: {error}")


# ── The live class: a hall of phones waiting for the next question ────────────────────────────

LIVE_MARKER = "BENCH-QUESTION"  # in the pushed quiz's prompt: a phone has it when this shows
_VOTES_SHOWN = re.compile(r"\*\*(\d+)\*\* of at most")


# How the phones follow: "hold" as the browser does now (its request names the version drawn,
# and the server holds it until the version moves: classroom.follow's "Held requests"; two asks
# start at least FOLLOW_SECONDS apart); "route" as the browser did after the version route came
# (ask every FOLLOW_SECONDS, answered at once); "tick" as before the route (rerun every
# FOLLOW_SECONDS). In every mode a phone reruns its fragment when the version moved, when the
# drawing is due, or at the fragment's 60 s safety tick. (With the server's fragment now ticking
# every 60 s, "tick" phones are driven by the client at the component's every_ms, exactly as the
# old browser's timer did.)
FOLLOW_MODES = ("hold", "route", "tick")
follow_mode = "hold"  # set from --follow


@dataclass
class Follower:
    """What a phone's browser does between runs of its follow fragment: ui.live's follow
    component (its data: the route's url, the version drawn, every_ms, rerun_in_ms), over one
    keep-alive HTTP connection to the server, as the browser's fetch would keep."""

    phone: Session
    fragment: str
    mode: str = "hold"
    asked: int = 0  # route requests made
    reruns: int = 0
    refused: int = 0  # answers other than 200
    _due_at: float | None = None
    _safety_at: float = 0.0
    _connection: tuple | None = None

    def __post_init__(self) -> None:
        self._ran()

    def component(self) -> str | None:
        return next((wid for wid, w in self.phone.widgets.items()
                     if w.kind == "bidi_component" and wid.endswith("-live_follow")), None)

    def data(self) -> dict:
        component = self.component()
        return json.loads(self.phone.widgets[component].proto.json) if component else {}

    @property
    def every(self) -> float:
        return self.data().get("every_ms", 2000) / 1000

    def _ran(self) -> None:
        rerun_in = self.data().get("rerun_in_ms")
        now = time.monotonic()
        self._due_at = None if rerun_in is None else now + rerun_in / 1000
        self._safety_at = now + self.phone.fragments.get(self.fragment, 60.0)

    async def _ask(self, url: str) -> tuple[int, str]:
        """GET the route. A kept connection the server has closed meanwhile (uvicorn closes
        one idle for 5 s, e.g. while this phone waited for a long rerun) is opened again and
        the request repeated once, as a browser does."""
        for attempt in (1, 2):
            fresh = self._connection is None
            if fresh:
                self._connection = await asyncio.open_connection("127.0.0.1", self.phone.port)
            reader, writer = self._connection
            try:
                writer.write(f"GET {url} HTTP/1.1\r\nHost: 127.0.0.1:{self.phone.port}\r\n\r\n".encode())
                await writer.drain()
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                length = next((int(line.split(":", 1)[1]) for line in head
                               if line.lower().startswith("content-length")), 0)
                body = (await reader.readexactly(length)).decode() if length else ""
            except (OSError, asyncio.IncompleteReadError):
                self.close()
                if fresh or attempt == 2:
                    raise
                continue
            self.asked += 1
            return int(head[0].split()[1]), body.strip()
        raise AssertionError("unreachable")

    async def beat(self, clicked: str | None = None, until: float | None = None,
                   stop: asyncio.Event | None = None) -> float | None:
        """One beat: the seconds of the fragment's run, or None when nothing was rerun. In
        "hold" mode the request is held by the server until the version moves; the phone gives
        up waiting (closing the connection, as the browser's abort does) at `until`, at its
        drawing's or safety tick's deadline, or when `stop` is set."""
        if clicked is not None:
            return await self._rerun(clicked=clicked)
        if self.mode == "tick":
            return await self._rerun()
        data = self.data()
        now = time.monotonic()
        if now >= self._safety_at:
            return await self._rerun()  # the fragment's own run_every, an auto rerun
        if self._due_at is not None and now >= self._due_at:
            return await self._rerun(why="due")
        if not data.get("url"):
            return None
        if self.mode == "hold":
            deadlines = [self._safety_at] + [t for t in (self._due_at, until) if t is not None]
            answer = await self._held(f"{data['url']}?v={data.get('version')}", min(deadlines), stop)
            if answer is None:
                return None
            status, text = answer
        else:
            status, text = await self._ask(data["url"])
        if status != 200:
            self.refused += 1
            return await self._rerun(why=f"route {status}")
        if text != str(data.get("version")):
            return await self._rerun(why="moved")
        return None

    async def _held(self, url: str, until: float, stop: asyncio.Event | None) -> tuple[int, str] | None:
        """A held request's answer, or None when the phone stopped waiting first."""
        ask = asyncio.ensure_future(self._ask(url))
        waits = {ask} | ({asyncio.ensure_future(stop.wait())} if stop is not None else set())
        done, _ = await asyncio.wait(waits, timeout=max(0.0, until - time.monotonic()),
                                     return_when=asyncio.FIRST_COMPLETED)
        for other in waits - {ask}:
            other.cancel()
        if ask in done:
            return ask.result()
        ask.cancel()
        self.close()  # the request is abandoned mid-answer: its connection goes with it
        return None

    async def _rerun(self, clicked: str | None = None, why: str | None = None) -> float:
        component = self.component()
        event = (component, "rerun", why) if why is not None and component else None
        seconds = await self.phone.rerun_fragment(self.fragment, clicked=clicked, event=event)
        self.reruns += 1
        self._ran()
        return seconds

    def close(self) -> None:
        if self._connection is not None:
            self._connection[1].close()
            self._connection = None


async def _phone_loop(phone: Session, fragment: str, stop: asyncio.Event, ticks: list,
                      errors: list[str], marks: dict, voting: dict, followers: list) -> None:
    """One phone: follows as the browser does (Follower: by default it holds a request to the
    version route and reruns only when something moved), from a random phase (asking at most
    every FOLLOW_SECONDS; with --follow route or tick, skipping a beat while one is still going). Notes when the pushed question first shows; once voting
    starts, taps its first option at its own random moment."""
    follower = Follower(phone, fragment, follow_mode)
    followers.append(follower)
    every = follower.every
    next_at = time.monotonic() + random.uniform(0, every)
    offset = random.uniform(0, voting["within"])
    while not stop.is_set():
        vote_due = (voting["start"] + offset
                    if voting.get("start") is not None and id(phone) not in voting["done"] else None)
        wake = min(next_at, vote_due) if vote_due is not None else next_at
        if await _stopped_before(wake, stop):
            return
        try:
            if vote_due is not None and time.monotonic() >= vote_due:
                voting["done"].add(id(phone))
                button = next((wid for wid, w in phone.widgets.items()
                               if w.kind == "button" and "live_vote_" in wid), None)
                if button is None:
                    errors.append("phone: no vote button to tap")
                    continue
                sent = time.monotonic()
                await follower.beat(clicked=button)
                voting["votes"].append((sent, time.monotonic(),
                                        any("Your vote is in" in t for t in phone.texts)))
                continue
            started = time.monotonic()
            ran = await follower.beat(until=vote_due, stop=stop)
            if ran is not None:
                ticks.append((started, ran))
            if ran is not None and "pushed" in marks and id(phone) not in marks["seen"] \
                    and any(LIVE_MARKER in text for text in phone.texts):
                marks["seen"][id(phone)] = time.monotonic() - marks["pushed"]
        except Exception as error:  # noqa: BLE001 (every failure is reported, none is fatal)
            errors.append(f"phone: {type(error).__name__}: {error}")
            return
        if follower.mode == "hold":  # two asks start at least `every` apart; a held one skips nothing
            next_at = started + every
            continue
        next_at += every
        while next_at < time.monotonic():
            next_at += every


async def _projector_loop(teacher: Session, fragment: str, stop: asyncio.Event,
                          shown: list, errors: list[str]) -> None:
    """The instructor's projector fragment every run_every seconds: the vote count it shows."""
    every = teacher.fragments[fragment]
    while not stop.is_set():
        try:
            await teacher.rerun_fragment(fragment)
        except Exception as error:  # noqa: BLE001
            errors.append(f"projector: {type(error).__name__}: {error}")
            return
        counts = [int(m.group(1)) for text in teacher.texts for m in [_VOTES_SHOWN.search(text)] if m]
        if counts:
            shown.append((time.monotonic(), counts[0]))
        try:
            await asyncio.wait_for(stop.wait(), every)
        except TimeoutError:
            pass


def device_component(widgets: dict) -> str | None:
    """The id of ui.live's device component among a page's widgets: every page also draws the
    instructor's admin-record component (ui.admin_store), so the kind alone does not tell."""
    return next((wid for wid, w in widgets.items()
                 if w.kind == "bidi_component" and wid.endswith("-live_device")), None)


async def report_device(phone: Session, device: str) -> float:
    """What a phone's browser sends once ui.live's device component has read its localStorage:
    the component's state, kept with the other widgets' (the browser resends it with every
    message), in a whole-page rerun. Returns seconds."""
    component = device_component(phone.widgets)
    phone.values[component] = WidgetState(
        id=component, json_value=json.dumps({"device": {"id": device, "kept": True}}))
    phone.fragments.clear()  # "Connecting this device…" goes; the follow fragment comes
    message = BackMsg()
    client_state = message.rerun_script
    client_state.query_string = urllib.parse.urlencode(phone.query)
    client_state.page_script_hash = phone.page_script_hash
    client_state.widget_states.widgets.extend(phone.values.values())
    client_state.cached_message_hashes.extend(sorted(phone.cache))
    phone._add_context(message)
    return await phone._run(message)


async def join_phone(port: int, code: str, i: int) -> Session:
    """A phone that opened the join page and reported its browser's device id."""
    phone = Session(port, "live-join", query={"code": code})
    await phone.open()
    await report_device(phone, f"bench-phone-{i:06d}-{secrets.token_hex(4)}")
    return phone


async def live_run(phones: int, idle_seconds: float, vote_seconds: float,
                   per_second: float, follow_seconds: float | None = None,
                   replicas: int = 1) -> dict:
    """Phones joined to one live session on one server process (or `replicas` processes
    sharing the database, the phones spread round robin as sticky sessions would spread them,
    the instructor on the first): idle CPU while they wait,
    publish-to-phone latency for a quiz pushed through the database (as another replica's
    instructor would: this process learns of it within the cache's half second), then every
    phone votes once within `vote_seconds` while the projector re-reads every second:
    vote-to-projector latency."""
    from classroom import live, store

    with tempfile.TemporaryDirectory(prefix="dplab-live.") as scratch:
        url = os.environ.get("DPLAB_DATABASE_URL") or f"sqlite:///{scratch}/live.sqlite3"
        os.environ["DPLAB_DATABASE_URL"] = url  # the server inherits it
        if follow_seconds is not None:
            os.environ["DPLAB_LIVE_FOLLOW_SECONDS"] = repr(follow_seconds)
        engine = store.make_engine(url)
        live.ensure_schema(engine)
        session, token = live.create_session(engine, class_size=store.CLASS_SIZE_MAX)
        live.push_quiz(engine, session.id, "bench/warm", "Warm-up?", ["a", "b"], 0, "")
        live.clear(engine, session.id)
        # What a phone's tick would cost the database without the shared cache: a full view
        # (session and question), against the version counter alone.
        reads = {}
        for name, read in (("view", live.view), ("version", live.version)):
            started = time.perf_counter()
            for _ in range(500):
                read(engine, session.id)
            reads[name] = (time.perf_counter() - started) / 500
        errors: list[str] = []
        with contextlib.ExitStack() as stack:
            servers = [stack.enter_context(streamlit_server()) for _ in range(replicas)]
            pids, ports = [pid for pid, _ in servers], [port for _, port in servers]

            def cpu() -> float:
                return sum(map(cpu_seconds, pids))

            teacher = Session(ports[0], "live-instructor", query={"code": session.code, "admin": token})
            await teacher.open()
            teacher.query.pop("admin")  # the page takes it out of the address at once
            async def open_one(i: int) -> Session | None:
                await asyncio.sleep(i / per_second)
                try:
                    return await join_phone(ports[i % replicas], session.code, i)
                except Exception as error:  # noqa: BLE001
                    errors.append(f"open: {type(error).__name__}: {error}")
                    return None

            crowd = [phone for phone in await asyncio.gather(*map(open_one, range(phones))) if phone]
            base_rss = sum(map(rss_mb, pids))
            stop = asyncio.Event()
            ticks: list[tuple[float, float]] = []
            marks: dict = {"seen": {}}
            voting: dict = {"within": vote_seconds, "start": None, "done": set(), "votes": []}
            shown: list[tuple[float, int]] = []
            follow = {phone_id for phone in crowd for phone_id in phone.fragments}
            followers: list[Follower] = []
            loops = [asyncio.create_task(_phone_loop(phone, next(iter(phone.fragments)), stop, ticks,
                                                     errors, marks, voting, followers))
                     for phone in crowd if phone.fragments]
            projector = next(iter(teacher.fragments))
            loops.append(asyncio.create_task(_projector_loop(teacher, projector, stop, shown, errors)))
            await asyncio.sleep(5)  # every phone has ticked at least twice: the idle state
            cpu0, wall0, first_tick = cpu(), time.monotonic(), len(ticks)
            client0, load0 = time.process_time(), os.getloadavg()[0]
            asked0 = sum(f.asked for f in followers)
            await asyncio.sleep(idle_seconds)
            idle_wall = time.monotonic() - wall0
            idle_asks = sum(f.asked for f in followers) - asked0
            idle_cpu = (cpu() - cpu0) / idle_wall
            client_cpu = (time.process_time() - client0) / idle_wall
            load = (load0 + os.getloadavg()[0]) / 2
            idle_ticks = [seconds for _, seconds in ticks[first_tick:]]
            idle_rss = sum(map(rss_mb, pids))

            # Publish: one quiz through the database; each phone's next tick should show it.
            cpu0, wall0 = cpu(), time.monotonic()
            live.push_quiz(engine, session.id, "bench/quiz", f"{LIVE_MARKER}: which option?",
                           ["first", "second", "third", "fourth"], 0, "Because.")
            marks["pushed"] = time.monotonic()
            deadline = time.monotonic() + 60
            while len(marks["seen"]) < len(crowd) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            publish_cpu = (cpu() - cpu0) / (time.monotonic() - wall0)
            await asyncio.sleep(6)  # past the 5 s warm-up of the vote buttons (pages opened earlier)

            # Votes: each phone taps once, at a random moment within vote_seconds.
            start_votes = time.monotonic()
            cpu0 = cpu()
            voting["start"] = start_votes
            deadline = time.monotonic() + vote_seconds + 60
            while len(voting["votes"]) < len(crowd) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            await asyncio.sleep(3)  # the projector catches up
            vote_cpu = (cpu() - cpu0) / (time.monotonic() - start_votes)
            stop.set()
            await asyncio.gather(*loops)
            for follower in followers:
                follower.close()
            await asyncio.gather(teacher.close(), *(phone.close() for phone in crowd))
        question = live.view(engine, session.id).question
        stored = live.vote_count(engine, question.id, 1)
        engine.dispose()

    # Vote-to-projector: the k-th vote to finish is on the projector once it shows ≥ k votes.
    votes = sorted(voting["votes"], key=lambda v: v[1])
    to_projector = []
    for k, (sent, _finished, _) in enumerate(votes, start=1):
        when = next((t for t, count in shown if count >= k and t >= sent), None)
        if when is not None:
            to_projector.append(when - sent)
    publish = sorted(marks["seen"].values())
    return {
        "phones": len(crowd), "asked": phones, "fragments": len(follow), "errors": errors,
        "idle_seconds": idle_wall, "idle_cpu": idle_cpu, "idle_ticks": idle_ticks,
        "client_cpu": client_cpu, "load": load, "reads": reads,
        "database": url.split(":", 1)[0],
        "publish": publish, "publish_cpu": publish_cpu,
        "vote_latency": [finished - sent for sent, finished, _ in votes],
        "votes_confirmed": sum(ok for *_, ok in votes), "stored": stored,
        "to_projector": to_projector, "vote_cpu": vote_cpu, "base_rss": base_rss,
        "idle_rss": idle_rss, "follow_every": followers[0].every if followers else math.nan,
        "replicas": replicas, "idle_asks": idle_asks, "refused": sum(f.refused for f in followers),
    }


def follow_words(every: float) -> str:
    """How the phones follow, for the reports."""
    if follow_mode == "tick":
        return f"each reruns its fragment every {every:g} s, as before issue 28"
    if follow_mode == "hold":
        return ("each holds a request to the version route until the version moves, asks at most "
                f"every {every:g} s, and reruns its fragment only when something moved")
    return (f"each asks the version route every {every:g} s and reruns its fragment only when "
            "something moved")


def print_live(result: dict) -> None:
    def p(values, q):
        return 1000 * percentile(values, q) if values else math.nan

    ticks = result["idle_ticks"]
    where = ("one server process" if result["replicas"] == 1
             else f"{result['replicas']} server processes sharing the database (CPU: their sum)")
    print(f"Live class: {result['phones']} of {result['asked']} phones joined one session on {where} "
          f"({follow_words(result['follow_every'])}); "
          f"{len(result['errors'])} errors, {result['refused']} route answers other than 200")
    rate = len(ticks) / result["idle_seconds"]
    asks = result["idle_asks"] / result["idle_seconds"]
    due = ("" if follow_mode == "hold"  # a held request is answered when something moves, not on a beat
           else f" (due: {result['phones'] / result['follow_every']:.0f}/s)")
    print(f"  idle, {result['idle_seconds']:.0f} s: server CPU {result['idle_cpu']:.2f} of a core "
          f"({1000 * result['idle_cpu'] / max(rate + asks, 1e-9):.2f} ms per rerun or request); "
          f"{asks:.0f} route requests/s and {rate:.0f} fragment "
          f"reruns/s{due}, each rerun p50 "
          f"{p(ticks, 0.5):.0f} ms, p95 {p(ticks, 0.95):.0f} ms (sent → finished); RSS "
          f"{result['idle_rss']:.0f} MB; this client {result['client_cpu']:.2f} of a core; "
          f"machine load average {result['load']:.1f} on {os.cpu_count()} cores")
    reads = result["reads"]
    print(f"  {result['database']} reads from this process: a session view {1e6 * reads['view']:.0f} µs, "
          f"the version counter {1e6 * reads['version']:.0f} µs; without the shared cache the phones' "
          f"views would cost {result['phones'] / result['follow_every'] * reads['view']:.2f} s "
          f"per second, with it at most {reads['version'] / 0.5:.4f} s")
    publish = result["publish"]
    print(f"  publish → phone (quiz pushed through the database): {len(publish)} phones saw it; "
          f"p50 {p(publish, 0.5) / 1000:.2f} s, p95 {p(publish, 0.95) / 1000:.2f} s, "
          f"max {max(publish, default=math.nan):.2f} s; server CPU {result['publish_cpu']:.2f} of a core")
    latency, projector = result["vote_latency"], result["to_projector"]
    print(f"  votes: {len(latency)} sent, {result['votes_confirmed']} confirmed on the phone, "
          f"{result['stored']} stored; tap → confirmed p50 {p(latency, 0.5):.0f} ms, p95 "
          f"{p(latency, 0.95):.0f} ms; tap → on the projector p50 {p(projector, 0.5) / 1000:.2f} s, "
          f"p95 {p(projector, 0.95) / 1000:.2f} s; server CPU {result['vote_cpu']:.2f} of a core")
    for error in result["errors"][:5]:
        print(f"  error: {error}")


# ── A lecture: the live class and the lesson at once, on one process ──────────────────────────

_PUSHED = re.compile(re.escape(LIVE_MARKER) + r" #(\d+)")


@dataclass
class Lecture:
    """What a lecture's clients share: when each question was pushed, and what they measured."""
    vote_within: float
    pushes: list[float] = field(default_factory=list)  # monotonic time of push k
    seen: list[float] = field(default_factory=list)  # push → a phone shows it, seconds
    votes: list[tuple[int, float, float, bool]] = field(default_factory=list)  # push, sent, done, confirmed
    shown: list[tuple[float, int, int]] = field(default_factory=list)  # projector: time, push, count
    ticks: list[tuple[float, float]] = field(default_factory=list)  # phone ticks: started, seconds
    moves: list[float] = field(default_factory=list)  # laptop slider move → reply, seconds
    skipped: dict[str, int] = field(default_factory=lambda: {"phone": 0, "laptop": 0})
    errors: list[str] = field(default_factory=list)
    followers: list[Follower] = field(default_factory=list)  # the phones' browsers


def _current_vote_buttons(phone: Session) -> list[str]:
    return sorted(wid for wid, w in phone.widgets.items() if w.kind == "button" and "live_vote_" in wid)


async def _lecture_phone(phone: Session, voter: bool, lecture: Lecture, stop: asyncio.Event) -> None:
    """One phone: follows as the browser does (Follower: by default it holds a request to the
    version route and reruns its fragment only when something moved), from a random phase
    (asking at most every FOLLOW_SECONDS; with --follow route or tick, skipping a beat while one
    is still going). A voter taps an option once per question,
    at its own random moment within `vote_within` s of the push (or as soon as the question
    shows, if it shows later)."""
    fragment = next(iter(phone.fragments))
    follower = Follower(phone, fragment, follow_mode)
    lecture.followers.append(follower)
    every = follower.every
    next_at = time.monotonic() + random.uniform(0, every)
    shown_push = voted = -1
    offsets: dict[int, float] = {}
    while not stop.is_set():
        k = len(lecture.pushes) - 1
        vote_due = None
        if voter and k >= 0 and shown_push == k and voted < k:
            vote_due = lecture.pushes[k] + offsets.setdefault(k, random.uniform(0, lecture.vote_within))
        wake = min(next_at, vote_due) if vote_due is not None else next_at
        if await _stopped_before(wake, stop):
            return
        try:
            if vote_due is not None and time.monotonic() >= vote_due:
                voted = k
                buttons = _current_vote_buttons(phone)
                if not buttons:
                    lecture.errors.append(f"phone: no vote button for push {k}")
                    continue
                sent = time.monotonic()
                await follower.beat(clicked=random.choice(buttons))
                lecture.votes.append((k, sent, time.monotonic(),
                                      any("Your vote is in" in t for t in phone.texts)))
                continue
            kept = {wid: phone.widgets.pop(wid) for wid in _current_vote_buttons(phone)}
            started = time.monotonic()
            ran = await follower.beat(until=vote_due, stop=stop)
            if ran is None:  # nothing rerun: the page still shows what it showed
                phone.widgets.update(kept)
            else:  # a run draws the current question's buttons anew
                lecture.ticks.append((started, ran))
            pushed = [int(m.group(1)) for t in phone.texts for m in [_PUSHED.search(t)] if m]
            if ran is not None and pushed and pushed[0] > shown_push:
                shown_push = pushed[0]
                lecture.seen.append(time.monotonic() - lecture.pushes[shown_push])
        except Exception as error:  # noqa: BLE001 (every failure is reported, none is fatal)
            lecture.errors.append(f"phone: {type(error).__name__}: {error}")
            return
        if follower.mode == "hold":  # two asks start at least `every` apart; a held one skips nothing
            next_at = started + every
            continue
        next_at += every
        while next_at < time.monotonic():
            next_at += every
            lecture.skipped["phone"] += 1


async def _lecture_projector(teacher: Session, lecture: Lecture, stop: asyncio.Event) -> None:
    """The projector's fragment every run_every seconds: which push it shows, and its count."""
    fragment = next(iter(teacher.fragments))
    every = teacher.fragments[fragment]
    while not stop.is_set():
        try:
            await teacher.rerun_fragment(fragment)
        except Exception as error:  # noqa: BLE001
            lecture.errors.append(f"projector: {type(error).__name__}: {error}")
            return
        pushed = [int(m.group(1)) for t in teacher.texts for m in [_PUSHED.search(t)] if m]
        counts = [int(m.group(1)) for t in teacher.texts for m in [_VOTES_SHOWN.search(t)] if m]
        if pushed and counts:
            lecture.shown.append((time.monotonic(), pushed[0], counts[0]))
        try:
            await asyncio.wait_for(stop.wait(), every)
        except TimeoutError:
            pass


async def _lecture_laptop(laptop: Session, lecture: Lecture, stop: asyncio.Event) -> None:
    """One laptop: a move of the lesson's main slider every MOVE_EVERY s until the end."""
    next_at = time.monotonic() + random.uniform(0, MOVE_EVERY)
    while not stop.is_set():
        if next_at > time.monotonic():
            try:
                await asyncio.wait_for(stop.wait(), next_at - time.monotonic())
                return
            except TimeoutError:
                pass
        try:
            lecture.moves.append(await laptop.move())
        except Exception as error:  # noqa: BLE001
            lecture.errors.append(f"laptop {laptop.slug}: {type(error).__name__}: {error}")
            return
        next_at += MOVE_EVERY
        while next_at < time.monotonic():
            next_at += MOVE_EVERY
            lecture.skipped["laptop"] += 1


async def lecture_run(phones: int, voters: int, laptops: int, lesson: str, pushes: int,
                      push_every: float, vote_within: float, idle_seconds: float,
                      per_second: float) -> dict:
    """One server process: `phones` phones follow a live session while only the projector is
    open (idle CPU), then `laptops` sessions move `lesson`'s slider every MOVE_EVERY s while the
    instructor pushes `pushes` quizzes `push_every` s apart and `voters` phones vote within
    `vote_within` s of each. Pushes go through the database, as from another replica: this
    process sees each within its cache's half second (the worst case)."""
    from classroom import live, store

    lecture = Lecture(vote_within)
    with tempfile.TemporaryDirectory(prefix="dplab-lecture.") as scratch:
        url = os.environ.get("DPLAB_DATABASE_URL") or f"sqlite:///{scratch}/live.sqlite3"
        os.environ["DPLAB_DATABASE_URL"] = url  # the server inherits it
        engine = store.make_engine(url)
        live.ensure_schema(engine)
        session, token = live.create_session(engine, class_size=store.CLASS_SIZE_MAX)
        with streamlit_server() as (pid, port):
            await pages_with_sliders(port, only=[lesson])  # warm the lesson, as a rehearsal would
            teacher = Session(port, "live-instructor",
                              query={"code": session.code, "admin": token, "view": "projector"})
            await teacher.open()
            teacher.query.pop("admin", None)  # the page takes it out of the address at once

            async def open_phone(i: int) -> Session | None:
                await asyncio.sleep(i / per_second)
                try:
                    return await join_phone(port, session.code, i)
                except Exception as error:  # noqa: BLE001
                    lecture.errors.append(f"open phone: {type(error).__name__}: {error}")
                    return None

            crowd = [p for p in await asyncio.gather(*map(open_phone, range(phones))) if p]
            following = [p for p in crowd if p.fragments]
            lecture.errors += ["phone: no follow fragment"] * (len(crowd) - len(following))
            voting = set(map(id, random.sample(following, min(voters, len(following)))))
            stop = asyncio.Event()
            tasks = [asyncio.create_task(_lecture_phone(p, id(p) in voting, lecture, stop))
                     for p in following]
            tasks.append(asyncio.create_task(_lecture_projector(teacher, lecture, stop)))
            await asyncio.sleep(5)  # every phone has ticked at least twice: the idle state
            cpu0, wall0, ticks0 = cpu_seconds(pid), time.monotonic(), len(lecture.ticks)
            load0, client0 = os.getloadavg()[0], time.process_time()
            asked0 = sum(f.asked for f in lecture.followers)
            await asyncio.sleep(idle_seconds)
            idle_wall = time.monotonic() - wall0
            idle_asks = sum(f.asked for f in lecture.followers) - asked0
            idle_client = (time.process_time() - client0) / idle_wall
            idle_cpu = (cpu_seconds(pid) - cpu0) / idle_wall
            idle_ticks = [s for _, s in lecture.ticks[ticks0:]]
            idle_load = (load0 + os.getloadavg()[0]) / 2
            idle_rss = rss_mb(pid)

            async def open_laptop(i: int) -> Session | None:
                await asyncio.sleep(i / per_second)  # a class opens the lesson over a few seconds
                laptop = Session(port, lesson)
                try:
                    await laptop.open()
                    return laptop
                except Exception as error:  # noqa: BLE001
                    lecture.errors.append(f"open laptop: {type(error).__name__}: {error}")
                    return None

            desks = [d for d in await asyncio.gather(*map(open_laptop, range(laptops))) if d]
            tasks += [asyncio.create_task(_lecture_laptop(d, lecture, stop)) for d in desks]
            await asyncio.sleep(2 * MOVE_EVERY)  # every laptop is moving
            cpu0, wall0, load0 = cpu_seconds(pid), time.monotonic(), os.getloadavg()[0]
            client0 = time.process_time()
            question_ids: list[int] = []
            for k in range(pushes):
                if k:
                    await asyncio.sleep(max(0.0, lecture.pushes[-1] + push_every - time.monotonic()))
                question_ids.append(live.push_quiz(
                    engine, session.id, f"bench/lecture-{k}", f"{LIVE_MARKER} #{k}: which option?",
                    ["first", "second", "third", "fourth"], 0, "Because.").id)
                lecture.pushes.append(time.monotonic())
            # The last push's votes (phones that see it late vote late), bounded; then the
            # projector catches up.
            deadline = time.monotonic() + vote_within + 60
            while (sum(k == pushes - 1 for k, *_ in lecture.votes) < len(voting)
                   and time.monotonic() < deadline):
                await asyncio.sleep(0.5)
            await asyncio.sleep(3)
            busy_wall = time.monotonic() - wall0
            busy_cpu = (cpu_seconds(pid) - cpu0) / busy_wall
            busy_client = (time.process_time() - client0) / busy_wall
            busy_load = (load0 + os.getloadavg()[0]) / 2
            busy_rss = rss_mb(pid)
            stop.set()
            await asyncio.gather(*tasks)
            for follower in lecture.followers:
                follower.close()
            await asyncio.gather(teacher.close(), *(p.close() for p in crowd),
                                 *(d.close() for d in desks))
        stored = [live.vote_count(engine, question_id, 1) for question_id in question_ids]
        engine.dispose()
    return {"lecture": lecture, "phones": len(following), "asked": phones, "voters": len(voting),
            "laptops": len(desks), "lesson": lesson, "push_every": push_every,
            "follow_every": lecture.followers[0].every if lecture.followers else math.nan,
            "idle_asks": idle_asks, "refused": sum(f.refused for f in lecture.followers),
            "idle_seconds": idle_wall, "idle_cpu": idle_cpu, "idle_ticks": idle_ticks,
            "idle_load": idle_load, "idle_rss": idle_rss, "busy_seconds": busy_wall,
            "busy_cpu": busy_cpu, "busy_load": busy_load, "busy_rss": busy_rss, "stored": stored,
            "idle_client": idle_client, "busy_client": busy_client}


def vote_to_projector(votes: list[tuple[int, float, float, bool]],
                      shown: list[tuple[float, int, int]]) -> tuple[list[float], int]:
    """Per push, the k-th vote to finish is on the projector once it shows ≥ k votes for that
    push: seconds from its tap. Also returns how many votes the projector never showed."""
    delays, missing = [], 0
    for push in sorted({k for k, *_ in votes}):
        mine = sorted((v for v in votes if v[0] == push), key=lambda v: v[2])
        counts = [(t, n) for t, k, n in shown if k == push]
        for rank, (_, sent, _done, _ok) in enumerate(mine, start=1):
            when = next((t for t, n in counts if n >= rank and t >= sent), None)
            if when is None:
                missing += 1
            else:
                delays.append(when - sent)
    return delays, missing


def print_lecture(result: dict) -> None:
    lecture: Lecture = result["lecture"]

    def p95(values: list[float]) -> str:
        return f"{percentile(values, 0.95):.2f} s" if values else "none"

    to_projector, missing = vote_to_projector(lecture.votes, lecture.shown)
    pushes = len(lecture.pushes)
    confirmed = sum(ok for *_, ok in lecture.votes)
    rate = len(result["idle_ticks"]) / result["idle_seconds"]
    print(f"Lecture on one server process: {result['phones']} of {result['asked']} phones follow "
          f"({follow_words(result['follow_every'])}), {result['voters']} of them vote on each "
          f"of {pushes} pushes {result['push_every']:g} s apart (within {lecture.vote_within:g} s); "
          f"{result['laptops']} laptops move {result['lesson']}'s slider every {MOVE_EVERY:g} s; "
          f"the projector is open (view=projector).")
    print(f"{'figure':<44}{'goal':>10}{'measured':>16}")
    rows = [
        ("push → phone shows it, p95", "≤ 2 s", p95(lecture.seen)),
        ("vote → projector count, p95", "≤ 2 s", p95(to_projector)),
        ("slider move → reply, p95", "≤ 1 s", p95(lecture.moves)),
        (f"{result['phones']} idle phones (+ projector), server CPU", "≤ 0.15 c",
         f"{result['idle_cpu']:.2f} c"),
        ("errors, skipped beats (phones/laptops)", "0",
         f"{len(lecture.errors)}, {lecture.skipped['phone']}/{lecture.skipped['laptop']}"),
    ]
    for name, goal, measured in rows:
        print(f"{name:<44}{goal:>10}{measured:>16}")
    asks = result["idle_asks"] / result["idle_seconds"]
    due = ("" if follow_mode == "hold"  # a held request is answered when something moves, not on a beat
           else f" (due: {result['phones'] / result['follow_every']:.0f} ticks/s)")
    print(f"  idle {result['idle_seconds']:.0f} s: {asks:.0f} route requests/s and {rate:.0f} phone "
          f"reruns/s, {1000 * result['idle_cpu'] / max(rate + asks, 1e-9):.2f} ms of server CPU per "
          f"request or rerun ({result['refused']} route answers other than 200), rerun p50 "
          f"{1000 * percentile(result['idle_ticks'], 0.5) if result['idle_ticks'] else math.nan:.0f} ms{due}; "
          f"RSS {result['idle_rss']:.0f} MB; "
          f"this client {result['idle_client']:.2f} of a core; load average {result['idle_load']:.1f} "
          f"on {os.cpu_count()} cores")
    print(f"  lecture {result['busy_seconds']:.0f} s: server CPU {result['busy_cpu']:.2f} of a core, "
          f"RSS {result['busy_rss']:.0f} MB, this client {result['busy_client']:.2f} of a core, "
          f"load average {result['busy_load']:.1f}; "
          f"{len(lecture.seen)} of {pushes * result['phones']} push→phone showings, "
          f"{len(lecture.votes)} votes sent, {confirmed} confirmed, stored per push {result['stored']}, "
          f"{missing} never on the projector; {len(lecture.moves)} slider moves, p50 "
          f"{percentile(lecture.moves, 0.5) if lecture.moves else math.nan:.2f} s")
    for error in lecture.errors[:5]:
        print(f"  error: {error}")


# ── Validation against the browser ────────────────────────────────────────────────────────────


def browser_moves(page, port: int, slug: str, moves: int) -> tuple[dict, BackMsg]:
    """Chromium makes the same moves with the keyboard; returns the charts it was sent
    (by delta path) and its last rerun request, both read off its websocket."""
    from tests.conftest import wait_for_app

    charts: dict[tuple[int, ...], str] = {}
    by_hash: dict[str, ForwardMsg] = {}
    sent: list[BackMsg] = []

    def on_websocket(ws) -> None:
        def frame_received(payload) -> None:
            forward = ForwardMsg()
            forward.ParseFromString(payload)
            if forward.WhichOneof("type") == "ref_hash":
                forward = resolve_reference(forward, by_hash)
            by_hash[forward.hash] = forward
            if (forward.WhichOneof("type") == "delta"
                    and forward.delta.new_element.WhichOneof("type") == "plotly_chart"):
                path = tuple(forward.metadata.delta_path)
                charts[path] = forward.delta.new_element.plotly_chart.spec

        def frame_sent(payload) -> None:
            back = BackMsg()
            back.ParseFromString(payload)
            sent.append(back)

        ws.on("framereceived", frame_received)
        ws.on("framesent", frame_sent)

    page.on("websocket", on_websocket)
    page.goto(f"http://127.0.0.1:{port}/{slug}")
    wait_for_app(page)
    slider = page.locator("[data-testid=stMain] [data-testid=stSlider] input[type=range]").first
    slider.wait_for(timeout=20_000)
    wait_for_app(page)
    slider.focus()
    for _ in range(moves):
        value, high, focused = slider.evaluate(
            "el => [Number(el.value), Number(el.max), el === document.activeElement]")
        if not focused:
            print(f"  {slug}: the slider had lost keyboard focus; focusing it again")
            slider.focus()
        page.keyboard.press("ArrowRight" if value < high else "ArrowLeft")
        page.wait_for_timeout(300)
        wait_for_app(page)
    page.wait_for_timeout(500)
    return charts, sent[-1]


def disagreements(client: Session, browser_charts: dict, browser_sent: BackMsg) -> list[str]:
    problems = []
    for path, spec in client.charts.items():
        if path not in browser_charts:
            problems.append(f"chart at {path} not seen by the browser")
        elif browser_charts[path] != spec:
            problems.append(f"chart at {path} differs")
    ours, theirs = client.last_sent.rerun_script, browser_sent.rerun_script
    for name in ("fragment_id", "query_string", "page_script_hash"):
        if getattr(theirs, name) != getattr(ours, name):
            problems.append(f"{name}: browser {getattr(theirs, name)!r}, client {getattr(ours, name)!r}")
    browser_states = {w.id: str(w).replace("\n", " ") for w in theirs.widget_states.widgets}
    client_states = {w.id: str(w).replace("\n", " ") for w in ours.widget_states.widgets}
    if browser_states != client_states:
        odd = sorted(set(browser_states.items()) ^ set(client_states.items()))
        problems.append(f"widget states differ: {odd}")
    return problems


def validate(slugs: list[str], moves: int) -> None:
    """The same moves from the client and from Chromium bring back the same charts.

    For each page, the client and then the browser open it and move its main slider
    `moves` times. Every chart the client received must have come to the browser
    identical, and the browser's last rerun request must match the client's: fragment,
    query string, page hash, and every widget state.
    """
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    async def client_runs(port: int) -> dict[str, Session]:
        sessions = {}
        for slug in slugs:
            sessions[slug] = session = Session(port, slug)
            await session.open()
            for _ in range(moves):
                await session.move()
            await session.close()
        return sessions

    failed = []
    with streamlit_server() as (_, port):
        clients = asyncio.run(client_runs(port))  # before Playwright starts its own loop
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for slug in slugs:
                page = browser.new_page()
                charts, sent = browser_moves(page, port, slug, moves)
                page.close()
                problems = disagreements(clients[slug], charts, sent)
                rerun = sent.rerun_script
                print(f"{slug:<22}{'OK' if not problems else 'DIFFERENT':<10}"
                      f"{len(clients[slug].charts)} charts, {len(rerun.widget_states.widgets)} "
                      f"widget states, fragment {rerun.fragment_id or '(whole page)'}, "
                      f"?{rerun.query_string}")
                for problem in problems:
                    print(f"    {problem}")
                failed += [slug] * bool(problems)
            browser.close()
    if failed:
        raise SystemExit(f"client and browser disagree on {', '.join(failed)}")
    print(f"The client sends what the browser sends, and gets the same charts back "
          f"({moves} moves per page).")


# ── Command line ──────────────────────────────────────────────────────────────────────────────


def main() -> None:
    global MOVE_EVERY, follow_mode
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    load = commands.add_parser("load", help="N concurrent sessions moving sliders")
    load.add_argument("--sessions", type=int, nargs="+", default=[25, 50, 100, 200])
    load.add_argument("--moves", type=int, default=15, help="moves per session")
    load.add_argument("--max-seconds", type=float, default=300, help="cap on the moving phase")
    load.add_argument("--ramp-per-second", type=float, default=10, help="sessions opened per second")
    load.add_argument("--idle-seconds", type=float, default=5, help="settle time before RSS samples")
    load.add_argument("--replicas", type=int, default=1,
                      help="servers sharing the sessions (sticky, round robin)")
    load.add_argument("--nginx", action="store_true",
                      help="run the replicas behind nginx with deploy/replicas.py (python -m "
                           "serve each) and send every session through it with a route cookie")
    load.add_argument("--every", type=float, default=MOVE_EVERY,
                      help="seconds between one session's moves (default %(default)g)")
    single = commands.add_parser("single", help="one session at a time: cost of a move per page")
    single.add_argument("--moves", type=int, default=15)
    single.add_argument("pages", nargs="*", help="lesson slugs (default: every slider page)")
    churn = commands.add_parser("churn", help="sessions that come and go, sampling server RSS")
    churn.add_argument("--minutes", type=float, default=30)
    churn.add_argument("--concurrent", type=int, default=25)
    churn.add_argument("--lifetime", type=float, default=20, help="mean session life in seconds")
    churn.add_argument("--sample-seconds", type=float, default=10)
    hall = commands.add_parser("live", help="phones waiting on a live-class session, then a quiz")
    hall.add_argument("--phones", type=int, default=300)
    hall.add_argument("--idle-seconds", type=float, default=20, help="how long CPU is measured idle")
    hall.add_argument("--vote-seconds", type=float, default=20,
                      help="every phone votes once at a random moment within this")
    hall.add_argument("--ramp-per-second", type=float, default=20, help="phones joining per second")
    hall.add_argument("--replicas", type=int, default=1,
                      help="server processes sharing the database, phones round robin")
    hall.add_argument("--follow-seconds", type=float, default=None,
                      help="the phones' tick (DPLAB_LIVE_FOLLOW_SECONDS; default: the app's 2 s)")
    lecture = commands.add_parser("lecture", help="phones, votes, projector and laptops at once")
    lecture.add_argument("--phones", type=int, default=300)
    lecture.add_argument("--voters", type=int, default=250, help="phones that vote on each push")
    lecture.add_argument("--laptops", type=int, default=60, help="sessions moving the lesson's slider")
    lecture.add_argument("--lesson", default="randomized-response", choices=SLIDER_PAGES)
    lecture.add_argument("--pushes", type=int, default=3)
    lecture.add_argument("--push-every", type=float, default=60, help="seconds between pushes")
    lecture.add_argument("--vote-within", type=float, default=20,
                         help="each voter taps at a random moment within this many seconds of a push")
    lecture.add_argument("--idle-seconds", type=float, default=20,
                         help="how long the idle phones' CPU is measured")
    lecture.add_argument("--ramp-per-second", type=float, default=20, help="phones joining per second")
    check = commands.add_parser("validate", help="the client gets the browser's charts")
    check.add_argument("slugs", nargs="*", help="lesson slugs (default: every slider page)")
    check.add_argument("--moves", type=int, default=3)
    for command in (hall, lecture):
        command.add_argument("--follow", choices=FOLLOW_MODES, default="hold",
                             help="hold: phones hold a request to the version route until the "
                                  "version moves (the browser now); route: they ask it every 2 s "
                                  "(the browser after the route came); tick: rerun every 2 s "
                                  "(before issue 28)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="extra streamlit option for the server, e.g. "
                             "server.fileWatcherType=none (repeatable)")
    args = parser.parse_args()
    follow_mode = getattr(args, "follow", follow_mode)
    for option in args.option:
        name, _, value = option.partition("=")
        SERVER_OPTIONS.extend([f"--{name}", value])
    if SERVER_OPTIONS:
        print(f"Server options on top of .streamlit/config.toml: {' '.join(SERVER_OPTIONS)}")

    if args.command == "load":
        MOVE_EVERY = args.every
        rows = [asyncio.run(load_run(n, args.moves, args.max_seconds, args.ramp_per_second,
                                     args.idle_seconds, args.replicas, args.nginx))
                for n in args.sessions]
        print_load(rows)
    elif args.command == "single":
        print_single(asyncio.run(single_run(args.moves, args.pages or None)), args.moves)
    elif args.command == "live":
        print_live(asyncio.run(live_run(args.phones, args.idle_seconds, args.vote_seconds,
                                        args.ramp_per_second, args.follow_seconds,
                                        args.replicas)))
    elif args.command == "lecture":
        if args.pushes < 1 or args.voters > args.phones or args.vote_within >= args.push_every:
            parser.error("lecture needs --pushes ≥ 1, --voters ≤ --phones and "
                         "--vote-within < --push-every")
        # Everything is bounded (each run by RUN_TIMEOUT); this bounds the whole, with room for
        # the server's start and warm-up.
        limit = (300 + args.phones / args.ramp_per_second + args.idle_seconds + args.laptops
                 / args.ramp_per_second + args.pushes * args.push_every + args.vote_within + 60)

        async def bounded() -> dict:
            async with asyncio.timeout(limit):
                return await lecture_run(args.phones, args.voters, args.laptops, args.lesson,
                                         args.pushes, args.push_every, args.vote_within,
                                         args.idle_seconds, args.ramp_per_second)

        print_lecture(asyncio.run(bounded()))
    elif args.command == "churn":
        print_churn(asyncio.run(churn_run(args.minutes, args.concurrent, args.lifetime,
                                          args.sample_seconds)))
    else:
        validate(args.slugs or SLIDER_PAGES, args.moves)


if __name__ == "__main__":
    main()
