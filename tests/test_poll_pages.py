"""The class poll pages through app.py (AppTest): create → join → answer both ways → live counts
→ close → refused → export, and every way a link or a database can go wrong."""

from __future__ import annotations

import csv
import io
import math
from urllib.parse import parse_qs, urlsplit

import plotly.graph_objects as go
import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from classroom import store
from tests.conftest import app_test, assert_clean, chart_specs, lesson, page_text

INSTRUCTOR = lesson("poll-instructor")
JOIN = lesson("poll-join")
CONTROL_KEYS = {"poll_close", "poll_reopen", "poll_reset"}


@pytest.fixture(autouse=True)
def poll_database(tmp_path, monkeypatch) -> str:
    """Every test gets its own SQLite file, through the same environment variable as production."""
    url = f"sqlite:///{tmp_path / 'poll.sqlite3'}"
    monkeypatch.setenv(store.DATABASE_URL_ENV, url)
    return url


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


def create_poll(question="Did you skip breakfast today?", epsilon: float | None = None):
    """The instructor's session after creating a poll, the join code and the private admin link."""
    at = app_test(INSTRUCTOR)
    assert_clean(at)
    at.text_area(key="poll_question").input(question)
    if epsilon is not None:
        at.radio(key="poll_protocol").set_value(store.PROTOCOL_EPSILON).run()
        at.select_slider(key="poll_epsilon").set_value(epsilon)
    at.button(key="poll_create").click().run()
    assert_clean(at)
    code = param(at, "code")
    assert store.normalise_code(code) == code
    admin_links = [c.value for c in at.code if "admin=" in c.value]
    assert len(admin_links) == 1
    return at, code, admin_links[0]


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
    assert store.submit_answer(engine, poll.id, coins.session_state["poll_session_token"], 0) \
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
    assert metric(instructor, "Answers") == "3"
    (spec,) = chart_specs(instructor)
    go.Figure(spec)  # built without validation for speed: validate what is sent
    assert spec["layout"]["title"]["text"].startswith("Debiased estimate as answers arrive")
    assert isinstance(spec["layout"]["template"], dict)
    assert [trace["name"] for trace in spec["data"]] == [
        "95% interval for the true share", "debiased estimate", "reported Yes (raw)"]

    # Export: randomized answers only, in arrival order; no tokens, no truth.
    (button,) = instructor.get("download_button")
    exported = downloads[button.proto.url].decode()
    rows = list(csv.reader(io.StringIO(exported)))
    assert rows[0] == ["response", "randomized_answer"]
    assert [row[0] for row in rows[1:]] == ["1", "2", "3"]
    assert rows[1][1] == "yes" and rows[3][1] == "no"
    assert {row[1] for row in rows[1:]} <= {"yes", "no"}
    assert coins.session_state["poll_session_token"] not in exported and token not in exported

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
    assert not shows_instructor_controls(at)
    assert at.warning and "private admin link" in at.warning[0].value
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
    assert at.warning and "private admin link" in at.warning[0].value


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
    assert at.warning and "No poll has the code ZZZZZZ" in at.warning[0].value


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
    question = "Ever used ![img](http://evil.example/x.png) or $x$ or :red[this] <b> www.a.b a@b.c?"
    _, code, _ = create_poll(question)
    heading = next(m.value for m in join(code).markdown if m.value.startswith("### "))
    # Every Markdown-active character is escaped (no image, link, formula or colour directive)
    # and addresses are broken up so that they are not turned into links.
    for active in ("![", "](", "$x$", ":red[", "<b>", "://", "www.", "a@b"):
        assert active not in heading
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
    assert metric(at, "Answers") == "3"


def test_instructor_notes_numbers_match_the_interval():
    from dp.rr_inference import rr_half_width
    from ui.lessons import section_text

    notes = section_text("poll-instructor", "instructors")
    for n, text in [(30, "±34"), (100, "±18"), (1000, "±5")]:
        assert text in notes
        assert round(100 * rr_half_width(n, math.log(3))) == int(text[1:])
