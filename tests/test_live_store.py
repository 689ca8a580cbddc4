"""classroom.live against a real database: SQLite always, PostgreSQL when DPLAB_TEST_POSTGRES_URL is set.

Sessions and codes, the admin token, question kinds and their flags, every rule a vote must
pass, the version counter the phones wait on, the shared cache, and what is (not) stored.
"""

from __future__ import annotations

import math
import subprocess
import sys
from datetime import timedelta

import pytest
from sqlalchemy import event, inspect, select, update

from classroom import game, live, store
from classroom.live import Vote
from tests.live_databases import live_engine, rows
from tests.poll_databases import BACKENDS

QUIZ = dict(ref="laplace/clamping", prompt="Clamp the noisy counts: what guarantee is left?",
            options=["Still ε", "2ε", "None"], answer=0, explanation="Post-processing is free.")


@pytest.fixture(params=BACKENDS)
def engine(request, tmp_path):
    with live_engine(request.param, tmp_path) as engine:
        yield engine


@pytest.fixture
def session(engine):
    return live.create_session(engine, class_size=30)


def device() -> str:
    return live.new_device_id()


def version(engine, session_id) -> int:
    return live.version(engine, session_id)


# ── Schema ──────────────────────────────────────────────────────────────────────────────────

def test_live_tables_sit_beside_the_polls_with_their_own_version(engine):
    tables = set(inspect(engine).get_table_names())
    assert {"live_sessions", "live_questions", "live_votes", "live_schema_version"} <= tables
    assert {"polls", "poll_responses", "poll_schema_version"} <= tables
    live.ensure_schema(engine)  # a second start changes nothing
    with engine.connect() as conn:
        assert conn.execute(select(live.schema_version.c.version)).scalars().all() == [live.SCHEMA_VERSION]


def test_adding_the_live_tables_keeps_existing_poll_data(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    old = store.make_engine(url)
    store.ensure_schema(old)
    create = store.create_poll
    kwargs = {"class_size": 30} if "class_size" in create.__code__.co_varnames else {}
    poll, _ = create(old, "Kept?", store.PROTOCOL_COINS, math.log(3), **kwargs)
    store.submit_answer(old, poll.id, "a-session-token", 1)
    old.dispose()
    engine = store.make_engine(url)
    live.ensure_schema(engine)
    assert store.find_poll(engine, poll.code).question == "Kept?"
    assert store.answers(engine, poll.id) == [1]
    engine.dispose()


def test_a_newer_live_schema_is_refused(engine):
    with engine.begin() as conn:
        conn.execute(update(live.schema_version).values(version=live.SCHEMA_VERSION + 1))
    with pytest.raises(store.SchemaTooNewError, match="live-class"):
        live.ensure_schema(engine)
    with engine.begin() as conn:
        conn.execute(update(live.schema_version).values(version=live.SCHEMA_VERSION))


def test_classroom_live_and_game_import_without_streamlit_or_plotly():
    probe = ("import sys; sys.modules['streamlit'] = None; sys.modules['plotly'] = None\n"
             "import classroom.live, classroom.game\n"
             "assert not any(m.startswith(('streamlit', 'plotly')) for m in sys.modules if sys.modules[m])")
    subprocess.run([sys.executable, "-c", probe], check=True, cwd=store.ROOT)


# ── Sessions ────────────────────────────────────────────────────────────────────────────────

def test_a_session_has_a_readable_code_and_only_the_hash_of_its_token(engine, session):
    opened, token = session
    assert len(opened.code) == store.CODE_LENGTH and set(opened.code) <= set(store.CODE_ALPHABET)
    assert opened.open and opened.current_question_id is None
    stored = rows(engine, live.sessions)[0]
    assert token not in str(tuple(stored))
    assert live.session_for_admin(engine, opened.code, token).id == opened.id
    assert live.session_for_admin(engine, opened.code.lower(), token).id == opened.id
    for wrong in (None, "", token[:-1] + ("A" if token[-1] != "A" else "B"), "x" * 500, "<script>"):
        assert live.session_for_admin(engine, opened.code, wrong) is None
    assert live.session_for_admin(engine, "NOTACODE", token) is None


def test_codes_never_repeat_a_polls_code(engine, monkeypatch):
    create = store.create_poll
    kwargs = {"class_size": 30} if "class_size" in create.__code__.co_varnames else {}
    poll, _ = create(engine, "Taken?", store.PROTOCOL_COINS, math.log(3), **kwargs)
    other = "".join(reversed(poll.code)) if poll.code != poll.code[::-1] else "Z" * store.CODE_LENGTH
    letters = iter(poll.code + other)
    monkeypatch.setattr(live.secrets, "choice", lambda alphabet: next(letters))
    opened, _ = live.create_session(engine, class_size=30)
    assert opened.code == other != poll.code


@pytest.mark.parametrize("raw", [None, "", "abc", "0OOOOO", "K7PQ3M" * 50, "K7P Q3M\x00", "💥" * 6])
def test_malformed_codes_find_nothing(engine, raw):
    assert live.find_session(engine, raw) is None


def test_codes_are_found_however_they_are_typed(engine, session):
    opened, _ = session
    spaced = f" {opened.code[:3].lower()}-{opened.code[3:]} "
    assert live.find_session(engine, spaced).id == opened.id


def test_an_expired_session_takes_no_votes_and_no_questions(engine, session):
    opened, _ = session
    question = live.push_quiz(engine, opened.id, **QUIZ)
    with engine.begin() as conn:
        conn.execute(update(live.sessions).where(live.sessions.c.id == opened.id).values(
            created_at=live.utc_now() - live.SESSION_LIFETIME - timedelta(minutes=1)))
    assert live.find_session(engine, opened.code).expired
    assert live.vote(engine, opened.id, question.id, 1, device(), 0) is Vote.ENDED
    with pytest.raises(live.LiveInputError, match="ended"):
        live.push_quiz(engine, opened.id, **QUIZ)


def test_an_ended_session_takes_no_votes(engine, session):
    opened, _ = session
    question = live.push_quiz(engine, opened.id, **QUIZ)
    live.end_session(engine, opened.id)
    found = live.find_session(engine, opened.code)
    assert found.ended and not found.open and found.current_question_id is None
    assert live.vote(engine, opened.id, question.id, 1, device(), 0) in (Vote.ENDED, Vote.NOT_CURRENT)
    assert live.question(engine, opened.id, question.id).closed


# ── Questions ───────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("change, message", [
    ({"options": ["only one"]}, "options"),
    ({"options": [f"o{i}" for i in range(9)]}, "options"),
    ({"options": "ab"}, "options"),
    ({"answer": 3}, "right answer"),
    ({"answer": True}, "right answer"),
    ({"prompt": "   "}, "empty"),
    ({"prompt": "x" * (live.PROMPT_MAX_CHARS + 1)}, "characters"),
    ({"options": ["fine", ""]}, "Option 2"),
])
def test_a_quiz_that_cannot_be_shown_is_refused(engine, session, change, message):
    with pytest.raises(live.LiveInputError, match=message):
        live.push_quiz(engine, session[0].id, **{**QUIZ, **change})


def test_pushing_a_question_makes_it_current_and_closes_the_last(engine, session):
    opened, _ = session
    first = live.push_quiz(engine, opened.id, **QUIZ)
    second = live.push_game(engine, opened.id, 1.0)
    shown = live.view(engine, opened.id)
    assert shown.question.id == second.id and shown.question.kind == live.KIND_GAME
    assert live.question(engine, opened.id, first.id).closed
    assert [q.id for q in live.history(engine, opened.id)] == [first.id, second.id]
    live.clear(engine, opened.id)
    assert live.view(engine, opened.id).question is None
    assert live.question(engine, opened.id, second.id).closed


def test_a_poll_is_pushed_by_its_code(engine, session):
    opened, _ = session
    create = store.create_poll
    kwargs = {"class_size": 30} if "class_size" in create.__code__.co_varnames else {}
    poll, _ = create(engine, "Copied homework?", store.PROTOCOL_COINS, math.log(3), **kwargs)
    pushed = live.push_poll(engine, opened.id, poll.code.lower())
    assert (pushed.kind, pushed.ref, pushed.prompt) == (live.KIND_POLL, poll.code, "Copied homework?")
    assert live.vote(engine, opened.id, pushed.id, 1, device(), 0) is Vote.NOT_VOTABLE
    with pytest.raises(live.LiveInputError, match="no class poll"):
        live.push_poll(engine, opened.id, "ZZZZZZ")


@pytest.mark.parametrize("epsilon", [0, 0.05, 5.5, float("nan"), True, "1"])
def test_the_game_needs_an_epsilon_in_range(engine, session, epsilon):
    with pytest.raises(live.LiveInputError, match="ε"):
        live.push_game(engine, session[0].id, epsilon)


def test_every_instructor_action_bumps_the_version_and_votes_do_not(engine, session):
    opened, _ = session
    seen = [version(engine, opened.id)]

    def bumped() -> None:
        seen.append(version(engine, opened.id))
        assert seen[-1] > seen[-2]

    question = live.push_quiz(engine, opened.id, **QUIZ)
    bumped()
    assert live.vote(engine, opened.id, question.id, 1, device(), 0) is Vote.RECORDED
    assert version(engine, opened.id) == seen[-1]
    for action in (lambda: live.set_show_votes(engine, opened.id, question.id, True),
                   lambda: live.start_round_two(engine, opened.id, question.id),
                   lambda: live.set_closed(engine, opened.id, question.id, True),
                   lambda: live.set_closed(engine, opened.id, question.id, False),
                   lambda: live.reveal(engine, opened.id, question.id),
                   lambda: live.clear(engine, opened.id),
                   lambda: live.show_again(engine, opened.id, question.id),
                   lambda: live.end_session(engine, opened.id)):
        action()
        bumped()


def test_another_sessions_question_cannot_be_controlled_or_voted_on(engine, session):
    opened, _ = session
    other, _ = live.create_session(engine, class_size=30)
    question = live.push_quiz(engine, opened.id, **QUIZ)
    before = version(engine, other.id)
    for action in (live.set_show_votes, live.reveal, live.show_again, live.start_round_two):
        args = (engine, other.id, question.id) + ((True,) if action is live.set_show_votes else ())
        assert action(*args) is False
    assert version(engine, other.id) == before  # the refused actions were rolled back
    assert live.vote(engine, other.id, question.id, 1, device(), 0) is Vote.WRONG_SESSION
    assert live.vote(engine, opened.id, 10 ** 9, 1, device(), 0) is Vote.UNKNOWN
    assert live.question(engine, other.id, question.id) is None
    assert not live.question(engine, opened.id, question.id).revealed


def test_round_two_and_reveal(engine, session):
    opened, _ = session
    question = live.push_quiz(engine, opened.id, **QUIZ)
    live.set_show_votes(engine, opened.id, question.id, True)
    assert live.start_round_two(engine, opened.id, question.id)
    now = live.question(engine, opened.id, question.id)
    assert now.round == 2 and not now.show_votes and not now.closed
    assert live.reveal(engine, opened.id, question.id)
    now = live.question(engine, opened.id, question.id)
    assert now.revealed and now.closed and now.show_votes
    with pytest.raises(live.LiveInputError):
        live.start_round_two(engine, opened.id, question.id)
    with pytest.raises(live.LiveInputError):
        live.set_closed(engine, opened.id, question.id, False)
    game_question = live.push_game(engine, opened.id, 1.0)
    with pytest.raises(live.LiveInputError, match="second round"):
        live.start_round_two(engine, opened.id, game_question.id)


# ── Votes ───────────────────────────────────────────────────────────────────────────────────

def test_one_vote_per_device_per_round_and_the_first_stands(engine, session):
    opened, _ = session
    question = live.push_quiz(engine, opened.id, **QUIZ)
    phone, other = device(), device()
    assert live.vote(engine, opened.id, question.id, 1, phone, 2) is Vote.RECORDED
    assert live.vote(engine, opened.id, question.id, 1, phone, 0) is Vote.DUPLICATE
    assert live.vote(engine, opened.id, question.id, 1, other, 0) is Vote.RECORDED
    assert live.vote(engine, opened.id, question.id, 2, phone, 1) is Vote.WRONG_ROUND
    live.start_round_two(engine, opened.id, question.id)
    assert live.vote(engine, opened.id, question.id, 1, live.new_device_id(), 1) is Vote.WRONG_ROUND
    assert live.vote(engine, opened.id, question.id, 2, phone, 1) is Vote.RECORDED
    assert live.vote(engine, opened.id, question.id, 2, phone, 2) is Vote.DUPLICATE
    assert live.tally(engine, question.id, 3) == {1: [1, 0, 1], 2: [0, 1, 0]}
    assert live.device_votes(engine, opened.id, question.id, phone) == {1: 2, 2: 1}
    assert live.device_votes(engine, opened.id, question.id, device()) == {}
    assert live.vote_count(engine, question.id, 1) == 2


def test_closed_revealed_and_past_questions_take_no_votes(engine, session):
    opened, _ = session
    question = live.push_quiz(engine, opened.id, **QUIZ)
    live.set_closed(engine, opened.id, question.id, True)
    assert live.vote(engine, opened.id, question.id, 1, device(), 0) is Vote.CLOSED
    live.set_closed(engine, opened.id, question.id, False)
    assert live.vote(engine, opened.id, question.id, 1, device(), 0) is Vote.RECORDED
    live.reveal(engine, opened.id, question.id)
    assert live.vote(engine, opened.id, question.id, 1, device(), 0) is Vote.CLOSED
    live.push_quiz(engine, opened.id, **QUIZ)
    assert live.vote(engine, opened.id, question.id, 1, device(), 0) is Vote.NOT_CURRENT


@pytest.mark.parametrize("choice", [-1, 3, 99, True, 1.0, "0", None])
def test_a_choice_that_is_no_option_is_refused(engine, session, choice):
    question = live.push_quiz(engine, session[0].id, **QUIZ)
    assert live.vote(engine, session[0].id, question.id, 1, device(), choice) is Vote.INVALID_CHOICE


@pytest.mark.parametrize("bad", ["", "short", "x" * 65, "has space in it!!", "ünïcödé-ünïcödé-x", None])
def test_a_malformed_device_id_is_refused(engine, session, bad):
    question = live.push_quiz(engine, session[0].id, **QUIZ)
    assert not live.plausible_device_id(bad)
    with pytest.raises(ValueError, match="device_id"):
        live.vote(engine, session[0].id, question.id, 1, bad, 0)


def test_only_a_per_session_hash_of_the_device_is_stored(engine, session):
    opened, _ = session
    other, _ = live.create_session(engine, class_size=30)
    phone = device()
    first = live.push_quiz(engine, opened.id, **QUIZ)
    second = live.push_quiz(engine, other.id, **QUIZ)
    live.vote(engine, opened.id, first.id, 1, phone, 0)
    live.vote(engine, other.id, second.id, 1, phone, 0)
    stored = rows(engine, live.votes)
    assert {row.device_sha256 for row in stored} == {live.device_hash(opened.id, phone),
                                                     live.device_hash(other.id, phone)}
    assert len({row.device_sha256 for row in stored}) == 2  # unlinkable across sessions
    assert all(phone not in str(tuple(row)) for row in stored)
    assert set(live.votes.c.keys()) == {"id", "question_id", "round", "device_sha256", "choice", "dealt"}


def test_a_restart_loses_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    engine = store.make_engine(url)
    live.ensure_schema(engine)
    opened, token = live.create_session(engine, class_size=30)
    question = live.push_quiz(engine, opened.id, **QUIZ)
    phone = device()
    live.vote(engine, opened.id, question.id, 1, phone, 1)
    engine.dispose()
    again = store.make_engine(url)
    live.ensure_schema(again)
    assert live.session_for_admin(again, opened.code, token).current_question_id == question.id
    assert live.tally(again, question.id, 3) == {1: [0, 1, 0]}
    assert live.vote(again, opened.id, question.id, 1, phone, 0) is Vote.DUPLICATE
    again.dispose()


# ── The cheap read the phones make ──────────────────────────────────────────────────────────

def test_the_cache_reads_the_version_once_per_max_age_and_the_view_only_on_change(engine, session):
    opened, _ = session
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute",
                 lambda conn, cursor, sql, *args: statements.append(sql))
    cache = live.SessionCache(max_age=0.5)
    start = 1000.0
    first = cache.view(engine, opened.id, now=start)
    full_reads = len(statements)
    assert full_reads >= 1 and first.question is None
    for phone in range(300):  # 300 phones in the same half second: no query at all
        assert cache.view(engine, opened.id, now=start + phone / 1000) is first
    assert len(statements) == full_reads
    assert cache.view(engine, opened.id, now=start + 0.6) is first  # one version read
    assert len(statements) == full_reads + 1
    question = live.push_quiz(engine, opened.id, **QUIZ)
    statements.clear()
    later = cache.view(engine, opened.id, now=start + 1.2)  # the version moved: re-read
    assert later.question.id == question.id and len(statements) >= 2
    live.clear(engine, opened.id)
    cache.invalidate(opened.id)  # this process's own change shows at once
    assert cache.view(engine, opened.id, now=start + 1.3).question is None
    assert cache.view(engine, 10 ** 9) is None


# ── The game ────────────────────────────────────────────────────────────────────────────────

def test_the_game_deals_each_device_the_same_count_every_time(engine, session):
    opened, _ = session
    question = live.push_game(engine, opened.id, 1.0)
    phone = device()
    first = live.deal_for(question, phone)
    again = live.deal_for(live.view(engine, opened.id).question, phone)
    assert first == again
    others = {live.deal_for(question, device()).output for _ in range(20)}
    assert len(others) == 20  # continuous noise: no two devices share a count
    with pytest.raises(ValueError):
        live.deal_for(live.push_quiz(engine, opened.id, **QUIZ), phone)


def test_the_game_stores_the_world_the_server_dealt(engine, session):
    opened, _ = session
    question = live.push_game(engine, opened.id, 2.0)
    phones = [device() for _ in range(30)]
    for i, phone in enumerate(phones):
        assert live.vote(engine, opened.id, question.id, 1, phone, i % 2) is Vote.RECORDED
    dealt = {row.device_sha256: row.dealt for row in rows(engine, live.votes)}
    for phone in phones:
        assert dealt[live.device_hash(opened.id, phone)] == int(live.deal_for(question, phone).in_data)
    result = live.game_result(engine, question.id)
    assert result.n == 30
    assert result.dealt_in == sum(live.deal_for(question, phone).in_data for phone in phones)
    guessed_in = sum(1 for i, phone in enumerate(phones) if i % 2 == game.GUESS_IN)
    assert result.in_said_in + result.out_said_in == guessed_in


# ── A hostile student (issue 18): class size and per-address cap ────────────────────────────

def test_a_round_takes_at_most_the_class_size_and_refusals_are_counted(engine):
    opened, _ = live.create_session(engine, class_size=3)
    question = live.push_quiz(engine, opened.id, **QUIZ)
    results = [live.vote(engine, opened.id, question.id, 1, device(), 0) for _ in range(5)]
    assert results == [Vote.RECORDED] * 3 + [Vote.CLASS_FULL] * 2
    assert live.question(engine, opened.id, question.id).refused == 2
    live.start_round_two(engine, opened.id, question.id)  # a new round has room again
    assert live.vote(engine, opened.id, question.id, 2, device(), 1) is Vote.RECORDED
    live.set_class_size(engine, opened.id, 5)  # raised live: room for two more
    assert live.vote(engine, opened.id, question.id, 2, device(), 1) is Vote.RECORDED
    assert live.find_session(engine, opened.code).class_size == 5


@pytest.mark.parametrize("size", [0, 1, 1001, 2.5, True, "30", None])
def test_the_class_size_must_be_a_whole_number_in_range(engine, size):
    with pytest.raises(live.LiveInputError, match="class size"):
        live.create_session(engine, class_size=size)


def test_votes_per_address_are_capped_and_kept_only_as_a_keyed_hash(engine, monkeypatch):
    opened, _ = live.create_session(engine, class_size=10)
    monkeypatch.setattr(store, "address_cap", lambda class_size: 2)
    question = live.push_quiz(engine, opened.id, **QUIZ)
    here, there = "203.0.113.7", "198.51.100.4"
    results = [live.vote(engine, opened.id, question.id, 1, device(), 0, address=here)
               for _ in range(3)]
    assert results == [Vote.RECORDED, Vote.RECORDED, Vote.ADDRESS_FULL]
    assert live.vote(engine, opened.id, question.id, 1, device(), 0, address=there) is Vote.RECORDED
    counts = rows(engine, live.address_counts)
    assert sorted(row.votes for row in counts) == [1, 2]
    assert all(here not in str(tuple(row)) and there not in str(tuple(row)) for row in counts)
    assert live.question(engine, opened.id, question.id).refused == 1


def test_address_counts_of_expired_sessions_are_deleted(engine):
    opened, _ = live.create_session(engine, class_size=10)
    question = live.push_quiz(engine, opened.id, **QUIZ)
    live.vote(engine, opened.id, question.id, 1, device(), 0, address="203.0.113.7")
    assert live.forget_expired_addresses(engine) == 0
    with engine.begin() as conn:
        conn.execute(update(live.sessions).where(live.sessions.c.id == opened.id).values(
            created_at=live.utc_now() - live.SESSION_LIFETIME - timedelta(minutes=1)))
    live.create_session(engine, class_size=10)  # a new session sweeps expired counts away
    assert rows(engine, live.address_counts) == []
    assert live.tally(engine, question.id, 3) == {1: [1, 0, 0]}  # the votes themselves stay


# ── The countdown and the export (issue 24) ────────────────────────────────────────────────

def test_a_countdown_closes_the_round_by_itself(engine, session, monkeypatch):
    opened, _ = session
    question = live.push_quiz(engine, opened.id, **QUIZ)
    start = live.utc_now()
    assert live.start_countdown(engine, opened.id, question.id, 30)
    counting = live.view(engine, opened.id).question
    assert not counting.closed and 29 <= counting.seconds_left <= 30
    early = device()
    assert live.vote(engine, opened.id, question.id, 1, early, 0) is Vote.RECORDED
    # 31 s later, the same cached view is closed, and the database refuses a vote.
    monkeypatch.setattr(live, "utc_now", lambda: start + timedelta(seconds=31))
    assert counting.closed and counting.seconds_left is None and not counting.accepts_votes
    assert live.vote(engine, opened.id, question.id, 1, device(), 1) is Vote.CLOSED
    with pytest.raises(live.LiveInputError, match="reopen it first"):
        live.start_countdown(engine, opened.id, question.id, 30)
    assert live.set_closed(engine, opened.id, question.id, False)  # Reopen clears it
    assert live.vote(engine, opened.id, question.id, 1, device(), 1) is Vote.RECORDED


def test_reveal_cuts_a_countdown_short_and_its_bounds_are_checked(engine, session):
    opened, _ = session
    question = live.push_quiz(engine, opened.id, **QUIZ)
    for seconds in (live.COUNTDOWN_MIN - 1, live.COUNTDOWN_MAX + 1, 30.0, True):
        with pytest.raises(live.LiveInputError, match="seconds long"):
            live.start_countdown(engine, opened.id, question.id, seconds)
    assert live.start_countdown(engine, opened.id, question.id, live.COUNTDOWN_MAX)
    assert live.reveal(engine, opened.id, question.id)
    assert live.view(engine, opened.id).question.closed
    assert live.vote(engine, opened.id, question.id, 1, device(), 0) is Vote.CLOSED


def test_the_results_export_counts_per_question_round_and_option_without_devices(engine, session):
    opened, _ = session
    question = live.push_quiz(engine, opened.id, **{**QUIZ, "prompt": "=1+1 is a formula?"})
    phones = [device() for _ in range(3)]
    for phone, choice in zip(phones, (0, 0, 2), strict=True):
        assert live.vote(engine, opened.id, question.id, 1, phone, choice) is Vote.RECORDED
    assert live.start_round_two(engine, opened.id, question.id)
    assert live.vote(engine, opened.id, question.id, 2, phones[2], 0) is Vote.RECORDED
    lines = live.results_csv(engine, opened.id).splitlines()
    assert lines[0] == ",".join(live.RESULTS_COLUMNS)
    rows_ = [line.split(",") for line in lines[1:]]
    assert [(r[4], r[5], r[7], r[8]) for r in rows_] == [
        ("1", "A", "2", "yes"), ("1", "B", "0", "no"), ("1", "C", "1", "no"),
        ("2", "A", "1", "yes"), ("2", "B", "0", "no"), ("2", "C", "0", "no")]
    assert all(r[3] == "'=1+1 is a formula?" for r in rows_)  # not run as a formula
    text = "\n".join(lines)
    assert not any(phone in text or live.device_hash(opened.id, phone) in text for phone in phones)
