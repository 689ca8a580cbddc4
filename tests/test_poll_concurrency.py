"""A whole class answers at once: 200 sessions submit concurrently, some of them twice or more.

No answer may be lost and none counted twice. Runs against SQLite, and against PostgreSQL when
DPLAB_TEST_POSTGRES_URL is set (required under REQUIRE_POSTGRES=1). Prints the wall time.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select, text

from classroom import store
from classroom.store import Submission
from tests.poll_databases import BACKENDS, database_url, open_engine

STUDENTS = 200
REPEATERS = 40  # sessions that also submit again (double clicks, reruns), some three times
THREADS = 32


@pytest.mark.parametrize("backend", BACKENDS)
def test_200_concurrent_submissions_lose_and_duplicate_none(backend, tmp_path):
    engine = open_engine(database_url(backend, tmp_path))
    poll, _ = store.create_poll(engine, "Concurrency?", store.PROTOCOL_COINS, math.log(3),
                                class_size=STUDENTS)
    try:
        tokens = [secrets.token_urlsafe(16) for _ in range(STUDENTS)]
        first_answer = {token: i % 2 for i, token in enumerate(tokens)}
        # Each repeat sends the opposite answer: if one slipped through, the totals would show it.
        jobs = [(token, first_answer[token]) for token in tokens]
        jobs += [(token, 1 - first_answer[token]) for token in tokens[:REPEATERS]]
        jobs += [(token, 1 - first_answer[token]) for token in tokens[: REPEATERS // 4]]
        start_together = threading.Barrier(THREADS)

        def submit(numbered_job):
            number, (token, answer) = numbered_job
            if number < THREADS:
                start_together.wait(timeout=10)  # the first wave hits the database at once
            return token, store.submit_answer(engine, poll.id, token, answer)

        # Put every first submission ahead of its repeats so "first answer stands" is defined.
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            firsts = list(pool.map(submit, enumerate(jobs[:STUDENTS])))
            repeats = list(pool.map(submit, enumerate(jobs[STUDENTS:], start=STUDENTS)))
        elapsed = time.perf_counter() - started

        outcomes = Counter(result for _, result in firsts + repeats)
        stored = store.answers(engine, poll.id)
        lost = STUDENTS - len(stored)
        print(f"\n[poll concurrency] {backend}: {len(jobs)} submissions ({STUDENTS} sessions, "
              f"{len(jobs) - STUDENTS} repeats) from {THREADS} threads in {elapsed:.2f} s "
              f"({len(jobs) / elapsed:.0f}/s); stored {len(stored)}, lost {max(lost, 0)}, "
              f"duplicated {max(-lost, 0)}")
        assert all(result is Submission.RECORDED for _, result in firsts)
        assert outcomes[Submission.DUPLICATE] == len(jobs) - STUDENTS
        assert len(stored) == STUDENTS
        assert sum(stored) == sum(first_answer.values())  # no repeat replaced a first answer
    finally:
        with engine.begin() as conn:
            conn.execute(store.polls.delete().where(store.polls.c.id == poll.id))
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_racing_double_submissions_count_once(backend, tmp_path):
    # The same session clicking many times at the same instant: exactly one insert wins.
    engine = open_engine(database_url(backend, tmp_path))
    poll, _ = store.create_poll(engine, "Race?", store.PROTOCOL_COINS, math.log(3),
                                class_size=30)
    try:
        barrier = threading.Barrier(16)

        def click(_):
            barrier.wait(timeout=10)
            return store.submit_answer(engine, poll.id, "one-session", 1)

        with ThreadPoolExecutor(max_workers=16) as pool:
            results = Counter(pool.map(click, range(16)))
        assert results == {Submission.RECORDED: 1, Submission.DUPLICATE: 15}
        assert store.answers(engine, poll.id) == [1]
    finally:
        with engine.begin() as conn:
            conn.execute(store.polls.delete().where(store.polls.c.id == poll.id))
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_replicas_starting_together_set_up_the_schema_once(backend, tmp_path):
    url = database_url(backend, tmp_path)
    schema = None
    if backend == "postgresql":  # a fresh, empty schema of our own, dropped afterwards
        schema = f"dplab_race_{secrets.token_hex(4)}"
        with store.make_engine(url).begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        url += ("&" if "?" in url else "?") + f"options=-csearch_path%3D{schema}"
    replicas = [store.make_engine(url) for _ in range(8)]
    barrier = threading.Barrier(len(replicas))

    def start(engine):
        barrier.wait(timeout=10)
        store.ensure_schema(engine)

    try:
        with ThreadPoolExecutor(max_workers=len(replicas)) as pool:
            list(pool.map(start, replicas))
        with replicas[0].connect() as conn:
            versions = conn.execute(select(store.schema_version.c.version)).scalars().all()
        assert versions == [store.SCHEMA_VERSION]
        poll, _ = store.create_poll(replicas[1], "Set up?", store.PROTOCOL_COINS, math.log(3),
                                  class_size=30)
        assert store.submit_answer(replicas[2], poll.id, "t", 1) is Submission.RECORDED
    finally:
        for engine in replicas:
            engine.dispose()
        if schema:
            admin = store.make_engine(database_url(backend, tmp_path))
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_class_size_holds_when_a_crowd_answers_at_once(backend, tmp_path):
    # 200 sessions from one address race for a poll that takes 50: exactly 50 get in.
    class_size = 50
    engine = open_engine(database_url(backend, tmp_path))
    poll, _ = store.create_poll(engine, "Crowd?", store.PROTOCOL_COINS, math.log(3),
                                class_size=class_size)
    try:
        start_together = threading.Barrier(THREADS)

        def submit(number):
            if number < THREADS:
                start_together.wait(timeout=10)
            return store.submit_answer(engine, poll.id, f"s{number}", number % 2, address="198.51.100.1")

        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            outcomes = Counter(pool.map(submit, range(STUDENTS)))
        assert outcomes == {Submission.RECORDED: class_size,
                            Submission.CLASS_FULL: STUDENTS - class_size}
        assert len(store.answers(engine, poll.id)) == class_size
        assert store.find_poll(engine, poll.code).refused == STUDENTS - class_size
        assert store.address_summary(engine, poll.id) == store.AddressSummary(1, class_size)
    finally:
        with engine.begin() as conn:
            conn.execute(store.polls.delete().where(store.polls.c.id == poll.id))
        engine.dispose()
