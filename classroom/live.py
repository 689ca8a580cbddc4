"""The live class: one session per lecture, whose phones follow the instructor's current question.

A session has one join code (the poll's alphabet, and never the code of an existing poll), an
admin token (only its SHA-256 hash is stored) and a pointer to its current question. A question
is one of three kinds:

- KIND_QUIZ: a predict-then-reveal quiz from a lesson, stored as a snapshot (prompt, options,
  right answer, explanation) so that editing the lesson file mid-lecture changes nothing the
  class is voting on. Two rounds: vote, discuss, vote again.
- KIND_POLL: a randomized-response poll of classroom.store, by its join code. Its answers stay
  in the poll's own tables; the phones are only pointed at it.
- KIND_GAME: "In or out?" (classroom.game): each device is dealt one noisy count, from D or
  from D′, and guesses which.

Every instructor action bumps the session's version counter, in the same statement or
transaction as the change, so a waiting phone needs one cheap read (SessionCache below reads
it at most once per `max_age` per process) to know whether anything changed.

What is stored about a student: one row per vote, holding the choice (and, in the game, which
dataset the device was dealt; a game also keeps one row per device shown its count, voter or
not, with that dataset) and a SHA-256 hash of the session id joined to the device's
random id. The hash ties the votes of one device within one session (so that the database can
refuse a second vote per question and round: a unique constraint), yet cannot link a device
across sessions. No name, address or time of vote is stored.

A hostile student (issue 18) is bounded as in the poll: the instructor states the class size,
and a question takes at most that many votes per round; votes per client address and question
are counted under an HMAC keyed per session (classroom.limits), in a table of their own that
is deleted once the session expires, and capped at store.address_cap(class size). Refusals
are counted per question, so the projector can show them. Every vote is checked and stored in
one transaction holding the question's lock, so the caps are exact under any concurrency.

The tables live beside the poll's, in the same database and through the same engine
(classroom.store.make_engine), with a schema version of their own (live_schema_version) so
that either can migrate without the other. No Streamlit here: ui.live is the Streamlit side.
"""

from __future__ import annotations

import csv
import enum
import hmac
import io
import re
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    and_,
    exists,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from classroom import game, store
from classroom.limits import UNKNOWN_ADDRESS, address_hash
from classroom.store import insert_for, sha256_hex, utc_now

SCHEMA_VERSION = 1
# A session takes votes and can be joined for one lecture day after it starts, as a poll does.
SESSION_LIFETIME = store.POLL_LIFETIME
SESSION_LIFETIME_HOURS = store.POLL_LIFETIME_HOURS

KIND_QUIZ, KIND_POLL, KIND_GAME = "quiz", "poll", "game"
KINDS = (KIND_QUIZ, KIND_POLL, KIND_GAME)
ROUNDS = (1, 2)

PROMPT_MAX_CHARS = 1000
OPTION_MAX_CHARS = 300
OPTIONS_MIN, OPTIONS_MAX = 2, 8
EXPLANATION_MAX_CHARS = 4000
REF_MAX_CHARS = 120

# A device id is made by the browser (crypto.getRandomValues, 128 bits in base64url) or by the
# server (secrets.token_urlsafe): anything else in a link is refused before it is looked at.
_DEVICE_ID = re.compile(r"[A-Za-z0-9_\-]{16,64}")


class LiveInputError(ValueError):
    """Input the instructor can fix; the message says what to change."""


class Vote(enum.Enum):
    RECORDED = "recorded"
    DUPLICATE = "duplicate"  # this device already voted in this round; the first vote stands
    CLOSED = "closed"  # voting on the question was closed (or it was revealed)
    NOT_CURRENT = "not current"  # the instructor has moved on: the question is not live now
    WRONG_ROUND = "wrong round"  # a vote for round 1 after "Vote again", or the reverse
    ENDED = "ended"  # the session was ended, or is older than SESSION_LIFETIME
    WRONG_SESSION = "wrong session"  # the question belongs to another session
    UNKNOWN = "unknown"  # no such question (or session)
    NOT_VOTABLE = "not votable"  # a poll question: its answers go to the poll itself
    INVALID_CHOICE = "invalid choice"  # no such option
    CLASS_FULL = "class full"  # as many votes in this round as the session's class size
    ADDRESS_FULL = "address full"  # as many votes from this address as the address cap


metadata = MetaData()

schema_version = Table(
    "live_schema_version", metadata,
    Column("version", Integer, nullable=False),
)

sessions = Table(
    "live_sessions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(store.CODE_LENGTH), nullable=False, unique=True),
    Column("admin_token_sha256", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("ended_at", DateTime(timezone=True), nullable=True),
    # Bumped by every instructor action; waiting phones compare it with the one they showed.
    Column("version", Integer, nullable=False),
    # The question the phones show now (NULL: "waiting for the next question"). Not a foreign
    # key, so that the two tables do not reference each other; set only to this session's own.
    Column("current_question_id", Integer, nullable=True),
    # The most votes a question takes per round (the instructor states it; raisable live).
    Column("class_size", Integer, nullable=False),
    Column("address_key", String(32), nullable=False),  # keys the HMAC of client addresses
)

questions = Table(
    "live_questions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("session_id", Integer, ForeignKey("live_sessions.id", ondelete="CASCADE"),
           nullable=False, index=True),
    Column("kind", String(8), nullable=False),
    Column("ref", String(REF_MAX_CHARS), nullable=False),  # "slug/quiz-id", a poll code, "in-or-out"
    Column("prompt", String(PROMPT_MAX_CHARS), nullable=False),
    Column("options", JSON, nullable=False),  # a list of strings (empty for a poll)
    Column("answer", SmallInteger, nullable=True),  # the right option (quizzes)
    Column("explanation", Text, nullable=False),
    Column("params", JSON, nullable=False),  # the game's ε and secret salt; {} otherwise
    Column("round", SmallInteger, nullable=False),
    Column("show_votes", Boolean, nullable=False),
    Column("revealed", Boolean, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("closed_at", DateTime(timezone=True), nullable=True),
    Column("refused", Integer, nullable=False),  # votes refused: class size or address cap
    CheckConstraint("round IN (1, 2)", name="live_round_is_1_or_2"),
    CheckConstraint("kind IN ('quiz', 'poll', 'game')", name="live_known_kind"),
)

votes = Table(
    "live_votes", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("question_id", Integer, ForeignKey("live_questions.id", ondelete="CASCADE"),
           nullable=False),
    Column("round", SmallInteger, nullable=False),
    Column("device_sha256", String(64), nullable=False),
    Column("choice", SmallInteger, nullable=False),
    Column("dealt", SmallInteger, nullable=True),  # the game: 1 = dealt D (in), 0 = D′ (out)
    CheckConstraint("round IN (1, 2)", name="live_vote_round_is_1_or_2"),
    CheckConstraint("choice >= 0 AND choice < 16", name="live_choice_in_range"),
    UniqueConstraint("question_id", "round", "device_sha256", name="one_vote_per_device_and_round"),
)

# The game's deals: every device shown its count, voter or not, with the world it was dealt
# (1 = D, 0 = D′). A silent phone counts as the guess "out" (classroom.game): without these rows
# a class that votes only on extreme counts would land past the ε-DP bound.
deals = Table(
    "live_deals", metadata,
    Column("question_id", Integer, ForeignKey("live_questions.id", ondelete="CASCADE"),
           nullable=False),
    Column("device_sha256", String(64), nullable=False),
    Column("dealt", SmallInteger, nullable=False),
    PrimaryKeyConstraint("question_id", "device_sha256", name="live_one_deal_per_device"),
)

# Votes per question, round and client address, under an HMAC of the address keyed by the
# session's own key (never the address itself), apart from the votes so that no vote points
# to an address. Deleted once the session has expired.
address_counts = Table(
    "live_address_counts", metadata,
    Column("question_id", Integer, ForeignKey("live_questions.id", ondelete="CASCADE"),
           nullable=False),
    Column("round", SmallInteger, nullable=False),
    Column("address_sha256", String(64), nullable=False),
    Column("votes", Integer, nullable=False),
    PrimaryKeyConstraint("question_id", "round", "address_sha256", name="live_one_count_per_address"),
)

# Votes refused because the page that sent them claimed another device than its session's own
# (a script changing its device id on every message): counted per question for the projector.
# A table of its own, so that create_all adds it to an existing database without a migration.
identity_refusals = Table(
    "live_identity_refusals", metadata,
    Column("question_id", Integer, ForeignKey("live_questions.id", ondelete="CASCADE"),
           primary_key=True),
    Column("refused", Integer, nullable=False),
)

# MIGRATIONS[v] turns a version v − 1 live schema into version v (none yet), as in classroom.store.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {}

# Any fixed 64-bit number, other than the poll's: the advisory lock for setting up these tables.
_SCHEMA_LOCK_KEY = 0x44504C61624C6976  # "DPLabLiv"


# ── Schema ──────────────────────────────────────────────────────────────────────────────────

def ensure_schema(engine: Engine) -> None:
    """Create the live tables on first use (and the poll's, which codes are checked against),
    and bring an older live schema up to SCHEMA_VERSION. Safe when replicas start together:
    on PostgreSQL they take turns through an advisory lock; on SQLite a loser retries."""
    store.ensure_schema(engine)
    store.set_up_schema(engine, metadata, schema_version, SCHEMA_VERSION, MIGRATIONS, _SCHEMA_LOCK_KEY,
                        "the live-class tables have")


# ── Values ──────────────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class Session:
    id: int
    code: str
    version: int
    current_question_id: int | None
    ended: bool
    class_size: int
    expires_at: datetime  # SESSION_LIFETIME after it started: no more joins, votes or questions

    @property
    def expired(self) -> bool:
        return utc_now() >= self.expires_at

    @property
    def open(self) -> bool:
        return not self.ended and not self.expired


@dataclass(frozen=True)
class Question:
    id: int
    session_id: int
    kind: str
    ref: str
    prompt: str
    options: tuple[str, ...]
    answer: int | None
    explanation: str
    params: dict = field(hash=False, compare=False)
    round: int = 1
    show_votes: bool = False
    revealed: bool = False
    # When voting closes (or closed): set by Close at once, by a countdown in the future.
    closes_at: datetime | None = None
    refused: int = 0

    @property
    def closed(self) -> bool:
        """Read at every call, so that a cached view closes when its countdown runs out."""
        return self.closes_at is not None and utc_now() >= self.closes_at

    @property
    def seconds_left(self) -> float | None:
        """While a countdown runs: the seconds until it closes the round; None otherwise."""
        if self.closes_at is None or self.revealed:
            return None
        left = (self.closes_at - utc_now()).total_seconds()
        return left if left > 0 else None

    @property
    def epsilon(self) -> float | None:
        """The game's ε (None for other kinds)."""
        value = self.params.get("epsilon")
        return None if value is None else float(value)

    @property
    def accepts_votes(self) -> bool:
        return self.kind != KIND_POLL and not self.closed and not self.revealed


@dataclass(frozen=True)
class View:
    """What every phone of a session shows: the session and its current question (or None)."""
    session: Session
    question: Question | None


def _expired(created_at: datetime, now: datetime) -> bool:
    return now - _utc(created_at) >= SESSION_LIFETIME


def _utc(moment: datetime) -> datetime:
    # SQLite hands back the stored UTC time without its zone.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _session(row) -> Session:
    return Session(id=row.id, code=row.code, version=int(row.version),
                   current_question_id=row.current_question_id, ended=row.ended_at is not None,
                   class_size=int(row.class_size), expires_at=_utc(row.created_at) + SESSION_LIFETIME)


def _question(row) -> Question:
    return Question(id=row.id, session_id=row.session_id, kind=row.kind, ref=row.ref,
                    prompt=row.prompt, options=tuple(row.options or ()), answer=row.answer,
                    explanation=row.explanation, params=dict(row.params or {}),
                    round=int(row.round), show_votes=bool(row.show_votes),
                    revealed=bool(row.revealed),
                    closes_at=None if row.closed_at is None else _utc(row.closed_at),
                    refused=int(row.refused))


def plausible_device_id(raw: str | None) -> bool:
    return bool(raw) and len(raw) <= 64 and bool(_DEVICE_ID.fullmatch(raw))


def new_device_id() -> str:
    """A device id made by the server, for a browser that cannot keep one itself."""
    return secrets.token_urlsafe(16)


def device_hash(session_id: int, device_id: str) -> str:
    """What the database keeps of a device: a hash that means something within one session only."""
    if not plausible_device_id(device_id):
        raise ValueError("device_id must be 16 to 64 characters of A–Z, a–z, 0–9, _ and -")
    return sha256_hex(f"live:{session_id}:{device_id}")


# ── Sessions ────────────────────────────────────────────────────────────────────────────────

def _free_code(conn: Connection) -> str | None:
    """A random code that is neither a live session's nor a poll's (students type both)."""
    code = "".join(secrets.choice(store.CODE_ALPHABET) for _ in range(store.CODE_LENGTH))
    taken = conn.execute(select(sessions.c.id).where(sessions.c.code == code)).first() or \
        conn.execute(select(store.polls.c.id).where(store.polls.c.code == code)).first()
    return None if taken else code


def check_class_size(class_size) -> int:
    try:
        return store.check_class_size(class_size)
    except store.PollInputError:
        raise LiveInputError(f"The class size is the most votes a question takes per round: a "
                             f"whole number from {store.CLASS_SIZE_MIN} to {store.CLASS_SIZE_MAX}."
                             ) from None


def create_session(engine: Engine, *, class_size: int) -> tuple[Session, str]:
    """A new session and its admin token (returned once; only its hash is stored).

    Also deletes the address counts of expired sessions: they are needed only while a
    session takes votes.
    """
    class_size = check_class_size(class_size)
    token = secrets.token_urlsafe(store.ADMIN_TOKEN_BYTES)
    for _ in range(10):
        try:
            with store.writing(engine) as conn:
                code = _free_code(conn)
                if code is None:
                    continue  # about one chance in a billion per existing code
                conn.execute(insert(sessions).values(
                    code=code, admin_token_sha256=sha256_hex(token), created_at=utc_now(), version=1,
                    current_question_id=None, class_size=class_size,
                    address_key=secrets.token_hex(16)))
        except IntegrityError:  # another process took the same code at the same instant
            continue
        forget_expired_addresses(engine)
        return find_session(engine, code), token
    raise RuntimeError("could not find a free join code")


def forget_expired_addresses(engine: Engine, now: datetime | None = None) -> int:
    """Delete the per-address counts of every expired session; returns how many rows went."""
    cutoff = (now or utc_now()) - SESSION_LIFETIME
    expired = (select(questions.c.id).join(sessions, sessions.c.id == questions.c.session_id)
               .where(sessions.c.created_at <= cutoff))
    with store.writing(engine) as conn:
        return conn.execute(address_counts.delete()
                            .where(address_counts.c.question_id.in_(expired))).rowcount or 0


def set_class_size(engine: Engine, session_id: int, class_size: int) -> None:
    """Change how many votes a question takes per round (votes already in stay)."""
    class_size = check_class_size(class_size)
    with store.writing(engine) as conn:
        _bump(conn, session_id, class_size=class_size)


def find_session(engine: Engine, code: str | None) -> Session | None:
    code = store.normalise_code(code)
    if code is None:
        return None
    with engine.connect() as conn:
        row = conn.execute(select(sessions).where(sessions.c.code == code)).first()
    return _session(row) if row else None


def session_for_admin(engine: Engine, code: str | None, admin_token: str | None) -> Session | None:
    """The session, only if the token is its admin token; None for any other combination."""
    if not store.plausible_admin_token(admin_token):
        return None
    code = store.normalise_code(code)
    if code is None:
        return None
    with engine.connect() as conn:
        row = conn.execute(select(sessions).where(sessions.c.code == code)).first()
    if row is None or not hmac.compare_digest(sha256_hex(admin_token), row.admin_token_sha256):
        return None
    return _session(row)


def _bump(conn: Connection, session_id: int, **values) -> bool:
    """Bump the version (and set `values`) of a session; the first statement of every
    instructor action, so it also takes the session's row lock (PostgreSQL) or the database's
    write lock (SQLite) before anything is read. False when there is no such session."""
    result = conn.execute(update(sessions).where(sessions.c.id == session_id)
                          .values(version=sessions.c.version + 1, **values))
    return result.rowcount == 1


def end_session(engine: Engine, session_id: int) -> None:
    """No more votes and no more questions; the phones say the session has ended."""
    with store.writing(engine) as conn:
        if _bump(conn, session_id, ended_at=utc_now(), current_question_id=None):
            _close_open_questions(conn, session_id)


def _close_open_questions(conn: Connection, session_id: int) -> None:
    now = utc_now()
    conn.execute(update(questions).where(questions.c.session_id == session_id,
                                         or_(questions.c.closed_at.is_(None), questions.c.closed_at > now))
                 .values(closed_at=now))


def _closed_by_now(closed_at: datetime | None, now: datetime) -> datetime:
    """When a question closed, if it closes now: an earlier close stands, a countdown is cut short."""
    return _utc(closed_at) if closed_at is not None and _utc(closed_at) <= now else now


# ── Questions ───────────────────────────────────────────────────────────────────────────────

def _check_text(name: str, value, limit: int, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise LiveInputError(f"{name} must be text")
    value = value.strip()
    if not value and not allow_empty:
        raise LiveInputError(f"{name} is empty")
    if len(value) > limit:
        raise LiveInputError(f"{name} is {len(value)} characters long; the most is {limit}")
    return value


def _push(engine: Engine, session_id: int, **values) -> Question:
    """Store a new question and make it the session's current one (closing the previous)."""
    now = utc_now()
    with store.writing(engine) as conn:
        if not _bump(conn, session_id):  # first, so that it takes the lock before any read
            raise LiveInputError("There is no such live session.")
        row = conn.execute(select(sessions.c.ended_at, sessions.c.created_at)
                           .where(sessions.c.id == session_id)).first()
        if row.ended_at is not None or _expired(row.created_at, now):
            raise LiveInputError("This live session has ended: start a new one.")
        _close_open_questions(conn, session_id)
        values = {"options": [], "answer": None, "explanation": "", "params": {}, **values}
        question_id = conn.execute(insert(questions).values(
            session_id=session_id, round=1, show_votes=False, revealed=False, created_at=now,
            refused=0, **values)).inserted_primary_key[0]
        conn.execute(update(sessions).where(sessions.c.id == session_id)
                     .values(current_question_id=question_id))
    return Question(id=question_id, session_id=session_id, kind=values["kind"], ref=values["ref"],
                    prompt=values["prompt"], options=tuple(values["options"]),
                    answer=values["answer"], explanation=values["explanation"],
                    params=dict(values["params"]))


def push_quiz(engine: Engine, session_id: int, ref: str, prompt: str, options: Sequence[str],
              answer: int, explanation: str) -> Question:
    """Ask the class a lesson's quiz (a snapshot of it): the phones show it at once."""
    ref = _check_text("The quiz reference", ref, REF_MAX_CHARS)
    prompt = _check_text("The question", prompt, PROMPT_MAX_CHARS)
    if isinstance(options, str) or not OPTIONS_MIN <= len(options) <= OPTIONS_MAX:
        raise LiveInputError(f"A quiz has {OPTIONS_MIN} to {OPTIONS_MAX} options.")
    options = [_check_text(f"Option {i + 1}", option, OPTION_MAX_CHARS)
               for i, option in enumerate(options)]
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(options):
        raise LiveInputError(f"The right answer must be one of the {len(options)} options.")
    explanation = _check_text("The explanation", explanation, EXPLANATION_MAX_CHARS,
                              allow_empty=True)
    return _push(engine, session_id, kind=KIND_QUIZ, ref=ref, prompt=prompt, options=options,
                 answer=answer, explanation=explanation)


def push_poll(engine: Engine, session_id: int, poll_code: str) -> Question:
    """Point every phone at a randomized-response poll (its answers stay in the poll's tables)."""
    poll = store.find_poll(engine, poll_code)
    if poll is None:
        raise LiveInputError("There is no class poll with that code. Create it on "
                             "“Class poll — instructor” first, then push its code.")
    return _push(engine, session_id, kind=KIND_POLL, ref=poll.code, prompt=poll.question)


def push_game(engine: Engine, session_id: int, epsilon: float) -> Question:
    """Deal every phone one noisy count for "In or out?" at this ε (see classroom.game)."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) \
            or not game.EPSILON_MIN <= epsilon <= game.EPSILON_MAX:
        raise LiveInputError(f"The game's ε must be between {game.EPSILON_MIN:g} and "
                             f"{game.EPSILON_MAX:g}.")
    return _push(engine, session_id, kind=KIND_GAME, ref=game.REF, prompt=game.PROMPT,
                 options=list(game.OPTIONS),
                 params={"epsilon": float(epsilon), "salt": secrets.token_hex(16)})


def _change(engine: Engine, session_id: int, question_id: int,
            apply: Callable[[Connection, object], None]) -> bool:
    """Run one instructor action on a question of this session; False (and nothing changed)
    when the question is not this session's."""
    try:
        with store.writing(engine) as conn:
            if not _bump(conn, session_id):
                return False
            row = conn.execute(select(questions).where(
                questions.c.id == question_id, questions.c.session_id == session_id)).first()
            if row is None:
                raise _NotThisSession  # rolls the version bump back
            apply(conn, row)
    except _NotThisSession:
        return False
    return True


class _NotThisSession(Exception):
    pass


def _set(**values):
    def apply(conn: Connection, row) -> None:
        conn.execute(update(questions).where(questions.c.id == row.id).values(**values))
    return apply


def set_show_votes(engine: Engine, session_id: int, question_id: int, show: bool) -> bool:
    """Show (or hide) the distribution of votes on the projector."""
    return _change(engine, session_id, question_id, _set(show_votes=bool(show)))


def start_round_two(engine: Engine, session_id: int, question_id: int) -> bool:
    """"Vote again": round 2 of a quiz, after the discussion. The votes are hidden again and
    voting reopens; round 1's votes stay, so the projector can show both rounds."""
    def apply(conn: Connection, row) -> None:
        if row.kind != KIND_QUIZ or row.revealed:
            raise LiveInputError("Only an unrevealed quiz has a second round.")
        conn.execute(update(questions).where(questions.c.id == row.id)
                     .values(round=2, show_votes=False, closed_at=None))
    return _change(engine, session_id, question_id, apply)


def reveal(engine: Engine, session_id: int, question_id: int) -> bool:
    """Show the right answer and its explanation everywhere; voting stops."""
    def apply(conn: Connection, row) -> None:
        conn.execute(update(questions).where(questions.c.id == row.id)
                     .values(revealed=True, show_votes=True,
                             closed_at=_closed_by_now(row.closed_at, utc_now())))
    return _change(engine, session_id, question_id, apply)


def set_closed(engine: Engine, session_id: int, question_id: int, closed: bool) -> bool:
    """Stop (or, before the reveal, restart) taking votes on the question."""
    def apply(conn: Connection, row) -> None:
        if not closed and row.revealed:
            raise LiveInputError("A revealed question stays closed.")
        conn.execute(update(questions).where(questions.c.id == row.id)
                     .values(closed_at=_closed_by_now(row.closed_at, utc_now()) if closed else None))
    return _change(engine, session_id, question_id, apply)


COUNTDOWN_MIN, COUNTDOWN_MAX = 5, 600  # seconds


def start_countdown(engine: Engine, session_id: int, question_id: int, seconds: int) -> bool:
    """Close the round by itself `seconds` from now (a running countdown starts again)."""
    if isinstance(seconds, bool) or not isinstance(seconds, int) \
            or not COUNTDOWN_MIN <= seconds <= COUNTDOWN_MAX:
        raise LiveInputError(f"A countdown is {COUNTDOWN_MIN} to {COUNTDOWN_MAX} seconds long.")

    def apply(conn: Connection, row) -> None:
        now = utc_now()
        if row.revealed or row.kind == KIND_POLL or (row.closed_at is not None and _utc(row.closed_at) <= now):
            raise LiveInputError("Voting on this question is closed: reopen it first.")
        conn.execute(update(questions).where(questions.c.id == row.id)
                     .values(closed_at=now + timedelta(seconds=seconds)))
    return _change(engine, session_id, question_id, apply)


def clear(engine: Engine, session_id: int) -> None:
    """"Next": no current question (the phones wait for the next one); the last one closes."""
    with store.writing(engine) as conn:
        if _bump(conn, session_id, current_question_id=None):
            _close_open_questions(conn, session_id)


def show_again(engine: Engine, session_id: int, question_id: int) -> bool:
    """Make an earlier question of this session the current one again (it stays as it was:
    closed, revealed or not)."""
    def apply(conn: Connection, row) -> None:
        conn.execute(update(sessions).where(sessions.c.id == session_id)
                     .values(current_question_id=row.id))
    return _change(engine, session_id, question_id, apply)


def question(engine: Engine, session_id: int, question_id: int) -> Question | None:
    """A question of this session (None if there is none, or it is another session's)."""
    with engine.connect() as conn:
        row = conn.execute(select(questions).where(questions.c.id == question_id,
                                                   questions.c.session_id == session_id)).first()
    return _question(row) if row else None


def history(engine: Engine, session_id: int) -> list[Question]:
    """Every question of the session, first pushed first."""
    with engine.connect() as conn:
        rows = conn.execute(select(questions).where(questions.c.session_id == session_id)
                            .order_by(questions.c.id)).all()
    return [_question(row) for row in rows]


# ── What the phones read ────────────────────────────────────────────────────────────────────

def version(engine: Engine, session_id: int) -> int | None:
    """The session's version counter: one indexed row, the cheap read a waiting phone needs."""
    with engine.connect() as conn:
        return conn.execute(select(sessions.c.version).where(sessions.c.id == session_id)).scalar()


def view(engine: Engine, session_id: int) -> View | None:
    """The session and its current question, read together (one consistent snapshot)."""
    with engine.connect() as conn:
        row = conn.execute(select(sessions).where(sessions.c.id == session_id)).first()
        if row is None:
            return None
        current = None
        if row.current_question_id is not None:
            q = conn.execute(select(questions).where(
                questions.c.id == row.current_question_id,
                questions.c.session_id == session_id)).first()
            current = _question(q) if q else None
    return View(_session(row), current)


class SessionCache:
    """The views of sessions, shared by every phone a server process holds.

    A view is re-read only when it is older than `max_age` seconds, and then only the version
    counter is read unless it has changed: 300 phones waiting on one process cost one tiny
    query per `max_age`, not 300. The database stays the source of truth: another replica's
    change shows here within `max_age`, and this process's own changes at once (invalidate).
    """

    def __init__(self, max_age: float = 0.5, max_sessions: int = 256) -> None:
        self.max_age, self.max_sessions = max_age, max_sessions
        self._views: dict[tuple[int, int], tuple[float, View]] = {}
        self._lock = threading.Lock()

    def view(self, engine: Engine, session_id: int, now: float | None = None) -> View | None:
        now = time.monotonic() if now is None else now
        key = (id(engine), session_id)
        with self._lock:
            cached = self._views.get(key)
        if cached is not None and now - cached[0] < self.max_age:
            return cached[1]
        if cached is not None and version(engine, session_id) == cached[1].session.version:
            fresh = cached[1]
        else:
            fresh = view(engine, session_id)
            if fresh is None:
                self.invalidate(session_id)
                return None
        with self._lock:
            if len(self._views) >= self.max_sessions and key not in self._views:
                self._views.pop(next(iter(self._views)))  # the oldest entry goes
            self._views[key] = (now, fresh)
        return fresh

    def cached(self, engine: Engine, session_id: int, now: float | None = None) -> View | None:
        """The cached view while it is younger than max_age, without touching the database;
        None otherwise (then `view` reads). For callers that must not block, such as the
        phones' version route on the server's event loop (classroom.follow)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            cached = self._views.get((id(engine), session_id))
        return cached[1] if cached is not None and now - cached[0] < self.max_age else None

    def invalidate(self, session_id: int) -> None:
        with self._lock:
            for key in [key for key in self._views if key[1] == session_id]:
                del self._views[key]


# ── Votes ───────────────────────────────────────────────────────────────────────────────────

def vote(engine: Engine, session_id: int, question_id: int, round_: int, device_id: str,
         choice: int, *, address: str = UNKNOWN_ADDRESS) -> Vote:
    """Store one vote, at most once per (question, round, device), only while the question is
    this session's current one, open, in this round, and the session is open; and only within
    the class size (votes per round) and the per-address cap (classroom.limits.client_address
    names the address).

    The checks and the insert run in one transaction holding the question's lock (a row lock on
    PostgreSQL, the write lock on SQLite), so the caps are exact under any number of concurrent
    votes, replicas included; the unique constraint on (question, round, device) is a second
    guard. Commits before returning. In the game, the device's dataset (D or D′) is dealt here
    from the question's secret salt, never taken from the phone.
    """
    device = device_hash(session_id, device_id)
    now = utc_now()
    with store.writing(engine) as conn:
        # One statement reads the question (locking its row) with its session; a second one
        # everything the caps need. Four statements in all for a recorded vote: the lock is
        # held for as short a time as the checks allow.
        q = conn.execute(
            select(questions, sessions.c.ended_at, sessions.c.created_at.label("started"),
                   sessions.c.current_question_id, sessions.c.class_size, sessions.c.address_key)
            .join(sessions, sessions.c.id == questions.c.session_id)
            .where(questions.c.id == question_id).with_for_update(of=questions)).first()
        if q is None:
            return Vote.UNKNOWN
        if q.session_id != session_id:
            return Vote.WRONG_SESSION
        if q.kind == KIND_POLL:
            return Vote.NOT_VOTABLE
        if isinstance(choice, bool) or not isinstance(choice, int) \
                or not 0 <= choice < len(q.options or ()):
            return Vote.INVALID_CHOICE
        if q.ended_at is not None or _expired(q.started, now):
            return Vote.ENDED
        if q.current_question_id != question_id:
            return Vote.NOT_CURRENT
        if round_ != q.round:
            return Vote.WRONG_ROUND
        if (q.closed_at is not None and _utc(q.closed_at) <= now) or q.revealed:
            return Vote.CLOSED
        where = address_hash(q.address_key, address)
        this_round = and_(votes.c.question_id == question_id, votes.c.round == round_)
        seen = conn.execute(select(
            exists().where(this_round, votes.c.device_sha256 == device).label("duplicate"),
            select(func.count()).select_from(votes).where(this_round)
            .scalar_subquery().label("given"),
            select(address_counts.c.votes).where(
                address_counts.c.question_id == question_id, address_counts.c.round == round_,
                address_counts.c.address_sha256 == where).scalar_subquery().label("from_here"),
        )).first()
        if seen.duplicate:
            return Vote.DUPLICATE
        given, from_here = seen.given, seen.from_here
        refusal = (Vote.CLASS_FULL if given >= q.class_size
                   else Vote.ADDRESS_FULL if (from_here or 0) >= store.address_cap(q.class_size)
                   else None)
        if refusal is not None:
            conn.execute(update(questions).where(questions.c.id == question_id)
                         .values(refused=questions.c.refused + 1))
            return refusal
        dealt = None
        if q.kind == KIND_GAME:
            dealt = int(game.deal(q.params["salt"], device, q.params["epsilon"]).in_data)
        inserted = conn.execute(
            insert_for(engine)(votes)
            .values(question_id=question_id, round=round_, device_sha256=device, choice=choice,
                    dealt=dealt)
            .on_conflict_do_nothing(index_elements=["question_id", "round", "device_sha256"])
            .returning(votes.c.id)).first()
        if inserted is None:  # cannot happen under the lock; the constraint still says no
            return Vote.DUPLICATE
        upsert = insert_for(engine)(address_counts).values(
            question_id=question_id, round=round_, address_sha256=where, votes=1)
        conn.execute(upsert.on_conflict_do_update(
            index_elements=["question_id", "round", "address_sha256"],
            set_={"votes": address_counts.c.votes + 1}))
    return Vote.RECORDED


def refuse_other_device(engine: Engine, session_id: int, question_id: int) -> bool:
    """Count one vote refused because its page claimed another device than its session's
    (ui.live.claims_another_device); False (nothing counted) if the question is not this
    session's."""
    with store.writing(engine) as conn:
        if conn.execute(select(questions.c.id).where(
                questions.c.id == question_id, questions.c.session_id == session_id)).first() is None:
            return False
        upsert = insert_for(engine)(identity_refusals).values(question_id=question_id, refused=1)
        conn.execute(upsert.on_conflict_do_update(
            index_elements=["question_id"], set_={"refused": identity_refusals.c.refused + 1}))
    return True


def other_device_refusals(engine: Engine, question_id: int) -> int:
    """How many votes on the question were refused because they claimed another device."""
    with engine.connect() as conn:
        return int(conn.execute(select(identity_refusals.c.refused).where(
            identity_refusals.c.question_id == question_id)).scalar() or 0)


def device_votes(engine: Engine, session_id: int, question_id: int, device_id: str) -> dict[int, int]:
    """This device's vote in each round of the question: {round: choice}."""
    device = device_hash(session_id, device_id)
    with engine.connect() as conn:
        rows = conn.execute(select(votes.c.round, votes.c.choice).where(
            votes.c.question_id == question_id, votes.c.device_sha256 == device)).all()
    return {int(r): int(c) for r, c in rows}


def tally(engine: Engine, question_id: int, n_options: int) -> dict[int, list[int]]:
    """Votes per option in each round: {1: [count per option], 2: [...]} (round 2 only once
    it has votes)."""
    with engine.connect() as conn:
        rows = conn.execute(select(votes.c.round, votes.c.choice, func.count())
                            .where(votes.c.question_id == question_id)
                            .group_by(votes.c.round, votes.c.choice)).all()
    counts = {1: [0] * n_options}
    for round_, choice, count in rows:
        counts.setdefault(int(round_), [0] * n_options)
        if 0 <= choice < n_options:
            counts[int(round_)][int(choice)] += int(count)
    return counts


class _SpreadsheetSafeWriter:
    """A cell that a spreadsheet would run as a formula (=, +, -, @) is written as text."""

    def __init__(self, writer) -> None:
        self._writer = writer

    def writerow(self, row) -> None:
        self._writer.writerow(["'" + cell if isinstance(cell, str) and cell[:1] in ("=", "+", "-", "@")
                               else cell for cell in row])


RESULTS_COLUMNS = ("question", "kind", "source", "prompt", "round", "option", "text", "votes", "right")


def results_csv(engine: Engine, session_id: int) -> str:
    """The session's results as CSV, one row per question, round and option: the counts only
    (no device, no time of vote). A class poll's answers are in the poll's own export."""
    out = io.StringIO()
    writer = _SpreadsheetSafeWriter(csv.writer(out, lineterminator="\n"))
    writer.writerow(RESULTS_COLUMNS)
    for number, question in enumerate(history(engine, session_id), start=1):
        if question.kind == KIND_POLL:
            writer.writerow((number, question.kind, question.ref, question.prompt, "", "", "", "", ""))
            continue
        for round_, counts in sorted(tally(engine, question.id, len(question.options)).items()):
            for i, count in enumerate(counts):
                right = "" if question.answer is None else ("yes" if i == question.answer else "no")
                writer.writerow((number, question.kind, question.ref, question.prompt, round_,
                                 chr(ord("A") + i), question.options[i], count, right))
    return out.getvalue()


def vote_count(engine: Engine, question_id: int, round_: int) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(votes).where(
            votes.c.question_id == question_id, votes.c.round == round_)).scalar())


def game_result(engine: Engine, question_id: int) -> game.ClassResult:
    """The class's guesses in the game, split by the dataset each device was dealt, with the
    dealt devices that did not vote (silent: the guess "out")."""
    voted = exists().where(votes.c.question_id == question_id, votes.c.round == 1,
                           votes.c.device_sha256 == deals.c.device_sha256)
    with engine.connect() as conn:
        rows = conn.execute(select(votes.c.dealt, votes.c.choice, func.count())
                            .where(votes.c.question_id == question_id, votes.c.round == 1)
                            .group_by(votes.c.dealt, votes.c.choice)).all()
        silent = dict(conn.execute(select(deals.c.dealt, func.count())
                                   .where(deals.c.question_id == question_id, ~voted)
                                   .group_by(deals.c.dealt)).all())
    cells = {(int(d), int(c)): int(n) for d, c, n in rows if d is not None}
    return game.ClassResult(in_said_in=cells.get((1, game.GUESS_IN), 0),
                            in_said_out=cells.get((1, game.GUESS_OUT), 0),
                            out_said_in=cells.get((0, game.GUESS_IN), 0),
                            out_said_out=cells.get((0, game.GUESS_OUT), 0),
                            in_silent=int(silent.get(1, 0)), out_silent=int(silent.get(0, 0)))


def deal_for(question: Question, device_id: str) -> game.Deal:
    """The noisy count this device sees in the game (the same after every reload)."""
    if question.kind != KIND_GAME:
        raise ValueError("only the game deals counts")
    return game.deal(question.params["salt"], device_hash(question.session_id, device_id),
                     question.params["epsilon"])


def was_dealt(engine: Engine, question: Question, device_id: str) -> bool:
    """Whether game_result counts this device: it was shown its count while voting was open
    (a deal row), or it voted in round 1."""
    device = device_hash(question.session_id, device_id)
    with engine.connect() as conn:
        return bool(conn.execute(select(
            exists().where(deals.c.question_id == question.id, deals.c.device_sha256 == device)
            | exists().where(votes.c.question_id == question.id, votes.c.round == 1,
                             votes.c.device_sha256 == device))).scalar())


def record_deal(engine: Engine, question: Question, device_id: str) -> game.Deal:
    """Note that this device is shown its count (once; a reload changes nothing), and return
    the deal. Call it before the count is drawn, so that every phone that saw one is counted
    in game_result, voter or not. A vote needs no deal row: game_result counts voters from
    their votes, and only devices without a round-1 vote as silent."""
    dealt = deal_for(question, device_id)
    with store.writing(engine) as conn:
        conn.execute(insert_for(engine)(deals)
                     .values(question_id=question.id, dealt=int(dealt.in_data),
                             device_sha256=device_hash(question.session_id, device_id))
                     .on_conflict_do_nothing(index_elements=["question_id", "device_sha256"]))
    return dealt
