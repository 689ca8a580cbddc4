"""The live class in real browsers: one instructor and three phones (separate browser contexts).

A quiz is pushed, voted on, its votes shown, voted on again in round 2, and revealed; every
screen is checked at each step, and a reloaded phone (and a second tab) cannot vote again.
Skips where Chromium is absent; REQUIRE_BROWSER=1 (set by .ci/run) turns the skip into a failure.
"""

from __future__ import annotations

import re
import time

import pytest

from classroom import store
from tests.conftest import serve_app, wait_for_app
from ui import lessons
from ui import live as ui_live

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT = 30_000
# What the instructor's quiz picker offers first: the first quiz of the first lesson with quizzes.
FIRST_LESSON = ui_live.quiz_lessons()[0].slug
QUIZ = next(iter(lessons.quizzes(FIRST_LESSON).values()))
LETTERS = "ABCDEFGH"
RIGHT = LETTERS[QUIZ.answer]
WRONG = LETTERS[(QUIZ.answer + 1) % len(QUIZ.options)]


@pytest.fixture
def live_server(tmp_path, monkeypatch):
    """A server of its own, so that its database is a temporary file (the env var it inherits)."""
    monkeypatch.setenv(store.DATABASE_URL_ENV, f"sqlite:///{tmp_path / 'live.sqlite3'}")
    with serve_app() as url:
        yield url


def main_text(page) -> str:
    return page.locator("[data-testid=stMain]").inner_text()


def no_exception(*pages) -> None:
    for page in pages:
        assert page.locator("[data-testid=stException]").count() == 0


def option_button(page, letter: str):
    return page.locator("[data-testid=stMain]").get_by_role("button", name=re.compile(rf"^{letter}\. "))


def vote(page, letter: str) -> None:
    option_button(page, letter).click(timeout=WAIT)
    page.get_by_text("Your vote is in").wait_for(timeout=WAIT)


# The projected charts: not those folded in an expander (the game tab's odds panel).
PROJECTED = """Array.from(document.querySelectorAll('[data-testid=stMain] .js-plotly-plot'))
    .filter(gd => !gd.closest('[data-testid=stExpander]'))"""


def device_of(page) -> str:
    """The device id this browser keeps in its localStorage (ui.live's component), once made."""
    page.wait_for_function("() => /^[A-Za-z0-9_-]{16,64}$/.test(localStorage.getItem('dplab-live-device') || '')",
                           timeout=WAIT)
    return page.evaluate("() => localStorage.getItem('dplab-live-device')")


def plotted(page) -> list:
    """The bars on the instructor's chart: one list of y values per round (decoded by Plotly)."""
    return page.evaluate(f"""() => {PROJECTED}
        .flatMap(gd => (gd._fullData || []).map(t => Array.from(t.y || [])))""")


def test_a_quiz_in_two_rounds_with_one_instructor_and_three_phones(browser, live_server):
    teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    teacher.goto(f"{live_server}/live-instructor")
    wait_for_app(teacher)
    teacher.get_by_role("button", name="Start the live session").click(timeout=WAIT)
    teacher.wait_for_url(re.compile(r"code=[A-Z0-9]{6}"), timeout=WAIT)
    wait_for_app(teacher)
    code = re.search(r"code=([A-Z0-9]{6})", teacher.url).group(1)
    assert "admin=" not in teacher.url
    teacher.get_by_text("No question on the phones yet").wait_for(timeout=WAIT)

    contexts = [browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                    has_touch=True) for _ in range(3)]
    phones = [context.new_page() for context in contexts]
    for phone in phones:
        phone.goto(f"{live_server}/live-join?code={code}")
    for phone in phones:
        wait_for_app(phone)
        phone.get_by_text("Waiting for the next question").wait_for(timeout=WAIT)
        device_of(phone)  # kept in the browser's own storage, not in the link
        assert "dev=" not in phone.url
    devices = {device_of(phone) for phone in phones}
    assert len(devices) == 3, "each browser is its own device"

    # A waiting phone holds one request to the version route, naming the version it drew, and
    # the server keeps it until the version moves: over 3 asking intervals, one request at most
    # (asking every interval, as before the hold, would make 3).
    asked = []
    phones[0].on("request", lambda request: asked.append(request.url) if "/live-version/" in request.url else None)
    phones[0].wait_for_timeout(3000 * ui_live.FOLLOW_SECONDS)
    assert len(asked) <= 1, asked
    assert all(re.search(r"/live-version/[\w-]+\?v=\d+$", url) for url in asked), asked

    # Push the quiz: every phone shows it without a reload.
    pushed = time.monotonic()
    teacher.get_by_role("button", name="Ask the class").click(timeout=WAIT)
    for phone in phones:
        phone.get_by_text(QUIZ.question[:60]).wait_for(timeout=WAIT)
    latency = time.monotonic() - pushed
    print(f"\n[live browser] the quiz reached all three phones {latency:.1f} s after the click")
    teacher.get_by_text("The votes stay hidden").wait_for(timeout=WAIT)

    # Round 1: two right, one wrong. The projector counts them without showing the split.
    for phone, letter in zip(phones, (RIGHT, RIGHT, WRONG), strict=True):
        vote(phone, letter)
    teacher.get_by_text(re.compile(r"3 of at most 30 votes")).wait_for(timeout=WAIT)
    assert not plotted(teacher)

    # A reloaded phone, and a second tab of the same browser, are the same device.
    phones[0].reload()
    wait_for_app(phones[0])
    phones[0].get_by_text("Your vote is in").wait_for(timeout=WAIT)
    assert option_button(phones[0], RIGHT).count() == 0
    second_tab = contexts[0].new_page()
    second_tab.goto(f"{live_server}/live-join?code={code}")
    wait_for_app(second_tab)
    second_tab.get_by_text("Your vote is in").wait_for(timeout=WAIT)
    assert option_button(second_tab, WRONG).count() == 0
    second_tab.close()
    teacher.wait_for_timeout(2_500)  # two projector refreshes
    assert re.search(r"3 of at most 30 votes", main_text(teacher))

    # Show votes: one round of bars, 2/3 on the right option.
    teacher.get_by_role("button", name="Show votes").click(timeout=WAIT)
    teacher.wait_for_function(f"() => {PROJECTED}.length > 0", timeout=WAIT)
    (round_one,) = plotted(teacher)
    assert round(round_one[QUIZ.answer]) == 67

    # Round 2: the phones get their buttons back; the wrong phone changes its mind.
    teacher.get_by_role("button", name="Vote again").click(timeout=WAIT)
    for phone in phones:
        phone.get_by_text("Round 2: vote again").wait_for(timeout=WAIT)
    for phone in phones:
        vote(phone, RIGHT)
    teacher.get_by_text(re.compile(r"round 2 · 3 of at most 30 votes")).wait_for(timeout=WAIT)
    teacher.get_by_role("button", name="Show votes").click(timeout=WAIT)
    teacher.wait_for_function(f"() => {PROJECTED}.some(gd => (gd._fullData || []).length === 2)",
                              timeout=WAIT)
    round_one, round_two = plotted(teacher)
    assert round(round_one[QUIZ.answer]) == 67 and round(round_two[QUIZ.answer]) == 100

    # Reveal: the answer and its explanation on the projector and on every phone.
    teacher.get_by_role("button", name="Reveal").click(timeout=WAIT)
    teacher.get_by_text("Why:").wait_for(timeout=WAIT)
    for phone in phones:
        phone.get_by_text("You were right").wait_for(timeout=WAIT)
        assert QUIZ.explanation[:50] in main_text(phone)
        assert option_button(phone, RIGHT).count() == 0
    assert f"round 1: {WRONG}, round 2: {RIGHT}" in main_text(phones[2])

    # Next: the phones wait again.
    teacher.get_by_role("button", name="Next").click(timeout=WAIT)
    for phone in phones:
        phone.get_by_text("Waiting for the next question").wait_for(timeout=WAIT)
    no_exception(teacher, *phones)
    for context in contexts:
        context.close()


def test_a_reloaded_phone_cannot_answer_the_class_poll_twice(browser, live_server, tmp_path):
    # The poll used to count a browser session, so a reload could answer again (5 became 6
    # while the phone said only the first answer counts). It now counts the device.
    import math

    engine = store.make_engine(f"sqlite:///{tmp_path / 'live.sqlite3'}")
    store.ensure_schema(engine)
    poll, _ = store.create_poll(engine, "Did you read the notes?", store.PROTOCOL_COINS,
                                math.log(3), class_size=30)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone = context.new_page()
    phone.goto(f"{live_server}/poll-join?code={poll.code}")
    wait_for_app(phone)
    device_of(phone)
    phone.get_by_role("button", name="Yes", exact=True).click(timeout=WAIT)  # after the countdown
    phone.get_by_text("Your answer is in").wait_for(timeout=WAIT)
    phone.reload()
    wait_for_app(phone)
    phone.get_by_text("Your answer is in").wait_for(timeout=WAIT)
    assert phone.get_by_role("button", name="Yes", exact=True).count() == 0
    second_tab = context.new_page()
    second_tab.goto(f"{live_server}/poll-join?code={poll.code}")
    wait_for_app(second_tab)
    second_tab.get_by_text("Your answer is in").wait_for(timeout=WAIT)
    assert len(store.answers(engine, poll.id)) == 1
    no_exception(phone, second_tab)
    context.close()
    engine.dispose()


def test_a_copied_join_link_shows_no_one_elses_vote(browser, live_server, tmp_path):
    """Issue 24, item 5: a join link copied from a phone that has voted, opened in another
    browser, shows no vote and can vote. An old link may still carry the sender's device id
    (dev=): it is ignored and leaves the address bar."""
    from classroom import live

    engine = store.make_engine(f"sqlite:///{tmp_path / 'live.sqlite3'}")  # the server's database
    live.ensure_schema(engine)
    session, _ = live.create_session(engine, class_size=30)
    live.push_quiz(engine, session.id, f"{FIRST_LESSON}/copied", QUIZ.question, list(QUIZ.options),
                   QUIZ.answer, QUIZ.explanation)
    contexts = [browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                    has_touch=True) for _ in range(2)]
    sender, friend = (context.new_page() for context in contexts)
    sender.goto(f"{live_server}/live-join?code={session.code}")
    wait_for_app(sender)
    vote(sender, RIGHT)
    copied = f"{sender.url}{'&' if '?' in sender.url else '?'}dev={device_of(sender)}"
    friend.goto(copied)
    wait_for_app(friend)
    option_button(friend, WRONG).wait_for(timeout=WAIT)  # after the new page's short wait
    assert "Your vote is in" not in main_text(friend)
    assert "dev=" not in friend.url and device_of(friend) != device_of(sender)
    vote(friend, WRONG)
    question = live.view(engine, session.id).question
    assert live.tally(engine, question.id, len(QUIZ.options))[1][QUIZ.answer] == 1
    assert live.vote_count(engine, question.id, 1) == 2
    sender.reload()
    wait_for_app(sender)
    sender.get_by_text("Your vote is in").wait_for(timeout=WAIT)
    friend.screenshot(path=str(tmp_path / "copied-link.png"))
    no_exception(sender, friend)
    for context in contexts:
        context.close()
    engine.dispose()
