"""A hostile student's script against a real server, over Streamlit's own websocket protocol
(the client of bench/load.py): it floods the join page with new sessions and cannot push the
poll past its class size.

Three floods, loopback only, each bounded in sessions and in time:
- impatient: each new session answers at once with a button id replayed from a real session,
  then reconnects (the attack of issue 18: 500 of 500 answers in 11.7 s). Nothing is stored:
  a new session's buttons are not drawn during its first seconds.
- patient: many sessions open together, wait out the new-session delay, then all answer.
  Exactly the class size is stored; every other answer is refused and counted for the projector.
- from "several addresses": the same, behind our own proxy's X-Forwarded-For (trusted only from
  loopback); the database holds per-poll hashes of the addresses, never the addresses.

Runs on SQLite, and on PostgreSQL when DPLAB_TEST_POSTGRES_URL is set (required under
REQUIRE_POSTGRES=1), like the store tests. Prints the figures (pytest -s).
"""

from __future__ import annotations

import asyncio
import math
import time
import urllib.parse

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect

from bench.load import Session, resolve_reference
from classroom import limits, store
from tests.conftest import run_coroutine, serve_app
from tests.poll_databases import BACKENDS, empty_database, open_engine

pytestmark = pytest.mark.xdist_group("flood")

CLASS_SIZE = 12
IMPATIENT = 40  # sessions that answer at once and reconnect
PATIENT = 30  # sessions that wait out the delay, then answer together
CONCURRENT = 10  # impatient sessions open at a time
TIME_LIMIT = 180  # seconds for the whole flood, per backend
FORWARDED = ["203.0.113.7", "203.0.113.8", "198.51.100.20"]
RECORDED = "Your answer is in"
REFUSED = "not counted"
WAITING = "The answer buttons appear in"
FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


class Phone(Session):
    """A join-page session that also keeps the text the page shows."""

    def __init__(self, port: int, code: str, forwarded_for: str | None = None) -> None:
        super().__init__(port, "poll-join")
        self.query = {"code": code}
        self.forwarded_for = forwarded_for
        self.texts: list[str] = []

    async def open(self) -> None:
        headers = {"X-Forwarded-For": self.forwarded_for} if self.forwarded_for else None
        self.ws = await asyncio.wait_for(connect(
            f"ws://127.0.0.1:{self.port}/_stcore/stream", subprotocols=["streamlit"],
            max_size=None, additional_headers=headers), 60)
        message = BackMsg()
        message.rerun_script.page_name = self.slug
        message.rerun_script.query_string = urllib.parse.urlencode(self.query)
        self._add_context(message)
        await self._until_finished(message)

    def button(self, key: str) -> str | None:
        return next((wid for wid, w in self.widgets.items()
                     if w.kind == "button" and wid.endswith(f"-{key}")), None)

    async def click(self, widget_id: str | None) -> None:
        """Click the button with this id (None: rerun the page, as its countdown does)."""
        message = BackMsg()
        state = message.rerun_script
        state.query_string = urllib.parse.urlencode(self.query)
        state.page_script_hash = self.page_script_hash
        state.widget_states.widgets.extend(v for k, v in self.values.items() if k != widget_id)
        if widget_id is not None:
            state.widget_states.widgets.append(WidgetState(id=widget_id, trigger_value=True))
        state.cached_message_hashes.extend(sorted(self.cache))
        self._add_context(message)
        self.widgets.clear()
        await self._until_finished(message)

    async def _until_finished(self, message: BackMsg) -> None:
        """Send, then read until a run finishes that was not cut short by st.rerun()."""
        self.texts.clear()
        await self.ws.send(message.SerializeToString())
        async with asyncio.timeout(60):
            while True:
                forward = ForwardMsg()
                forward.ParseFromString(await self.ws.recv())
                if forward.WhichOneof("type") == "ref_hash":
                    forward = resolve_reference(forward, self.cache)
                kind = forward.WhichOneof("type")
                if kind == "navigation":
                    self.page_script_hash = forward.navigation.page_script_hash
                elif kind == "new_session":
                    self.texts.clear()
                elif kind == "delta":
                    self._take_delta(forward)
                    element = forward.delta.new_element
                    shown = element.WhichOneof("type")
                    if shown in ("markdown", "alert"):
                        self.texts.append(getattr(element, shown).body)
                elif kind == "script_finished":
                    if forward.script_finished in FINISHED:
                        return
                    if forward.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                        raise AssertionError(f"run ended with {forward.script_finished}")

    def says(self, text: str) -> bool:
        return any(text in shown for shown in self.texts)


async def flood(port: int, code: str) -> dict:
    figures: dict = {}
    # A real student: opens the link, reads for the few seconds the page asks, answers.
    student = Phone(port, code)
    await student.open()
    assert student.says(WAITING) and student.button("poll_coin_yes") is None
    await asyncio.sleep(limits.SESSION_WARMUP_SECONDS + 0.5)
    await student.click(None)  # what the page's countdown does when it reaches 0
    replayed = student.button("poll_coin_yes")
    assert replayed, "after the wait the buttons are there"
    await student.click(replayed)
    assert student.says(RECORDED)
    await student.close()

    # Impatient: open, click the replayed id at once, reconnect; CONCURRENT at a time.
    started = time.perf_counter()
    outcomes = {"recorded": 0, "waiting": 0}

    async def impatient(_: int) -> None:
        phone = Phone(port, code)
        await phone.open()
        await phone.click(replayed)
        seen = "recorded" if phone.says(RECORDED) else "waiting" if phone.says(WAITING) else "other"
        outcomes[seen] = outcomes.get(seen, 0) + 1
        await phone.close()

    for batch in range(0, IMPATIENT, CONCURRENT):
        await asyncio.gather(*(impatient(i) for i in range(batch, min(batch + CONCURRENT, IMPATIENT))))
    figures["impatient"] = (IMPATIENT, time.perf_counter() - started, dict(outcomes))

    # Patient: PATIENT sessions from several forwarded addresses wait out the delay together.
    started = time.perf_counter()
    phones = [Phone(port, code, FORWARDED[i % len(FORWARDED)]) for i in range(PATIENT)]
    await asyncio.gather(*(phone.open() for phone in phones))
    await asyncio.sleep(limits.SESSION_WARMUP_SECONDS + 0.5)
    await asyncio.gather(*(phone.click(None) for phone in phones))
    # The ids are the same in every session: replaying one is a real attack, not a strawman.
    assert {phone.button("poll_coin_yes") for phone in phones} == {replayed}
    await asyncio.gather(*(phone.click(phone.button("poll_coin_yes")) for phone in phones))
    recorded = sum(phone.says(RECORDED) for phone in phones)
    refused = sum(phone.says(REFUSED) for phone in phones)
    for phone in phones:
        await phone.close()
    figures["patient"] = (PATIENT, time.perf_counter() - started, recorded, refused)
    return figures


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_flood_of_new_sessions_stays_within_the_class_size(backend, tmp_path, monkeypatch):
    with empty_database(backend, tmp_path) as url:
        engine = open_engine(url)
        poll, _ = store.create_poll(engine, "Flooded?", store.PROTOCOL_COINS, math.log(3),
                                    class_size=CLASS_SIZE)
        monkeypatch.setenv(store.DATABASE_URL_ENV, url)
        try:
            with serve_app() as base:
                port = int(urllib.parse.urlsplit(base).port)
                figures = run_coroutine(asyncio.wait_for(flood(port, poll.code), TIME_LIMIT))
            stored = store.answers(engine, poll.id)
            after = store.find_poll(engine, poll.code)
            sources = store.address_summary(engine, poll.id)
            with engine.connect() as conn:
                kept = " ".join(" ".join(map(str, row)) for table in (store.address_counts, store.polls)
                                for row in conn.execute(table.select()).all())
        finally:
            engine.dispose()

    sent, seconds, outcomes = figures["impatient"]
    print(f"\n[poll flood] {backend}: impatient {sent} sessions in {seconds:.1f} s → {outcomes}; "
          f"patient {figures['patient'][0]} sessions in {figures['patient'][1]:.1f} s → "
          f"{figures['patient'][2]} recorded, {figures['patient'][3]} refused; "
          f"stored {len(stored)} of class size {CLASS_SIZE}, refused count {after.refused}, "
          f"{sources.addresses} address hashes (busiest {sources.busiest})")
    assert outcomes == {"recorded": 0, "waiting": IMPATIENT}, "no impatient session got an answer in"
    assert len(stored) == CLASS_SIZE, "the flood filled the poll exactly to its class size"
    assert figures["patient"][2] == CLASS_SIZE - 1  # the real student took one place
    assert figures["patient"][3] == PATIENT - (CLASS_SIZE - 1)
    assert after.refused == PATIENT - (CLASS_SIZE - 1)
    # The real student came without a forwarded header (one bucket), the flood from three
    # forwarded addresses: four hashes, and no address in the database.
    assert sources.addresses == 1 + len(FORWARDED)
    assert not any(address in kept for address in FORWARDED)
