"""The live-class pages through app.py (AppTest): start → push a quiz → phones vote → show votes →
round 2 → reveal; the game; a poll pushed by reference; "Ask the class" on a lesson quiz; and
every bad input (wrong, expired or malformed codes, closed questions, stale clicks, malformed
device ids, wrong admin tokens) gets a message, never a traceback."""

from __future__ import annotations

import json
import math
from datetime import timedelta

import plotly.graph_objects as go
import pytest
from sqlalchemy import update
from streamlit.testing.v1 import AppTest

from classroom import game, limits, live, store
from tests.conftest import (
    ODDS_ICONS,
    ROOT,
    app_test,
    assert_clean,
    chart_specs,
    demo_specs,
    lesson,
    title,
)
from ui import admin_store, lessons
from ui import live as ui_live
from ui import poll as ui_poll
from ui.plain_figure import decode_array, spec_mismatches

INSTRUCTOR = lesson("live-instructor")
JOIN = lesson("live-join")
PHONE_A, PHONE_B, PHONE_C = ("phone-aaaaaaaaaaaaaaaa", "phone-bbbbbbbbbbbbbbbb", "phone-cccccccccccccccc")


@pytest.fixture(autouse=True)
def database(tmp_path, monkeypatch) -> str:
    url = f"sqlite:///{tmp_path / 'poll.sqlite3'}"
    monkeypatch.setenv(store.DATABASE_URL_ENV, url)
    return url


@pytest.fixture(autouse=True)
def fresh_limits(monkeypatch):
    """No new-session wait (one test puts it back), fresh per-address counters, and a fresh
    shared view cache (every test has its own database)."""
    monkeypatch.setattr(limits, "SESSION_WARMUP_SECONDS", 0.0)
    ui_poll._address_limiter.clear()
    ui_live.session_cache.clear()
    yield
    ui_poll._address_limiter.clear()
    ui_live.session_cache.clear()


@pytest.fixture
def engine(database):
    engine = store.make_engine(database)
    live.ensure_schema(engine)
    yield engine
    engine.dispose()


def text_of(at) -> str:
    parts = [m.value for m in at.markdown]
    for kind in ("caption", "code", "error", "warning", "info", "success", "title"):
        parts += [str(element.value) for element in at.get(kind)]
    return " ".join(parts)


def param(at, key: str) -> str | None:
    value = at.query_params.get(key)
    return value[0] if isinstance(value, list) else value


def start(class_size: int | None = None):
    """The instructor starts a session; returns the AppTest (still running it) and the code."""
    at = app_test(INSTRUCTOR)
    if class_size is not None:
        at.number_input(key="live_new_class_size").set_value(class_size)
    at.button(key="live_create").click().run()
    assert_clean(at)
    return at, param(at, "code")


def phone(code: str, device: str | None = PHONE_A, **extra):
    """A phone's page. AppTest runs no JavaScript, so the device id the browser's storage would
    report is put where the page keeps it (None: a browser that has not reported one)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"code": code, **extra})
    if device:
        at.session_state[ui_live.IDENTITY_KEY] = device
    at.switch_page(JOIN.script)
    at.run()
    assert_clean(at)
    return at


def vote_buttons(at) -> list:
    return [b for b in at.button if b.key and b.key.startswith("live_vote_")]


def push_quiz(at, slug: str = "laplace", quiz_id: str = "clamping"):
    at.selectbox(key="live_pick_lesson").set_value(slug).run()
    at.selectbox(key="live_pick_quiz").set_value(quiz_id).run()
    at.button(key="live_push_quiz").click().run()
    assert_clean(at)
    return at


def click(at, key: str):
    at.button(key=key).click().run()
    assert_clean(at)
    for spec in chart_specs(at):  # what the browser gets is what plotly validates, unchanged
        assert not spec_mismatches(spec, go.Figure(spec).to_dict())
        assert spec["layout"]["title"]["text"] and spec["data"]
    return at


# ── A whole quiz, two rounds ────────────────────────────────────────────────────────────────

def test_start_shows_the_code_qr_and_link_and_keeps_the_token_out_of_the_url():
    at, code = start()
    assert code and len(code) == store.CODE_LENGTH
    assert "admin" not in at.query_params
    assert code in text_of(at)
    assert any(f"live-join?code={code}" in c.value for c in at.code)
    assert at.get("imgs") or at.get("image"), "a QR code"
    assert "No question on the phones yet" in text_of(at)
    assert not any("admin=" in c.value for c in at.code)  # only on request
    at.toggle(key="live_show_admin_link").set_value(True).run()
    assert any("admin=" in c.value for c in at.code)


def test_a_quiz_runs_two_rounds_and_the_reveal_reaches_every_phone(engine):
    teacher, code = start()
    push_quiz(teacher)
    quiz = lessons.quizzes("laplace")["clamping"]

    phones = {name: phone(code, device) for name, device in
              (("a", PHONE_A), ("b", PHONE_B), ("c", PHONE_C))}
    for at in phones.values():
        assert quiz.question in text_of(at)
        assert len(vote_buttons(at)) == len(quiz.options)
    # Round 1: a and b pick the right option, c another one.
    wrong = (quiz.answer + 1) % len(quiz.options)
    for name, choice in (("a", quiz.answer), ("b", quiz.answer), ("c", wrong)):
        vote_buttons(phones[name])[choice].click().run()
        assert_clean(phones[name])
        assert "Your vote is in" in text_of(phones[name])
        assert not vote_buttons(phones[name])

    teacher.run()
    assert "**3** of at most 30 votes" in text_of(teacher)
    assert not demo_specs(teacher), "votes stay hidden until Show votes"
    click(teacher, "live_show_votes")
    (spec,) = demo_specs(teacher)
    assert len(spec["data"]) == 1 and spec["data"][0]["name"].startswith("round 1 (3 votes)")

    # Round 2: the phones get their buttons back, and the projector shows both rounds.
    click(teacher, "live_round_two")
    assert not demo_specs(teacher) and "Round 2" in text_of(teacher)
    for name, at in phones.items():
        at.run()
        assert "Round 2: vote again" in text_of(at)
        assert len(vote_buttons(at)) == len(quiz.options), name
    vote_buttons(phones["c"])[quiz.answer].click().run()  # c changed its mind, and b did too
    vote_buttons(phones["a"])[quiz.answer].click().run()
    vote_buttons(phones["b"])[wrong].click().run()
    click(teacher, "live_show_votes")
    (spec,) = demo_specs(teacher)
    assert [trace["name"] for trace in spec["data"]] == ["round 1 (3 votes)", "round 2 (3 votes)"]
    assert round(spec["data"][1]["y"][quiz.answer]) == 67

    click(teacher, "live_reveal")
    assert f"**Why:** {quiz.explanation}" in text_of(teacher)
    (spec,) = demo_specs(teacher)
    assert "✓" in json.dumps(spec["layout"]["xaxis"]["ticktext"], ensure_ascii=False)
    for name, at in phones.items():
        at.run()
        shown = text_of(at)
        assert quiz.explanation in shown and not vote_buttons(at)
        assert ("You were right" in shown) == (name in ("a", "c")), name
    assert f"round 1: {'ABCD'[wrong]}, round 2: {'ABCD'[quiz.answer]}" in text_of(phones["c"])


def test_a_reloaded_phone_cannot_vote_twice(engine):
    teacher, code = start()
    push_quiz(teacher)
    first = phone(code, PHONE_A)
    vote_buttons(first)[0].click().run()
    reloaded = phone(code, PHONE_A)  # a new browser session: the same device id
    assert "Your vote is in" in text_of(reloaded) and not vote_buttons(reloaded)
    session = live.find_session(engine, code)
    question = live.view(engine, session.id).question
    assert live.vote_count(engine, question.id, 1) == 1


def test_next_clears_the_phones_and_a_stale_click_is_told_the_class_moved_on(engine):
    teacher, code = start()
    push_quiz(teacher)
    at = phone(code)
    stale = vote_buttons(at)
    click(teacher, "live_next")
    ui_live.session_cache.clear()
    stale[0].click().run()
    assert_clean(at)
    shown = text_of(at)
    assert "Waiting for the next question" in shown
    session = live.find_session(engine, code)
    assert live.history(engine, session.id)[0].closed
    push_quiz(teacher, "composition", next(iter(lessons.quizzes("composition"))))
    at.run()
    assert vote_buttons(at)


def test_a_closed_question_takes_no_vote_and_says_so(engine):
    teacher, code = start()
    push_quiz(teacher)
    at = phone(code)
    buttons = vote_buttons(at)
    click(teacher, "live_close")
    buttons[1].click().run()
    assert_clean(at)
    assert "Voting on this question is closed" in text_of(at)
    assert not vote_buttons(at)
    question = live.view(engine, live.find_session(engine, code).id).question
    assert live.vote_count(engine, question.id, 1) == 0


def test_a_full_round_refuses_and_both_screens_say_so(engine):
    teacher, code = start(class_size=2)
    push_quiz(teacher)
    for device in (PHONE_A, PHONE_B):
        at = phone(code, device)
        vote_buttons(at)[0].click().run()
    late = phone(code, PHONE_C)
    vote_buttons(late)[0].click().run()
    assert "already has 2 votes" in text_of(late)
    teacher.run()
    assert "This round is full" in text_of(teacher) and "1 refused" in text_of(teacher)


# ── The game and the poll ───────────────────────────────────────────────────────────────────

def flat(at) -> str:
    """The page's text with line breaks as spaces (lesson sentences wrap in the source)."""
    return " ".join(text_of(at).split())


def test_the_game_deals_counts_and_plots_the_class_against_the_bound(engine):
    teacher, code = start()
    click(teacher, "live_push_game")
    phones = []
    for i in range(10):
        at = phone(code, f"game-device-{i:010d}")
        assert "The released count your phone was dealt" in flat(at)
        assert "If you do not vote, your phone counts as a guess of \"out\"" in flat(at)
        if i < 8:  # two phones look at their counts and stay silent
            vote_buttons(at)[i % 2].click().run()
            assert "Your vote is in" in flat(at)
        phones.append(at)
    again = phone(code, "game-device-0000000000")  # the same count after a reload
    dealt = [line for line in text_of(again).split("**") if line.replace(".", "").replace("-", "").isdigit()]
    assert dealt and dealt[0] in text_of(phones[0])
    click(teacher, "live_show_votes")
    (spec,) = demo_specs(teacher)
    assert spec["layout"]["title"]["text"].startswith("The class as an attacker, ε = 1")
    for axis in ("xaxis", "yaxis"):  # the unit square, kept square inside the figure's width
        assert spec["layout"][axis]["range"] == [0, 1] and spec["layout"][axis]["constrain"] == "domain"
    assert spec["data"][-1]["name"] == "the class (10 phones)"
    shown = flat(teacher)
    assert "**8 guesses** from **10 phones dealt**" in shown and "2 silent" in shown
    assert "The verdict comes when voting closes" in shown and "ε-DP bound**" not in shown
    result = live.game_result(engine, live.view(engine, live.find_session(engine, code).id).question.id)
    assert (result.guesses, result.silent, result.n) == (8, 2, 10)
    click(teacher, "live_close")
    shown = flat(teacher)
    assert "The verdict comes when voting closes" not in shown and "What the verdict assumes" in shown
    assert "inside the ε-DP bound" in shown or "past the ε-DP bound" in shown
    click(teacher, "live_reveal")
    phones[0].run()
    assert "Your count came from" in flat(phones[0]) and "You guessed" in flat(phones[0])
    phones[9].run()
    assert "You stayed silent, which counts as **Out" in flat(phones[9])


def test_a_phone_that_opens_the_game_after_voting_closed_does_not_move_the_verdict(engine):
    # The projector shows its verdict once voting closes; a phone that first opens the game then
    # used to be dealt (a silent "out") and moved the verdict, and at the reveal was told it had
    # stayed silent, though it had never had the chance to guess.
    teacher, code = start()
    click(teacher, "live_push_game")
    early = phone(code, "early-game-device-000")
    vote_buttons(early)[0].click().run()
    click(teacher, "live_close")
    question_id = live.view(engine, live.find_session(engine, code).id).question.id
    before = live.game_result(engine, question_id)
    late = phone(code, "late-game-device-0000")
    assert_clean(late)
    assert "The released count your phone was dealt" in flat(late)
    assert live.game_result(engine, question_id) == before
    click(teacher, "live_reveal")
    late.run()
    assert "You opened the game after voting closed" in flat(late)
    assert "You stayed silent" not in flat(late)
    early.run()
    assert "You guessed" in flat(early)


def test_a_dealt_count_fixes_a_stand_in_device_id(engine):
    # A phone whose browser had not reported its stored id yet answers under a stand-in the
    # server made (provisional: a late report replaces it). Being dealt a count is an answer:
    # the count is drawn from the id, so a replaced id would show the phone a second count and
    # deal it twice. From the deal on, the id is final, and the browser is asked to keep it.
    teacher, code = start()
    click(teacher, "live_push_game")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"code": code})
    # the browser has not reported for as long as the page waits (AppTest runs no JavaScript)
    at.session_state[ui_live.DEVICE_WAIT_KEY] = ui_live.DEVICE_WAIT_TICKS
    at.switch_page(JOIN.script)
    at.run()
    assert_clean(at)
    assert "The released count your phone was dealt" in flat(at)
    stand_in = at.session_state[ui_live.IDENTITY_KEY]
    assert at.session_state[ui_live.STAND_IN_KEY] and not at.session_state[ui_live.PROVISIONAL_KEY]
    at.run()
    (store_component,) = [c for c in at.get("bidi_component") if "dplab_live_device" in str(c.proto)]
    assert '"keep": true' in str(store_component.proto).replace("\\", "")
    # The browser's own id, reported late (before it adopts the stand-in): not a claim to be
    # another device; the vote counts, under the id the count was dealt to.
    at.session_state[ui_live.DEVICE_KEY] = {"device": {"id": PHONE_A, "kept": True}}
    vote_buttons(at)[0].click().run()
    assert "Your vote is in" in flat(at), flat(at)
    assert at.session_state[ui_live.IDENTITY_KEY] == stand_in
    result = live.game_result(engine, live.view(engine, live.find_session(engine, code).id).question.id)
    assert (result.n, result.guesses) == (1, 1)


def test_a_room_dealt_one_world_has_guesses_but_no_point_yet(engine):
    # Three phones that the coin all dealt the same world: there are guesses, but no false (or
    # true) positive rate yet. The projector says so, and does not say "no guesses yet".
    teacher, code = start()
    click(teacher, "live_push_game")
    question = live.view(engine, live.find_session(engine, code).id).question
    candidates = [f"one-world-phone-{i:08d}" for i in range(200)]
    world = live.deal_for(question, candidates[0]).in_data
    same = [d for d in candidates if live.deal_for(question, d).in_data == world][:3]
    for device in same:
        at = phone(code, device)
        vote_buttons(at)[0].click().run()
        assert "Your vote is in" in flat(at)
    click(teacher, "live_show_votes")
    shown = flat(teacher)
    assert "No guesses yet" not in shown
    assert f"**No point yet.** 3 guesses so far, and every phone dealt so far (3 phones) got a count from {'D' if world else 'D′'}:" in shown


def test_the_game_s_epsilon_has_the_odds_panel_of_every_epsilon_control():
    teacher, _ = start()
    icons = {}
    for eps in (0.25, 5.0):
        teacher.select_slider(key="live_game_eps").set_value(eps).run()
        assert_clean(teacher)
        (spec,) = [spec for spec in chart_specs(teacher) if title(spec).startswith(ODDS_ICONS)]
        icons[eps] = json.dumps(spec["data"], sort_keys=True)
        assert any(f"ε = {eps:g}" in expander.label for expander in teacher.expander)
    assert icons[0.25] != icons[5.0], "the panel follows the game's ε"


@pytest.mark.parametrize("eps", ["0.25", "5"])
def test_the_game_at_the_ends_of_its_epsilon_range(eps):
    teacher, code = start()
    teacher.select_slider(key="live_game_eps").set_value(float(eps)).run()
    click(teacher, "live_push_game")
    at = phone(code)
    vote_buttons(at)[0].click().run()
    click(teacher, "live_reveal")
    assert f"ε = {eps}" in text_of(teacher)
    at.run()
    assert_clean(at)


def test_a_poll_is_pushed_by_reference_and_the_projector_shows_its_estimate(engine):
    teacher, code = start()
    poll, _ = store.create_poll(engine, "Copied homework?", store.PROTOCOL_COINS, math.log(3),
                                class_size=30)
    for i in range(4):
        store.submit_answer(engine, poll.id, f"poll-session-{i}", i % 2)
    teacher.text_input(key="live_poll_code").input(poll.code).run()
    click(teacher, "live_push_poll")
    assert "Copied homework?" in text_of(teacher) and "**4** of at most 30 answers" in text_of(teacher)
    assert demo_specs(teacher), "the debiased estimate as answers arrive"
    at = phone(code)  # answered here, on the live page: the phone keeps following (issue 24)
    assert "Copied homework?" in text_of(at) and f"Class poll {poll.code}" in " ".join(c.value for c in at.caption)
    assert not at.get("page_link")
    at.button(key="live_poll_coin_yes").click().run()
    assert_clean(at)
    assert at.success and "Your answer is in" in at.success[0].value
    assert len(store.answers(engine, poll.id)) == 5
    teacher.text_input(key="live_poll_code").input("ZZZZZZ").run()
    click(teacher, "live_push_poll")
    assert "no class poll with that code" in text_of(teacher)


def test_the_projected_poll_shows_its_estimate_cut_to_0_100_with_the_unbiased_value_in_its_help(engine):
    """Issue 14: one answer made the projector say "Debiased estimate -50%" (or 150%). The live
    class uses the class poll's one rule (ui.poll.estimate_metric, ui.charts.poll.shown_share)."""
    teacher, _ = start()
    poll, _ = store.create_poll(engine, "Copied homework?", store.PROTOCOL_COINS, math.log(3),
                                class_size=30)
    store.submit_answer(engine, poll.id, "poll-session-0", 0)
    teacher.text_input(key="live_poll_code").input(poll.code).run()
    click(teacher, "live_push_poll")
    (estimate,) = [m for m in teacher.metric if m.label == "Debiased estimate"]
    assert estimate.value == "0%" and estimate.delta == "95%: 0–100%"
    assert any(c.value.startswith("**Too few answers to tell:**") for c in teacher.caption)
    assert "The unbiased formula gives -50.0% here" in estimate.help
    (spec,) = demo_specs(teacher)
    (line,) = [t for t in spec["data"] if t["name"].startswith("debiased estimate")]
    go.Figure(spec)
    assert all(0 <= y <= 100 for y in decode_array(line["y"])) and line["text"] == ["<br>(cut from -50.0%)"]


# ── "Ask the class" beside a lesson quiz ────────────────────────────────────────────────────

def test_ask_the_class_appears_only_for_the_instructor_and_pushes_the_quiz(engine):
    student_view = app_test(lesson("laplace"))
    assert not [b for b in student_view.button if b.key and b.key.endswith("_ask")]

    teacher, code = start()
    teacher.switch_page(lesson("laplace").script).run()
    assert_clean(teacher)
    asks = [b for b in teacher.button if b.key and b.key.endswith("_ask")]
    assert asks, "one 'Ask the class' per quiz on the page"
    asks[0].click().run()
    assert_clean(teacher)
    session = live.find_session(engine, code)
    pushed = live.view(engine, session.id).question
    assert pushed.kind == live.KIND_QUIZ and pushed.ref.startswith("laplace/")
    assert any("Live on the phones" in link.proto.label for link in teacher.get("page_link"))
    assert pushed.prompt in text_of(phone(code))


# ── Bad input ───────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("raw", ["abc", "0OOOOO", "K7PQ3M" * 40, "<script>", "💥", "K7P Q3M\x00"])
def test_a_malformed_code_gets_a_message_and_the_form(raw):
    at = app_test(JOIN, {"code": raw})
    assert_clean(at)
    assert "not a live-class code" in text_of(at)
    assert at.text_input(key="live_join_code_input")


def test_an_unknown_code_gets_a_message():
    at = phone("ZZZZZZ")
    assert "No live session has the code ZZZZZZ" in text_of(at)


def test_an_expired_or_ended_session_says_so(engine):
    teacher, code = start()
    session = live.find_session(engine, code)
    click(teacher, "live_end")
    assert "This live session has ended" in text_of(teacher)
    assert "has ended" in text_of(phone(code))
    other, _ = live.create_session(engine, class_size=30)
    with engine.begin() as conn:
        conn.execute(update(live.sessions).where(live.sessions.c.id == other.id).values(
            created_at=live.utc_now() - live.SESSION_LIFETIME - timedelta(minutes=1)))
    assert f"The live session {other.code} has ended" in text_of(phone(other.code))
    assert session.id != other.id


@pytest.mark.parametrize("dev", [PHONE_B, "short", "bad id!!!!!!!!!!!!!!", ""])
def test_a_device_id_in_the_link_is_ignored_and_leaves_the_address(engine, dev):
    # A copied link (issue 24, item 5) carried its sender's device id: it must not be theirs.
    teacher, code = start()
    push_quiz(teacher)
    vote_buttons(phone(code, PHONE_B))[0].click().run()
    at = phone(code, None, dev=dev)
    assert param(at, "dev") is None
    assert "Connecting this device" in text_of(at)
    for _ in range(ui_live.DEVICE_WAIT_TICKS + 1):
        at.run()
    assert live.plausible_device_id(at.session_state[ui_live.IDENTITY_KEY])
    assert at.session_state[ui_live.IDENTITY_KEY] != PHONE_B
    assert "Your vote is in" not in text_of(at) and vote_buttons(at)


def test_a_new_page_waits_before_its_vote_buttons(monkeypatch):
    monkeypatch.setattr(limits, "SESSION_WARMUP_SECONDS", 60.0)
    teacher, code = start()
    push_quiz(teacher)
    at = phone(code)
    assert not vote_buttons(at)
    assert "The vote buttons appear in" in text_of(at)


@pytest.mark.parametrize("query", [{"code": "abc"}, {"code": "ZZZZZZ"}, {"code": "ZZZZZZ", "admin": "x" * 43},
                                   {"code": "ZZZZZZ", "admin": "<b>" * 300}])
def test_the_instructor_page_with_a_bad_link_offers_the_token_box(query):
    at = app_test(INSTRUCTOR, query)
    assert_clean(at)
    at.session_state[admin_store.KNOWN_KEY] = ""  # as the browser reports: it runs no session
    at.run()
    assert_clean(at)
    assert "admin" not in at.query_params
    shown = text_of(at)
    assert "not valid" in shown or "need the live session's private admin token" in shown
    assert not [b for b in at.button if b.key in ("live_push_quiz", "live_reveal")]


def test_another_sessions_admin_cannot_open_this_session(engine):
    teacher, code = start()
    other, other_token = live.create_session(engine, class_size=30)
    at = app_test(INSTRUCTOR, {"code": code, "admin": other_token})
    assert "need the live session's private admin token" in text_of(at)
    at = app_test(INSTRUCTOR, {"code": other.code, "admin": other_token})
    assert "No question on the phones yet" in text_of(at)


def test_a_wrong_token_typed_in_the_box_is_refused_and_the_right_one_opens(engine):
    teacher, code = start()
    token = teacher.session_state[ui_live.ADMIN_KEY]["token"]
    at = app_test(INSTRUCTOR, {"code": code})  # a restarted server, or another browser
    box = at.text_input(key="live_admin_input")
    assert box.proto.type == box.proto.PASSWORD
    box.input("A" * 43)
    next(b for b in at.button if b.label == "Open the controls").click().run()
    assert_clean(at)
    assert f"does not open live session {code}" in text_of(at)
    at.text_input(key="live_admin_input").input(f"http://x/live-instructor?code={code}&admin={token}")
    next(b for b in at.button if b.label == "Open the controls").click().run()
    assert_clean(at)
    assert "No question on the phones yet" in text_of(at) and token not in text_of(at)


@pytest.mark.parametrize("raw, seconds", [(None, 2.0), ("", 2.0), ("3", 3.0), ("0.5", 0.5),
                                          ("0.1", 2.0), ("11", 2.0), ("nan", 2.0), ("abc", 2.0)])
def test_the_phones_tick_can_be_set_for_a_deployment_within_bounds(raw, seconds):
    assert ui_live._follow_seconds(raw) == seconds


# Guessers who know their world (the test reads it; no phone can), each line: the sentences it
# must produce. "quiet": four phones dealt D say "in", the other 36 stay silent, point (0, 0.2).
GAME_SENTENCES = {
    "perfect": ("past the ε-DP bound", "above the true ε = 1"),
    "contrary": ("past the ε-DP bound", "above the true ε = 1"),  # the lower curve counts too
    "quiet": ("past the ε-DP bound", "cannot rule out ε = 0"),
    "all in": ("inside the ε-DP bound", "cannot rule out ε = 0"),
}


@pytest.mark.parametrize("guessers", list(GAME_SENTENCES))
def test_the_game_sentences_follow_the_class_point(engine, guessers):
    teacher, code = start(class_size=100)
    teacher.select_slider(key="live_game_eps").set_value(1.0).run()
    click(teacher, "live_push_game")
    session = live.find_session(engine, code)
    question = live.view(engine, session.id).question
    quiet_voters = 0
    for i in range(40):
        device = f"sentence-device-{i:08d}"
        in_data = live.record_deal(engine, question, device).in_data  # shown its count
        if guessers == "quiet" and not (in_data and quiet_voters < 4):
            continue
        quiet_voters += 1
        says_in = {"perfect": in_data, "contrary": not in_data}.get(guessers, True)
        choice = game.GUESS_IN if says_in else game.GUESS_OUT
        assert live.vote(engine, session.id, question.id, 1, device, choice) is live.Vote.RECORDED
    click(teacher, "live_show_votes")
    click(teacher, "live_close")
    shown = flat(teacher)
    voters = 4 if guessers == "quiet" else 40
    assert f"**{voters} guesses** from **40 phones dealt**" in shown
    for sentence in GAME_SENTENCES[guessers]:
        assert sentence in shown
    result = live.game_result(engine, question.id)
    point = {"perfect": (0.0, 1.0), "contrary": (1.0, 0.0), "quiet": (0.0, 4 / result.dealt_in),
             "all in": (1.0, 1.0)}[guessers]
    assert (result.fpr, result.tpr) == point
    if guessers in ("perfect", "contrary"):
        # 40 perfect (or perfectly wrong) guesses "prove" more than the true ε = 1: a room
        # this lucky is among the at most one game in twenty.
        assert "wrong at most one time in 20" in shown


def test_a_vote_claiming_another_device_is_refused_and_the_projector_counts_it(engine):
    teacher, code = start()
    push_quiz(teacher)
    at = phone(code, PHONE_A)
    at.query_params["dev"] = PHONE_B  # a script's message naming another device
    vote_buttons(at)[0].click().run()
    assert_clean(at)
    assert "another device's id" in text_of(at) and "Your vote is in" not in text_of(at)
    assert "dev" not in at.query_params  # the page took it out of the address
    vote_buttons(at)[0].click().run()
    assert "Your vote is in" in text_of(at)
    question = live.view(engine, live.find_session(engine, code).id).question
    assert live.vote_count(engine, question.id, 1) == 1
    assert live.other_device_refusals(engine, question.id) == 1
    teacher.run()
    assert "1 vote(s) refused on this question: a page claimed another device" in text_of(teacher)
