"""Headless Chromium against a live server: every page loads, with no error and no legacy nav.

Each lesson page is loaded once, at defaults, and one test per page runs on that load every check
that needs a fresh default page, in this order, and reports each one that fails:
  1. it loads with no error, a visible title and the lesson's name in the tab;
  2. axe-core finds nothing serious in our content (tests/test_accessibility.py's audit; presenter
     mode is audited there, on a page of its own);
  3. keyboard alone: from the top of the page, Tab reaches the main slider (the first slider in the
     main area, the one bench/browser.py times) and an arrow moves its plot;
  4. arrows on the first slider change a plot.
One test, not one per check: xdist 3.8 cannot keep tests together on one worker under pytest 9
(its xdist_group marks are ignored), so checks split into tests would load the page again.

Skips where Chromium is absent; REQUIRE_BROWSER=1 (set by .ci/run) turns the skip into a failure.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.conftest import wait_for_app
from tests.test_accessibility import (  # axe_installed is a fixture
    assert_nothing_serious_in_our_content,
    audit_loaded_page,
    axe_installed,  # noqa: F401
)
from ui.course import HOME, LESSONS, Lesson

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def _url(app_url: str, lesson: Lesson) -> str:
    return app_url + ("/" if lesson is HOME else f"/{lesson.slug}")


def _nav_labels(page) -> list[str]:
    view_more = page.locator("[data-testid=stSidebarNavViewButton]")
    if view_more.count():
        view_more.first.click()
    links = page.locator("[data-testid=stSidebarNavLink]").all_inner_texts()
    return [text.strip().splitlines()[-1].strip() for text in links]  # drop the icon line


def page_loads_without_error(page, lesson: Lesson) -> None:
    assert page.locator("[data-testid=stException]").count() == 0
    assert page.locator("h1").first.is_visible()
    assert lesson.title in page.title()


def no_serious_accessibility_violation_in_our_content(page, lesson: Lesson) -> None:
    assert_nothing_serious_in_our_content(audit_loaded_page(page))


_PLOT_DATA = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(gd => JSON.stringify((gd._fullData || []).map(t => [t.x, t.y, t.z])))"""

# Keyboard alone: Home and the class pages have no slider (poll-instructor's is not a demo's).
SLIDER_LESSONS = [lesson for lesson in LESSONS if lesson is not HOME and lesson.section != "Classroom"]
MAIN_SLIDER = "[data-testid=stMain] [data-testid=stSlider] input[type=range]"
MAX_TABS = 200  # far more stops than any page has before its first demo


def tab_reaches_the_main_slider_and_arrows_move_its_plot(page, lesson: Lesson) -> None:
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


# The poll's join page is a phone form with no slider and no chart; test_poll_browser drives it.
# The live class's pages have none before a session starts; test_live_browser drives them.
WITH_SLIDERS = [lesson for lesson in LESSONS if lesson is not HOME
                and lesson.slug not in ("poll-join", "live-instructor", "live-join")]


def moving_a_slider_updates_a_plot(page, lesson: Lesson) -> None:
    # Plotly 7 ships arrays base64-encoded; gd._fullData holds the decoded values.
    wait_for_app(page)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length > 0", timeout=20_000)
    before = page.evaluate(_PLOT_DATA)
    slider = page.locator("[data-testid=stMain] [data-testid=stSlider] input[type=range], "
                          "[data-testid=stMain] [data-testid=stSlider] [role=slider]").first
    # The keyboard check may have left the slider at its top: then the arrows go down.
    at_top = slider.evaluate("el => (el.value ?? el.getAttribute('aria-valuenow'))"
                             " === (el.max ?? el.getAttribute('aria-valuemax'))")
    slider.focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft" if at_top else "ArrowRight")
        wait_for_app(page)
    page.wait_for_function(f"({_PLOT_DATA})().join() !== {json.dumps(before)}.join()",
                           timeout=20_000)
    assert page.locator("[data-testid=stException]").count() == 0


@pytest.mark.usefixtures("axe_installed")
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.slug)
def test_every_check_on_one_load_of_the_page(page, app_url, lesson: Lesson):
    page.goto(_url(app_url, lesson))
    wait_for_app(page)
    checks = [page_loads_without_error, no_serious_accessibility_violation_in_our_content]
    checks += [tab_reaches_the_main_slider_and_arrows_move_its_plot] if lesson in SLIDER_LESSONS else []
    checks += [moving_a_slider_updates_a_plot] if lesson in WITH_SLIDERS else []
    failures = []
    for check in checks:  # every check reports, not only the first to fail
        try:
            check(page, lesson)
        except (Exception, pytest.fail.Exception) as error:  # noqa: BLE001
            failures.append(f"{check.__name__}: {type(error).__name__}: {error}")
    assert not failures, "\n\n".join(failures)


def test_navigation_shows_the_course_and_never_file_names(page, app_url):
    # Watch the sidebar from the very first paint: a legacy pages/ folder would show
    # file names ("home", ...) until app.py replaced them.
    seen: list[list[str]] = []
    page.goto(app_url, wait_until="commit")
    for _ in range(40):
        seen.append(page.locator("[data-testid=stSidebarNavLink]").all_inner_texts())
        page.wait_for_timeout(50)
    wait_for_app(page)
    titles = [lesson.title for lesson in LESSONS]
    assert _nav_labels(page) == titles
    stems = {lesson.script.rsplit("/", 1)[-1].removesuffix(".py") for lesson in LESSONS}
    for snapshot in seen:
        assert not stems & {label.strip().splitlines()[-1].strip() for label in snapshot if label.strip()}, snapshot


def _deck_step(page) -> int:
    return int(page.locator(".st-key-dplab_deck strong").inner_text().split("/")[0])


def _wait_for_step(page, number: int) -> None:
    try:
        page.wait_for_function(
            f"() => (document.querySelector('.st-key-dplab_deck strong')?.innerText || '')"
            f".startsWith('{number} /')", timeout=30_000)
    except PlaywrightTimeout:
        shown = page.locator(".st-key-dplab_deck strong").all_inner_texts()
        focus = page.evaluate("document.activeElement.outerHTML.slice(0, 120)")
        raise AssertionError(f"step {number} never came: the deck shows {shown}, "
                             f"focus on {focus}, address {page.url}") from None
    wait_for_app(page)
    page.wait_for_function("!document.querySelector('[data-stale=true], [data-testid=stSkeleton]')",
                           timeout=30_000)


def test_a_clicker_drives_the_deck_and_a_focused_slider_keeps_its_arrows(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/laplace?present=1&step=2")
    page.wait_for_selector(".st-key-dplab_deck strong", timeout=60_000)
    _wait_for_step(page, 2)
    page.wait_for_timeout(500)  # a first visit runs the page twice (ui.lessons.demo)
    _wait_for_step(page, 2)
    assert "step=2" in page.url
    # PageDown and PageUp (what clickers send) turn the page; so do the arrows, with no focus.
    page.keyboard.press("PageDown")
    _wait_for_step(page, 3)
    page.keyboard.press("PageUp")
    _wait_for_step(page, 2)
    page.keyboard.press("ArrowRight")
    _wait_for_step(page, 3)
    assert "step=3" in page.url
    page.keyboard.press("ArrowLeft")
    _wait_for_step(page, 2)
    sliders = page.locator("[data-testid=stMain] [data-testid=stSlider] input[type=range]")
    step = 2
    while not sliders.count():  # on to the first step with a slider
        step += 1
        page.keyboard.press("PageDown")
        _wait_for_step(page, step)
    # On a focused slider the arrows move the slider, and the deck stays put...
    before = sliders.first.input_value()
    sliders.first.focus()
    page.keyboard.press("ArrowRight")
    wait_for_app(page)
    page.wait_for_function(
        "(before) => document.querySelector("
        "'[data-testid=stMain] [data-testid=stSlider] input[type=range]').value !== before",
        arg=before, timeout=20_000)
    assert _deck_step(page) == step
    # ...but a clicker's PageDown still turns the page.
    sliders.first.focus()
    page.keyboard.press("PageDown")
    _wait_for_step(page, step + 1)
    assert page.locator("[data-testid=stException]").count() == 0


def test_a_link_can_be_copied_on_a_touch_screen(browser, app_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(f"{app_url}/laplace")
    wait_for_app(page)
    page.locator('button:has-text("Copy link to this")').filter(visible=True).first.tap()
    button = page.get_by_role("button", name="Copy the link").first
    button.wait_for(state="visible", timeout=20_000)
    button.tap()
    page.get_by_text("Copied.").first.wait_for(timeout=10_000)
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "/laplace?" in copied and "lap_eps=1" in copied and "seed=2014" in copied
    assert "present" not in copied
    context.close()
