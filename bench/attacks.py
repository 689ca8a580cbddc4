"""A hostile student with a script: the attacks of docs/SECURITY.md, bounded, on loopback.

    python bench/attacks.py editor [--rows 4000] [--messages 1]
    python bench/attacks.py upload [--uploads 150] [--megabytes 5]
    python bench/attacks.py message-sizes [slug ...]
    python bench/attacks.py errors

Each command starts its own `streamlit run app.py` on a free loopback port, with the repo's
.streamlit/config.toml (`--option` adds server flags on top, to measure the app before a fix),
and speaks Streamlit's protocol with the client of bench/load.py.

`editor`: a crafted widget state for the exponential page's editable table (`exp_sel_table`)
with `--rows` added rows, sent `--messages` times; then the same rerun again (what a browser
resends), then a fresh visitor opening the page. Prints the server's CPU seconds for each step
and what the page showed.

`upload`: `--uploads` POSTs of `--megabytes` each to /_stcore/upload_file for one session, and
the server's resident memory before and after.

`message-sizes`: every lesson page at defaults and with its main slider at both ends; the
largest message the server sent and the largest the client sent (for server.maxMessageSize).

`errors`: malformed widget states for every widget of a few pages (wrong value types, values
out of range, garbage JSON for the table); counts reruns that showed an exception element,
and any server path or traceback text that reached the client.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

from bench import load  # noqa: E402
from bench.load import Session, cpu_seconds, rss_mb, streamlit_server  # noqa: E402

EDITOR_PAGE = "exponential"


class WatchingSession(Session):
    """A load-test session that also keeps the text and exceptions of the last run, and the
    size of every message in both directions."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.texts: list[str] = []
        self.exceptions: list[str] = []
        self.largest_received = 0
        self.largest_sent = 0
        self.editors: list[str] = []  # ids of the editable tables drawn, the latest last

    async def send_run(self, message: BackMsg) -> float:
        """Send one rerun request; returns seconds until the run finished."""
        self.texts, self.exceptions = [], []
        self.largest_sent = max(self.largest_sent, message.ByteSize())
        return await self._run(message)

    def _take_delta(self, forward: ForwardMsg) -> None:
        self.largest_received = max(self.largest_received, forward.ByteSize())
        element = forward.delta.new_element
        kind = element.WhichOneof("type") if forward.delta.WhichOneof("type") == "new_element" else None
        if kind == "exception":
            exception = element.exception
            self.exceptions.append(" | ".join([exception.type, exception.message,
                                               *exception.stack_trace]))
            return
        if kind == "markdown":
            self.texts.append(element.markdown.body)
        elif kind == "alert":
            self.texts.append(element.alert.body)
        elif kind == "dataframe" and element.dataframe.editing_mode:
            self.editors.append(element.dataframe.id)
        super()._take_delta(forward)

    def rerun_with(self, states: list[WidgetState], fragment_id: str = "") -> BackMsg:
        """A rerun request as the browser sends it, with these widget states replacing the
        session's own for the same ids."""
        replaced = {state.id: state for state in states}
        message = BackMsg()
        client_state = message.rerun_script
        client_state.query_string = urllib.parse.urlencode(self.query)
        client_state.page_script_hash = self.page_script_hash
        client_state.fragment_id = fragment_id
        values = {**self.values, **replaced}
        client_state.widget_states.widgets.extend(values.values())
        client_state.cached_message_hashes.extend(sorted(self.cache))
        self._add_context(message)
        self.last_sent = message
        return message

    async def open_with(self, states: list[WidgetState]) -> float:
        """Open the page with widget states in the very first message, as a browser does
        when it reconnects to a restarted server; returns seconds."""
        from websockets.asyncio.client import connect

        self.ws = await asyncio.wait_for(connect(
            f"ws://127.0.0.1:{self.port}/_stcore/stream", subprotocols=["streamlit"],
            max_size=None, open_timeout=load.RUN_TIMEOUT), load.RUN_TIMEOUT)
        message = BackMsg()
        message.rerun_script.page_name = self.slug
        message.rerun_script.widget_states.widgets.extend(states)
        self._add_context(message)
        return await self.send_run(message)

    def editor_id(self) -> str:
        """The id of the editable table the server drew last (one tab, so one table, is open)."""
        if not self.editors:
            raise RuntimeError(f"{self.slug} shows no editable table")
        return self.editors[-1]


async def run_guarded(session: WatchingSession, message: BackMsg) -> tuple[float | None, str]:
    """Send a run; returns (seconds or None if it failed, what went wrong)."""
    try:
        return await session.send_run(message), ""
    except load.SessionError as error:
        return None, str(error)


def editor_state(rows: int) -> str:
    added = [{"candidate": f"row {i}", "score": float(i % 97)} for i in range(rows)]
    return json.dumps({"edited_rows": {}, "added_rows": added, "deleted_rows": []})


async def editor_attack(port: int, pid: int, rows: int, messages: int) -> dict:
    """Send `messages` crafted table states; then a resend, then a fresh visitor."""
    attacker = WatchingSession(port, EDITOR_PAGE)
    await attacker.open()
    result = {"rows": rows, "messages": messages, "bytes": 0, "attack_cpu": [], "attack_wall": []}
    for _ in range(messages):
        # Aimed at the editor's id as the server last sent it.
        editor = attacker.editor_id()
        fragment = attacker.widgets[editor].fragment_id
        state = WidgetState(id=editor, string_value=editor_state(rows))
        message = attacker.rerun_with([state], fragment)
        result["bytes"] = message.ByteSize()
        cpu = cpu_seconds(pid)
        seconds, error = await run_guarded(attacker, message)
        result["attack_cpu"].append(cpu_seconds(pid) - cpu)
        result["attack_wall"].append(seconds)
        result["error"] = error
    result["texts"] = attacker.texts
    result["exceptions"] = attacker.exceptions
    # The whole page again, with the same state (a browser resends every widget's state).
    cpu = cpu_seconds(pid)
    await run_guarded(attacker, attacker.rerun_with([state]))
    result["resend_cpu"] = cpu_seconds(pid) - cpu
    await attacker.close()
    # A fresh session whose first message carries the state, for the id the last one saw.
    fresh = WatchingSession(port, EDITOR_PAGE)
    cpu = cpu_seconds(pid)
    await fresh.open_with([state])
    result["fresh_cpu"] = cpu_seconds(pid) - cpu
    result["fresh_exceptions"] = fresh.exceptions
    await fresh.close()
    visitor = WatchingSession(port, EDITOR_PAGE)
    cpu = cpu_seconds(pid)
    result["visitor_open"] = await visitor.open()
    result["visitor_cpu"] = cpu_seconds(pid) - cpu
    await visitor.close()
    return result


async def editor_baseline(port: int, pid: int) -> dict:
    """A normal visitor: open the page, then edit one cell of the table."""
    visitor = WatchingSession(port, EDITOR_PAGE)
    cpu = cpu_seconds(pid)
    opened = await visitor.open()
    open_cpu = cpu_seconds(pid) - cpu
    editor = visitor.editor_id()
    state = WidgetState(id=editor, string_value=json.dumps(
        {"edited_rows": {"0": {"score": 50.0}}, "added_rows": [], "deleted_rows": []}))
    cpu = cpu_seconds(pid)
    edit = await visitor.send_run(visitor.rerun_with([state], visitor.widgets[editor].fragment_id))
    edit_cpu = cpu_seconds(pid) - cpu
    refused = any("edit was undone" in text for text in visitor.texts) or bool(visitor.exceptions)
    await visitor.close()
    return {"open": opened, "open_cpu": open_cpu, "edit": edit, "edit_cpu": edit_cpu,
            "refused": refused}


def editor(rows: int, messages: int) -> None:
    async def run(port: int, pid: int) -> tuple[dict, dict]:
        await editor_baseline(port, pid)  # warm: imports and caches
        return await editor_baseline(port, pid), await editor_attack(port, pid, rows, messages)

    with streamlit_server() as (pid, port):
        baseline, attack = asyncio.run(run(port, pid))
    print(f"Normal visitor: page open {baseline['open']:.2f} s ({baseline['open_cpu']:.2f} s CPU), "
          f"one cell edit {baseline['edit']:.2f} s ({baseline['edit_cpu']:.2f} s CPU)")
    print(f"Crafted state: {rows} added rows, {attack['bytes'] / 1e3:.0f} kB per message, "
          f"{messages} message(s)")
    for i, (cpu, wall) in enumerate(zip(attack["attack_cpu"], attack["attack_wall"], strict=True)):
        print(f"  message {i + 1}: server CPU {cpu:.2f} s, "
              f"answered in {'(failed)' if wall is None else f'{wall:.2f} s'}")
    print(f"  whole-page rerun resending the state: server CPU {attack['resend_cpu']:.2f} s")
    print(f"  a new session sending the state in its first message: server CPU "
          f"{attack['fresh_cpu']:.2f} s")
    print(f"  a fresh visitor afterwards: page open {attack['visitor_open']:.2f} s "
          f"({attack['visitor_cpu']:.2f} s CPU)")
    if attack.get("error"):
        print(f"  error: {attack['error'][:200]}")
    for text in attack["texts"]:
        if "rows" in text and "edit" in text:
            print(f"  page says: {text[:200]}")
    for exception in attack["exceptions"]:
        print(f"  exception shown: {exception[:200]}")


# ── Uploads ────────────────────────────────────────────────────────────────────────────────────


def upload_attack(port: int, pid: int, uploads: int, megabytes: float, chunked: bool = False) -> dict:
    """PUT files to the upload endpoint as the browser's file uploader would, for one live
    session; counts the statuses. Streamlit's XSRF check is a double submit (a token in a
    cookie and the same token in a header), so a script makes up its own token."""
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    async def open_session():
        """A live session (the endpoint refuses unknown ones), and its id from NewSession."""
        from websockets.asyncio.client import connect

        ws = await connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                           max_size=None)
        message = BackMsg()
        message.rerun_script.page_name = ""
        await ws.send(message.SerializeToString())
        session_id = None
        while True:  # until the page has run, so that the memory baseline includes it
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(ws.recv(), 60))
            if forward.WhichOneof("type") == "new_session":
                session_id = forward.new_session.initialize.session_id
            elif forward.WhichOneof("type") == "script_finished" and session_id:
                return ws, session_id

    loop = asyncio.new_event_loop()
    ws, sid = loop.run_until_complete(open_session())
    token = generate_xsrf_token_string()
    payload = b"x" * int(megabytes * 1e6)
    boundary = "----dp-lab-bench"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n"
            f"Content-Type: text/csv\r\n\r\n").encode() + payload + f"\r\n--{boundary}--\r\n".encode()
    rss_before = rss_mb(pid)
    statuses: dict[str, int] = {}
    start = time.monotonic()
    for _ in range(uploads):
        url = f"http://127.0.0.1:{port}/_stcore/upload_file/{sid}/{uuid.uuid4()}"
        # Chunked transfer encoding sends no Content-Length, so the server must stream-check.
        data = iter([body[i:i + 65536] for i in range(0, len(body), 65536)]) if chunked else body
        request = urllib.request.Request(url, data=data, method="PUT", headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "X-Xsrftoken": token, "Cookie": f"_streamlit_xsrf={token}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status = str(response.status)
        except urllib.error.HTTPError as error:
            status = str(error.code)
        except OSError:  # the server answered 413 and closed while the body was still going
            status = "closed while sending"
        statuses[status] = statuses.get(status, 0) + 1
    seconds = time.monotonic() - start
    time.sleep(1)
    rss_after = rss_mb(pid)
    loop.run_until_complete(ws.close())
    loop.close()
    return {"statuses": statuses, "rss_before": rss_before, "rss_after": rss_after,
            "seconds": seconds}


def upload(uploads: int, megabytes: float, chunked: bool) -> None:
    with streamlit_server() as (pid, port):
        result = upload_attack(port, pid, uploads, megabytes, chunked)
    print(f"{uploads} {'chunked ' * chunked}uploads of {megabytes:g} MB in {result['seconds']:.1f} s: "
          f"HTTP statuses {result['statuses']}; server RSS {result['rss_before']:.0f} MB -> "
          f"{result['rss_after']:.0f} MB ({result['rss_after'] - result['rss_before']:+.0f} MB)")


# ── Message sizes ──────────────────────────────────────────────────────────────────────────────


async def largest_messages(port: int, slugs: list[str]) -> list[tuple[str, int, int]]:
    rows = []
    for slug in slugs:
        session = WatchingSession(port, slug)
        await session.open()
        if session.slider_id:
            for _ in range(40):  # walks the main slider to its end and back
                await session.move()
                session.largest_sent = max(session.largest_sent, session.last_sent.ByteSize())
        rows.append((slug, session.largest_received, session.largest_sent))
        await session.close()
    return rows


def message_sizes(slugs: list[str]) -> None:
    with streamlit_server() as (_, port):
        rows = asyncio.run(largest_messages(port, slugs))
    print(f"{'page':<22}{'largest sent to browser':>26}{'largest from client':>22}")
    for slug, received, sent in rows:
        print(f"{slug or 'home':<22}{received / 1e3:>23.0f} kB{sent / 1e3:>19.1f} kB")


# ── Malformed widget states ────────────────────────────────────────────────────────────────────


def malformed_states(widget_id: str, kind: str) -> list[WidgetState]:
    """Values of the wrong type or out of range for one widget."""
    states = []
    for field, value in [("string_value", "x" * 50), ("string_value", "{not json"),
                         ("int_value", 10**15), ("double_value", float("nan")),
                         ("double_value", 1e308), ("bool_value", True), ("string_value", ""),
                         ("string_value", json.dumps({"edited_rows": {"999": {"score": 1}}})),
                         ("string_value", json.dumps({"added_rows": "abc"})),
                         ("string_value", json.dumps({"deleted_rows": [10**6]})),
                         ("string_value", json.dumps({"edited_rows": {"0": {"nope": 1}}})),
                         ("string_value", json.dumps([1, 2]))]:
        state = WidgetState(id=widget_id)
        setattr(state, field, value)
        states.append(state)
    for data in (["no such option"], [], ["a", "b", "c"]):
        state = WidgetState(id=widget_id)
        state.string_array_value.data.extend(data)
        states.append(state)
    for data in ([1e300], [-1.0], [float("inf")], [1.0, 2.0, 3.0]):
        state = WidgetState(id=widget_id)
        state.double_array_value.data.extend(data)
        states.append(state)
    state = WidgetState(id=widget_id)
    state.int_array_value.data.extend([10**12])
    states.append(state)
    return states


async def error_fuzz(port: int, pid: int, slugs: list[str]) -> dict:
    result = {"runs": 0, "shown": 0, "leaks": [], "failed": 0}
    for slug in slugs:
        probe = WatchingSession(port, slug)
        await probe.open()
        widgets = [(wid, w.kind) for wid, w in probe.widgets.items()]
        await probe.close()
        for widget_id, kind in widgets:
            session = WatchingSession(port, slug)
            await session.open()
            for state in malformed_states(widget_id, kind):
                result["runs"] += 1
                if kind == "dataframe" and session.editors:
                    state.id = session.editor_id()  # an editor's id changes (ui/tables.py)
                try:
                    await session.send_run(session.rerun_with([state]))
                except Exception:  # noqa: BLE001 (a dropped connection counts, then reconnect)
                    result["failed"] += 1
                    await session.close()
                    session = WatchingSession(port, slug)
                    await session.open()
                    continue
                if session.exceptions:
                    result["shown"] += 1
                    result.setdefault("kinds", {}).setdefault(
                        (kind, session.exceptions[0].split(" | ")[0]), 0)
                    result["kinds"][(kind, session.exceptions[0].split(" | ")[0])] += 1
                    for text in session.exceptions:
                        if "/" in text or "Traceback" in text or ".py" in text:
                            result["leaks"].append(f"{slug} {kind}: {text[:160]}")
            await session.close()
    return result


@contextlib.contextmanager
def logged_server():
    """Like bench.load.streamlit_server, but the server's log goes to a temporary file: a
    pipe that nobody reads would block the server once 64 kB of tracebacks filled it."""
    port = load.free_port()
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true", *load.SERVER_OPTIONS],
            cwd=ROOT, stdout=log, stderr=log,
            env={**os.environ, "DPLAB_WARM": "0"})  # no warm-up CPU in the attacks' budgets
        try:
            load.wait_until_serving(port, server)
            yield server.pid, port, log
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()


def errors(slugs: list[str]) -> None:
    with logged_server() as (pid, port, log):
        start = log.seek(0, 2)
        result = asyncio.run(error_fuzz(port, pid, slugs))
        log_bytes = log.seek(0, 2) - start
    print(f"{result['runs']} malformed widget states on {', '.join(slugs)}: "
          f"{result['shown']} runs showed an exception element, "
          f"{len(result['leaks'])} of them with a path or traceback, "
          f"{result['failed']} dropped connections; server log grew by {log_bytes / 1e3:.0f} kB")
    for (kind, exception), count in sorted(result.get("kinds", {}).items()):
        print(f"  {count:>4} x {kind}: {exception or '(type withheld)'}")
    for leak in result["leaks"][:5]:
        print(f"  leak: {leak}")


# ── A lecture hall behind one address (issue 25) ──────────────────────────────────────────────

class PageClient(WatchingSession):
    """A session on any page with a link's query, that can click a button by its key, claim a
    device id (the state of ui.live's device component, which a script can send with any value)
    and put a `dev=` in its link, as the hostile scripts of issue 25 did."""

    def __init__(self, port: int, slug: str, query: dict | None = None,
                 forwarded_for: str | None = None) -> None:
        super().__init__(port, slug)
        self.query = dict(query or {})
        self.forwarded_for = forwarded_for

    async def open(self) -> float:
        from websockets.asyncio.client import connect

        headers = {"X-Forwarded-For": self.forwarded_for} if self.forwarded_for else None
        self.ws = await asyncio.wait_for(connect(
            f"ws://127.0.0.1:{self.port}/_stcore/stream", subprotocols=["streamlit"],
            max_size=None, additional_headers=headers, open_timeout=load.RUN_TIMEOUT),
            load.RUN_TIMEOUT)
        message = BackMsg()
        message.rerun_script.page_name = self.slug
        message.rerun_script.query_string = urllib.parse.urlencode(self.query)
        self._add_context(message)
        return await self.send_run(message)

    def button(self, key: str) -> str | None:
        """The id of the last drawn button whose key is `key` (or starts with it, for `key*`)."""
        prefix = key.endswith("*")
        found = [wid for wid, w in self.widgets.items() if w.kind == "button"
                 and (wid.rsplit("-", 1)[-1].startswith(key[:-1]) if prefix
                      else wid.endswith(f"-{key}"))]
        return found[-1] if found else None

    def component(self) -> str | None:
        """The id of ui.live's device component (not the instructor's admin-record one)."""
        return load.device_component(self.widgets)

    async def send(self, click: str | None = None, claim: str | None = None,
                   states: list[WidgetState] = ()) -> float:
        """A whole-page rerun, as the browser sends it, optionally clicking the button with id
        `click`, claiming the device `claim` and replacing some widgets' states."""
        extra = list(states)
        if claim is not None and self.component():
            extra.append(WidgetState(id=self.component(), json_value=json.dumps(
                {"device": {"id": claim, "kept": True}})))
        if click is not None:
            extra.append(WidgetState(id=click, trigger_value=True))
        message = self.rerun_with(extra)
        return await self.send_run(message)

    def says(self, text: str) -> bool:
        return any(text in shown for shown in self.texts)

    def _take_delta(self, forward: ForwardMsg) -> None:
        delta = forward.delta
        if delta.WhichOneof("type") == "new_element" and delta.new_element.WhichOneof("type") == "spinner":
            self.texts.append(delta.new_element.spinner.text)
        super()._take_delta(forward)


OTHER_DEVICE = "another device's id"  # the pages' refusal (lessons/*-join.md, other-device)


def fake_device() -> str:
    return uuid.uuid4().hex  # 32 characters of [0-9a-f]: a plausible device id


async def many_devices(port: int, slug: str, code: str, button: str, messages: int) -> dict:
    """Issue 25, item 1: ONE session waits out the new-session delay once, then answers
    `messages` times, each message claiming a new device (in its link's dev= and in the device
    component's state), then once more as its first device, as a browser would (it resends its
    component's state with every message). Returns what the page said."""
    phone = PageClient(port, slug, {"code": code})
    await phone.open()
    first = fake_device()
    await phone.send(claim=first)  # the session's first identity, as a browser reports it
    await asyncio.sleep(SESSION_WAIT + 0.5)
    await phone.send(claim=first)
    target = phone.button(button)
    said = {"buttons": target is not None, "other_device": 0, "messages": messages}
    started = time.perf_counter()
    for _ in range(messages if target else 0):
        device = fake_device()
        phone.query["dev"] = device
        await phone.send(click=phone.button(button) or target, claim=device)
        said["other_device"] += phone.says(OTHER_DEVICE)
    said["seconds"] = time.perf_counter() - started
    phone.query.pop("dev", None)
    if target:
        await phone.send(click=phone.button(button) or target, claim=first)
    said["last_page"] = " | ".join(phone.texts)[:300]
    await phone.close()
    return said


async def vote_as_many_devices(port: int, engine, messages: int) -> dict:
    """The attack on each path that stores an answer: a poll, a live quiz, the live game. The
    server must use `engine`'s database (DPLAB_DATABASE_URL). Returns, per path, what the page
    said and what the database stored."""
    import math

    from classroom import live, store

    counted = getattr(live, "other_device_refusals", lambda *_: None)  # absent before issue 25
    poll, _ = store.create_poll(engine, "Did you vote once?", store.PROTOCOL_COINS, math.log(3),
                                class_size=1000)
    session, _ = live.create_session(engine, class_size=1000)
    result = {}
    said = await many_devices(port, "poll-join", poll.code, "poll_coin_yes", messages)
    result["poll"] = {**said, "stored": len(store.answers(engine, poll.id)),
                      "refused": getattr(store, "other_device_refusals", lambda *_: None)(engine, poll.id)}
    for kind in ("quiz", "game"):
        if kind == "quiz":
            live.push_quiz(engine, session.id, "bench/quiz", "Which one?", ["first", "second"], 0, "")
        else:
            live.push_game(engine, session.id, 1.0)
        await asyncio.sleep(1)  # the server's shared view is at most half a second old
        said = await many_devices(port, "live-join", session.code, "live_vote_*", messages)
        question = live.view(engine, session.id).question
        result[kind] = {**said, "stored": live.vote_count(engine, question.id, 1),
                        "refused": counted(engine, question.id)}
    return result


def server_cpu(pid: int | None) -> float:
    """The server's CPU seconds so far (0 when the caller has no pid, e.g. a test's server)."""
    return cpu_seconds(pid) if pid else 0.0


def widget_id(client: PageClient, kind: str, key: str) -> str:
    return next(wid for wid, w in client.widgets.items() if w.kind == kind and wid.endswith(f"-{key}"))


def wrong_code(right: set[str]) -> str:
    import secrets

    from classroom import store

    while True:
        code = "".join(secrets.choice(store.CODE_ALPHABET) for _ in range(store.CODE_LENGTH))
        if code not in right:
            return code


async def wrong_codes(port: int, pid: int, engine, wrong: int) -> dict:
    """Issue 25, item 2: `wrong` join codes that match nothing, from one address (new sessions,
    four guesses each, on both join pages), while an honest student has the poll open. Then:
    does that student's Yes count, and do honest new sessions with the right code join?"""
    import math

    from classroom import live, store

    poll, _ = store.create_poll(engine, "Can you still join?", store.PROTOCOL_COINS, math.log(3),
                                class_size=1000)
    session, _ = live.create_session(engine, class_size=1000)
    student = PageClient(port, "poll-join", {"code": poll.code})
    await student.open()
    await asyncio.sleep(SESSION_WAIT + 0.5)
    await student.send()
    result = {"wrong": wrong, "too_many": 0, "no_such": 0}
    cpu, started, sent = server_cpu(pid), time.perf_counter(), 0
    while sent < wrong:
        slug = ("poll-join", "live-join")[sent % 2]
        guesser = PageClient(port, slug, {"code": wrong_code({poll.code, session.code})})
        await guesser.open()
        for guess in range(4):
            if guess:
                guesser.query["code"] = wrong_code({poll.code, session.code})
                await guesser.send()
            sent += 1
            result["too_many"] += guesser.says("Too many codes")
            result["no_such"] += guesser.says("has the code")
            if sent == wrong:
                break
        await guesser.close()
    result["seconds"], result["cpu"] = time.perf_counter() - started, server_cpu(pid) - cpu
    await student.send(click=student.button("poll_coin_yes"))
    result["open_page_counted"] = student.says("Your answer is in")
    result["open_page_said"] = " | ".join(student.texts)[:200]
    await student.close()
    for slug, code, sign in (("poll-join", poll.code, "Can you still join?"),
                             ("live-join", session.code, f"Live session {session.code}")):
        honest = PageClient(port, slug, {"code": code})
        await honest.open()
        result[f"{slug} joins"] = honest.says(sign) and not honest.says("Too many codes")
        result[f"{slug} said"] = " | ".join(honest.texts)[:200]
        await honest.close()
    result["stored"] = len(store.answers(engine, poll.id))
    return result


def _created(engine) -> tuple[int, int]:
    from sqlalchemy import func, select

    from classroom import live, store

    with engine.connect() as conn:
        return (conn.execute(select(func.count()).select_from(store.polls)).scalar(),
                conn.execute(select(func.count()).select_from(live.sessions)).scalar())


async def create_one(port: int, kind: str, text: str = "Spam?") -> PageClient:
    """One new session creates one poll ("poll") or live session ("live"); returns it, open."""
    creator = PageClient(port, f"{kind}-instructor")
    await creator.open()
    states = []
    if kind == "poll":
        states = [WidgetState(id=widget_id(creator, "text_area", "poll_question"), string_value=text)]
    await creator.send(click=creator.button(f"{kind}_create"), states=states)
    return creator


async def creations(port: int, pid: int, engine, count: int) -> dict:
    """Issue 25, item 3: `count` polls created from one address (one new session each), then an
    instructor on the same address starts a live session and creates a poll."""
    before = _created(engine)
    cpu, started = server_cpu(pid), time.perf_counter()
    for i in range(count):
        await (await create_one(port, "poll", f"Spam {i}?")).close()
    after_attack = _created(engine)
    result = {"count": count, "seconds": time.perf_counter() - started, "cpu": server_cpu(pid) - cpu,
              "attack_created": after_attack[0] - before[0]}
    instructor = await create_one(port, "live")
    result["instructor_live"] = _created(engine)[1] - after_attack[1]
    result["instructor_said"] = " | ".join(instructor.texts)[:200]
    await instructor.close()
    await (await create_one(port, "poll", "The instructor's question?")).close()
    result["instructor_poll"] = _created(engine)[0] - after_attack[0]
    return result


async def websocket_handshake(port: int, cookie: str | None) -> int:
    """Open a websocket to /_stcore/stream through nginx and close it at once: the HTTP status
    (101: upgraded, 429: refused by a limit). The churner of issue 25, item 5."""
    import base64

    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
    try:
        writer.write((
            f"GET /_stcore/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
            f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: streamlit\r\n"
            f"Origin: http://127.0.0.1:{port}\r\n"
            + (f"Cookie: dplab_route={cookie}\r\n" if cookie else "") + "\r\n").encode())
        await writer.drain()
        return int((await asyncio.wait_for(reader.readline(), 10)).split()[1])
    finally:
        writer.close()


async def churn_and_open(port: int, seconds: float, per_second: float, cookie: bool,
                         honest_every: float = 1.0) -> dict:
    """One client opens and closes websockets at `per_second` for `seconds` (with one route
    cookie of its own, or none), while an honest new browser opens a page every `honest_every`
    s (a new route cookie, the whole page run). Counts the statuses of both."""
    import secrets

    churner = {"sent": 0, "refused": 0}
    honest = {"opened": 0, "refused": 0, "other": []}
    route = secrets.token_hex(16) if cookie else None
    end = time.monotonic() + seconds

    async def churn() -> None:
        next_at = time.monotonic()
        while time.monotonic() < end:
            status = await websocket_handshake(port, route)
            churner["sent"] += 1
            churner["refused"] += status == 429
            next_at += 1 / per_second
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))

    async def visit() -> None:
        visitor = load.Session(port, "", cookie=f"dplab_route={secrets.token_hex(16)}")
        try:
            await visitor.open()
            honest["opened"] += 1
        except Exception as error:  # noqa: BLE001 (a refused handshake raises; counted)
            refused = "429" in str(error)
            honest["refused"] += refused
            if not refused:
                honest["other"].append(f"{type(error).__name__}: {error}"[:120])
        finally:
            await visitor.close()

    async def visitors() -> None:
        """One new browser every `honest_every` s, whether or not the last one has finished."""
        opening = []
        await asyncio.sleep(honest_every / 2)
        while time.monotonic() < end:
            opening.append(asyncio.create_task(visit()))
            await asyncio.sleep(honest_every)
        await asyncio.gather(*opening)

    await asyncio.gather(churn(), visitors())
    return {"churner": churner, "honest": honest}


def nginx_churn(seconds: float, per_second: float) -> None:
    os.environ["DPLAB_WARM"] = "0"
    with load.nginx_deployment(1) as (_, _, (port,), _):
        # A hall has just opened the link: the address's burst is what it is after 600 opens.
        for cookie in (True, False):
            r = asyncio.run(churn_and_open(port, seconds, per_second, cookie))
            print(f"One client churning websockets at {per_second:g}/s for {seconds:g} s "
                  f"({'one route cookie' if cookie else 'no cookie'}): {r['churner']['refused']} of "
                  f"{r['churner']['sent']} refused; honest page opens meanwhile: "
                  f"{r['honest']['opened']} served, {r['honest']['refused']} refused (429)"
                  + (f", errors: {r['honest']['other'][:2]}" if r['honest']['other'] else ""))


# Issue 25, item 4: heavy pages at settings no cache holds, rerun with a new seed every time.
COLD_PAGES = [("anonymisation", {"anon_rec_n": "200", "anon_rec_k": "400"}),
              ("graphs", {"graphs_n": "2000"}),
              ("machine-learning", {})]
VISITOR_PAGE = "laplace"  # what another visitor opens meanwhile


async def cold_reruns(port: int, slug: str, query: dict, stop: asyncio.Event, counts: dict) -> None:
    """One session reruns its page with a new sidebar seed each time (every cache misses), as
    fast as the server answers, until `stop`."""
    import random

    hammer = PageClient(port, slug, query)
    try:
        await hammer.open()
        counts[slug] = 0
        seed = widget_id(hammer, "number_input", "seed")
        while not stop.is_set():
            await hammer.send(states=[WidgetState(id=seed, int_value=random.randrange(1, 10**6))])
            counts[slug] += 1
    finally:
        await hammer.close()


async def visitor_open(port: int) -> float:
    """One page open of VISITOR_PAGE by a new session (seconds)."""
    visitor = load.Session(port, VISITOR_PAGE)
    try:
        return await visitor.open()
    finally:
        await visitor.close()


async def heavy_sessions(quiet_port: int, loaded_port: int, pid: int | None = None,
                         opens: int = 8, hammers: int = 3) -> dict:
    """Two servers alike: on `loaded_port` `hammers` sessions rerun COLD_PAGES with a new seed
    each time, `quiet_port` has no one. A visitor opens VISITOR_PAGE on each in turn, `opens`
    times: the quiet server's times are the baseline under whatever else the machine is doing
    at that moment, so a busy machine slows both alike and the ratio is the hammers' doing.
    Returns medians and maxima, the hammers' reruns and (with `pid`) the loaded server's CPU."""
    import statistics

    for port in (quiet_port, loaded_port, quiet_port, loaded_port):
        await visitor_open(port)  # imports and caches of the visitor's page
    stop, counts = asyncio.Event(), {}
    tasks = [asyncio.create_task(cold_reruns(loaded_port, *COLD_PAGES[i % len(COLD_PAGES)],
                                             stop, counts)) for i in range(hammers)]
    # The hammers are past their first opens (a first visit's cost) and have spent their
    # allowance: a sustained attack, not its first seconds.
    deadline = time.monotonic() + 90
    while (len(counts) < hammers or min(counts.values()) < 3) \
            and time.monotonic() < deadline and not any(task.done() for task in tasks):
        await asyncio.sleep(0.2)
    before = dict(counts)
    cpu, started = server_cpu(pid), time.perf_counter()
    quiet, loaded = [], []
    for _ in range(opens):
        quiet.append(await visitor_open(quiet_port))
        loaded.append(await visitor_open(loaded_port))
    seconds = time.perf_counter() - started
    stop.set()
    for task in tasks:  # a hammer may be waiting for its allowance: no need to wait with it
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"quiet": statistics.median(quiet), "quiet_max": max(quiet),
            "loaded": statistics.median(loaded), "loaded_max": max(loaded),
            "reruns": {k: v - before.get(k, 0) for k, v in counts.items()}, "total_reruns": dict(counts),
            "seconds": seconds,
            "cpu": (server_cpu(pid) - cpu) / seconds}


def heavy(opens: int) -> None:
    os.environ["DPLAB_WARM"] = "0"
    with streamlit_server() as (_, quiet_port), streamlit_server() as (pid, port):
        r = asyncio.run(heavy_sessions(quiet_port, port, pid, opens))
    reruns = ", ".join(f"{slug} {n}" for slug, n in r["reruns"].items())
    print(f"A visitor opening /{VISITOR_PAGE}, in turn on a quiet server and on one where 3 sessions "
          f"rerun heavy pages with a new seed each time: median {r['quiet']:.2f} s (max "
          f"{r['quiet_max']:.2f} s) against {r['loaded']:.2f} s (max {r['loaded_max']:.2f} s), "
          f"{r['loaded'] / r['quiet']:.1f}x")
    print(f"  the hammers' reruns in those {r['seconds']:.0f} s: {reruns}; the loaded server's CPU "
          f"{r['cpu']:.2f} of a core; machine load average {os.getloadavg()[0]:.1f}")


def _hall_server(run):
    """A server with a fresh database (DPLAB_DATABASE_URL, or a temporary SQLite file); returns
    run(port, pid, engine)."""
    from classroom import live, store

    with tempfile.TemporaryDirectory(prefix="dplab-hall.") as scratch:
        url = os.environ.get("DPLAB_DATABASE_URL") or f"sqlite:///{scratch}/hall.sqlite3"
        os.environ.update(DPLAB_DATABASE_URL=url, DPLAB_WARM="0")
        engine = store.make_engine(url)
        live.ensure_schema(engine)
        try:
            with streamlit_server() as (pid, port):
                return asyncio.run(run(port, pid, engine))
        finally:
            engine.dispose()


def hall_codes(wrong: int) -> None:
    r = _hall_server(lambda port, pid, engine: wrong_codes(port, pid, engine, wrong))
    print(f"{wrong} wrong join codes from one address in {r['seconds']:.1f} s (server CPU "
          f"{r['cpu']:.1f} s): {r['no_such']} said 'no such code', {r['too_many']} 'too many codes'")
    print(f"  a student whose poll page was open taps Yes: "
          f"{'counted' if r['open_page_counted'] else 'NOT counted: ' + r['open_page_said']}")
    for slug in ("poll-join", "live-join"):
        print(f"  an honest new session on {slug} with the right code: "
              f"{'joins' if r[f'{slug} joins'] else 'refused: ' + r[f'{slug} said']}")


def hall_creations(count: int) -> None:
    r = _hall_server(lambda port, pid, engine: creations(port, pid, engine, count))
    print(f"{count} polls asked for from one address in {r['seconds']:.1f} s (server CPU "
          f"{r['cpu']:.1f} s): {r['attack_created']} created")
    print(f"  then the instructor on the same address: live session "
          f"{'started' if r['instructor_live'] else 'refused'}, poll "
          f"{'created' if r['instructor_poll'] else 'refused'}")


def hall_votes(messages: int) -> None:
    from classroom import live, store

    with tempfile.TemporaryDirectory(prefix="dplab-hall.") as scratch:
        url = os.environ.get("DPLAB_DATABASE_URL") or f"sqlite:///{scratch}/hall.sqlite3"
        os.environ.update(DPLAB_DATABASE_URL=url, DPLAB_WARM="0")
        engine = store.make_engine(url)
        live.ensure_schema(engine)
        with streamlit_server() as (pid, port):
            cpu = cpu_seconds(pid)
            result = asyncio.run(vote_as_many_devices(port, engine, messages))
            cpu = cpu_seconds(pid) - cpu
        engine.dispose()
    print(f"One session, {messages} answers each claiming a new device, then one as its first "
          f"(server CPU {cpu:.1f} s in all):")
    for kind, row in result.items():
        print(f"  {kind:<5} {row['messages'] + 1} messages in {row['seconds']:.1f} s: stored "
              f"{row['stored']}; refused as another device: {row['other_device']} on the page, "
              f"{row['refused']} counted for the projector")


SESSION_WAIT = 5.0  # classroom.limits.SESSION_WARMUP_SECONDS (not imported: "before" has it too)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    flood = commands.add_parser("editor", help="a crafted table state with many added rows")
    flood.add_argument("--rows", type=int, default=4000)
    flood.add_argument("--messages", type=int, default=1)
    uploads = commands.add_parser("upload", help="files POSTed to the upload endpoint")
    uploads.add_argument("--uploads", type=int, default=150)
    uploads.add_argument("--megabytes", type=float, default=5, help="file size (0: empty files)")
    uploads.add_argument("--chunked", action="store_true", help="no Content-Length header")
    sizes = commands.add_parser("message-sizes", help="largest message per page")
    sizes.add_argument("slugs", nargs="*")
    fuzz = commands.add_parser("errors", help="malformed widget states")
    fuzz.add_argument("slugs", nargs="*")
    votes = commands.add_parser("hall-votes", help="one session answering as many devices")
    votes.add_argument("--messages", type=int, default=30)
    codes = commands.add_parser("hall-codes", help="wrong join codes from the hall's address")
    codes.add_argument("--wrong", type=int, default=61)
    made = commands.add_parser("hall-creations", help="polls created from the hall's address")
    made.add_argument("--count", type=int, default=30)
    cold = commands.add_parser("heavy", help="cold reruns of heavy pages vs a visitor")
    cold.add_argument("--opens", type=int, default=8)
    churning = commands.add_parser("nginx-churn", help="websockets churned through nginx")
    churning.add_argument("--seconds", type=float, default=30)
    churning.add_argument("--per-second", type=float, default=40)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    for option in args.option:
        name, _, value = option.partition("=")
        load.SERVER_OPTIONS.extend([f"--{name}", value])
    if args.command == "editor":
        editor(args.rows, args.messages)
    elif args.command == "upload":
        upload(args.uploads, args.megabytes, args.chunked)
    elif args.command == "hall-votes":
        hall_votes(args.messages)
    elif args.command == "hall-codes":
        hall_codes(args.wrong)
    elif args.command == "hall-creations":
        hall_creations(args.count)
    elif args.command == "heavy":
        heavy(args.opens)
    elif args.command == "nginx-churn":
        nginx_churn(args.seconds, args.per_second)
    elif args.command == "message-sizes":
        message_sizes(args.slugs or ["", *load.SLIDER_PAGES])
    else:
        errors(args.slugs or ["laplace", "exponential"])


if __name__ == "__main__":
    main()
