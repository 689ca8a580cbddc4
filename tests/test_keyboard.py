"""Keyboard alone: from the top of each page, Tab reaches the main slider, and arrows move its plot.

The main slider is the first slider in the main area (the one bench/browser.py times).
Home and the class-poll pages have no slider and are not part of this test.
Skips where Chromium is absent; REQUIRE_BROWSER=1 (set by .ci/run) turns the skip into a failure.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import wait_for_app
from ui.course import HOME, LESSONS, Lesson

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

SLIDER_LESSONS = [lesson for lesson in LESSONS if lesson is not HOME and lesson.section != "Classroom"]
MAIN_SLIDER = "[data-testid=stMain] [data-testid=stSlider] input[type=range]"
MAX_TABS = 200  # far more stops than any page has before its first demo

_PLOT_DATA = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(gd => JSON.stringify((gd._fullData || []).map(t => [t.x, t.y, t.z])))"""


@pytest.mark.parametrize("lesson", SLIDER_LESSONS, ids=lambda lesson: lesson.slug)
def test_tab_reaches_the_main_slider_and_arrows_move_its_plot(page, app_url, lesson: Lesson):
    page.goto(f"{app_url}/{lesson.slug}")
    wait_for_app(page)
    slider = page.locator(MAIN_SLIDER).first
    slider.wait_for(timeout=60_000)
    wait_for_app(page)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length > 0", timeout=30_000)

    visited = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if slider.evaluate("el => el === document.activeElement"):
            break
        visited.append(page.evaluate(
            "() => { const el = document.activeElement;"
            " return el ? (el.getAttribute('aria-label') || el.textContent || el.tagName).trim().slice(0, 40) : ''; }"))
    else:
        pytest.fail(f"{MAX_TABS} Tab presses never reached the main slider; focus went to: {visited[:40]}")

    before = page.evaluate(_PLOT_DATA)
    start = slider.evaluate("el => el.value")
    page.keyboard.press("ArrowRight" if slider.evaluate("el => el.value !== el.max") else "ArrowLeft")
    page.wait_for_function(f"({_PLOT_DATA})().join() !== {json.dumps(before)}.join()", timeout=30_000)
    wait_for_app(page)
    assert slider.evaluate("el => el.value") != start
    assert page.locator("[data-testid=stException]").count() == 0
