"""Issue 27 in Chromium: what a lecturer clicks on the projector, and where a student's copied
link and phone open. (Every step's layout is measured by tests/test_layout.py.)"""

from __future__ import annotations

import pytest

from tests.conftest import wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PROJECTOR, PHONE = {"width": 1280, "height": 720}, {"width": 390, "height": 844}


def test_reveal_on_the_projector_marks_the_right_option_and_a_click_draws_no_frame(browser, app_url):
    page = browser.new_page(viewport=PROJECTOR)
    page.goto(f"{app_url}/randomized-response?present=1&step=2")  # the protocol and its quiz
    wait_for_app(page)
    # The first page of a fresh, unwarmed test server (DPLAB_WARM=0), while other tests load
    # 2 cores: it has taken over 60 s here (a served app warms up: ui/warm.py).
    page.wait_for_selector(".st-key-dplab_deck", timeout=150_000)
    options = page.locator("[data-testid=stMain] [role=radiogroup] label")
    options.first.wait_for(timeout=60_000)  # the step's quiz, drawn after the deck bar
    assert options.count() >= 3
    assert not [text for text in options.all_inner_texts() if "✅" in text]
    page.get_by_text("Reveal the answer").click()
    page.wait_for_function("() => [...document.querySelectorAll('[role=radiogroup] label')]"
                           ".some((l) => l.innerText.includes('✅'))", timeout=60_000)
    marked = [text for text in options.all_inner_texts() if "✅" in text]
    assert len(marked) == 1, marked
    wait_for_app(page)
    # a click on empty page space (right of the heading) focuses the main area: no frame
    box = page.locator("[data-testid=stMain] h2").first.bounding_box()
    page.mouse.click(1200, box["y"] + box["height"] / 2)
    frame = page.evaluate("""() => { const e = document.activeElement, s = getComputedStyle(e);
        return s.outlineStyle === 'none' || parseFloat(s.outlineWidth) === 0 ? '' : e.tagName; }""")
    assert frame == "", f"a focus frame on {frame}"
    page.close()


def test_a_copied_link_opens_at_its_demo_and_a_phone_starts_with_the_lesson(browser, app_url):
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{app_url}/randomized-response")
    wait_for_app(page)
    hook = page.locator("[data-testid=stMain] p", has_text="Stanley Warner").first.bounding_box()
    notes = page.locator("[data-testid=stExpander]", has_text="For instructors").first.bounding_box()
    assert hook["y"] < notes["y"], "the lesson first, the instructor box after it"
    # the survey demo is several screens down the page
    page.goto(f"{app_url}/randomized-response?rr_eps=1&seed=2014#survey_demo")
    wait_for_app(page)
    page.wait_for_function("""() => { const e = document.querySelector('.st-key-survey_demo_share');
        if (!e) return false; const r = e.getBoundingClientRect();
        return r.top >= 0 && r.top < window.innerHeight / 2; }""", timeout=30_000)
    page.close()


# The front end's code for these kinds of element is fetched when a page first draws one
# (one chunk each in Streamlit's static/js); the title step draws one of each, hidden.
PRELOADED = ("PlotlyChart.", "Slider.", "Metric.", "Radio.", "Checkbox.", "Selectbox.",
             "ButtonGroup.", "Table.", "DataFrame.", "rehype-katex.")


def test_the_title_step_loads_the_decks_element_code_out_of_reach(browser, app_url):
    """The title step (which shows none of these) has the browser load every element kind's
    code; the elements that did it are invisible, out of the tab order and of the
    accessibility tree, and gone from the next step."""
    page = browser.new_page(viewport=PROJECTOR)
    page.goto(f"{app_url}/definition?present=1&step=1")
    wait_for_app(page)
    page.wait_for_selector(".st-key-dplab_deck_preload [data-testid=stDataFrame]", state="attached",
                           timeout=150_000)
    page.wait_for_function(f"""() => {{
        const names = performance.getEntriesByType('resource').map((e) => e.name.split('/').pop());
        return {list(PRELOADED)!r}.every((chunk) => names.some((n) => n.startsWith(chunk)));
    }}""", timeout=60_000)
    preload = page.locator(".st-key-dplab_deck_preload")
    shown = page.evaluate("""() => [...document.querySelectorAll('.st-key-dplab_deck_preload *')]
        .filter((e) => e.checkVisibility({visibilityProperty: true})).map((e) => e.outerHTML.slice(0, 80))""")
    assert not shown, shown
    assert preload.aria_snapshot().strip() == ""
    main_controls = page.locator("[data-testid=stMain] :is(button, input, [tabindex='0'])").count()
    for _ in range(main_controls + 5):  # past every control of the step and the deck's bar
        page.keyboard.press("Tab")
        assert not page.evaluate(
            "() => !!document.activeElement.closest('.st-key-dplab_deck_preload')")
    page.keyboard.press("PageDown")
    page.wait_for_function("() => document.querySelector('.st-key-dplab_deck strong')"
                           "?.innerText.startsWith('2 /')", timeout=60_000)
    wait_for_app(page)
    assert not page.locator(".st-key-dplab_deck_preload [data-testid=stSlider]").count()
    page.close()
