"""The class poll pages through app.py (AppTest): create → join → answer both ways → live counts
→ close → refused → export, and every way a link or a database can go wrong."""

from __future__ import annotations

import csv
import io
import math
import time
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import plotly.graph_objects as go
import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from classroom import limits, store
from tests.conftest import app_test, assert_clean, chart_specs, lesson, page_text
from ui import admin_store  # noqa: E402
from ui import live as ui_live
from ui import poll as ui_poll  # noqa: E402
from ui.plain_figure import decode_array

INSTRUCTOR = lesson("poll-instructor")
JOIN = lesson("poll-join")
CONTROL_KEYS = {"poll_close", "poll_reopen", "poll_reset"}


@pytest.fixture(autouse=True)
def poll_database(tmp_path, monkeypatch) -> str:
    """Every test gets its own SQLite file, through the same environment variable as production."""
    url = f"sqlite:///{tmp_path / 'poll.sqlite3'}"
    monkeypatch.setenv(store.DATABASE_URL_ENV, url)
    return url


@pytest.fixture(autouse=True)
def fresh_limits(monkeypatch):
    """No new-session wait (its own tests put it back), and the per-address counters of this
    process start empty: every AppTest session has the same (unknown) address."""
    monkeypatch.setattr(limits, "SESSION_WARMUP_SECONDS", 0.0)
    ui_poll._address_limiter.clear()
    yield
    ui_poll._address_limiter.clear()


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """What each st.download_button would send, by its URL (AppTest keeps media in memory only)."""
    sent: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        sent[self.get_url(file_id)] = self.get_file(file_id).content
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)
    return sent


def param(at, key: str) -> str | None:
    value = at.query_params.get(key)
    return value[0] if isinstance(value, list) else value


def all_text(at) -> str:
    parts = [page_text(at)]
    for kind in ("caption", "code", "error", "warning", "info", "success"):
        parts += [str(element.value) for element in at.get(kind)]
    return " ".join(parts)


def button_keys(at) -> set[str]:
    return {button.key for button in at.button if button.key}


def shows_instructor_controls(at) -> bool:
    return bool(button_keys(at) & CONTROL_KEYS or at.get("download_button") or at.metric
                or at.get("plotly_chart") or any("admin=" in c.value for c in at.code))


def admin_links(at) -> list[str]:
    return [c.value for c in at.code if "admin=" in c.value]


def create_poll(question="Did you skip breakfast today?", epsilon: float | None = None,
                class_size: int | None = None):
    """The instructor's session after creating a poll, the join code and the private admin link."""
    at = app_test(INSTRUCTOR)
    assert_clean(at)
    at.text_area(key="poll_question").input(question)
    if class_size is not None:
        at.number_input(key="poll_new_class_size").set_value(class_size)
    if epsilon is not None:
        at.radio(key="poll_protocol").set_value(store.PROTOCOL_EPSILON).run()
        at.select_slider(key="poll_epsilon").set_value(epsilon)
    at.button(key="poll_create").click().run()
    assert_clean(at)
    code = param(at, "code")
    assert store.normalise_code(code) == code
    assert not admin_links(at), "the admin link is built only on request"
    at.toggle(key="poll_show_admin_link").set_value(True).run()
    assert_clean(at)
    (link,) = admin_links(at)
    at.run()
    assert admin_links(at) == [link], "a rerun (the page's own, or a tick) keeps it shown"
    at.toggle(key="poll_show_admin_link").set_value(False).run()
    assert not admin_links(at), "and switched off, the page holds no token"
    return at, code, link


def token_of(admin_link: str) -> str:
    return parse_qs(urlsplit(admin_link).query)["admin"][0]


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def join(code: str | None):
    at = app_test(JOIN, {"code": code} if code is not None else None)
    assert_clean(at)
    return at


def stored_answers(url: str, code: str) -> list[int]:
    engine = store.make_engine(url)
    try:
        return store.answers(engine, store.find_poll(engine, code).id)
    finally:
        engine.dispose()


# ── The whole flow ──────────────────────────────────────────────────────────────────────────

def test_full_flow(poll_database, downloads):
    instructor, code, admin_link = create_poll()
    token = token_of(admin_link)
    assert param(instructor, "admin") is None  # the token never sits in the address bar
    assert f"/poll-join?code={code}" in all_text(instructor)
    (qr,) = instructor.get("image")
    assert downloads[qr.value[0]].startswith(b"\x89PNG"), "the QR code is sent as a lossless PNG"
    assert "answer(s) so far" in page_text(instructor)

    # A student with real coins: the app only ever sees the coins' answer.
    coins = join(code)
    assert "Did you skip breakfast today?" in page_text(coins)
    assert coins.radio(key="poll_method").value.startswith("🪙")
    coins.button(key="poll_coin_yes").click().run()
    assert_clean(coins)
    assert coins.success and "Your answer is in" in coins.success[0].value
    assert not button_keys(coins) & {"poll_coin_yes", "poll_coin_no"}

    # Reruns and a forgotten session flag still count once: the database remembers the session.
    coins.run()
    del coins.session_state[next(k for k in coins.session_state if k.startswith("poll_answered_"))]
    coins.run()
    assert_clean(coins)
    assert coins.success and not button_keys(coins) & {"poll_coin_yes", "poll_coin_no"}
    engine = store.make_engine(poll_database)
    poll = store.find_poll(engine, code)
    assert store.submit_answer(engine, poll.id, coins.session_state[ui_live.IDENTITY_KEY], 0) \
        is store.Submission.DUPLICATE

    # A student who lets the server flip: only the randomized answer is stored.
    server = join(code)
    server.radio(key="poll_method").set_value("📱 Flip for me").run()
    assert "Only the coin-flipped answer is stored" in page_text(server)
    server.button(key="poll_true_no").click().run()
    assert_clean(server)
    assert server.success
    assert "The app's coins gave the answer" in all_text(server)

    # A third student, so that the instructor sees a count above two.
    join(code).button(key="poll_coin_no").click().run()
    assert len(stored_answers(poll_database, code)) == 3

    instructor.run()
    assert_clean(instructor)
    assert metric(instructor, "Answers") == "3 of 30"
    (spec,) = chart_specs(instructor)
    go.Figure(spec)  # built without validation for speed: validate what is sent
    assert spec["layout"]["title"]["text"].startswith("Debiased estimate as answers arrive")
    assert isinstance(spec["layout"]["template"], dict)
    assert [trace["name"] for trace in spec["data"]] == [
        "95% interval for the true share", "debiased estimate (cut to 0–100%)", "reported Yes (raw)"]

    # Export: randomized answers only, in arrival order; no tokens, no truth.
    (button,) = instructor.get("download_button")
    exported = downloads[button.proto.url].decode()
    rows = list(csv.reader(io.StringIO(exported)))
    assert rows[0] == ["response", "randomized_answer"]
    assert [row[0] for row in rows[1:]] == ["1", "2", "3"]
    assert rows[1][1] == "yes" and rows[3][1] == "no"
    assert {row[1] for row in rows[1:]} <= {"yes", "no"}
    assert coins.session_state[ui_live.IDENTITY_KEY] not in exported and token not in exported

    # Close: the next student is turned away, and nothing more is stored.
    instructor.button(key="poll_close").click().run()
    assert_clean(instructor)
    assert "poll_reopen" in button_keys(instructor)
    late = join(code)
    assert late.info and "closed" in late.info[0].value
    assert not button_keys(late) & {"poll_coin_yes", "poll_coin_no", "poll_true_yes", "poll_true_no"}
    assert len(stored_answers(poll_database, code)) == 3
    engine.dispose()


def test_a_student_whose_page_is_open_when_the_poll_closes_is_refused(poll_database):
    instructor, code, _ = create_poll()
    student = join(code)
    instructor.button(key="poll_close").click().run()
    student.button(key="poll_coin_yes").click().run()
    assert_clean(student)
    assert student.info and "closed" in student.info[0].value
    assert stored_answers(poll_database, code) == []


def test_reset_deletes_answers_and_reopens(poll_database):
    instructor, code, _ = create_poll()
    join(code).button(key="poll_coin_yes").click().run()
    instructor.button(key="poll_close").click().run()
    instructor.button(key="poll_reset").click().run()
    assert_clean(instructor)
    assert stored_answers(poll_database, code) == []
    assert "poll_close" in button_keys(instructor)
    assert "answer(s) so far" in page_text(instructor)


def test_a_chosen_epsilon_poll_is_flipped_by_the_app(poll_database):
    _, code, _ = create_poll("Do you use the same password twice?", epsilon=0.5)
    student = join(code)
    assert not student.radio, "no real-coin option: no fair coin gives these odds"
    text = page_text(student)
    assert "ε = 0.5" in text and "62.2%" in text  # e^0.5/(1 + e^0.5) = 0.6225
    student.button(key="poll_true_yes").click().run()
    assert_clean(student)
    assert len(stored_answers(poll_database, code)) == 1


# ── Admin access ────────────────────────────────────────────────────────────────────────────

def test_the_admin_link_opens_the_controls_in_a_new_browser(poll_database):
    _, code, admin_link = create_poll()
    fresh = app_test(INSTRUCTOR, {"code": code, "admin": token_of(admin_link)})
    assert_clean(fresh)
    assert shows_instructor_controls(fresh)
    assert param(fresh, "admin") is None and param(fresh, "code") == code
    fresh.run()  # the token now lives in the session, not the URL
    assert shows_instructor_controls(fresh)


@pytest.mark.parametrize("admin", [None, "", "wrong", "A" * 43, "x" * 100_000,
                                   "<script>alert(1)</script>", "' OR 1=1 --"])
def test_no_controls_without_the_right_admin_token(poll_database, admin):
    _, code, admin_link = create_poll()
    query = {"code": code} if admin is None else {"code": code, "admin": admin}
    at = app_test(INSTRUCTOR, query)
    assert_clean(at)
    at.session_state[admin_store.KNOWN_KEY] = ""  # as the browser reports: it runs no poll
    at.run()
    assert_clean(at)
    assert not shows_instructor_controls(at)
    assert at.warning and "private admin token" in at.warning[0].value
    assert token_of(admin_link) not in all_text(at)
    assert param(at, "admin") is None


def test_another_polls_token_does_not_open_this_poll(poll_database):
    _, first_code, _ = create_poll("First?")
    _, _, second_link = create_poll("Second?")
    at = app_test(INSTRUCTOR, {"code": first_code, "admin": token_of(second_link)})
    assert_clean(at)
    assert not shows_instructor_controls(at)


def test_unknown_code_with_a_token_looks_the_same_as_a_wrong_token(poll_database):
    _, code, admin_link = create_poll()
    unknown = next(c * 6 for c in "ABCDEF" if c * 6 != code)
    at = app_test(INSTRUCTOR, {"code": unknown, "admin": token_of(admin_link)})
    assert_clean(at)
    assert not shows_instructor_controls(at)
    assert at.warning and "private admin token" in at.warning[0].value


@pytest.mark.parametrize("code", ["garbage!", "1e400", "x" * 100_000, "<b>hi</b>", "K7PQ0M"])
def test_instructor_page_with_a_malformed_code(code):
    at = app_test(INSTRUCTOR, {"code": code, "admin": "whatever"})
    assert_clean(at)
    assert at.error and "not valid" in at.error[0].value
    assert not shows_instructor_controls(at)


# ── Bad input on the join page ──────────────────────────────────────────────────────────────

@pytest.mark.parametrize("code", ["garbage!", "nan", "1e400", "x" * 100_000, "[a](http://x)", "K7PQ0M"])
def test_join_page_with_a_malformed_code_says_what_a_code_looks_like(code):
    at = join(code)
    assert at.warning and "not a poll code" in at.warning[0].value
    assert at.text_input(key="poll_join_code_input")
    assert code not in all_text(at)  # never echoed back


def test_join_page_with_an_unknown_code():
    at = join("ZZZZZZ")
    assert at.warning and "No open poll has the code ZZZZZZ" in at.warning[0].value


def test_typing_a_code_joins_the_poll_and_a_bad_one_is_explained():
    _, code, _ = create_poll()
    at = join(None)
    at.text_input(key="poll_join_code_input").input("oops")
    next(b for b in at.button if b.label == "Join the poll").click().run()
    assert_clean(at)
    assert at.error and "6 letters and digits" in at.error[0].value
    at.text_input(key="poll_join_code_input").input(f" {code[:3].lower()} {code[3:].lower()} ")
    next(b for b in at.button if b.label == "Join the poll").click().run()
    assert_clean(at)
    assert param(at, "code") == code
    assert "Did you skip breakfast today?" in page_text(at)


def test_question_text_is_shown_literally(poll_database):
    question = ("Ever used ![img](http://evil.example/x.png) or $x$ or :red[this] <b> www.a.b a@b.c "
                "WWW.evil.example Www.b.c HTTPS://d.e?")
    _, code, _ = create_poll(question)
    heading = next(m.value for m in join(code).markdown if m.value.startswith("### "))
    # Every Markdown-active character is escaped (no image, link, formula or colour directive)
    # and addresses are broken up so that they are not turned into links, in any case.
    for active in ("![", "](", "$x$", ":red[", "<b>", "://", "www.", "a@b"):
        assert active not in heading.lower()
    assert heading.replace("\\", "").replace("\u2060", "") == f"### {question}"


@pytest.mark.parametrize("question", ["", "   \n  "])
def test_an_empty_question_gets_a_clear_message(question):
    at = app_test(INSTRUCTOR)
    at.text_area(key="poll_question").input(question)
    at.button(key="poll_create").click().run()
    assert_clean(at)
    assert at.error and "Type a yes/no question" in at.error[0].value
    assert param(at, "code") is None


def test_the_question_box_states_and_enforces_its_cap():
    # The box stops typing at the cap (and the store refuses longer text: test_poll_store.py).
    at = app_test(INSTRUCTOR)
    box = at.text_area(key="poll_question")
    assert box.max_chars == store.QUESTION_MAX_CHARS
    assert f"up to {store.QUESTION_MAX_CHARS} characters" in box.label
    _, code, _ = create_poll("y" * store.QUESTION_MAX_CHARS)
    assert "y" * store.QUESTION_MAX_CHARS in page_text(join(code))


# ── Configuration and faults ────────────────────────────────────────────────────────────────

def test_database_url_from_st_secrets(tmp_path, monkeypatch):
    monkeypatch.delenv(store.DATABASE_URL_ENV)
    url = f"sqlite:///{tmp_path / 'from-secrets.sqlite3'}"
    at = app_test(INSTRUCTOR)
    at.secrets["poll_database_url"] = url
    at.text_area(key="poll_question").input("From secrets?")
    at.button(key="poll_create").click().run()
    assert_clean(at)
    engine = store.make_engine(url)
    assert store.find_poll(engine, param(at, "code")).question == "From secrets?"
    engine.dispose()


def test_an_unreachable_database_gets_a_friendly_message(monkeypatch):
    # Nothing listens on port 9 of loopback: the connection is refused at once.
    monkeypatch.setenv(store.DATABASE_URL_ENV, "postgresql+psycopg://nobody@127.0.0.1:9/none")
    at = join("K7PQ3M")
    assert at.error and "not answering" in at.error[0].value
    assert "127.0.0.1" not in all_text(at)  # no connection details on the page
    instructor = app_test(INSTRUCTOR)
    instructor.text_area(key="poll_question").input("Anyone there?")
    instructor.button(key="poll_create").click().run()
    assert_clean(instructor)
    assert instructor.error and "not answering" in instructor.error[0].value


def test_restarting_the_server_loses_no_answer(poll_database):
    _, code, admin_link = create_poll()
    for _ in range(3):
        join(code).button(key="poll_coin_yes").click().run()
    from ui import poll as ui_poll

    ui_poll._engine_for.clear()  # what a restart does to the cached engine
    at = app_test(INSTRUCTOR, {"code": code, "admin": token_of(admin_link)})
    assert metric(at, "Answers") == "3 of 30"


def estimate_element(at):
    return next(m for m in at.metric if m.label == "Debiased estimate")


def plotted_estimate(at) -> list[float]:
    (spec,) = chart_specs(at)
    go.Figure(spec)  # validate what is sent
    trace = next(t for t in spec["data"] if t["name"].startswith("debiased estimate"))
    return list(decode_array(trace["y"]))


@pytest.mark.parametrize(("answers", "shown", "interval", "raw"), [
    ([1], "100%", "0–100%", "150.0%"), ([1, 1], "100%", "0–100%", "150.0%"),
    ([1, 1, 1], "100%", "19–100%", "150.0%"), ([0], "0%", "0–100%", "-50.0%"),
    ([0, 0, 0], "0%", "0–81%", "-50.0%"), ([1, 1, 0], "83%", "0–100%", "83.3%")])
def test_few_answers_show_a_possible_share_and_the_unbiased_one_a_click_away(
        poll_database, answers, shown, interval, raw):
    """Issue 14: after 1–3 answers the projector said "Debiased estimate 150%". The large number is
    now cut to 0–100% (the same rule in the chart), the ⓘ gives the unbiased value, and while the
    interval spans nearly all of 0–100% the metric says so."""
    at, code, _ = create_poll()
    engine = store.make_engine(poll_database)
    poll = store.find_poll(engine, code)
    for i, bit in enumerate(answers):
        store.submit_answer(engine, poll.id, f"poll-session-{i}", bit)
    at.run()
    assert_clean(at)
    element = estimate_element(at)
    assert (element.value, element.delta) == (shown, f"95%: {interval}")
    too_few = [c.value for c in at.caption if c.value.startswith("**Too few answers to tell:**")]
    assert too_few == ([f"**Too few answers to tell:** a 95% interval of {interval} leaves almost "
                        "any share possible."] if interval == "0–100%" else [])
    assert f"gives {raw} here" in element.help
    cut = raw != "83.3%"
    assert ("cut to" in element.help.split("\n")[0]) is cut
    assert (f"The unbiased formula gives {raw}" in page_text(at)) is cut  # the overshoot paragraph
    assert f"estimated **{shown}**" in page_text(at)
    assert all(0 <= y <= 100 for y in plotted_estimate(at))


def test_many_answers_leave_the_estimate_as_it_is(poll_database):
    """With 400 answers the interval is informative: no "too few" note, nothing cut."""
    at, code, _ = create_poll(class_size=400)
    engine = store.make_engine(poll_database)
    poll = store.find_poll(engine, code)
    for i in range(400):
        store.submit_answer(engine, poll.id, f"poll-session-{i}", int(i % 5 < 2))  # 40% say Yes
    at.run()
    assert_clean(at)
    element = estimate_element(at)
    assert element.value == "30%" and element.delta == "95%: 21–39%"  # (0.4 − 0.25)/0.5 ± 9
    assert not [c for c in at.caption if "Too few" in c.value]
    assert "The unbiased formula gives 30.0% here." in element.help
    assert "The unbiased formula gives" not in page_text(at)


def test_instructor_notes_numbers_match_the_interval():
    from dp.rr_inference import rr_half_width
    from ui.lessons import section_text

    notes = section_text("poll-instructor", "instructors")
    for n, text in [(30, "±34"), (100, "±18"), (1000, "±5")]:
        assert text in notes
        assert round(100 * rr_half_width(n, math.log(3))) == int(text[1:])


# ── Limits against a hostile client (issue 18) ──────────────────────────────────────────────

ANSWER_KEYS = {"poll_coin_yes", "poll_coin_no", "poll_true_yes", "poll_true_no"}


def test_a_new_session_waits_a_few_seconds_before_it_can_answer(poll_database, monkeypatch):
    monkeypatch.setattr(limits, "SESSION_WARMUP_SECONDS", 5.0)
    _, code, _ = create_poll()
    student = join(code)
    assert not button_keys(student) & ANSWER_KEYS
    (waiting,) = student.info
    assert "The answer buttons appear in 5 seconds" in waiting.value
    assert "waits 5 seconds" in waiting.value
    assert "Did you skip breakfast today?" in page_text(student)  # the question is readable
    # Later (the countdown reruns the page by itself in the browser): the buttons are there.
    student.session_state[ui_poll.STARTED_KEY] -= 5
    student.run()
    assert button_keys(student) >= {"poll_coin_yes", "poll_coin_no"} and not student.info
    # A click that arrives inside a fresh session's wait (a script replaying the button id) is
    # discarded: the buttons are not drawn in that run. (test_poll_flood.py does it over the wire.)
    student.session_state[ui_poll.STARTED_KEY] += 5
    student.button(key="poll_coin_yes").click().run()
    assert_clean(student)
    assert student.info and "appear in" in student.info[0].value
    assert not student.success and stored_answers(poll_database, code) == []


def test_the_class_size_refuses_extra_answers_and_the_projector_says_so(poll_database):
    instructor, code, _ = create_poll(class_size=2)
    assert "of at most **2** answers" in page_text(instructor)
    for _ in range(2):
        join(code).button(key="poll_coin_yes").click().run()
    third = join(code)
    third.button(key="poll_coin_no").click().run()
    assert_clean(third)
    assert third.info and "already has 2 answers" in third.info[0].value
    assert not third.success and len(stored_answers(poll_database, code)) == 2

    instructor.run()
    assert metric(instructor, "Answers") == "2 of 2"
    assert instructor.warning and "The poll is full" in instructor.warning[0].value
    assert "1 refused so far" in instructor.warning[0].value
    text = page_text(instructor)
    assert "**2** of at most **2** answers" in text

    # The instructor raises the class size; the refused student taps again and is counted.
    instructor.number_input(key="poll_class_size_edit").set_value(3)
    instructor.button(key="poll_class_size_save").click().run()
    assert_clean(instructor)
    assert metric(instructor, "Answers") == "2 of 3" and not instructor.warning
    third.button(key="poll_coin_no").click().run()
    assert third.success and len(stored_answers(poll_database, code)) == 3


def test_the_class_size_box_states_its_range():
    at = app_test(INSTRUCTOR)
    box = at.number_input(key="poll_new_class_size")
    assert (box.min, box.max, box.value) == (store.CLASS_SIZE_MIN, store.CLASS_SIZE_MAX, 30)
    assert "most answers" in box.label


def test_answers_per_minute_come_from_the_counts_the_screen_saw(poll_database):
    instructor, code, _ = create_poll()
    for _ in range(3):
        join(code).button(key="poll_coin_yes").click().run()
    history = instructor.session_state[next(k for k in instructor.session_state
                                            if k.startswith("poll_counts_"))]
    # Pretend the screen last looked 61 s ago, counted from now (after the joins), so that
    # however long they take on a busy machine the window stays 61 s (it failed once under load).
    history[:] = [(time.monotonic() - 61.0, n) for _, n in history]
    instructor.run()
    assert "**3** answers in the last minute" in page_text(instructor)


def test_after_a_reset_a_student_who_answered_can_answer_again(poll_database):
    instructor, code, _ = create_poll()
    student = join(code)
    student.radio(key="poll_method").set_value("📱 Flip for me").run()
    student.button(key="poll_true_yes").click().run()
    assert student.success and not button_keys(student) & ANSWER_KEYS
    instructor.button(key="poll_reset").click().run()
    assert stored_answers(poll_database, code) == []
    student.run()  # what the page's watcher does within seconds, or a reload
    assert_clean(student)
    assert not student.success and button_keys(student) >= {"poll_true_yes", "poll_true_no"}
    student.button(key="poll_true_no").click().run()
    assert_clean(student)
    assert student.success and len(stored_answers(poll_database, code)) == 1
    student.run()
    assert student.success and not button_keys(student) & ANSWER_KEYS  # once per round


def test_the_admin_token_in_a_password_box_recovers_the_controls(poll_database):
    _, code, admin_link = create_poll()
    at = app_test(INSTRUCTOR, {"code": code})  # a restarted server, or another browser
    assert not shows_instructor_controls(at)
    box = at.text_input(key="poll_admin_input")
    assert box.proto.type == box.proto.PASSWORD
    submit = next(b for b in at.button if b.label == "Open the controls")
    submit.click().run()
    assert at.error and "Paste the admin token" in at.error[0].value
    box.input("A" * 43)
    submit.click().run()
    assert_clean(at)
    assert at.error and f"does not open poll {code}" in at.error[0].value
    assert not shows_instructor_controls(at)
    at.text_input(key="poll_admin_input").input(token_of(admin_link))
    next(b for b in at.button if b.label == "Open the controls").click().run()
    assert_clean(at)
    assert shows_instructor_controls(at) and not at.error
    assert param(at, "admin") is None and at.session_state["poll_admin_input"] == ""
    assert token_of(admin_link) not in all_text(at)

    # The whole link works too, even opened from another poll's page.
    _, other_code, _ = create_poll("Another?")
    elsewhere = app_test(INSTRUCTOR, {"code": other_code})
    elsewhere.text_input(key="poll_admin_input").input(admin_link)
    next(b for b in elsewhere.button if b.label == "Open the controls").click().run()
    assert_clean(elsewhere)
    assert param(elsewhere, "code") == code and shows_instructor_controls(elsewhere)


def test_wrong_admin_tokens_slow_down(poll_database):
    _, code, _ = create_poll()
    at = app_test(INSTRUCTOR, {"code": code})
    for attempt in range(1, limits.FREE_FAILURES + 1):
        at.text_input(key="poll_admin_input").input(f"{'B' * 40}{attempt:03d}")
        next(b for b in at.button if b.label == "Open the controls").click().run()
        assert_clean(at)
    assert at.warning[-1].value.startswith("**Too many tokens") and "Wait 2 seconds" in at.warning[-1].value


def test_the_admin_link_is_not_in_the_page_until_asked_for(poll_database):
    instructor, code, admin_link = create_poll()
    token = token_of(admin_link)
    instructor.run()
    assert token not in all_text(instructor)
    assert not any(token in str(element.proto) for element in instructor.get("code"))


def test_wrong_codes_slow_down_and_a_closed_poll_hides_its_question(poll_database):
    instructor, code, _ = create_poll("Secret question about the exam?")
    at = join(None)
    wrong = [c * 6 for c in "ABCDEFGH" if c * 6 != code][: limits.FREE_FAILURES + 1]
    for attempt, guess in enumerate(wrong, start=1):
        at.text_input(key="poll_join_code_input").input(guess)
        next(b for b in at.button if b.label == "Join the poll").click().run()
        assert_clean(at)
        message = at.warning[0].value
        if attempt <= limits.FREE_FAILURES:
            assert f"No open poll has the code {guess}" in message
        else:
            assert "Too many codes" in message and "Wait" in message
    # While waiting, even the right code is not looked up.
    at.text_input(key="poll_join_code_input").input(code)
    next(b for b in at.button if b.label == "Join the poll").click().run()
    assert "Too many codes" in at.warning[0].value
    at.session_state["poll_failures_join"]["next_at"] = 0  # the wait is over
    at.run()
    assert "Secret question about the exam?" in page_text(at)

    instructor.button(key="poll_close").click().run()
    closed = join(code)
    assert closed.info and "closed" in closed.info[0].value
    assert "Secret question" not in all_text(closed) and "ε" not in all_text(closed)


def test_expired_polls_cannot_be_joined_and_say_so(poll_database):
    instructor, code, _ = create_poll()
    engine = store.make_engine(poll_database)
    with engine.begin() as conn:
        conn.execute(store.polls.update().where(store.polls.c.code == code).values(
            created_at=datetime.now(UTC) - store.POLL_LIFETIME - timedelta(minutes=1)))
    engine.dispose()
    student = join(code)
    assert student.warning and f"The poll with the code {code} has ended" in student.warning[0].value
    assert f"{store.POLL_LIFETIME_HOURS} hours" in student.warning[0].value
    assert "Did you skip breakfast" not in all_text(student)
    instructor.run()
    assert_clean(instructor)
    assert "Ended" in page_text(instructor) and "poll_close" not in button_keys(instructor)
    assert instructor.get("download_button") or "answer(s) so far" in page_text(instructor)


def test_a_page_open_when_the_poll_expires_is_refused(poll_database):
    _, code, _ = create_poll()
    student = join(code)
    engine = store.make_engine(poll_database)
    with engine.begin() as conn:
        conn.execute(store.polls.update().where(store.polls.c.code == code).values(
            created_at=datetime.now(UTC) - store.POLL_LIFETIME))
    engine.dispose()
    student.button(key="poll_coin_yes").click().run()
    assert_clean(student)
    assert student.warning and f"The poll with the code {code} has ended" in student.warning[0].value
    assert stored_answers(poll_database, code) == []
    # The store refuses too, should the poll expire between the page's look and the answer.
    engine = store.make_engine(poll_database)
    poll_id = store.find_poll(engine, code).id
    assert store.submit_answer(engine, poll_id, "late", 1) is store.Submission.EXPIRED
    engine.dispose()


def test_creating_polls_is_rate_limited(poll_database, monkeypatch):
    monkeypatch.setattr(limits, "CREATIONS_PER_SESSION", (2, 600.0))
    at = app_test(INSTRUCTOR)
    for attempt in range(3):
        at.text_area(key="poll_question").input(f"Question {attempt}?")
        at.button(key="poll_create").click().run()
        assert_clean(at)
        if attempt < 2:
            assert param(at, "code") and not at.warning
            at.button(key="poll_start_over").click().run()
    assert at.warning and "as many polls as it may" in at.warning[0].value
    assert "10 minutes" in at.warning[0].value and param(at, "code") is None


def test_poll_lifetime_in_the_notes_matches_the_store():
    from ui.lessons import section_text

    assert f"answers for {store.POLL_LIFETIME_HOURS} hours" in section_text("poll-instructor", "instructors")


def test_an_instructor_holding_an_admin_token_is_not_held_back_by_the_address(poll_database, monkeypatch):
    # Every AppTest session has the same (unknown) address: two creations fill it here.
    monkeypatch.setattr(limits, "CREATIONS_PER_ADDRESS", (2, 600.0))
    teacher = app_test(lesson("live-instructor"))
    teacher.button(key="live_create").click().run()
    assert param(teacher, "code")  # a live session: this session now holds its admin token
    other = app_test(INSTRUCTOR)
    other.text_area(key="poll_question").input("Someone else's poll?")
    other.button(key="poll_create").click().run()
    assert param(other, "code")
    newcomer = app_test(INSTRUCTOR)
    newcomer.text_area(key="poll_question").input("A third poll?")
    newcomer.button(key="poll_create").click().run()
    assert newcomer.warning and "as many polls as it may" in newcomer.warning[0].value
    teacher.switch_page(INSTRUCTOR.script)
    teacher.query_params.clear()
    teacher.run()
    teacher.text_area(key="poll_question").input("The teacher's own poll?")
    teacher.button(key="poll_create").click().run()
    assert_clean(teacher)
    assert param(teacher, "code") and not teacher.warning
