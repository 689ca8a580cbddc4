"""classroom.store against a real database: SQLite always, PostgreSQL when DPLAB_TEST_POSTGRES_URL is set."""

from __future__ import annotations

import math
import secrets
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import (
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Table,
    UniqueConstraint,
    insert,
    inspect,
    select,
    text,
    update,
)

from classroom import store
from classroom.store import Submission
from tests.poll_databases import BACKENDS, database_url, empty_database, open_engine, sqlite_url

LN3 = math.log(3)


@pytest.fixture(params=BACKENDS)
def engine(request, tmp_path):
    engine = open_engine(database_url(request.param, tmp_path))
    yield engine
    engine.dispose()


@pytest.fixture
def poll(engine):
    poll, token = store.create_poll(engine, "Did you sleep less than 6 hours last night?",
                                    store.PROTOCOL_COINS, LN3, class_size=30)
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
    current = store.SCHEMA_VERSION
    monkeypatch.setattr(store, "SCHEMA_VERSION", current + 2)
    monkeypatch.setattr(store, "MIGRATIONS", {**store.MIGRATIONS,
                                              current + 1: lambda conn: ran.append(current + 1),
                                              current + 2: lambda conn: ran.append(current + 2)})
    store.ensure_schema(engine)
    assert ran == [current + 1, current + 2]
    store.ensure_schema(engine)
    assert ran == [current + 1, current + 2]  # already at the newest version
    monkeypatch.setattr(store, "SCHEMA_VERSION", current)
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
    other_poll, other_token = store.create_poll(engine, "Another?", store.PROTOCOL_EPSILON, 1.0,
                                                class_size=30)
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
    second, _ = store.create_poll(engine, "Second question?", store.PROTOCOL_COINS, LN3,
                                   class_size=30)
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
    poll, _ = store.create_poll(engine, "Restart?", store.PROTOCOL_COINS, LN3, class_size=30)
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
    assert store.clean_question("  Have you\n\never\x00 cheated?\u202e ") == "Have you ever cheated?"
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
        store.create_poll(engine, "Q?", "dice", 1.0, class_size=30)
    with pytest.raises(store.PollInputError, match="ε"):
        store.create_poll(engine, "Q?", store.PROTOCOL_EPSILON, 0, class_size=30)
    engine.dispose()


def test_classroom_imports_without_streamlit():
    # DESIGN.md: classroom/ is the data layer, with no Streamlit (nor plotly) imports.
    import subprocess
    import sys

    probe = ("import sys; sys.modules['streamlit'] = None; sys.modules['plotly'] = None\n"
             "import classroom.store\n"
             "assert not any(m.startswith(('streamlit', 'plotly')) for m in sys.modules if sys.modules[m])")
    subprocess.run([sys.executable, "-c", probe], check=True, cwd=store.ROOT)


# ── Schema version 2: class size, refused count, per-address counts ───────────────────────────

def _version_1_tables() -> MetaData:
    """The tables exactly as schema version 1 created them (before class sizes existed)."""
    old = MetaData()
    Table("poll_schema_version", old, Column("version", Integer, nullable=False))
    Table("polls", old,
          Column("id", Integer, primary_key=True, autoincrement=True),
          Column("code", String(6), nullable=False, unique=True),
          Column("question", String(200), nullable=False),
          Column("protocol", String(16), nullable=False),
          Column("epsilon", Float, nullable=False),
          Column("admin_token_sha256", String(64), nullable=False),
          Column("created_at", DateTime(timezone=True), nullable=False),
          Column("closed_at", DateTime(timezone=True), nullable=True))
    Table("poll_responses", old,
          Column("id", Integer, primary_key=True, autoincrement=True),
          Column("poll_id", Integer, ForeignKey("polls.id", ondelete="CASCADE"), nullable=False),
          Column("respondent_sha256", String(64), nullable=False),
          Column("answer", SmallInteger, nullable=False),
          UniqueConstraint("poll_id", "respondent_sha256", name="one_answer_per_session"))
    return old


@pytest.mark.parametrize("backend", BACKENDS)
def test_migration_to_version_2_carries_polls_and_answers_forward(backend, tmp_path):
    with empty_database(backend, tmp_path) as url:
        old = _version_1_tables()
        engine = store.make_engine(url)
        now = datetime.now(UTC)
        with engine.begin() as conn:
            old.create_all(conn)
            conn.execute(insert(old.tables["poll_schema_version"]).values(version=1))
            for poll_id, code, closed in [(1, "K7PQ3M", None), (2, "ABCDEF", now)]:
                conn.execute(insert(old.tables["polls"]).values(
                    id=poll_id, code=code, question=f"Old question {poll_id}?", protocol="coins",
                    epsilon=LN3, admin_token_sha256="0" * 64, created_at=now, closed_at=closed))
            for i in range(7):
                conn.execute(insert(old.tables["poll_responses"]).values(
                    poll_id=1, respondent_sha256=store._respondent(1, f"old{i}"), answer=i % 2))
        store.ensure_schema(engine)
        store.ensure_schema(engine)  # a second start changes nothing

        with engine.connect() as conn:
            assert conn.execute(select(store.schema_version.c.version)).scalars().all() == [2]
            keys = conn.execute(select(store.polls.c.address_key)).scalars().all()
        assert len(keys) == 2 and None not in keys and len(set(keys)) == 2
        assert "poll_address_counts" in inspect(engine).get_table_names()
        first, second = store.find_poll(engine, "K7PQ3M"), store.find_poll(engine, "ABCDEF")
        assert (first.question, first.closed, first.expired) == ("Old question 1?", False, False)
        assert second.closed and second.question == "Old question 2?"
        assert first.class_size == second.class_size == store.LEGACY_CLASS_SIZE
        assert first.refused == 0
        assert store.answers(engine, 1) == [0, 1, 0, 1, 0, 1, 0]
        # Sessions that answered before the migration still count as having answered.
        assert store.has_answered(engine, 1, "old3")
        assert store.submit_answer(engine, 1, "old3", 1) is Submission.DUPLICATE
        assert store.submit_answer(engine, 1, "new", 1) is Submission.RECORDED
        assert store.address_summary(engine, 1) == store.AddressSummary(1, 1)
        engine.dispose()


def test_a_failed_migration_leaves_the_database_as_it_was(tmp_path, monkeypatch):
    url = sqlite_url(tmp_path)
    engine = store.make_engine(url)
    with engine.begin() as conn:
        _version_1_tables().create_all(conn)
        conn.execute(text("INSERT INTO poll_schema_version (version) VALUES (1)"))

    def broken(conn):
        store._migration_2(conn)
        raise RuntimeError("disk full halfway")

    monkeypatch.setattr(store, "MIGRATIONS", {2: broken})
    with pytest.raises(RuntimeError):
        store.ensure_schema(engine)
    columns = {c["name"] for c in inspect(engine).get_columns("polls")}
    assert "class_size" not in columns and "poll_address_counts" not in inspect(engine).get_table_names()
    monkeypatch.undo()
    store.ensure_schema(engine)
    assert "class_size" in {c["name"] for c in inspect(engine).get_columns("polls")}
    engine.dispose()


def _make(engine, class_size: int, question: str = "Cap?"):
    poll, _ = store.create_poll(engine, question, store.PROTOCOL_COINS, LN3, class_size=class_size)
    return poll


def _drop(engine, *polls):
    with engine.begin() as conn:
        conn.execute(store.polls.delete().where(store.polls.c.id.in_([p.id for p in polls])))


def test_the_class_size_caps_the_answers(engine):
    poll = _make(engine, class_size=3)
    try:
        results = [store.submit_answer(engine, poll.id, f"s{i}", 1) for i in range(5)]
        assert results == [Submission.RECORDED] * 3 + [Submission.CLASS_FULL] * 2
        # Someone who already answered hears "already answered", not "full".
        assert store.submit_answer(engine, poll.id, "s0", 0) is Submission.DUPLICATE
        assert store.find_poll(engine, poll.code).refused == 2
        assert store.answers(engine, poll.id) == [1, 1, 1]
        store.set_class_size(engine, poll.id, 4)  # the instructor counts again
        assert store.submit_answer(engine, poll.id, "s3", 0) is Submission.RECORDED
        assert store.submit_answer(engine, poll.id, "s4", 0) is Submission.CLASS_FULL
        store.set_class_size(engine, poll.id, 2)  # below the answers in: they stay, no more come
        assert len(store.answers(engine, poll.id)) == 4
        assert store.submit_answer(engine, poll.id, "s5", 0) is Submission.CLASS_FULL
    finally:
        _drop(engine, poll)


@pytest.mark.parametrize("size", [0, 1, store.CLASS_SIZE_MAX + 1, 2.5, True, "30", None])
def test_a_class_size_out_of_range_says_what_to_change(tmp_path, size):
    engine = open_engine(sqlite_url(tmp_path))
    with pytest.raises(store.PollInputError, match=f"from {store.CLASS_SIZE_MIN} to {store.CLASS_SIZE_MAX}"):
        store.create_poll(engine, "Q?", store.PROTOCOL_COINS, LN3, class_size=size)
    engine.dispose()


def test_a_hall_of_300_behind_one_address_can_all_answer(engine):
    # The lecture hall's NAT: every phone has the same address. Nobody in a class of 300 is refused.
    poll = _make(engine, class_size=300)
    try:
        results = [store.submit_answer(engine, poll.id, f"phone{i}", i % 2, address="198.51.100.20")
                   for i in range(300)]
        assert results == [Submission.RECORDED] * 300
        assert store.submit_answer(engine, poll.id, "phone300", 1, address="198.51.100.20") \
            is Submission.CLASS_FULL
        assert store.address_summary(engine, poll.id) == store.AddressSummary(1, 300)
    finally:
        _drop(engine, poll)


def test_the_address_cap_counts_per_poll_under_a_keyed_hash(engine, monkeypatch):
    # address_cap is the class size, so on its own it refuses nothing the class size lets in;
    # a smaller cap here shows that the count per address is kept and enforced.
    monkeypatch.setattr(store, "address_cap", lambda class_size: 2)
    poll, other = _make(engine, class_size=30), _make(engine, class_size=30, question="Other?")
    try:
        here, there = "203.0.113.7", "2001:db8:1:2::/64"
        results = [store.submit_answer(engine, poll.id, f"a{i}", 1, address=here) for i in range(3)]
        assert results == [Submission.RECORDED, Submission.RECORDED, Submission.ADDRESS_FULL]
        assert store.submit_answer(engine, poll.id, "b0", 0, address=there) is Submission.RECORDED
        assert store.submit_answer(engine, other.id, "a0", 1, address=here) is Submission.RECORDED
        assert store.address_summary(engine, poll.id) == store.AddressSummary(2, 2)
        assert store.find_poll(engine, poll.code).refused == 1
        with engine.connect() as conn:
            rows = conn.execute(select(store.address_counts)).all()
            dumped = " ".join(str(value) for row in conn.execute(select(store.polls)).all() for value in row)
        stored = {row.poll_id: set() for row in rows}
        for row in rows:
            stored[row.poll_id].add(row.address_sha256)
        assert all(len(h) == 64 for hashes in stored.values() for h in hashes)
        assert stored[poll.id].isdisjoint(stored[other.id]), "the same address is unlinkable across polls"
        everything = " ".join(h for hashes in stored.values() for h in hashes) + dumped
        assert here not in everything and "2001:db8" not in everything
    finally:
        _drop(engine, poll, other)


def _age(engine, poll, hours: float):
    with engine.begin() as conn:
        conn.execute(update(store.polls).where(store.polls.c.id == poll.id)
                     .values(created_at=datetime.now(UTC) - timedelta(hours=hours)))


def test_polls_expire_after_their_lifetime(engine):
    poll, fresh = _make(engine, class_size=30), _make(engine, class_size=30, question="Fresh?")
    try:
        store.submit_answer(engine, poll.id, "early", 1, address="203.0.113.7")
        store.submit_answer(engine, fresh.id, "early", 1, address="203.0.113.7")
        _age(engine, poll, store.POLL_LIFETIME_HOURS - 0.1)
        assert store.find_poll(engine, poll.code).open
        _age(engine, poll, store.POLL_LIFETIME_HOURS + 0.1)
        found = store.find_poll(engine, poll.code)
        assert found.expired and not found.open and not found.closed
        assert store.submit_answer(engine, poll.id, "late", 1) is Submission.EXPIRED
        assert store.answers(engine, poll.id) == [1]  # what came in before stays, for the export
        assert store.forget_expired_addresses(engine) >= 1
        assert store.address_summary(engine, poll.id) == store.AddressSummary(0, 0)
        assert store.address_summary(engine, fresh.id) == store.AddressSummary(1, 1)
        assert store.POLL_LIFETIME == timedelta(hours=store.POLL_LIFETIME_HOURS)
    finally:
        _drop(engine, poll, fresh)


def test_after_a_reset_every_session_can_answer_again(engine):
    poll = _make(engine, class_size=2)
    try:
        for who in ("ann", "bob", "cy"):
            store.submit_answer(engine, poll.id, who, 1, address="203.0.113.7")
        assert store.find_poll(engine, poll.code).refused == 1
        store.reset_poll(engine, poll.id)
        assert not store.has_answered(engine, poll.id, "ann")
        assert store.find_poll(engine, poll.code).refused == 0
        assert store.address_summary(engine, poll.id) == store.AddressSummary(0, 0)
        assert store.submit_answer(engine, poll.id, "ann", 0) is Submission.RECORDED
        assert store.submit_answer(engine, poll.id, "ann", 1) is Submission.DUPLICATE
        assert store.answers(engine, poll.id) == [0]
    finally:
        _drop(engine, poll)


@pytest.mark.parametrize("question", [
    "Does your family 👨\u200d👩\u200d👧\u200d👦 share one password?",  # zero-width joiners
    "آیا می\u200cخواهید رأی دهید؟",  # Persian: a zero-width non-joiner inside "می‌خواهید"
    "क्या आप सहमत हैं? ক্\u200dষ and ന്\u200d",  # Hindi, with ZWJ in Bengali and Malayalam
    "Flag 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f?",  # tag characters
])
def test_joiners_and_other_format_characters_are_kept(question):
    assert store.clean_question(question) == question


def test_bidirectional_controls_are_removed():
    for control in sorted(store.BIDI_CONTROLS):
        assert store.clean_question(f"Open invoice{control}fdp.exe?") == "Open invoicefdp.exe?"
    assert store.clean_question("a\u202eb\u2066c\u200fd\x85e\ud800f") == "abcd ef"
