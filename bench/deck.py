"""The first view of every deck step on a freshly started server, in headless Chromium.

    python bench/deck.py [slug ...] [--passes 2]

Starts `streamlit run app.py` afresh (bench.load.streamlit_server: one visit starts the
server's warm-up, ui/warm.py, and the walk begins once it has finished, as a lecturer's
first click would come a while after the server started). Then, for each lesson, opens its
deck (present=1) at 1280×720 and presses PageDown through every step, timing each step from
the key press until the new step is drawn: the counter shows it, the script has finished
and every chart on screen has its SVG. The opening of the deck (step 1) is timed from the
address being entered. A second pass (--passes 2) walks the same decks again: what a step
costs once its caches are full.

Prints each lesson's slowest step and every step over 1 s. Record the results in
docs/PERFORMANCE.md ("Presenter deck").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import streamlit_server  # noqa: E402
from tests.conftest import CHROMIUM, CHROMIUM_ARGS, wait_for_app  # noqa: E402
from ui.course import HOME, LESSONS  # noqa: E402

DECKS = [lesson.slug for lesson in LESSONS if lesson is not HOME and lesson.section != "Classroom"]
SLOW = 1.0  # s: a step that takes longer is a freeze in front of a class

DRAWN = """(label) => {
  const deck = document.querySelector('.st-key-dplab_deck');
  if (!deck || (label && !deck.innerText.includes(label))) return false;
  if (!document.querySelector('[data-test-script-state=notRunning]')) return false;
  if (document.querySelector('[data-testid=stSkeleton], [data-stale=true]')) return false;
  return [...document.querySelectorAll('[data-testid=stPlotlyChart]')]
    .every((c) => c.querySelector('.main-svg'));
}"""


def walk(page, url: str, slug: str) -> dict[int, float]:
    """Seconds to draw each step of the lesson's deck, the first from the address entered."""
    times = {}
    started = time.monotonic()
    page.goto(f"{url}/{slug}?present=1&step=1")
    wait_for_app(page)
    page.wait_for_function(DRAWN, arg="1 /", timeout=120_000, polling=20)
    times[1] = time.monotonic() - started
    step = 1
    while True:
        following = page.locator(".st-key-dplab_deck_next button").first
        if not following.count() or following.is_disabled():
            return times
        step += 1
        started = time.monotonic()
        page.keyboard.press("PageDown")
        page.wait_for_function(DRAWN, arg=f"{step} /", timeout=120_000, polling=20)
        times[step] = time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("slugs", nargs="*", default=DECKS)
    parser.add_argument("--passes", type=int, default=1)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with streamlit_server() as (_, port), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        url = f"http://127.0.0.1:{port}"
        for number in range(1, args.passes + 1):
            print(f"pass {number}{' (fresh server)' if number == 1 else ''}:")
            every = []
            for slug in args.slugs:
                times = walk(page, url, slug)
                every += times.values()
                worst = max(times, key=times.get)
                slow = {step: round(t, 2) for step, t in times.items() if t > SLOW}
                print(f"  {slug:18} {len(times):2} steps  median {statistics.median(times.values()):.2f} s"
                      f"  slowest step {worst} {times[worst]:.2f} s  over {SLOW:g} s: {slow or 'none'}",
                      flush=True)
            print(f"  all: {len(every)} steps, median {statistics.median(every):.2f} s, "
                  f"max {max(every):.2f} s, {sum(t > SLOW for t in every)} over {SLOW:g} s")
        browser.close()


if __name__ == "__main__":
    main()
