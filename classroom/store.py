"""Storage for the live class poll: polls and their randomized answers, through SQLAlchemy Core.

The default database is an embedded SQLite file under data/ (git-ignored), in WAL mode so
that many phones can answer while the instructor's page reads. Setting a database URL
(DPLAB_DATABASE_URL in the environment, or poll_database_url in st.secrets, read by ui.poll)
switches to PostgreSQL, which several app replicas can share.

What is stored, and what is not:
- per poll: a short join code, the question, the protocol and its ε, the class size the
  instructor stated (the most answers the poll takes), when it was created (polls expire after
  POLL_LIFETIME), a count of refused answers, a random key for hashing addresses, and a SHA-256
  hash of the admin token (never the token itself, so a leaked database does not hand out control);
- per answer: the randomized answer (0 or 1) and a SHA-256 hash of the poll id joined to the
  browser session's random token. The hash lets the database refuse a second answer from the
  same session (a unique constraint), yet cannot link one student's answers across polls.
  No true answer, name, address or time of answer is ever stored.
- per poll and client address: how many answers came from that address, under an HMAC of the
  address keyed by the poll's own key (never the address itself), in a table of its own so that
  no answer row points to an address. These counts are deleted once the poll has expired.

Every answer is checked and stored in one transaction that holds the poll's lock (a row lock on
PostgreSQL, the database's write lock on SQLite), so the class-size and per-address caps are
exact under any number of concurrent answers, replicas included.

No Streamlit here, so the module can be tested directly; ui.poll holds the one cached engine.
"""

from __future__ import annotations

import contextlib
import csv
import enum
import hashlib
import hmac
import io
import logging
import os
import re
import secrets
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import (
    CheckConstraint,
    Column,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Table,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    exists,
    func,
    insert,
    literal,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from classroom.limits import UNKNOWN_ADDRESS, address_hash

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SQLITE_PATH = ROOT / "data" / "poll.sqlite3"
DATABASE_URL_ENV = "DPLAB_DATABASE_URL"

SCHEMA_VERSION = 2
QUESTION_MAX_CHARS = 200
# The class size bounds how many answers a poll takes: the one limit a script that keeps opening
# new sessions cannot get round. Polls made before class sizes existed get the largest.
CLASS_SIZE_MIN, CLASS_SIZE_MAX = 2, 1000
LEGACY_CLASS_SIZE = CLASS_SIZE_MAX
# A poll takes answers (and can be joined) for this long after it is created: one lecture day.
POLL_LIFETIME = timedelta(hours=12)
POLL_LIFETIME_HOURS = 12
# Join codes avoid look-alikes (0/O, 1/I) so they can be read off a projector and typed on a
# phone: 32 symbols, 6 long, about a billion codes.
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 6
_CODE_SEPARATORS = re.compile(r"[\s\-]+")
# secrets.token_urlsafe(32) gives 43 characters of [A-Za-z0-9_-].
ADMIN_TOKEN_BYTES = 32
_ADMIN_TOKEN = re.compile(r"[A-Za-z0-9_\-]{20,100}")
MAX_LINK_VALUE_CHARS = 200  # anything longer in a link is refused before it is looked at

PROTOCOL_COINS = "coins"  # the two-coin story with fair coins: ε = ln 3 exactly
PROTOCOL_EPSILON = "epsilon"  # keep the truth with probability e^ε/(1 + e^ε), drawn by the app
PROTOCOLS = (PROTOCOL_COINS, PROTOCOL_EPSILON)


class PollInputError(ValueError):
    """Input the user can fix; the message says what to change."""


class SchemaTooNewError(RuntimeError):
    """The database was written by a newer DP Lab than this one."""


metadata = MetaData()

schema_version = Table(
    "poll_schema_version", metadata,
    Column("version", Integer, nullable=False),
)

polls = Table(
    "polls", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(CODE_LENGTH), nullable=False, unique=True),
    Column("question", String(QUESTION_MAX_CHARS), nullable=False),
    Column("protocol", String(16), nullable=False),
    Column("epsilon", Float, nullable=False),
    Column("admin_token_sha256", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("closed_at", DateTime(timezone=True), nullable=True),
    # Schema version 2:
    Column("class_size", Integer, nullable=False),
    Column("refused_count", Integer, nullable=False),
    Column("address_key", String(32), nullable=True),  # NULL only until migration 2 fills it
)

responses = Table(
    "poll_responses", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("poll_id", Integer, ForeignKey("polls.id", ondelete="CASCADE"), nullable=False),
    Column("respondent_sha256", String(64), nullable=False),
    Column("answer", SmallInteger, nullable=False),
    CheckConstraint("answer IN (0, 1)", name="answer_is_a_bit"),
    UniqueConstraint("poll_id", "respondent_sha256", name="one_answer_per_session"),
)

# Schema version 2: answers per client address and poll, under a keyed hash of the address.
address_counts = Table(
    "poll_address_counts", metadata,
    Column("poll_id", Integer, ForeignKey("polls.id", ondelete="CASCADE"), nullable=False),
    Column("address_sha256", String(64), nullable=False),
    Column("answers", Integer, nullable=False),
    PrimaryKeyConstraint("poll_id", "address_sha256", name="one_count_per_address"),
)


# Answers refused because the page that sent them claimed another device than its session's own
# (ui.live.claims_another_device), per poll, for the projector. A table of its own, so that
# create_all adds it to an existing database without a migration.
identity_refusals = Table(
    "poll_identity_refusals", metadata,
    Column("poll_id", Integer, ForeignKey("polls.id", ondelete="CASCADE"), primary_key=True),
    Column("refused", Integer, nullable=False),
)

def _migration_2(conn: Connection) -> None:
    """Class size, refused count and address key on every poll; existing polls and answers stay.

    (poll_address_counts, a new table, was already created by create_all.) A poll made before
    this has no stated class size, so it gets LEGACY_CLASS_SIZE; each gets a fresh address key.
    """
    for ddl in (f"ALTER TABLE polls ADD COLUMN class_size INTEGER NOT NULL DEFAULT {LEGACY_CLASS_SIZE}",
                "ALTER TABLE polls ADD COLUMN refused_count INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE polls ADD COLUMN address_key VARCHAR(32)"):
        conn.execute(text(ddl))
    for poll_id in conn.execute(text("SELECT id FROM polls")).scalars().all():
        conn.execute(text("UPDATE polls SET address_key = :key WHERE id = :id"),
                     {"key": secrets.token_hex(16), "id": poll_id})


# MIGRATIONS[v] turns a version v − 1 database into version v. A later change to the tables
# bumps SCHEMA_VERSION and adds its step here; ensure_schema runs the missing ones in order,
# in the same transaction as the version bump.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {2: _migration_2}


@dataclass(frozen=True)
class Poll:
    id: int
    code: str
    question: str
    protocol: str
    epsilon: float
    closed: bool
    class_size: int
    expired: bool  # older than POLL_LIFETIME when it was read: takes no answers, cannot be joined
    refused: int  # answers refused because the class size or the address cap was reached

    @property
    def fair_coins(self) -> bool:
        return self.protocol == PROTOCOL_COINS

    @property
    def open(self) -> bool:
        return not self.closed and not self.expired


class Submission(enum.Enum):
    RECORDED = "recorded"
    DUPLICATE = "duplicate"  # this session already answered; the first answer stands
    CLOSED = "closed"
    EXPIRED = "expired"  # older than POLL_LIFETIME
    CLASS_FULL = "class full"  # as many answers as the stated class size
    ADDRESS_FULL = "address full"  # as many answers from this address as the address cap
    UNKNOWN_POLL = "unknown poll"


def address_cap(class_size: int) -> int:
    """The most answers one client address may give to one poll.

    It has to let a whole lecture hall behind one NAT address answer, so it cannot be smaller
    than the class size; it is the class size. It therefore bites only where the class comes
    from several addresses; with everyone behind one address, the class size is the bound.
    """
    return class_size


# ── Connecting ──────────────────────────────────────────────────────────────────────────────

def resolve_database_url(configured: str | None = None,
                         environ: Mapping[str, str] = os.environ) -> str:
    """The environment variable wins (tests and deployments set it), then the configured URL
    (st.secrets), then the SQLite file under data/."""
    for candidate in (environ.get(DATABASE_URL_ENV), configured):
        if candidate and candidate.strip():
            return candidate.strip()
    return f"sqlite:///{DEFAULT_SQLITE_PATH}"


def _tune_sqlite(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    # Writers queue for the lock instead of failing at once when many phones answer together.
    cursor.execute("PRAGMA busy_timeout=30000")
    # WAL lets readers (the instructor's live view) run while one writer commits.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


@contextlib.contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """A transaction that will write, holding the write lock from its first statement on SQLite.

    Python's sqlite3 driver otherwise begins a transaction only at the first INSERT, UPDATE or
    DELETE, so reads and DDL before it run outside the transaction. BEGIN IMMEDIATE takes the
    database's write lock at once (waiting up to busy_timeout for it): the checks and writes of
    one answer, or one schema set-up, then run as a unit, one after the other. Other code using
    the same engine keeps the driver's default. (PostgreSQL: an ordinary transaction; callers
    lock the rows they check.)
    """
    with engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        yield conn


def make_engine(url: str) -> Engine:
    """An engine for this URL: SQLite tuned for concurrent answers, or PostgreSQL via psycopg 3."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]  # the driver we ship
    if url.startswith("sqlite"):
        path = url.split(":///", 1)[1] if ":///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _tune_sqlite)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10,
                         connect_args={"connect_timeout": 10})


# Any fixed 64-bit number: the PostgreSQL advisory lock that replicas take to set up the schema.
_SCHEMA_LOCK_KEY = 0x44504C6162506F6C  # "DPLabPol"


def ensure_schema(engine: Engine) -> None:
    """Create the tables on first use, and bring an older database up to SCHEMA_VERSION.

    Several replicas may start at once. They take turns: on PostgreSQL through an advisory
    lock held for the transaction, on SQLite through the write lock (BEGIN IMMEDIATE). Tables,
    migrations and the version row are written in one transaction, so a failed start leaves
    the database as it was.
    """
    set_up_schema(engine, metadata, schema_version, SCHEMA_VERSION, MIGRATIONS, _SCHEMA_LOCK_KEY,
                  "the poll database has")


def set_up_schema(engine: Engine, tables: MetaData, version_table: Table, version: int,
                  migrations: Mapping[int, Callable[[Connection], None]], lock_key: int,
                  name: str) -> None:
    """Create what is missing of `tables` and migrate them to `version` (recorded in
    `version_table`), in one transaction under the advisory lock `lock_key` on PostgreSQL;
    on SQLite a loser of a race retries. `name` ("the … has") starts SchemaTooNewError's message."""
    for attempt in range(3):
        try:
            with writing(engine) as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key})
                tables.create_all(conn)  # only creates what is missing
                _migrate(conn, version_table, version, migrations, name)
            return
        except DBAPIError:
            if attempt == 2:
                raise


def _migrate(conn: Connection, version_table: Table, target: int,
             migrations: Mapping[int, Callable[[Connection], None]], name: str) -> None:
    # One statement, so two first starts racing on SQLite still write a single row.
    conn.execute(insert(version_table).from_select(
        ["version"], select(literal(target)).where(~exists(select(version_table.c.version)))))
    version = conn.execute(select(func.max(version_table.c.version))).scalar()
    if version > target:
        raise SchemaTooNewError(
            f"{name} schema version {version}, newer than this app's {target}: update DP Lab")
    for step in range(version + 1, target + 1):
        migrations[step](conn)
        conn.execute(update(version_table).values(version=step))


# ── Cleaning what people type ───────────────────────────────────────────────────────────────

# Bidirectional controls can reorder what the class reads (U+202E turns "gnp.exe" around), so
# they go. Other invisible format characters stay: the zero-width joiner builds emoji families
# (👨‍👩‍👧) and the zero-width non-joiner spells Persian and Indic words correctly.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")


def clean_question(text: str | None) -> str:
    """The question on one line, 1 to QUESTION_MAX_CHARS long: control characters (line
    breaks, tabs, NUL) become spaces; bidirectional controls and lone surrogates are dropped."""
    kept = (ch for ch in text or "" if ch not in BIDI_CONTROLS and unicodedata.category(ch) != "Cs")
    text = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in kept)
    text = " ".join(text.split())
    if not text:
        raise PollInputError("Type a yes/no question for the class first.")
    if len(text) > QUESTION_MAX_CHARS:
        raise PollInputError(
            f"The question is {len(text)} characters long; keep it to {QUESTION_MAX_CHARS} "
            "so that it fits on a phone screen.")
    return text


def normalise_code(raw: str | None) -> str | None:
    """A join code as typed or linked ('k7p-q3m ') in canonical form ('K7PQ3M'), or None."""
    if not raw or len(raw) > MAX_LINK_VALUE_CHARS:
        return None
    code = _CODE_SEPARATORS.sub("", raw).upper()
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def plausible_admin_token(raw: str | None) -> bool:
    return bool(raw) and len(raw) <= MAX_LINK_VALUE_CHARS and bool(_ADMIN_TOKEN.fullmatch(raw))


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _respondent(poll_id: int, session_token: str) -> str:
    if not session_token:
        raise ValueError("session_token must be a non-empty string")
    return sha256_hex(f"{poll_id}:{session_token}")


# ── Polls ───────────────────────────────────────────────────────────────────────────────────

def utc_now() -> datetime:
    return datetime.now(UTC)


def _is_expired(created_at: datetime, now: datetime) -> bool:
    if created_at.tzinfo is None:  # SQLite hands back the stored UTC time without its zone
        created_at = created_at.replace(tzinfo=UTC)
    return now - created_at >= POLL_LIFETIME


def _poll(row, now: datetime | None = None) -> Poll:
    return Poll(id=row.id, code=row.code, question=row.question, protocol=row.protocol,
                epsilon=float(row.epsilon), closed=row.closed_at is not None,
                class_size=int(row.class_size), expired=_is_expired(row.created_at, now or utc_now()),
                refused=int(row.refused_count))


def check_class_size(class_size) -> int:
    if isinstance(class_size, bool) or not isinstance(class_size, int) \
            or not CLASS_SIZE_MIN <= class_size <= CLASS_SIZE_MAX:
        raise PollInputError(f"The class size is the most answers the poll takes: a whole number "
                             f"from {CLASS_SIZE_MIN} to {CLASS_SIZE_MAX}.")
    return class_size


def create_poll(engine: Engine, question: str, protocol: str, epsilon: float, *,
                class_size: int) -> tuple[Poll, str]:
    """A new open poll and its admin token (returned once; only its hash is stored).

    Also deletes the address counts of expired polls: they are only needed while a poll
    takes answers.
    """
    question = clean_question(question)
    if protocol not in PROTOCOLS:
        raise PollInputError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    if not 0 < epsilon <= 10:
        raise PollInputError(f"ε must be in (0, 10], got {epsilon!r}")
    class_size = check_class_size(class_size)
    token = secrets.token_urlsafe(ADMIN_TOKEN_BYTES)
    for _ in range(10):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        with writing(engine) as conn:
            if conn.execute(select(polls.c.id).where(polls.c.code == code)).first():
                continue  # about one chance in a billion per existing poll
            poll_id = conn.execute(insert(polls).values(
                code=code, question=question, protocol=protocol, epsilon=float(epsilon),
                admin_token_sha256=sha256_hex(token), created_at=utc_now(), class_size=class_size,
                refused_count=0, address_key=secrets.token_hex(16),
            )).inserted_primary_key[0]
        forget_expired_addresses(engine)
        return Poll(poll_id, code, question, protocol, float(epsilon), closed=False,
                    class_size=class_size, expired=False, refused=0), token
    raise RuntimeError("could not find a free join code")


def forget_expired_addresses(engine: Engine, now: datetime | None = None) -> int:
    """Delete the per-address counts of every expired poll; returns how many rows went."""
    cutoff = (now or utc_now()) - POLL_LIFETIME
    expired = select(polls.c.id).where(polls.c.created_at <= cutoff)
    with writing(engine) as conn:
        return conn.execute(delete(address_counts)
                            .where(address_counts.c.poll_id.in_(expired))).rowcount or 0


def find_poll(engine: Engine, code: str | None) -> Poll | None:
    code = normalise_code(code)
    if code is None:
        return None
    with engine.connect() as conn:
        row = conn.execute(select(polls).where(polls.c.code == code)).first()
    return _poll(row) if row else None


def poll_for_admin(engine: Engine, code: str | None, admin_token: str | None) -> Poll | None:
    """The poll, only if the token is its admin token; None for any other combination."""
    if not plausible_admin_token(admin_token):
        return None
    code = normalise_code(code)
    if code is None:
        return None
    with engine.connect() as conn:
        row = conn.execute(select(polls).where(polls.c.code == code)).first()
    # Constant-time comparison, so response timing says nothing about how much of a guess is right.
    if row is None or not hmac.compare_digest(sha256_hex(admin_token), row.admin_token_sha256):
        return None
    return _poll(row)


def set_closed(engine: Engine, poll_id: int, closed: bool) -> None:
    with writing(engine) as conn:
        conn.execute(update(polls).where(polls.c.id == poll_id)
                     .values(closed_at=utc_now() if closed else None))


def set_class_size(engine: Engine, poll_id: int, class_size: int) -> None:
    """Change how many answers the poll takes (answers already in stay, even above it)."""
    class_size = check_class_size(class_size)
    with writing(engine) as conn:
        conn.execute(update(polls).where(polls.c.id == poll_id).values(class_size=class_size))


def reset_poll(engine: Engine, poll_id: int) -> None:
    """Delete every answer to this poll (and its address counts) and open it again.

    Whether a session has answered is read from the answers themselves, so every student,
    including those who answered before, can answer again.
    """
    with writing(engine) as conn:
        conn.execute(delete(responses).where(responses.c.poll_id == poll_id))
        conn.execute(delete(address_counts).where(address_counts.c.poll_id == poll_id))
        conn.execute(delete(identity_refusals).where(identity_refusals.c.poll_id == poll_id))
        conn.execute(update(polls).where(polls.c.id == poll_id)
                     .values(closed_at=None, refused_count=0))


# ── Answers ─────────────────────────────────────────────────────────────────────────────────

def insert_for(engine: Engine):
    return postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert


def submit_answer(engine: Engine, poll_id: int, session_token: str, answer: int, *,
                  address: str = UNKNOWN_ADDRESS) -> Submission:
    """Store one randomized answer, at most once per (poll, browser session), within the
    poll's class size and per-address cap (classroom.limits.client_address names the address).

    The checks and the insert run in one transaction holding the poll's lock, so concurrent
    answers from any number of threads, processes or replicas are counted exactly. The unique
    constraint on (poll, session) stays as a second guard. Commits before returning. A refusal
    for a full class or address is counted on the poll, so the projector can show it.
    """
    if answer not in (0, 1):
        raise ValueError(f"answer must be 0 (No) or 1 (Yes), got {answer!r}")
    respondent = _respondent(poll_id, session_token)
    now = utc_now()
    with writing(engine) as conn:
        poll = conn.execute(select(polls.c.closed_at, polls.c.created_at, polls.c.class_size,
                                   polls.c.address_key)
                            .where(polls.c.id == poll_id).with_for_update()).first()
        if poll is None:
            return Submission.UNKNOWN_POLL
        if poll.closed_at is not None:
            return Submission.CLOSED
        if _is_expired(poll.created_at, now):
            return Submission.EXPIRED
        # A statement of its own, after the lock is held: on PostgreSQL each statement reads
        # the data committed when it starts, so these counts include every answer before ours.
        where = address_hash(poll.address_key or str(poll_id), address)
        seen = conn.execute(select(
            exists().where(responses.c.poll_id == poll_id,
                           responses.c.respondent_sha256 == respondent).label("duplicate"),
            select(func.count()).select_from(responses).where(responses.c.poll_id == poll_id)
            .scalar_subquery().label("given"),
            select(address_counts.c.answers).where(address_counts.c.poll_id == poll_id,
                                                   address_counts.c.address_sha256 == where)
            .scalar_subquery().label("from_here"))).one()
        if seen.duplicate:
            return Submission.DUPLICATE
        refusal = (Submission.CLASS_FULL if seen.given >= poll.class_size
                   else Submission.ADDRESS_FULL if (seen.from_here or 0) >= address_cap(poll.class_size)
                   else None)
        if refusal is not None:
            conn.execute(update(polls).where(polls.c.id == poll_id)
                         .values(refused_count=polls.c.refused_count + 1))
            return refusal
        inserted = conn.execute(
            insert_for(engine)(responses)
            .values(poll_id=poll_id, respondent_sha256=respondent, answer=int(answer))
            .on_conflict_do_nothing(index_elements=["poll_id", "respondent_sha256"])
            .returning(responses.c.id)).first()
        if inserted is None:  # cannot happen under the lock; the constraint still says no
            return Submission.DUPLICATE
        upsert = insert_for(engine)(address_counts).values(
            poll_id=poll_id, address_sha256=where, answers=1)
        conn.execute(upsert.on_conflict_do_update(
            index_elements=["poll_id", "address_sha256"],
            set_={"answers": address_counts.c.answers + 1}))
    return Submission.RECORDED


def refuse_other_device(engine: Engine, poll_id: int) -> None:
    """Count one answer refused because its page claimed another device than its session's."""
    with writing(engine) as conn:
        upsert = insert_for(engine)(identity_refusals).values(poll_id=poll_id, refused=1)
        conn.execute(upsert.on_conflict_do_update(
            index_elements=["poll_id"], set_={"refused": identity_refusals.c.refused + 1}))


def other_device_refusals(engine: Engine, poll_id: int) -> int:
    """How many answers to the poll were refused because they claimed another device."""
    with engine.connect() as conn:
        return int(conn.execute(select(identity_refusals.c.refused).where(
            identity_refusals.c.poll_id == poll_id)).scalar() or 0)


@dataclass(frozen=True)
class AddressSummary:
    addresses: int  # distinct client addresses that answered
    busiest: int  # answers from the busiest one


def address_summary(engine: Engine, poll_id: int) -> AddressSummary:
    """How many client addresses answered, and how many answers the busiest one gave."""
    with engine.connect() as conn:
        row = conn.execute(select(func.count(), func.max(address_counts.c.answers))
                           .where(address_counts.c.poll_id == poll_id)).first()
    return AddressSummary(int(row[0] or 0), int(row[1] or 0))


def has_answered(engine: Engine, poll_id: int, session_token: str) -> bool:
    respondent = _respondent(poll_id, session_token)
    with engine.connect() as conn:
        return conn.execute(select(responses.c.id).where(
            responses.c.poll_id == poll_id, responses.c.respondent_sha256 == respondent)).first() is not None


def answers(engine: Engine, poll_id: int) -> list[int]:
    """The poll's randomized answers (1 = Yes), in the order they arrived."""
    with engine.connect() as conn:
        return list(conn.execute(select(responses.c.answer).where(responses.c.poll_id == poll_id)
                                 .order_by(responses.c.id)).scalars())


def answers_csv(randomized: list[int]) -> str:
    """The export: arrival number and randomized answer, nothing else (no tokens, no truth)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["response", "randomized_answer"])
    writer.writerows((i, "yes" if a else "no") for i, a in enumerate(randomized, start=1))
    return out.getvalue()
