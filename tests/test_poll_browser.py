"""The class poll in two real browsers: the instructor's count updates by itself when a student
answers, after the new page's countdown; a typed WWW. address is not a link; the admin link is
not in the page until asked for.

Skips where Chromium is absent; REQUIRE_BROWSER=1 (set by .ci/run) turns the skip into a failure.
"""

from __future__ import annotations

import re

import pytest

from classroom import store
from tests.conftest import serve_app, show_admin_link, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
QUESTION = "Did you read the notes before class? See WWW.evil.example or Www.x.org"


@pytest.fixture
def poll_server(tmp_path, monkeypatch):
    """A server of its own, so that its poll database is a temporary file (the env var it inherits)."""
    monkeypatch.setenv(store.DATABASE_URL_ENV, f"sqlite:///{tmp_path / 'poll.sqlite3'}")
    with serve_app() as url:
        yield url


def _answers_shown(page) -> str | None:
    metric = page.locator("[data-testid=stMetric]", has_text="Answers")
    if not metric.count():
        return None
    return metric.locator("[data-testid=stMetricValue]").inner_text().strip()


def test_the_instructor_sees_a_students_answer_without_reloading(browser, poll_server):
    instructor = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    instructor.goto(f"{poll_server}/poll-instructor")
    wait_for_app(instructor)
    instructor.get_by_role("textbox", name="Yes/no question").fill(QUESTION)
    instructor.get_by_role("button", name="Create the poll").click()
    instructor.wait_for_url(re.compile(r"code=[A-Z0-9]{6}"), timeout=30_000)
    wait_for_app(instructor)
    code = re.search(r"code=([A-Z0-9]{6})", instructor.url).group(1)
    assert "admin=" not in instructor.url
    instructor.get_by_text("answer(s) so far").wait_for(timeout=30_000)
    assert _answers_shown(instructor) is None
    # The admin token is not in the page (HTML included) until the instructor asks for the link.
    assert "admin=" not in instructor.content()
    link = show_admin_link(instructor)
    assert re.search(r"admin=[A-Za-z0-9_\-]{40,}", link)

    student = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True).new_page()
    student.goto(f"{poll_server}/poll-join?code={code}")
    wait_for_app(student)
    student.get_by_text("Did you read the notes before class?").wait_for(timeout=30_000)
    heading = student.locator("h3", has_text="Did you read the notes")
    # (Streamlit's own "link to heading" anchor points into the page, to #…)
    assert heading.locator("a:not([href^='#'])").count() == 0, "WWW. must not become a link"
    # A new page counts down before it shows the buttons; the page reruns by itself.
    student.get_by_text("The answer buttons appear in").wait_for(timeout=30_000)
    student.get_by_role("button", name="Yes", exact=True).click(timeout=30_000)
    student.get_by_text("Your answer is in").wait_for(timeout=30_000)

    # No reload, no click: the fragment re-reads the database every 2 seconds.
    instructor.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid=stMetric]')]
                 .some(m => m.innerText.includes('Answers') && m.innerText.includes('1 of 30'))""",
        timeout=30_000)
    assert _answers_shown(instructor) == "1 of 30"
    for page in (instructor, student):
        assert page.locator("[data-testid=stException]").count() == 0
