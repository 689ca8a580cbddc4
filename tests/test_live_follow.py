"""How a waiting phone follows the instructor (issue 28): classroom.follow's tickets and limits,
directly; and, through app.py in AppTest, what the join page's follow fragment hands the
browser's follow component (the route of its ticket, the version it drew, and when its drawing
is due to change by itself) in each state of a question."""

from __future__ import annotations

import asyncio
import json
import math
import time

import pytest
from streamlit.testing.v1 import AppTest

from classroom import follow, limits, live, store
from tests.conftest import ROOT, assert_clean, lesson, run_coroutine
from ui import live as ui_live
from ui import poll as ui_poll

JOIN = lesson("live-join")
EVERY = 2.0  # an honest page asks every 2 s


# ── classroom.follow, directly ──────────────────────────────────────────────────────────────

class _Views:
    """Stands in for a SessionCache where no database is read (admit never reads one)."""


def tickets_with(n: int, now: float = 0.0, **options) -> tuple[follow.FollowTickets, list[str]]:
    tickets = follow.FollowTickets(ask_every=EVERY, **options)
    issued = [tickets.new_ticket() for _ in range(n)]
    for ticket in issued:
        tickets.register(ticket, 1, _Views(), None, now)
    return tickets, issued


def test_an_unknown_ticket_is_refused_without_a_read():
    tickets, _ = tickets_with(1)
    refusal, entry = tickets.admit(tickets.new_ticket(), "203.0.113.7", 0.0)
    assert entry is None and refusal.status is follow.Status.UNKNOWN


def test_a_ticket_has_a_burst_then_twice_the_honest_rate():
    tickets, (ticket,) = tickets_with(1)
    assert tickets.ticket_rate == follow.HONEST_FACTOR / EVERY
    for _ in range(follow.TICKET_BURST):
        refusal, entry = tickets.admit(ticket, "203.0.113.7", 0.0)
        assert refusal is None and entry is not None
    refusal, _ = tickets.admit(ticket, "203.0.113.7", 0.0)
    assert refusal.status is follow.Status.LIMITED
    assert refusal.retry_after == pytest.approx(1 / tickets.ticket_rate)
    assert tickets.admit(ticket, "203.0.113.7", refusal.retry_after)[0] is None  # refilled
    # An honest page (one request every EVERY s) is never refused, however long it runs.
    honest, (page,) = tickets_with(1)
    assert all(honest.admit(page, "203.0.113.7", k * EVERY)[0] is None for k in range(1000))


def test_a_hammering_ticket_does_not_use_up_its_address():
    tickets, (loud, quiet) = tickets_with(2)
    refused = sum(tickets.admit(loud, "198.51.100.1", 0.001 * k)[0] is not None for k in range(5000))
    assert refused >= 5000 - follow.TICKET_BURST - math.ceil(5 * tickets.ticket_rate)
    assert tickets.admit(quiet, "198.51.100.1", 5.0)[0] is None


def test_a_full_hall_behind_one_address_stays_under_the_ceiling_and_a_flood_does_not():
    # HALL_SEATS honest pages, each asking every EVERY s, from one NAT address, for 60 s.
    seats = limits.HALL_SEATS
    tickets, pages = tickets_with(seats)
    assert tickets.address_limit() >= seats * follow.ADDRESS_WINDOW_SECONDS / EVERY
    refused = 0
    for step in range(int(60 / EVERY)):
        for i, page in enumerate(pages):
            now = step * EVERY + i * EVERY / seats  # spread over the interval, as phases are
            refused += tickets.admit(page, "192.0.2.1", now)[0] is not None
    assert refused == 0
    # The same address with many more tickets, each within its own allowance, meets the
    # ceiling: at most address_limit answers in any window.
    flood, many = tickets_with(4 * seats)
    assert 4 * seats * follow.TICKET_BURST > flood.address_limit()
    answered = sum(flood.admit(page, "192.0.2.2", 0.0)[0] is None
                   for page in many for _ in range(follow.TICKET_BURST))
    assert answered == flood.address_limit()
    refusal, _ = flood.admit(many[0], "192.0.2.2", 0.0)
    assert refusal.status is follow.Status.LIMITED and 0 < refusal.retry_after <= follow.ADDRESS_WINDOW_SECONDS
    other = flood.new_ticket()
    flood.register(other, 1, _Views(), None, 0.0)
    assert flood.admit(other, "192.0.2.3", 0.0)[0] is None  # other addresses are not affected


def test_the_least_recently_used_tickets_are_forgotten_past_the_cap():
    tickets, issued = tickets_with(5, max_tickets=3)
    assert len(tickets) == 3
    assert tickets.admit(issued[0], "203.0.113.7", 0.0)[0].status is follow.Status.UNKNOWN
    assert tickets.admit(issued[-1], "203.0.113.7", 0.0)[0] is None
    tickets.register(issued[0], 1, _Views(), None, 1.0)  # the next run registers it again
    assert tickets.admit(issued[0], "203.0.113.7", 1.0)[0] is None


def test_the_cache_answers_without_the_database_only_while_fresh(tmp_path):
    engine = store.make_engine(f"sqlite:///{tmp_path / 'live.sqlite3'}")
    live.ensure_schema(engine)
    session, _ = live.create_session(engine, class_size=30)
    views = live.SessionCache(max_age=0.5)
    assert views.cached(engine, session.id, now=10.0) is None
    views.view(engine, session.id, now=10.0)
    assert views.cached(engine, session.id, now=10.4).session.version == session.version
    assert views.cached(engine, session.id, now=10.5) is None
    tickets = follow.FollowTickets(ask_every=EVERY)
    ticket = tickets.new_ticket()
    tickets.register(ticket, session.id, views, engine, 10.0)
    _, entry = tickets.admit(ticket, "203.0.113.7", 10.0)
    assert entry.cached_version(10.4) == (True, session.version)
    assert entry.cached_version(11.0) == (False, None)
    live.end_session(engine, session.id)
    assert entry.read_version() == live.version(engine, session.id) > session.version
    engine.dispose()


# ── Held requests (classroom.follow.VersionWatch), directly ────────────────────────────────

RECHECK = 0.05  # the watch's re-read, short for the tests (the app's is CACHE_SECONDS)


@pytest.fixture
def watched(tmp_path):
    """A live session, a ticket registered for it, and a watch; the cache as the app's."""
    engine = store.make_engine(f"sqlite:///{tmp_path / 'live.sqlite3'}")
    live.ensure_schema(engine)
    session, _ = live.create_session(engine, class_size=30)
    tickets = follow.FollowTickets(ask_every=EVERY)
    views = live.SessionCache(max_age=RECHECK)

    def ticket() -> follow._Ticket:
        issued = tickets.new_ticket()
        tickets.register(issued, session.id, views, engine, time.monotonic())
        return tickets.admit(issued, "203.0.113.7", time.monotonic())[1]

    yield engine, session, ticket, views
    engine.dispose()


def held(watch, ticket, drawn, hold=5.0):
    return asyncio.ensure_future(watch.wait(ticket, drawn, hold))


def test_a_held_request_waits_for_the_version_to_move_and_an_older_one_is_answered_at_once(watched):
    engine, session, ticket, _views = watched
    watch = follow.VersionWatch(recheck=RECHECK)

    async def scenario() -> None:
        page = ticket()
        assert await watch.wait(page, session.version - 1) == session.version  # drew an older one
        started = time.monotonic()
        assert await watch.wait(page, session.version, hold=0.3) == session.version  # let go
        assert 0.3 <= time.monotonic() - started < 2
        waiting = [held(watch, ticket(), session.version) for _ in range(3)]
        await asyncio.sleep(3 * RECHECK)
        assert not any(w.done() for w in waiting) and len(watch) == 3
        # Another replica's push: only the database knows; the watch re-reads it.
        live.push_quiz(engine, session.id, "t/q", "Q?", ["a", "b"], 0, "")
        moved = live.version(engine, session.id)
        answers = await asyncio.wait_for(asyncio.gather(*waiting), 2)
        assert answers == [moved] * 3 and len(watch) == 0
        await asyncio.sleep(3 * RECHECK)
        assert not watch._sessions  # the session's watch ended with its last held request

    run_coroutine(scenario())


def test_a_poke_answers_at_once_without_waiting_for_the_recheck(watched):
    engine, session, ticket, views = watched
    watch = follow.VersionWatch(recheck=60.0)  # no recheck within the test: only the poke

    async def scenario() -> None:
        waiting = held(watch, ticket(), session.version, hold=30)
        await asyncio.sleep(0.1)
        live.push_quiz(engine, session.id, "t/q", "Q?", ["a", "b"], 0, "")
        views.invalidate(session.id)  # what ui.live.published does first
        started = time.monotonic()
        await asyncio.to_thread(watch.poke, session.id)  # from a script thread
        assert await asyncio.wait_for(waiting, 5) == live.version(engine, session.id)
        assert time.monotonic() - started < 2

    run_coroutine(scenario())


def test_a_ticket_holds_one_request_a_newer_one_lets_the_older_go(watched):
    _engine, session, ticket, _views = watched
    watch = follow.VersionWatch(recheck=RECHECK)

    async def scenario() -> None:
        page = ticket()
        first = held(watch, page, session.version, hold=30)
        await asyncio.sleep(0.1)
        second = held(watch, page, session.version, hold=30)
        assert await asyncio.wait_for(first, 2) == session.version  # released, unchanged
        assert not second.done() and len(watch) == 1
        second.cancel()

    run_coroutine(scenario())


def test_a_stopping_server_lets_every_held_request_go_and_holds_no_new_one(watched):
    _engine, session, ticket, _views = watched
    stopping = []
    watch = follow.VersionWatch(recheck=RECHECK, stopping=lambda: bool(stopping))

    async def scenario() -> None:
        waiting = [held(watch, ticket(), session.version, hold=30) for _ in range(2)]
        await asyncio.sleep(0.1)
        stopping.append(True)
        assert await asyncio.wait_for(asyncio.gather(*waiting), 2) == [session.version] * 2
        assert await asyncio.wait_for(watch.wait(ticket(), session.version, 30), 2) == session.version

    run_coroutine(scenario())


def test_a_session_that_cannot_be_read_fails_its_held_requests_and_a_gone_one_answers_none(watched):
    engine, session, ticket, views = watched
    watch = follow.VersionWatch(recheck=RECHECK)

    async def scenario() -> None:
        page = ticket()
        waiting = held(watch, page, session.version, hold=30)
        await asyncio.sleep(0.1)
        page.read_version = lambda: (_ for _ in ()).throw(OSError("database down"))
        views.invalidate(session.id)
        with pytest.raises(follow.WatchFailed):
            await asyncio.wait_for(waiting, 2)
        gone = ticket()
        gone.session_id = 10**6  # a session that is not in the database
        assert await watch.wait(gone, 1) is None

    run_coroutine(scenario())


# ── What the page hands the browser (AppTest) ───────────────────────────────────────────────

@pytest.fixture
def engine(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'poll.sqlite3'}"
    monkeypatch.setenv(store.DATABASE_URL_ENV, url)
    monkeypatch.setattr(limits, "SESSION_WARMUP_SECONDS", 0.0)
    ui_poll._address_limiter.clear()
    ui_live.session_cache.clear()
    engine = store.make_engine(url)
    live.ensure_schema(engine)
    yield engine
    engine.dispose()
    ui_live.session_cache.clear()


def phone(code: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"code": code})
    at.session_state[ui_live.IDENTITY_KEY] = "phone-aaaaaaaaaaaaaaaa"
    at.switch_page(JOIN.script)
    at.run()
    assert_clean(at)
    return at


def follow_data(at) -> dict:
    (component,) = [c for c in at.get("bidi_component") if c.proto.component_name.endswith("dplab_live_follow")]
    return json.loads(component.proto.json)


def test_a_waiting_phone_is_rerun_by_its_browser_when_the_version_moves(engine):
    session, _ = live.create_session(engine, class_size=30)
    at = phone(session.code)
    data = follow_data(at)
    ticket = at.session_state[ui_live.FOLLOW_TICKET_KEY]
    assert data["url"] == f"/{ui_live.VERSION_ROUTE}/{ticket}"
    assert data["version"] == live.version(engine, session.id)
    assert data["every_ms"] == round(1000 * ui_live.FOLLOW_SECONDS)
    assert data["rerun_in_ms"] is None  # "waiting" changes only when the instructor acts
    _, entry = ui_live.follow_tickets.admit(ticket, "203.0.113.9", time.monotonic())
    assert entry is not None and entry.session_id == session.id
    # The instructor pushes (from this process: the cache is invalidated); the browser's
    # trigger reruns the fragment, which draws the question and hands over the new version.
    live.push_quiz(engine, session.id, "t/q", "FOLLOWED QUESTION?", ["yes", "no"], 0, "")
    ui_live.published(session.id)
    at.run()
    assert_clean(at)
    assert "FOLLOWED QUESTION?" in " ".join(m.value for m in at.markdown)
    moved = follow_data(at)
    assert moved["version"] == live.version(engine, session.id) > data["version"]
    assert moved["url"] == data["url"] and moved["run"] > data["run"]  # same ticket, new run


def test_a_countdown_the_new_session_wait_and_a_poll_are_redrawn_on_time(engine, monkeypatch):
    session, _ = live.create_session(engine, class_size=30)
    question = live.push_quiz(engine, session.id, "t/q", "Counted down?", ["yes", "no"], 0, "")
    live.start_countdown(engine, session.id, question.id, 30)
    ui_live.published(session.id)
    at = phone(session.code)
    assert follow_data(at)["rerun_in_ms"] == round(1000 * ui_live.FOLLOW_SECONDS)  # the seconds left
    # A new phone waits before its buttons appear: its browser reruns it when the wait ends.
    # (A minute here, so that a slow run of the page cannot outlast it.)
    monkeypatch.setattr(limits, "SESSION_WARMUP_SECONDS", 60.0)
    live.push_quiz(engine, session.id, "t/q2", "Wait for me?", ["yes", "no"], 0, "")
    ui_live.published(session.id)  # as the instructor's process does: no half-second-old view
    waiting = phone(session.code)
    assert not [b for b in waiting.button if b.key and b.key.startswith("live_vote_")]
    assert 0 < follow_data(waiting)["rerun_in_ms"] <= 60_000
    # A class poll's own state (closed or reset on its page) is re-read every POLL_RECHECK_SECONDS.
    monkeypatch.setattr(limits, "SESSION_WARMUP_SECONDS", 0.0)
    poll, _ = store.create_poll(engine, "Copied homework?", store.PROTOCOL_COINS, math.log(3),
                                class_size=30)
    live.push_poll(engine, session.id, poll.code)
    ui_live.published(session.id)
    polled = phone(session.code)
    assert follow_data(polled)["rerun_in_ms"] == 10_000  # app_pages/live-join.POLL_RECHECK_SECONDS


def test_an_ended_session_leaves_no_component_polling(engine):
    # The browser's trigger reruns the fragment, which hands over no route (the wire test);
    # the next whole run of the page says the session ended and draws no component at all.
    session, _ = live.create_session(engine, class_size=30)
    at = phone(session.code)
    assert follow_data(at)["url"]
    live.end_session(engine, session.id)
    ui_live.published(session.id)
    at.run()
    assert not [c for c in at.get("bidi_component") if c.proto.component_name.endswith("dplab_live_follow")]
