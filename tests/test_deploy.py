"""Serving more than one process: TCP_NODELAY (serve.py) and N replicas behind nginx (deploy/).

The socket tests run anywhere (the in-process one needs Linux). The deployment test starts
`python -m deploy.replicas` itself: two replicas, Debian's nginx on a free loopback port with
its files in a temporary prefix (never the system nginx), and a fresh database in the
PostgreSQL of DPLAB_TEST_POSTGRES_URL (.ci/run starts a throwaway one). Without nginx it skips
(fails under REQUIRE_BROWSER=1, as in CI); without PostgreSQL it skips (fails under
REQUIRE_POSTGRES=1). Sessions talk Streamlit's websocket protocol through nginx, as a browser
does, each with its own route cookie.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

import serve
from bench.load import free_port, free_port_block
from deploy import replicas
from tests.conftest import run_coroutine

try:  # the store is moving from ui/ to classroom/
    from classroom import store
except ImportError:  # pragma: no cover
    from ui import poll_store as store

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_URL = os.environ.get("DPLAB_TEST_POSTGRES_URL")
REQUIRE_POSTGRES = os.environ.get("REQUIRE_POSTGRES") == "1"
REQUIRE_NGINX = os.environ.get("REQUIRE_BROWSER") == "1"
LINUX = Path("/proc/self/fd").is_dir()
NAGLE_FLOOR_MS = 40  # Linux's shortest delayed ACK: what every small reply waits under Nagle

# One worker runs them all, in order (the deployment is shared, and the last test stops it).
pytestmark = pytest.mark.xdist_group("deploy")


def nodelay(sock: socket.socket) -> int:
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


async def accepted_nodelay(listener: socket.socket) -> list[int]:
    """TCP_NODELAY of the server side of a connection that an asyncio server accepts from
    `listener`, the way uvicorn serves Streamlit's socket."""
    seen: asyncio.Queue[int] = asyncio.Queue()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport):
            seen.put_nowait(nodelay(transport.get_extra_info("socket")))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
    port = listener.getsockname()[1]
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        first = await asyncio.wait_for(seen.get(), 10)
        writer.close()
        return [first]
    finally:
        server.close()


# ── TCP_NODELAY ───────────────────────────────────────────────────────────────────────────────


def test_streamlit_listening_socket_still_lacks_nodelay():
    """Why serve.py exists: the installed Streamlit's listener hands out Nagle connections.
    (If this fails, Streamlit has fixed it upstream and serve.py can go: docs/NAGLE.md.)"""
    from streamlit.web.server.starlette import starlette_server

    listener = starlette_server._bind_socket("127.0.0.1", 0, 8)
    assert listener.proto == 0
    assert run_coroutine(accepted_nodelay(listener)) == [0]


def test_launcher_patch_gives_every_connection_nodelay(monkeypatch):
    from streamlit.web.server.starlette import starlette_server

    # Registered first, so that the original comes back after the test.
    monkeypatch.setattr(starlette_server, "_bind_socket", starlette_server._bind_socket)
    serve.patch_streamlit()
    serve.patch_streamlit()  # twice is harmless: one wrapper
    listener = starlette_server._bind_socket("127.0.0.1", 0, 8)
    assert listener.proto == socket.IPPROTO_TCP and nodelay(listener) == 1
    assert not listener.getblocking()
    assert run_coroutine(accepted_nodelay(listener)) == [1]


@pytest.mark.skipif(not LINUX, reason="serve.nodelay_in_process needs Linux's /proc/self/fd")
def test_in_process_fix_reaches_open_and_later_connections(monkeypatch):
    """What app.py does under a plain `streamlit run`: a connection accepted before the call
    gets TCP_NODELAY from it, and one accepted after inherits it from the listener."""
    listener = socket.socket()  # protocol 0, as Streamlit binds it
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    before, _ = listener.accept()
    outsider = socket.socket()  # another port: must be left alone
    outsider.bind(("127.0.0.1", 0))
    try:
        assert nodelay(before) == 0
        monkeypatch.setenv(serve.SWITCH, "0")
        assert serve.nodelay_in_process(port) == 0 and nodelay(before) == 0
        monkeypatch.delenv(serve.SWITCH)
        assert serve.nodelay_in_process(port) == 2  # the listener and `before`
        assert serve.nodelay_in_process(port) == 0  # once per process
        assert nodelay(before) == 1 and nodelay(listener) == 1 and nodelay(outsider) == 0
        late_client = socket.create_connection(("127.0.0.1", port))
        after, _ = listener.accept()
        assert nodelay(after) == 1
        for sock in (late_client, after):
            sock.close()
    finally:
        for sock in (client, before, outsider, listener):
            sock.close()


# ── Two replicas behind nginx ─────────────────────────────────────────────────────────────────


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def database():
    """A fresh database in the test PostgreSQL (dropped afterwards), or that one if we may
    not create databases."""
    reason = ("DPLAB_TEST_POSTGRES_URL is not set (e.g. postgresql+psycopg://user@127.0.0.1:5433/db); "
              ".ci/run starts a throwaway PostgreSQL and sets it")
    if not POSTGRES_URL:
        if REQUIRE_POSTGRES:
            pytest.fail(f"REQUIRE_POSTGRES=1 but {reason}")
        pytest.skip(reason)
    name = f"dplab_deploy_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception:  # noqa: BLE001 (no CREATEDB right: share the given database)
        admin.dispose()
        yield POSTGRES_URL
        return
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="module")
def deployment(database, tmp_path_factory):
    """`python -m deploy.replicas --replicas 2` on free loopback ports; stopped with SIGTERM."""
    if not Path(replicas.NGINX).exists():
        reason = "nginx not found: install Debian's package with `apt-get install -y nginx`"
        if REQUIRE_NGINX:
            pytest.fail(f"REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    prefix = tmp_path_factory.mktemp("nginx")
    listen, base = free_port(), free_port_block(2)
    env = {**os.environ, replicas.DATABASE_URL_ENV: database}
    env.pop(replicas.COOKIE_SECRET_ENV, None)  # the launcher makes one up, shared by both
    log = (prefix / "launcher.log").open("wb")
    launcher = subprocess.Popen(
        [sys.executable, "-m", "deploy.replicas", "--replicas", "2", "--listen",
         f"127.0.0.1:{listen}", "--base-port", str(base), "--prefix", str(prefix)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log)
    try:
        ready = launcher.stdout.readline().decode()  # blocks until ready, or the launcher quits
        if "ready" not in ready:
            launcher.wait(timeout=30)
            log.flush()
            pytest.fail(f"deploy.replicas did not start (status {launcher.returncode}):\n"
                        + (prefix / "launcher.log").read_text()[-3000:])
        yield {"port": listen, "replica_ports": [base, base + 1], "prefix": prefix,
               "launcher": launcher}
    finally:
        if launcher.poll() is None:
            launcher.send_signal(signal.SIGTERM)
            try:
                launcher.wait(timeout=40)
            except subprocess.TimeoutExpired:
                launcher.kill()
        log.close()


class Client:
    """One browser session through nginx, speaking Streamlit's websocket protocol."""

    def __init__(self, port: int, route: str | None = None):
        self.port = port
        self.route = route or secrets.token_hex(16)
        self.ws = None
        self.replica = ""
        self.page_script_hash = ""
        self.query = ""
        self.buttons: dict[str, str] = {}  # label -> widget id
        self.metrics: dict[str, str] = {}  # label -> shown value
        self.texts: list[str] = []

    async def open(self, page: str, query: str = "") -> None:
        self.ws = await asyncio.wait_for(connect(
            f"ws://127.0.0.1:{self.port}/_stcore/stream", subprotocols=["streamlit"],
            additional_headers={"Cookie": f"dplab_route={self.route}"}, max_size=None), 60)
        self.replica = self.ws.response.headers.get("X-DPLab-Replica", "")
        message = BackMsg()
        message.rerun_script.page_name = page
        self.query = message.rerun_script.query_string = query
        await self.run(message)

    async def close(self) -> None:
        await self.ws.close()

    def _message(self) -> BackMsg:
        message = BackMsg()
        message.rerun_script.page_script_hash = self.page_script_hash
        message.rerun_script.query_string = self.query
        return message

    async def rerun(self) -> float:
        start = time.perf_counter()
        await self.run(self._message())
        return time.perf_counter() - start

    async def click(self, label_part: str) -> None:
        ids = [wid for label, wid in self.buttons.items() if label_part in label]
        assert ids, f"no button labelled …{label_part}… among {list(self.buttons)}"
        widget_id = ids[0]
        message = self._message()
        message.rerun_script.widget_states.widgets.append(WidgetState(id=widget_id, trigger_value=True))
        await self.run(message)

    async def run(self, message: BackMsg) -> None:
        """Send, then read until a run finishes successfully (a rerun the page asks for with
        st.rerun ends the first run early, and the next one follows)."""
        message.rerun_script.context_info.url = f"http://127.0.0.1:{self.port}/"
        await self.ws.send(message.SerializeToString())
        started = False
        async with asyncio.timeout(60):
            while True:
                forward = ForwardMsg()
                forward.ParseFromString(await self.ws.recv())
                kind = forward.WhichOneof("type")
                if kind == "new_session":
                    started = True
                    self.buttons, self.metrics, self.texts = {}, {}, []
                elif kind == "navigation":
                    self.page_script_hash = forward.navigation.page_script_hash
                elif kind == "page_info_changed":
                    self.query = forward.page_info_changed.query_string
                elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                    self._take(forward.delta.new_element)
                elif kind == "script_finished" and started:
                    if forward.script_finished in (ForwardMsg.FINISHED_SUCCESSFULLY,
                                                   ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
                        return
                    if forward.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                        raise AssertionError(f"run failed: {forward.script_finished}")
                    started = False

    def _take(self, element) -> None:
        kind = element.WhichOneof("type")
        assert kind != "exception", element.exception.message
        if kind == "button":
            self.buttons[element.button.label] = element.button.id
        elif kind == "metric":
            self.metrics[element.metric.label] = element.metric.body
        elif kind == "markdown":
            self.texts.append(element.markdown.body)


def _get(port: int, path: str, route: str | None = None, method: str = "GET",
         data: bytes | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=data)
    if route:
        request.add_header("Cookie", f"dplab_route={route}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers)


def test_two_replicas_behind_nginx(deployment, database):
    port = deployment["port"]
    engine = store.make_engine(database)
    store.ensure_schema(engine)
    extra = ({"class_size": 300}
             if "class_size" in inspect.signature(store.create_poll).parameters else {})
    poll, admin_token = store.create_poll(engine, "Did you sleep eight hours?",
                                          store.PROTOCOL_EPSILON, 1.0, **extra)

    async def scenario() -> None:
        # A student opens the join link; the answer waits for whatever warm-up the page asks.
        student = Client(port)
        await student.open("poll-join", f"code={poll.code}")
        assert student.replica in ("1", "2")
        assert any(poll.question in t for t in student.texts)

        # Sessions from one address (a hall behind NAT) spread over both replicas, and each
        # stays on its replica: the page, a static file, its websocket, and a reconnect.
        placed: dict[str, list[str]] = {"1": [], "2": []}
        for _ in range(40):
            status, headers = _get(port, "/")
            assert status == 200
            cookie = headers["Set-Cookie"]
            assert cookie.startswith("dplab_route=") and "HttpOnly" in cookie
            route, replica = cookie.split(";")[0].split("=", 1)[1], headers["X-DPLab-Replica"]
            assert _get(port, "/_stcore/health", route)[1]["X-DPLab-Replica"] == replica
            session = Client(port, route)
            await session.open("poll-join")
            assert session.replica == replica
            await session.rerun()
            await session.close()
            again = Client(port, route)
            await again.open("poll-join")
            assert again.replica == replica
            await again.close()
            placed[replica].append(route)
            if min(map(len, placed.values())) >= 2:
                break
        assert min(map(len, placed.values())) >= 2, f"sessions did not spread: {placed}"

        # No Nagle stall on the nginx → Streamlit hop: a small rerun comes back in well under
        # the 40 ms a delayed ACK would add to every one of them. One fast rerun proves it; on a
        # machine busy with the browser tests beside this one, 30 back-to-back reruns were all
        # 30 ms or more once (CI), so the probe keeps trying, with pauses, for up to 30 s.
        fastest = float("inf")
        probe = Client(port)
        await probe.open("poll-join")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            fastest = min(fastest, 1000 * await probe.rerun())
            if fastest < NAGLE_FLOOR_MS * 0.75:
                break
            await asyncio.sleep(0.2)
        await probe.close()
        assert fastest < NAGLE_FLOOR_MS * 0.75, f"fastest rerun {fastest:.0f} ms: Nagle?"

        # The student answers through their replica (once the page shows the buttons: a new
        # session may have to wait a few seconds) ...
        deadline = time.monotonic() + 30
        while not store.answers(engine, poll.id):
            assert time.monotonic() < deadline, f"answer not stored; page said {student.texts}"
            if any("Yes" in label for label in student.buttons):
                await student.click("Yes")
            else:
                await asyncio.sleep(1)
                await student.rerun()
        assert len(store.answers(engine, poll.id)) == 1
        await student.close()

        # ... and the instructor, on the other replica, sees it.
        other = "1" if student.replica == "2" else "2"
        instructor = Client(port, placed[other][0])
        await instructor.open("poll-instructor", f"code={poll.code}&admin={admin_token}")
        assert instructor.replica == other
        # "1", or "1 of 300" where the page states the class size
        assert instructor.metrics.get("Answers", "").split()[:1] == ["1"], instructor.metrics
        await instructor.close()

    run_coroutine(scenario())
    engine.dispose()


def test_nginx_limits(deployment):
    port = deployment["port"]
    # The upload endpoint is closed, whatever the method.
    for method in ("PUT", "POST", "DELETE"):
        assert _get(port, "/_stcore/upload_file/session/file", method=method,
                    data=b"x" if method != "DELETE" else None)[0] == 403
    # Request bodies are small: no page takes uploads or form posts.
    assert _get(port, "/_stcore/health", method="POST", data=b"x" * 64_000)[0] == 413
    # A route cookie that is not nginx's own kind (32 hex digits) is replaced, not echoed.
    status, headers = _get(port, "/", route="evil;Path=/x")
    assert status == 200 and "evil" not in headers["Set-Cookie"]
    conf = (deployment["prefix"] / "dplab.conf").read_text()
    assert "ip_hash" not in conf.split("upstream dplab")[1]
    # The query string stays out of the access log (links can carry an admin token).
    _get(port, "/poll-instructor?code=ABCDEF&admin=secret-token")
    time.sleep(0.5)
    assert "secret-token" not in (deployment["prefix"] / "access.log").read_text()


def test_honest_opens_are_served_while_one_client_churns_websockets(deployment):
    """Issue 25, item 5: one client (one browser's route cookie) opens and closes websockets at
    50 a second for 24 s, more than a hall's whole burst (600) plus the address's rate. Before,
    the limit was per address only: the churner used it up after ~15 s and honest page opens
    from the same address got 429. Now its own browser's limit refuses it, and a refused open
    does not count against the address, so every honest open (a new browser, a whole page run,
    one a second) is served."""
    from bench.attacks import churn_and_open

    result = run_coroutine(asyncio.wait_for(
        churn_and_open(deployment["port"], seconds=24, per_second=50, cookie=True), 120))
    churner, honest = result["churner"], result["honest"]
    print(f"\n[nginx churn] churner: {churner['refused']} of {churner['sent']} refused; honest opens: "
          f"{honest['opened']} served, {honest['refused']} refused")
    assert churner["sent"] >= 900, "the churner kept up its rate (else the test shows nothing)"
    assert churner["refused"] >= churner["sent"] - 20 - 2 * 24, "one browser: a burst of 20, then 1 a second"
    assert honest["refused"] == 0 and not honest["other"], honest
    assert honest["opened"] >= 20  # one a second for 24 s


def test_host_reaches_streamlit(deployment):
    """Streamlit accepts a browser's websocket only if its Origin matches the Host it sees:
    nginx must pass the browser's Host through (a mismatched Origin is still refused)."""
    port = deployment["port"]

    async def handshake(host: str, origin: str) -> str:
        try:
            async with connect(f"ws://{host}:{port}/_stcore/stream", host="127.0.0.1", port=port,
                               subprotocols=["streamlit"], additional_headers={"Origin": origin}):
                return "open"
        except InvalidStatus as refused:
            return str(refused.response.status_code)

    async def scenario() -> None:
        assert await handshake("lecture.example", f"http://lecture.example:{port}") == "open"
        assert await handshake("lecture.example", "http://evil.example") == "403"
        assert await handshake("other.example", f"http://lecture.example:{port}") == "403"

    run_coroutine(scenario())


@pytest.mark.skipif(not LINUX, reason="reads the replicas' environment from /proc")
def test_replicas_share_one_cookie_secret_and_database(deployment, database):
    launcher = deployment["launcher"].pid
    children = [int(pid) for task in Path(f"/proc/{launcher}/task").iterdir()
                for pid in (task / "children").read_text().split()]
    environments = []
    for pid in children:
        if b"serve" not in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
            continue  # nginx, not `python -m serve`
        entries = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        environments.append(dict(e.decode().split("=", 1) for e in entries if b"=" in e))
    assert len(environments) == 2
    secrets_seen = {env.get(replicas.COOKIE_SECRET_ENV) for env in environments}
    assert len(secrets_seen) == 1 and len(secrets_seen.pop() or "") >= 32
    assert {env.get(replicas.DATABASE_URL_ENV) for env in environments} == {database}


def test_launcher_stops_everything(deployment):
    """Last in the module: SIGTERM to the launcher stops both replicas and nginx."""
    launcher = deployment["launcher"]
    launcher.send_signal(signal.SIGTERM)
    assert launcher.wait(timeout=40) == 0
    assert not any(_port_open(p) for p in [deployment["port"], *deployment["replica_ports"]])
