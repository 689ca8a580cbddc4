"""Storage for the live class poll: polls and their randomized answers, through SQLAlchemy Core.

The default database is an embedded SQLite file under data/ (git-ignored), in WAL mode so
that many phones can answer while the instructor's page reads. Setting a database URL
(DPLAB_DATABASE_URL in the environment, or poll_database_url in st.secrets, read by ui.poll)
switches to PostgreSQL, which several app replicas can share.

What is stored, and what is not:
- per poll: a short join code, the question, the protocol and its ε, and a SHA-256 hash of
  the admin token (never the token itself, so a leaked database does not hand out control);
- per answer: the randomized answer (0 or 1) and a SHA-256 hash of the poll id joined to the
  browser session's random token. The hash lets the database refuse a second answer from the
  same session (a unique constraint), yet cannot link one student's answers across polls.
  No true answer, name, address or time of answer is ever stored.

No Streamlit here, so the module can be tested directly; ui.poll holds the one cached engine.
"""

from __future__ import annotations

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
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

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SQLITE_PATH = ROOT / "data" / "poll.sqlite3"
DATABASE_URL_ENV = "DPLAB_DATABASE_URL"

SCHEMA_VERSION = 1
QUESTION_MAX_CHARS = 200
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

# MIGRATIONS[v] turns a version v − 1 database into version v. A later change to the tables
# bumps SCHEMA_VERSION and adds its step here; ensure_schema runs the missing ones in order.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {}


@dataclass(frozen=True)
class Poll:
    id: int
    code: str
    question: str
    protocol: str
    epsilon: float
    closed: bool

    @property
    def fair_coins(self) -> bool:
        return self.protocol == PROTOCOL_COINS


class Submission(enum.Enum):
    RECORDED = "recorded"
    DUPLICATE = "duplicate"  # this session already answered; the first answer stands
    CLOSED = "closed"
    UNKNOWN_POLL = "unknown poll"


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
    # WAL lets readers (the instructor's live view) run while one writer commits.
    cursor.execute("PRAGMA journal_mode=WAL")
    # Writers queue for the lock instead of failing at once when many phones answer together.
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


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

    Several replicas may start at once. On PostgreSQL they take turns through an advisory
    lock held for the transaction; on SQLite the loser of a race finds the tables there
    when it retries.
    """
    for attempt in range(3):
        try:
            with engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK_KEY})
                metadata.create_all(conn)  # only creates what is missing
                _migrate(conn)
            return
        except DBAPIError:
            if attempt == 2:
                raise


def _migrate(conn: Connection) -> None:
    # One statement, so two first starts racing on SQLite still write a single row.
    conn.execute(insert(schema_version).from_select(
        ["version"], select(literal(SCHEMA_VERSION)).where(~exists(select(schema_version.c.version)))))
    version = conn.execute(select(func.max(schema_version.c.version))).scalar()
    if version > SCHEMA_VERSION:
        raise SchemaTooNewError(
            f"the poll database has schema version {version}, newer than this app's "
            f"{SCHEMA_VERSION}: update DP Lab")
    for step in range(version + 1, SCHEMA_VERSION + 1):
        MIGRATIONS[step](conn)
        conn.execute(update(schema_version).values(version=step))


# ── Cleaning what people type ───────────────────────────────────────────────────────────────

def clean_question(text: str | None) -> str:
    """The question on one line, without control characters, 1 to QUESTION_MAX_CHARS long."""
    text = "".join(" " if unicodedata.category(ch).startswith("C") else ch for ch in text or "")
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


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _respondent(poll_id: int, session_token: str) -> str:
    if not session_token:
        raise ValueError("session_token must be a non-empty string")
    return _sha256(f"{poll_id}:{session_token}")


# ── Polls ───────────────────────────────────────────────────────────────────────────────────

def _poll(row) -> Poll:
    return Poll(id=row.id, code=row.code, question=row.question, protocol=row.protocol,
                epsilon=float(row.epsilon), closed=row.closed_at is not None)


def create_poll(engine: Engine, question: str, protocol: str, epsilon: float) -> tuple[Poll, str]:
    """A new open poll and its admin token (returned once; only its hash is stored)."""
    question = clean_question(question)
    if protocol not in PROTOCOLS:
        raise PollInputError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    if not 0 < epsilon <= 10:
        raise PollInputError(f"ε must be in (0, 10], got {epsilon!r}")
    token = secrets.token_urlsafe(ADMIN_TOKEN_BYTES)
    for _ in range(10):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        with engine.begin() as conn:
            if conn.execute(select(polls.c.id).where(polls.c.code == code)).first():
                continue  # about one chance in a billion per existing poll
            poll_id = conn.execute(insert(polls).values(
                code=code, question=question, protocol=protocol, epsilon=float(epsilon),
                admin_token_sha256=_sha256(token), created_at=datetime.now(UTC),
            )).inserted_primary_key[0]
        return Poll(poll_id, code, question, protocol, float(epsilon), closed=False), token
    raise RuntimeError("could not find a free join code")


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
    if row is None or not hmac.compare_digest(_sha256(admin_token), row.admin_token_sha256):
        return None
    return _poll(row)


def set_closed(engine: Engine, poll_id: int, closed: bool) -> None:
    with engine.begin() as conn:
        conn.execute(update(polls).where(polls.c.id == poll_id)
                     .values(closed_at=datetime.now(UTC) if closed else None))


def reset_poll(engine: Engine, poll_id: int) -> None:
    """Delete every answer to this poll and open it again."""
    with engine.begin() as conn:
        conn.execute(delete(responses).where(responses.c.poll_id == poll_id))
        conn.execute(update(polls).where(polls.c.id == poll_id).values(closed_at=None))


# ── Answers ─────────────────────────────────────────────────────────────────────────────────

def _insert_for(engine: Engine):
    return postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert


def submit_answer(engine: Engine, poll_id: int, session_token: str, answer: int) -> Submission:
    """Store one randomized answer, at most once per (poll, browser session).

    One statement inserts only if the poll is open, and ON CONFLICT DO NOTHING makes a second
    submission from the same session (a double click, a rerun, a retry) a no-op that the
    database itself enforces, across threads, processes and replicas. Commits before returning.
    """
    if answer not in (0, 1):
        raise ValueError(f"answer must be 0 (No) or 1 (Yes), got {answer!r}")
    respondent = _respondent(poll_id, session_token)
    poll_is_open = exists().where(polls.c.id == poll_id, polls.c.closed_at.is_(None))
    source = select(literal(poll_id), literal(respondent), literal(int(answer))).where(poll_is_open)
    statement = (_insert_for(engine)(responses)
                 .from_select(["poll_id", "respondent_sha256", "answer"], source)
                 .on_conflict_do_nothing(index_elements=["poll_id", "respondent_sha256"])
                 .returning(responses.c.id))  # psycopg reports no rowcount for INSERT … SELECT
    with engine.begin() as conn:
        if conn.execute(statement).first() is not None:
            return Submission.RECORDED
        row = conn.execute(select(polls.c.closed_at).where(polls.c.id == poll_id)).first()
    if row is None:
        return Submission.UNKNOWN_POLL
    return Submission.CLOSED if row.closed_at is not None else Submission.DUPLICATE


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
