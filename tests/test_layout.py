"""Every chart reads cleanly on a laptop, a phone and a projector, and every step of the deck
fits a 1280×720 screen.

In Chromium, on every page (and every tab of the exponential mechanism), this reads the
rotated bounding box of every text Plotly draws (title, axis titles, tick labels, legend
items, annotations) and fails when two of them overlap or one is cut by the chart's edge.
Desktop (1440×900) and phone (390×844) are the same page load, resized; presenter mode
(1280×720, present=1) goes through every step of every lesson with the clicker's key,
PageDown, and checks each step as the back row of a lecture hall would read it
(tests/deck_probe.js): a step shows more than its heading and no empty box; nothing it shows
(text, chart or control) lies under the deck's bar; it fits the first screen (a clicker
cannot scroll); prose and quiz options are at least 24 px and chart ticks, legends and
annotations at least 20 px; a chart with nothing beside it spans the page.

One server, one browser, one tab per walk. `pytest -s` prints each deck's table (steps,
tallest step, smallest type), the one in docs/PERFORMANCE.md's "Presenter deck".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import wait_for_app
from ui.course import HOME, LESSONS, Lesson

# A group of its own: the walk over every page and deck step is the longest browser test, and
# beside the other browser tests (the "browser" group, on the other worker) the suite takes
# about as long as the longer of the two instead of their sum.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("layout")]

DESKTOP, PHONE, PROJECTOR = (1440, 900), (390, 844), (1280, 720)
NOT_DECKS = {HOME.slug} | {lesson.slug for lesson in LESSONS if lesson.section == "Classroom"}
EXPONENTIAL_TABS = ["Most common disease", "Private median", "Auction", "Coin bias",
                    "Check the guarantee"]

# The rotated box of every text element Plotly draws, from its own bounding box and its
# transform to the screen; two boxes overlap when no side of either separates them.
MEASURE = (Path(__file__).with_name("layout_probe.js")).read_text(encoding="utf-8")
DECK_PROBE = (Path(__file__).with_name("deck_probe.js")).read_text(encoding="utf-8")

READY = """() => {
  if (document.querySelector('[data-testid=stSkeleton], [data-stale=true]')) return false;
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
  return charts.every((c) => c.querySelector('.main-svg'));
}"""

# Plotly redraws a resized chart asynchronously: done when every visible chart's layout
# width matches its box.
RESIZED = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .filter((gd) => gd.checkVisibility({visibilityProperty: true}) && gd.getBoundingClientRect().width > 2)
  .every((gd) => gd._fullLayout && Math.abs(gd._fullLayout.width - gd.getBoundingClientRect().width) < 2)"""


def _size(size: tuple[int, int]) -> dict:
    return {"width": size[0], "height": size[1]}


def _url(app_url: str, lesson: Lesson, query: str = "") -> str:
    return app_url + ("/" if lesson is HOME else f"/{lesson.slug}") + (f"?{query}" if query else "")


def _settle(page, check: str = READY) -> None:
    wait_for_app(page)
    page.wait_for_function(check, timeout=60_000)
    page.evaluate("document.fonts.ready.then(() => true)")  # Plotly measures text in them
    page.wait_for_function(RESIZED, timeout=30_000)


# Streamlit cuts a control's or a metric's label to one line ending in "…"; ui.show.CHART_CSS
# lets them wrap. A label still wider than its box is cut.
CUT_LABELS = """() => [...document.querySelectorAll(
    '[data-testid=stMain] [data-testid=stWidgetLabel] .stMarkdownEllipsis, ' +
    '[data-testid=stMain] [data-testid=stMetricLabel] .stMarkdownEllipsis')]
  .filter((e) => e.checkVisibility() && e.scrollWidth > e.clientWidth + 1).map((e) => e.innerText)"""


def _faults(page, where: str) -> list[str]:
    result = page.evaluate(MEASURE)
    cut = [f"label cut to its box: {label!r}" for label in page.evaluate(CUT_LABELS)]
    return [f"{where}: {fault}" for fault in result["faults"] + cut]


def _targets() -> list[tuple[Lesson, str, str]]:
    targets = [(lesson, "", lesson.slug) for lesson in LESSONS]
    exponential = next(lesson for lesson in LESSONS if lesson.slug == "exponential")
    targets += [(exponential, f"exp_tab={tab.replace(' ', '+')}", f"exponential [{tab}]")
                for tab in EXPONENTIAL_TABS]
    return targets


def test_charts_read_cleanly_on_a_laptop_and_a_phone(browser, app_url):
    """Every page at 1440×900, then the same page resized to 390×844."""
    page = browser.new_page(viewport=_size(DESKTOP))
    faults, charts = [], 0
    for lesson, query, name in _targets():
        page.set_viewport_size(_size(DESKTOP))
        page.goto(_url(app_url, lesson, query))
        _settle(page)
        errors = page.locator("[data-testid=stException]").all_inner_texts()
        assert not errors, f"{name}: {errors}"
        charts += page.evaluate(MEASURE)["charts"]
        faults += _faults(page, f"{name}, desktop")
        page.set_viewport_size(_size(PHONE))
        page.wait_for_timeout(100)  # Streamlit sees the new width
        _settle(page)
        faults += _faults(page, f"{name}, phone")
    page.close()
    assert charts > 60, "the pages drew their charts"
    assert not faults, "\n".join(faults)


# One step of the deck, read in one page evaluation (a walk of 180 steps pays each browser
# round trip 180 times): errors, chart text, cut labels, the deck probe, and the deck's state.
STEP = f"""(fit) => {{
  const next = document.querySelector('.st-key-dplab_deck_next button');
  const deck = document.querySelector('.st-key-dplab_deck');
  return {{
    errors: [...document.querySelectorAll('[data-testid=stException]')].map((e) => e.innerText),
    chartFaults: ({MEASURE.strip()})().faults,
    cut: ({CUT_LABELS})(),
    probe: ({DECK_PROBE.strip()})(fit),
    label: deck ? deck.innerText : '',
    next: !!next && !next.disabled,
  }};
}}"""

# The next step is drawn: the deck's counter has moved on, the script has finished, and every
# chart is drawn (what _settle waits for, in one wait), then laid out at its box's width.
NEXT_DRAWN = f"""(before) => {{
  const deck = document.querySelector('.st-key-dplab_deck');
  return !!deck && deck.innerText !== before
    && !!document.querySelector('[data-testid=stApp][data-test-connection-state=CONNECTED]')
    && !!document.querySelector('[data-test-script-state=notRunning]')
    && ({READY})();
}}"""
LAID_OUT = f"() => document.fonts.status === 'loaded' && ({RESIZED})()"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.slug)
def test_every_step_fits_a_projector_and_reads_cleanly(browser, app_url, lesson):
    """Every step of the lesson's deck at 1280×720, reached with PageDown."""
    page = browser.new_page(viewport=_size(PROJECTOR))
    deck = lesson.slug not in NOT_DECKS
    faults, steps = [], {}
    page.goto(_url(app_url, lesson, "present=1"))
    if deck:
        # the deck's controls come last; the first deck of a fresh server may wait over 60 s
        # on a loaded 2-core machine (seen: randomized response first in a -k run), as in
        # test_deck_browser
        page.wait_for_selector(".st-key-dplab_deck", timeout=150_000)
    _settle(page)
    step = 1
    while True:
        where = f"{lesson.slug} step {step}, projector"
        state = page.evaluate(STEP, 1.0)  # fit: a clicker cannot scroll
        assert not state["errors"], f"{where}: {state['errors']}"
        faults += [f"{where}: {fault}" for fault in state["chartFaults"]]
        faults += [f"{where}: label cut to its box: {label!r}" for label in state["cut"]]
        steps[step] = state["probe"]
        if deck:
            faults += [f"{where}: {fault}" for fault in dict.fromkeys(steps[step]["faults"])]
        if not state["next"]:
            break
        page.keyboard.press("PageDown")  # what a presentation clicker sends
        page.wait_for_function(NEXT_DRAWN, arg=state["label"], timeout=60_000)
        page.wait_for_function(LAID_OUT, timeout=30_000)
        step += 1
        assert f"step={step}" in page.url, "the step is in the address"
    page.close()
    print("\n" + deck_row(lesson, steps))
    assert not faults, "\n".join(faults)
    if deck:
        assert step > 3, f"{lesson.slug}: a deck of {step} steps"


def deck_row(lesson: Lesson, steps: dict[int, dict]) -> str:
    """The lesson's line of the table in docs/PERFORMANCE.md: steps, how many fit the first
    screen, the tallest (in screens), the smallest prose or option type and the smallest
    chart type (px), and every step's height."""
    tallest = max(steps, key=lambda number: steps[number]["height"])
    fit = sum(probe["height"] <= 1.0 for probe in steps.values())

    def smallest(kind: str) -> str:
        sizes = [(probe[kind]["px"], number) for number, probe in steps.items() if probe[kind]]
        return "–" if not sizes else "{:g} (step {})".format(*min(sizes))

    heights = {number: round(probe["height"], 2) for number, probe in steps.items()}
    return (f"| {lesson.title} | {len(steps)} | {fit} | {steps[tallest]['height']:.2f} (step {tallest}) "
            f"| {smallest('smallestText')} | {smallest('smallestChartText')} |  {json.dumps(heights)}")
