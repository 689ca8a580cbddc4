"""A lecture hall votes at once: 300 devices on one question, in both rounds, some of them tapping
twice or reloading and voting again, and a few more devices than the stated class size. Nothing
may be lost, nothing counted twice, and the class size holds exactly.

Runs against SQLite, and against PostgreSQL when DPLAB_TEST_POSTGRES_URL is set (required under
REQUIRE_POSTGRES=1). Prints the wall time.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from classroom import live
from classroom.live import Vote
from tests.live_databases import live_engine
from tests.poll_databases import BACKENDS

DEVICES = 300
EXTRA = 12  # devices beyond the class size: refused, and counted as refused
REPEATERS = 60  # devices that vote again (a double tap, a reload, a second tab)
THREADS = 32
OPTIONS = ["A", "B", "C", "D"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_300_devices_vote_at_once_in_two_rounds_losing_and_duplicating_nothing(backend, tmp_path):
    with live_engine(backend, tmp_path) as engine:
        session, _ = live.create_session(engine, class_size=DEVICES)
        question = live.push_quiz(engine, session.id, "composition/k-queries", "Which?", OPTIONS,
                                  1, "Because.")
        phones = [live.new_device_id() for _ in range(DEVICES + EXTRA)]
        timings = []
        refused = 0
        for round_ in (1, 2):
            if round_ == 2:
                live.start_round_two(engine, session.id, question.id)
            first = {phone: (i + round_) % len(OPTIONS) for i, phone in enumerate(phones)}
            # A repeat sends a different choice: if one slipped through, the tally would show it.
            jobs = [(phone, first[phone]) for phone in phones]
            repeats = [(phone, (first[phone] + 1) % len(OPTIONS)) for phone in phones[:REPEATERS]]
            together = threading.Barrier(THREADS)

            def cast(numbered, round_=round_, together=together):
                number, (phone, choice) = numbered
                if number < THREADS:
                    together.wait(timeout=10)  # the first wave hits the database at once
                return phone, live.vote(engine, session.id, question.id, round_, phone, choice)

            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=THREADS) as pool:
                firsts = dict(pool.map(cast, enumerate(jobs)))
                seconds = dict(pool.map(cast, enumerate(repeats, start=len(jobs))))
            timings.append(time.perf_counter() - started)
            assert Counter(firsts.values()) == {Vote.RECORDED: DEVICES, Vote.CLASS_FULL: EXTRA}
            for phone, result in seconds.items():
                assert result is (Vote.DUPLICATE if firsts[phone] is Vote.RECORDED else Vote.CLASS_FULL)
            refused += EXTRA + sum(result is Vote.CLASS_FULL for result in seconds.values())
            expected = Counter(first[phone] for phone, result in firsts.items()
                               if result is Vote.RECORDED)
            tally = live.tally(engine, question.id, len(OPTIONS))[round_]
            assert tally == [expected[i] for i in range(len(OPTIONS))]
            assert live.vote_count(engine, question.id, round_) == DEVICES
            assert live.question(engine, session.id, question.id).refused == refused
        print(f"\n[live concurrency] {backend}: {DEVICES + EXTRA} devices (class size {DEVICES}) "
              f"+ {REPEATERS} repeats from {THREADS} threads: round 1 in {timings[0]:.2f} s, "
              f"round 2 in {timings[1]:.2f} s; nothing lost, nothing counted twice, "
              f"{EXTRA} refused per round")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_device_tapping_many_times_at_the_same_instant_counts_once(backend, tmp_path):
    with live_engine(backend, tmp_path) as engine:
        session, _ = live.create_session(engine, class_size=30)
        question = live.push_game(engine, session.id, 1.0)
        phone = live.new_device_id()
        together = threading.Barrier(16)

        def tap(choice: int) -> Vote:
            together.wait(timeout=10)
            return live.vote(engine, session.id, question.id, 1, phone, choice)

        with ThreadPoolExecutor(max_workers=16) as pool:
            results = list(pool.map(tap, [i % 2 for i in range(16)]))
        assert Counter(results) == {Vote.RECORDED: 1, Vote.DUPLICATE: 15}
        assert live.game_result(engine, question.id).n == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_votes_racing_the_instructors_next_question_land_on_the_old_one_or_nowhere(backend, tmp_path):
    # While 300 devices vote, the instructor pushes the next question: every vote is either
    # recorded on the question it was cast for (before the push) or refused, as closed (the
    # push closes it) or as no longer current.
    with live_engine(backend, tmp_path) as engine:
        session, _ = live.create_session(engine, class_size=DEVICES)
        question = live.push_quiz(engine, session.id, "a/b", "Q?", OPTIONS, 0, "")
        phones = [live.new_device_id() for _ in range(DEVICES)]

        def cast(numbered):
            number, phone = numbered
            if number == DEVICES // 2:
                live.push_quiz(engine, session.id, "a/c", "Next?", OPTIONS, 0, "")
            return live.vote(engine, session.id, question.id, 1, phone, number % len(OPTIONS))

        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            results = Counter(pool.map(cast, enumerate(phones)))
        assert set(results) <= {Vote.RECORDED, Vote.NOT_CURRENT, Vote.CLOSED}
        assert live.vote_count(engine, question.id, 1) == results[Vote.RECORDED]
        assert results[Vote.RECORDED] >= 1
        assert results[Vote.NOT_CURRENT] + results[Vote.CLOSED] >= 1
