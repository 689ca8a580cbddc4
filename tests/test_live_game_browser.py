""""In or out?" in real browsers: an instructor deals the counts, two phones guess and one stays
silent; the projector counts all three, its chart is the unit square at three screen sizes, and
the verdict appears only once voting closes.

Skips where Chromium is absent; REQUIRE_BROWSER=1 (set by .ci/run) turns the skip into a failure.
"""

from __future__ import annotations

import re

import pytest

from classroom import live, store
from tests.conftest import press, serve_app, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT = 30_000
SCREENS = [(1440, 900), (390, 844), (1280, 720)]

# The projected game chart (not the odds panel's icons, folded in an expander): its axes'
# ranges and their lengths on screen, in pixels.
GAME_AXES = """() => {
    const gd = Array.from(document.querySelectorAll('[data-testid=stMain] .js-plotly-plot'))
        .find(gd => (gd.layout.title.text || '').startsWith('The class as an attacker'));
    if (!gd || !gd._fullLayout.xaxis._length) return null;
    const box = gd.getBoundingClientRect();
    const {xaxis, yaxis} = gd._fullLayout;
    return {x: xaxis.range, y: yaxis.range, width: xaxis._length, height: yaxis._length,
            left: box.left, right: box.right,
            names: gd._fullData.map(t => t.name)};
}"""


@pytest.fixture
def database(tmp_path, monkeypatch) -> str:
    url = f"sqlite:///{tmp_path / 'game.sqlite3'}"
    monkeypatch.setenv(store.DATABASE_URL_ENV, url)
    return url


@pytest.fixture
def live_server(database):
    """A server of its own, so that its database is a temporary file (the env var it inherits)."""
    with serve_app() as url:
        yield url


def devices_of_both_worlds(database: str, code: str) -> list[str]:
    """Three device ids, for the phones' storage, whose deals hold D and D′. A fair coin deals
    each phone its world, so three random phones all get the same one a quarter of the time,
    and the class's point then waits for phones of the other kind (the test would wait too)."""
    engine = store.make_engine(database)
    try:
        question = live.view(engine, live.find_session(engine, code).id).question
        candidates = (f"game-test-phone-{i:08d}" for i in range(1_000))
        first = next(candidates)
        world = live.deal_for(question, first).in_data
        other = next(d for d in candidates if live.deal_for(question, d).in_data != world)
        return [first, other, next(candidates)]
    finally:
        engine.dispose()


def main_text(page) -> str:
    return " ".join(page.locator("[data-testid=stMain]").inner_text().split())


def test_the_game_counts_a_silent_phone_and_draws_the_unit_square(browser, database, live_server):
    teacher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    teacher.goto(f"{live_server}/live-instructor")
    wait_for_app(teacher)
    teacher.get_by_role("button", name="Start the live session").click(timeout=WAIT)
    teacher.wait_for_url(re.compile(r"code=[A-Z0-9]{6}"), timeout=WAIT)
    wait_for_app(teacher)
    code = re.search(r"code=([A-Z0-9]{6})", teacher.url).group(1)
    teacher.get_by_role("tab", name=re.compile("In or out")).click(timeout=WAIT)
    press(teacher, "Deal the counts", teacher.get_by_text(re.compile(r"0 of at most 30 votes")))

    contexts = [browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                    has_touch=True) for _ in range(3)]
    for context, device in zip(contexts, devices_of_both_worlds(database, code), strict=True):
        context.add_init_script(f"window.localStorage.setItem('dplab-live-device', '{device}')")
    phones = [context.new_page() for context in contexts]
    for phone in phones:
        phone.goto(f"{live_server}/live-join?code={code}")
    for phone in phones:
        wait_for_app(phone)
        phone.get_by_text("The released count your phone was dealt").wait_for(timeout=WAIT)
    for phone, name in zip(phones[:2], ("In:", "Out:"), strict=True):
        phone.get_by_role("button", name=re.compile(f"^{name}")).click(timeout=WAIT)
        phone.get_by_text("Your vote is in").wait_for(timeout=WAIT)
    teacher.get_by_text(re.compile(r"2 of at most 30 votes")).wait_for(timeout=WAIT)

    press(teacher, "Show votes", teacher.get_by_text("The verdict comes when voting closes"))
    # Three phones, three deals: a phone whose browser reports its stored id late keeps the
    # stand-in id it was dealt under (a deal fixes the id, ui.live.answering).
    counted = re.search(r"2 guesses from (\d+) phones dealt .*?, (\d+) silent", main_text(teacher))
    dealt, silent = int(counted.group(1)), int(counted.group(2))
    assert (dealt, silent) == (3, 1)
    for width, height in SCREENS:
        teacher.set_viewport_size({"width": width, "height": height})
        teacher.wait_for_function(f"() => {{ const a = ({GAME_AXES})(); "
                                  f"return a && a.right <= {width} + 1; }}", timeout=WAIT)
        teacher.wait_for_timeout(500)  # Plotly's resize settles
        axes = teacher.evaluate(GAME_AXES)
        assert axes["x"] == [0, 1] and axes["y"] == [0, 1], (width, axes)
        assert abs(axes["width"] - axes["height"]) <= 2, (width, axes)  # a square, not squeezed
        assert axes["width"] >= min(300, 0.6 * width), (width, axes)
        assert f"the class ({dealt} phones)" in axes["names"]

    press(teacher, "Close voting", teacher.get_by_text("What the verdict assumes"))
    assert re.search(r"(inside|past) the ε-DP bound", main_text(teacher))
    # The projector (the instructor's browser, a second tab): the chart and the verdict on one
    # 1280×720 screen.
    projector = teacher.context.new_page()
    projector.set_viewport_size({"width": 1280, "height": 720})
    projector.goto(f"{live_server}/live-instructor?code={code}&view=projector")
    wait_for_app(projector)
    projector.get_by_text(re.compile("ε-DP bound")).first.wait_for(timeout=WAIT)
    projector.wait_for_function(f"() => ({GAME_AXES})() !== null", timeout=WAIT)
    height = projector.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    assert height <= 720, height
    projector.close()
    press(teacher, "Reveal", teacher.get_by_text(re.compile("Revealed")))
    phones[2].get_by_text("You stayed silent, which counts as").wait_for(timeout=WAIT)
    for page in (teacher, *phones):
        assert page.locator("[data-testid=stException]").count() == 0
    for context in contexts:
        context.close()
