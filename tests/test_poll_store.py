"""classroom.store against a real database: SQLite always, PostgreSQL when DPLAB_TEST_POSTGRES_URL is set."""

from __future__ import annotations

import math
import secrets

import pytest
from sqlalchemy import inspect, select, text

from classroom import store
from classroom.store import Submission
from tests.poll_databases import BACKENDS, database_url, open_engine, sqlite_url

LN3 = math.log(3)


@pytest.fixture(params=BACKENDS)
def engine(request, tmp_path):
    engine = open_engine(database_url(request.param, tmp_path))
    yield engine
    engine.dispose()


@pytest.fixture
def poll(engine):
    poll, token = store.create_poll(engine, "Did you sleep less than 6 hours last night?",
                                    store.PROTOCOL_COINS, LN3)
    yield poll, token
    with engine.begin() as conn:  # PostgreSQL is shared between runs: leave nothing behind
        conn.execute(store.polls.delete().where(store.polls.c.id == poll.id))


def test_schema_is_created_with_a_version(engine):
    tables = set(inspect(engine).get_table_names())
    assert {"poll_schema_version", "polls", "poll_responses"} <= tables
    store.ensure_schema(engine)  # a second start changes nothing
    with engine.connect() as conn:
        versions = conn.execute(select(store.schema_version.c.version)).scalars().all()
    assert max(versions) == store.SCHEMA_VERSION


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path):
    engine = open_engine(sqlite_url(tmp_path))
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() >= 1000
    engine.dispose()


def test_migrations_run_in_order_and_a_newer_database_is_refused(tmp_path, monkeypatch):
    engine = open_engine(sqlite_url(tmp_path))
    ran = []
    monkeypatch.setattr(store, "SCHEMA_VERSION", 3)
    monkeypatch.setattr(store, "MIGRATIONS", {2: lambda conn: ran.append(2),
                                              3: lambda conn: ran.append(3)})
    store.ensure_schema(engine)
    assert ran == [2, 3]
    store.ensure_schema(engine)
    assert ran == [2, 3]  # already at version 3
    monkeypatch.setattr(store, "SCHEMA_VERSION", 1)
    with pytest.raises(store.SchemaTooNewError, match="update DP Lab"):
        store.ensure_schema(engine)
    engine.dispose()


def test_create_and_find_a_poll(engine, poll):
    poll, token = poll
    assert len(poll.code) == store.CODE_LENGTH and set(poll.code) <= set(store.CODE_ALPHABET)
    assert len(token) >= 40
    found = store.find_poll(engine, f" {poll.code[:3].lower()}-{poll.code[3:].lower()} ")
    assert found == poll and found.fair_coins and not found.closed
    assert store.find_poll(engine, "ZZZZZZ" if poll.code != "ZZZZZZ" else "YYYYYY") is None


def test_only_the_admin_token_opens_the_instructor_view(engine, poll):
    poll, token = poll
    assert store.poll_for_admin(engine, poll.code, token) == poll
    other_poll, other_token = store.create_poll(engine, "Another?", store.PROTOCOL_EPSILON, 1.0)
    for wrong in [None, "", "x", token[:-1], token + "A", other_token, "A" * 43, "é" * 43,
                  "'; DROP TABLE polls; --", token * 10]:
        assert store.poll_for_admin(engine, poll.code, wrong) is None, wrong
    assert store.poll_for_admin(engine, other_poll.code, token) is None
    assert store.poll_for_admin(engine, "garbage!", token) is None
    with engine.connect() as conn:
        stored = conn.execute(select(store.polls.c.admin_token_sha256)
                              .where(store.polls.c.id == poll.id)).scalar()
    assert stored != token and token not in stored  # only a hash is kept
    with engine.begin() as conn:
        conn.execute(store.polls.delete().where(store.polls.c.id == other_poll.id))


def test_one_answer_per_session_enforced_by_the_database(engine, poll):
    poll, _ = poll
    alice, bob = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    assert store.submit_answer(engine, poll.id, alice, 1) is Submission.RECORDED
    assert store.submit_answer(engine, poll.id, alice, 0) is Submission.DUPLICATE
    assert store.submit_answer(engine, poll.id, alice, 1) is Submission.DUPLICATE
    assert store.submit_answer(engine, poll.id, bob, 0) is Submission.RECORDED
    assert store.answers(engine, poll.id) == [1, 0]  # alice's first answer stands
    assert store.has_answered(engine, poll.id, alice) and not store.has_answered(engine, poll.id, "carol")


def test_closed_and_unknown_polls_take_no_answers(engine, poll):
    poll, _ = poll
    store.set_closed(engine, poll.id, True)
    assert store.find_poll(engine, poll.code).closed
    assert store.submit_answer(engine, poll.id, "dave", 1) is Submission.CLOSED
    assert store.answers(engine, poll.id) == []
    store.set_closed(engine, poll.id, False)
    assert store.submit_answer(engine, poll.id, "dave", 1) is Submission.RECORDED
    assert store.submit_answer(engine, 10**9, "dave", 1) is Submission.UNKNOWN_POLL


def test_reset_deletes_answers_and_reopens(engine, poll):
    poll, _ = poll
    for i in range(5):
        store.submit_answer(engine, poll.id, f"s{i}", i % 2)
    store.set_closed(engine, poll.id, True)
    store.reset_poll(engine, poll.id)
    assert store.answers(engine, poll.id) == []
    assert not store.find_poll(engine, poll.code).closed
    assert store.submit_answer(engine, poll.id, "s0", 1) is Submission.RECORDED


def test_the_same_session_is_not_linkable_across_polls(engine, poll):
    poll, _ = poll
    second, _ = store.create_poll(engine, "Second question?", store.PROTOCOL_COINS, LN3)
    store.submit_answer(engine, poll.id, "same-browser", 1)
    store.submit_answer(engine, second.id, "same-browser", 1)
    with engine.connect() as conn:
        hashes = conn.execute(select(store.responses.c.respondent_sha256).where(
            store.responses.c.poll_id.in_([poll.id, second.id]))).scalars().all()
    assert len(set(hashes)) == 2 and "same-browser" not in "".join(hashes)
    with engine.begin() as conn:
        conn.execute(store.polls.delete().where(store.polls.c.id == second.id))


def test_nothing_is_lost_when_the_server_restarts(tmp_path):
    url = sqlite_url(tmp_path)
    engine = open_engine(url)
    poll, _ = store.create_poll(engine, "Restart?", store.PROTOCOL_COINS, LN3)
    for i in range(20):
        store.submit_answer(engine, poll.id, f"s{i}", i % 3 == 0)
    before = store.answers(engine, poll.id)
    engine.dispose()  # the process goes away; every submission was committed on return
    reopened = open_engine(url)
    assert store.answers(reopened, poll.id) == before and len(before) == 20
    assert store.find_poll(reopened, poll.code) == poll
    reopened.dispose()


def test_csv_export_holds_only_randomized_answers():
    csv_text = store.answers_csv([1, 0, 0, 1])
    assert csv_text.splitlines() == ["response,randomized_answer", "1,yes", "2,no", "3,no", "4,yes"]
    assert store.answers_csv([]) == "response,randomized_answer\n"


@pytest.mark.parametrize("raw, message", [
    ("", "Type a yes/no question"),
    ("   \n\t ", "Type a yes/no question"),
    ("x" * (store.QUESTION_MAX_CHARS + 1), f"keep it to {store.QUESTION_MAX_CHARS}"),
])
def test_bad_questions_say_what_to_change(raw, message):
    with pytest.raises(store.PollInputError, match=message):
        store.clean_question(raw)


def test_questions_are_tidied_to_one_line():
    assert store.clean_question("  Have you\n\never\x00 cheated?\u200b ") == "Have you ever cheated?"
    assert store.clean_question("x" * store.QUESTION_MAX_CHARS) == "x" * store.QUESTION_MAX_CHARS


@pytest.mark.parametrize("raw, code", [
    ("K7PQ3M", "K7PQ3M"), ("k7p-q3m", "K7PQ3M"), (" k7p q3m ", "K7PQ3M"),
    ("K7PQ3", None), ("K7PQ3MM", None), ("K7PQ0M", None), ("<script>", None), ("", None),
    (None, None), ("K" * 10_000, None), ("１２３４５６", None),
])
def test_join_codes_are_normalised_or_refused(raw, code):
    assert store.normalise_code(raw) == code


def test_database_url_precedence(tmp_path):
    assert store.resolve_database_url(None, {}).startswith("sqlite:///")
    assert store.resolve_database_url(None, {}).endswith("data/poll.sqlite3")
    assert store.resolve_database_url("postgresql://s/db", {}) == "postgresql://s/db"
    env = {store.DATABASE_URL_ENV: "sqlite:////tmp/x.db"}
    assert store.resolve_database_url("postgresql://s/db", env) == "sqlite:////tmp/x.db"
    assert store.resolve_database_url("  ", {store.DATABASE_URL_ENV: ""}).startswith("sqlite:///")


def test_create_poll_validates_its_input(tmp_path):
    engine = open_engine(sqlite_url(tmp_path))
    with pytest.raises(store.PollInputError, match="protocol"):
        store.create_poll(engine, "Q?", "dice", 1.0)
    with pytest.raises(store.PollInputError, match="ε"):
        store.create_poll(engine, "Q?", store.PROTOCOL_EPSILON, 0)
    engine.dispose()


def test_classroom_imports_without_streamlit():
    # DESIGN.md: classroom/ is the data layer, with no Streamlit (nor plotly) imports.
    import subprocess
    import sys

    probe = ("import sys; sys.modules['streamlit'] = None; sys.modules['plotly'] = None\n"
             "import classroom.store\n"
             "assert not any(m.startswith(('streamlit', 'plotly')) for m in sys.modules if sys.modules[m])")
    subprocess.run([sys.executable, "-c", probe], check=True, cwd=store.ROOT)
