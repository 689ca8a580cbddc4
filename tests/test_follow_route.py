"""The phones' version route at the wire level, against a real `streamlit run app.py`: phones
joined with bench/load.py's websocket client (as the browser speaks to Streamlit), the route
asked over plain HTTP as the browser's fetch does. It answers the session's version and nothing
else, follows a push, refuses tickets it did not issue, and limits a hammering ticket without
locking out another phone on the same address; the component's trigger reruns only the
follow fragment, which then shows the pushed question."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import subprocess
import sys
import time

import pytest

from bench.load import Follower, free_port, join_phone, wait_until_serving
from classroom import follow, live, store
from tests.conftest import ROOT, run_coroutine, serve_app
from ui import live as ui_live

pytestmark = pytest.mark.xdist_group("follow_route")


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    """A server of its own (its database a temporary file), a live session, and its engine."""
    url = f"sqlite:///{tmp_path_factory.mktemp('follow') / 'live.sqlite3'}"
    engine = store.make_engine(url)
    live.ensure_schema(engine)
    session, _token = live.create_session(engine, class_size=30)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(store.DATABASE_URL_ENV, url)
        with serve_app() as app_url:
            yield int(app_url.rsplit(":", 1)[1]), engine, session
    engine.dispose()


def get(port: int, path: str, method: str = "GET") -> tuple[int, dict, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        connection.close()


def follow_data(phone) -> dict:
    (component,) = [w for wid, w in phone.widgets.items()
                    if w.kind == "bidi_component" and wid.endswith("-live_follow")]
    return json.loads(component.proto.json)


def test_the_route_answers_the_version_and_nothing_else(hall):
    port, engine, session = hall

    async def scenario() -> None:
        phone = await join_phone(port, session.code, 1)
        try:
            (every,) = phone.fragments.values()
            assert every == ui_live.SAFETY_SECONDS  # the server's own tick is the slow safety net
            data = follow_data(phone)
            assert data["every_ms"] == round(1000 * ui_live.FOLLOW_SECONDS)
            assert data["version"] == live.version(engine, session.id)
            ticket = data["url"].rsplit("/", 1)[1]
            assert data["url"] == f"/{ui_live.VERSION_ROUTE}/{ticket}"
            status, headers, body = get(port, data["url"])
            assert (status, body) == (200, str(data["version"]))
            assert headers["cache-control"] == "no-store"
            assert "set-cookie" not in headers
            # Tickets this process did not issue read nothing: not a guess, not the join code.
            for path in (f"/{ui_live.VERSION_ROUTE}/{follow.FollowTickets.new_ticket()}",
                         f"/{ui_live.VERSION_ROUTE}/{session.code}"):
                status, _, body = get(port, path)
                assert status == 404 and body == "", path
            assert get(port, data["url"], method="POST")[0] == 405
        finally:
            await phone.close()

    run_coroutine(scenario())


def test_a_held_request_is_answered_when_a_push_moves_the_version_and_the_fragment_reruns(hall):
    port, engine, session = hall

    async def scenario() -> None:
        phone = await join_phone(port, session.code, 2)
        follower = Follower(phone, next(iter(phone.fragments)))
        try:
            before = follow_data(phone)["version"]
            url = follow_data(phone)["url"]
            # A page that drew an older version is answered at once; one that drew the current
            # version is held (here for the 1 s the phone waits) and then let go.
            status, _, body = await asyncio.to_thread(get, port, f"{url}?v={before - 1}")
            assert (status, body) == (200, str(before))
            assert await follower.beat(until=time.monotonic() + 1) is None  # nothing moved
            held = asyncio.ensure_future(follower.beat(until=time.monotonic() + 30))
            await asyncio.sleep(1)
            assert not held.done(), "the request is held while the version stays"
            pushed = time.monotonic()
            live.push_quiz(engine, session.id, "wire/quiz", "WIRE QUESTION?", ["yes", "no"], 0, "")
            # Pushed through the database (as by another replica): the server's watch reads the
            # version every CACHE_SECONDS from a cache at most CACHE_SECONDS old, answers the
            # held request, and the phone reruns its fragment.
            ran = await held
            assert ran is not None, "the held request was answered and the phone reran"
            waited = time.monotonic() - pushed - ran
            assert waited < 2 * ui_live.CACHE_SECONDS + 1.0, waited  # 1 s for a loaded machine
            sent = phone.last_sent.rerun_script
            assert sent.fragment_id == follower.fragment  # the fragment only, by the trigger
            assert not sent.is_auto_rerun
            assert any("WIRE QUESTION?" in text for text in phone.texts)
            assert follow_data(phone)["version"] == live.version(engine, session.id) > before
        finally:
            follower.close()
            await phone.close()

    run_coroutine(scenario())


def test_a_hammering_ticket_is_limited_and_its_neighbour_on_the_same_address_is_not(hall):
    port, _engine, session = hall

    async def scenario() -> tuple[str, str, list]:
        hammer = await join_phone(port, session.code, 3)
        neighbour = await join_phone(port, session.code, 4)
        await hammer.close()
        await neighbour.close()  # the tickets outlive the websockets: the pages stay known
        return follow_data(hammer)["url"], follow_data(neighbour)["url"]

    loud, quiet = run_coroutine(scenario())
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    statuses, retry_after = [], set()
    started = time.monotonic()
    for _ in range(40):  # one kept connection, as fast as the server answers
        connection.request("GET", loud)
        response = connection.getresponse()
        response.read()
        statuses.append(response.status)
        if response.status == 429:
            retry_after.add(response.getheader("Retry-After"))
    elapsed = time.monotonic() - started
    connection.close()
    tickets = follow.FollowTickets(ask_every=ui_live.FOLLOW_SECONDS)
    # The burst is answered at once; after it, only what the ticket's allowance refilled in the
    # time the 40 requests took (plus one for a refill under way).
    assert statuses[:follow.TICKET_BURST] == [200] * follow.TICKET_BURST
    assert statuses.count(200) <= follow.TICKET_BURST + elapsed * tickets.ticket_rate + 1, (statuses, elapsed)
    assert retry_after and all(int(value) >= 1 for value in retry_after)
    status, _, body = get(port, quiet)  # the same address (127.0.0.1), another ticket
    assert status == 200 and body.isdigit()


async def status_of(port: int, path: str) -> int:
    """One GET on a connection of its own; its status (cancel the task to hang up)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        await writer.drain()
        return int((await reader.readline()).split()[1])
    finally:
        writer.close()


def test_a_ticket_holds_one_request_however_many_a_script_opens(hall):
    port, _engine, session = hall

    async def scenario() -> tuple[list[int], int]:
        phone = await join_phone(port, session.code, 6)
        data = follow_data(phone)
        await phone.close()
        held = f"{data['url']}?v={data['version']}"
        # A script opens one more than the ticket's burst at once, each on its own connection,
        # each naming the current version: one is refused, and every newer held request lets
        # the older go, so one stays held.
        asking = [asyncio.ensure_future(status_of(port, held)) for _ in range(follow.TICKET_BURST + 1)]
        await asyncio.sleep(2)
        answered = sorted(task.result() for task in asking if task.done())
        still_held = [task for task in asking if not task.done()]
        for task in still_held:
            task.cancel()
        return answered, len(still_held)

    answered, still_held = run_coroutine(scenario())
    assert still_held == 1
    assert answered == [200] * (follow.TICKET_BURST - 1) + [429]


def test_an_ended_session_reruns_its_phones_once_and_stops_their_polling(hall):
    port, engine, _ = hall
    ending, _token = live.create_session(engine, class_size=30)

    async def scenario() -> None:
        phone = await join_phone(port, ending.code, 5)
        follower = Follower(phone, next(iter(phone.fragments)))
        try:
            live.end_session(engine, ending.id)
            ran = await follower.beat(until=time.monotonic() + 30)  # held until the end shows
            assert ran is not None
            assert any("ended" in text for text in phone.texts), phone.texts
            assert follow_data(phone)["url"] is None  # nothing more to ask
            assert await follower.beat() is None
            assert follower.asked == 1
        finally:
            follower.close()
            await phone.close()

    run_coroutine(scenario())


def test_a_server_told_to_stop_answers_its_held_requests_and_stops_at_once(tmp_path):
    """A held request would otherwise keep uvicorn's graceful shutdown waiting for up to
    follow.HOLD_SECONDS (every redeploy, every test server with a phone on it)."""
    url = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    engine = store.make_engine(url)
    live.ensure_schema(engine)
    session, _token = live.create_session(engine, class_size=30)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "DPLAB_WARM": "0", store.DATABASE_URL_ENV: url})
    try:
        wait_until_serving(port, server)

        async def scenario() -> tuple[int, str, float]:
            phone = await join_phone(port, session.code, 1)
            data = follow_data(phone)
            asking = asyncio.ensure_future(asyncio.to_thread(get, port, f"{data['url']}?v={data['version']}"))
            await asyncio.sleep(1)
            assert not asking.done(), "held"
            told = time.monotonic()
            server.terminate()
            status, _, body = await asyncio.wait_for(asking, 10)
            await asyncio.to_thread(server.wait, 10)
            return status, body, time.monotonic() - told

        status, body, stopped_in = run_coroutine(scenario())
        assert (status, body) == (200, str(session.version))
        assert stopped_in < follow.HOLD_SECONDS / 2, stopped_in
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=30)
        engine.dispose()
