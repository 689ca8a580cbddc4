"""axe-core on every page, at defaults and in presenter mode: nothing serious in what we control.

The audit at defaults runs in tests/test_browser.py's walk, on the page load it shares with the
other per-page checks; the audit in presenter mode runs here, on a load of its own.

axe-core comes from PyPI, inside axe-playwright-python (requirements-dev.txt pins it; it
ships axe-core 4.12.1), and is injected into the live page by Playwright. (Until 2026-11 it
came from npm, axe-core 4.14.1: on all 32 page views, default and presenter, both versions
reported the same rules, impacts and owners.) A violation is ours when its element sits in
content we write: markdown and captions (lesson text, widget labels), headings, and Plotly
charts (titles, axis labels, annotations). Plotly's own toolbar inside a chart, and all of
Streamlit's chrome (sidebar navigation, toolbar, widget internals), are theirs: listed by
`python -m tests.test_accessibility`, and shown here when a test fails, but not failed on.

Skips where Chromium or axe-playwright-python is missing; REQUIRE_BROWSER=1 makes that a
failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REQUIRE_BROWSER, wait_for_app
from ui.course import HOME, LESSONS, Lesson

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

try:  # the package's own axe.min.js; its Python wrapper is not used
    import axe_playwright_python

    AXE = Path(axe_playwright_python.__file__).with_name("axe.min.js")
except ImportError:
    AXE = None
SERIOUS = {"serious", "critical"}

# Where our own words and pictures live in Streamlit's DOM.
OURS = ", ".join([
    "[data-testid=stMarkdownContainer]",  # st.markdown, lesson text, widget labels, alerts
    "[data-testid=stCaptionContainer]",
    "[data-testid=stHeading]",  # st.title / header / subheader
    "[data-testid=stPlotlyChart]",  # our figures: titles, axes, legends, annotations
])
THEIRS_INSIDE_OURS = ".modebar-container"  # Plotly's toolbar, drawn inside our chart

# axe reports each failing element by a CSS selector; the element itself decides whose it is.
_RUN_AXE = """
async ([ours, theirsInsideOurs]) => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.flatMap(v => v.nodes.map(node => {
    const el = node.target.length === 1 ? document.querySelector(node.target[0]) : null;
    const mine = !!(el && el.closest(ours) && !el.closest(theirsInsideOurs));
    return {rule: v.id, impact: node.impact || v.impact, help: v.help, ours: mine,
            html: node.html.slice(0, 160), why: node.failureSummary.replace(/\\s+/g, ' ')};
  }));
}
"""


def page_url(app_url: str, lesson: Lesson, presenter: bool) -> str:
    return app_url + ("/" if lesson is HOME else f"/{lesson.slug}") + ("?present=1" if presenter else "")


def wait_until_drawn(page) -> None:
    """The script has run and every chart has been drawn (axe checks what is on screen)."""
    wait_for_app(page)
    page.locator("h1").first.wait_for(timeout=60_000)
    wait_for_app(page)
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('[data-testid=stPlotlyChart]'))"
        ".every(chart => chart.querySelector('.main-svg'))", timeout=60_000)


def audit(page, url: str) -> list[dict]:
    page.goto(url)
    return audit_loaded_page(page)


def audit_loaded_page(page) -> list[dict]:
    """Every violation axe finds on the page as it is once drawn, each marked ours or not."""
    wait_until_drawn(page)
    page.add_script_tag(path=str(AXE))
    return page.evaluate(_RUN_AXE, [OURS, THEIRS_INSIDE_OURS])


def describe(violations: list[dict]) -> str:
    return "\n".join(f"  [{v['impact']}] {v['rule']}: {v['help']}\n      {v['html']}\n      {v['why']}"
                     for v in violations)


def summarise(violations: list[dict]) -> str:
    """One line per rule: how many elements, and the first of them."""
    rules: dict[tuple[str, str], list[dict]] = {}
    for v in violations:
        rules.setdefault((v["rule"], v["impact"]), []).append(v)
    return "\n".join(f"  [{impact}] {rule} ×{len(found)}, e.g. {found[0]['html']}"
                     for (rule, impact), found in sorted(rules.items())) or "  none"


@pytest.fixture(scope="module")
def axe_installed():
    if AXE is None or not AXE.exists():
        reason = "axe-core not installed: pip install -r requirements-dev.txt"
        if REQUIRE_BROWSER:
            pytest.fail(f"REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)


def assert_nothing_serious_in_our_content(violations: list[dict]) -> None:
    ours = [v for v in violations if v["ours"] and v["impact"] in SERIOUS]
    theirs = [v for v in violations if not v["ours"]]
    assert not ours, (f"serious accessibility violations in our content:\n{describe(ours)}\n"
                      f"(Streamlit's own, not failed on:\n{summarise(theirs)})")


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.slug)
def test_no_serious_accessibility_violation_in_presenter_mode(page, app_url, axe_installed,
                                                              lesson: Lesson):
    assert_nothing_serious_in_our_content(audit(page, page_url(app_url, lesson, presenter=True)))


def test_the_audit_sees_a_violation_in_our_content(page, app_url, axe_installed):
    # The classification must be able to blame us: text we put in a caption, in a colour
    # that fails contrast, has to come back as ours and serious.
    page.goto(app_url)
    wait_until_drawn(page)
    page.evaluate("""() => {
        const caption = document.querySelector('[data-testid=stMain] [data-testid=stMarkdownContainer] p');
        caption.style.color = '#dddddd';
    }""")
    page.add_script_tag(path=str(AXE))
    violations = page.evaluate(_RUN_AXE, [OURS, THEIRS_INSIDE_OURS])
    assert any(v["ours"] and v["rule"] == "color-contrast" and v["impact"] in SERIOUS
               for v in violations), describe(violations)


if __name__ == "__main__":
    # A report of every violation on every page, ours and Streamlit's, for docs and reviews.
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS, serve_app

    with serve_app() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1280, "height": 720})
        for each in LESSONS:
            for projecting in (False, True):
                found = audit(tab, page_url(url, each, projecting))
                print(each.slug + (" (presenter mode)" if projecting else ""))
                print("  ours:\n  " + summarise([v for v in found if v["ours"]]).replace("\n", "\n  "))
                print("  Streamlit's:\n  " + summarise([v for v in found if not v["ours"]]).replace("\n", "\n  "))
        browser.close()
