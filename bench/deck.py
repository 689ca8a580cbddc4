"""The first view of every deck step on a freshly started server, in headless Chromium.

    python bench/deck.py [slug ...] [--passes 2]
    python bench/deck.py --pages [slug ...]       # each lesson's default view, not its deck

Starts `streamlit run app.py` afresh (bench.load.streamlit_server: one visit starts the
server's warm-up, ui/warm.py, and the walk begins once it has finished, as a lecturer's
first click would come a while after the server started). Then, for each lesson, opens its
deck (present=1) at 1280×720 and presses PageDown through every step, timing each step from
the key press until the new step is drawn: the counter shows it, the script has finished
and every chart on screen has its SVG. The opening of the deck (step 1) is timed from the
address being entered. A second pass (--passes 2) walks the same decks again: what a step
costs once its caches are full.

Beside each step's wall time, the server's CPU seconds over it (its process's user + system
time, from /proc): on a shared machine the wall time follows the load, the CPU time carries
over; and the CPU seconds of the browser (every Chromium process: it draws the step).
Prints, per lesson, the first step (wall, server CPU), the later steps (median and
slowest, wall and server CPU) and every step over 1 s (wall and browser CPU), the deck's
browser CPU and the load average; then the whole pass. Record the results in
docs/PERFORMANCE.md ("Presenter deck").
"""

from __future__ import annotations

import argparse
import os
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


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def browser_cpu_seconds() -> float:
    """The CPU time so far of this process's Chromium (every process of it: browser,
    renderer, GPU), found as descendants named chromium/chrome."""
    parents, names = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # gone meanwhile
            continue
        pid = int(stat.parent.name)
        names[pid] = text[text.index("(") + 1:text.rindex(")")]
        parents[pid] = int(text.rsplit(")", 1)[1].split()[1])
    total = 0.0
    for pid, name in names.items():
        ancestor = parents.get(pid)
        while ancestor not in (None, 0, 1, os.getpid()):
            ancestor = parents.get(ancestor)
        if ancestor == os.getpid() and "chrom" in name:
            try:
                total += cpu_seconds(pid)
            except OSError:
                pass
    return total


PAGE_DRAWN = """() => !!document.querySelector('[data-test-script-state=notRunning]')
  && !document.querySelector('[data-testid=stSkeleton], [data-stale=true]')
  && [...document.querySelectorAll('[data-testid=stPlotlyChart]')].every((c) => c.querySelector('.main-svg'))"""


def open_page(page, url: str, slug: str, pid: int) -> tuple[float, float, float]:
    """(wall, server CPU, browser CPU) seconds to draw the lesson's default view (no deck),
    from the address entered until the script has finished and every chart is drawn."""
    started, cpu, browser = time.monotonic(), cpu_seconds(pid), browser_cpu_seconds()
    page.goto(f"{url}/{slug}")
    wait_for_app(page)
    page.wait_for_function(PAGE_DRAWN, timeout=120_000, polling=20)
    return time.monotonic() - started, cpu_seconds(pid) - cpu, browser_cpu_seconds() - browser


def walk(page, url: str, slug: str, pid: int) -> dict[int, tuple[float, float, float]]:
    """(wall seconds, server CPU seconds, browser CPU seconds) to draw each step of the
    lesson's deck, the first from the address entered."""
    times = {}
    started, cpu, browser = time.monotonic(), cpu_seconds(pid), browser_cpu_seconds()
    page.goto(f"{url}/{slug}?present=1&step=1")
    wait_for_app(page)
    page.wait_for_function(DRAWN, arg="1 /", timeout=120_000, polling=20)
    times[1] = (time.monotonic() - started, cpu_seconds(pid) - cpu,
                browser_cpu_seconds() - browser)
    step = 1
    while True:
        following = page.locator(".st-key-dplab_deck_next button").first
        if not following.count() or following.is_disabled():
            return times
        step += 1
        started, cpu, browser = time.monotonic(), cpu_seconds(pid), browser_cpu_seconds()
        page.keyboard.press("PageDown")
        page.wait_for_function(DRAWN, arg=f"{step} /", timeout=120_000, polling=20)
        times[step] = (time.monotonic() - started, cpu_seconds(pid) - cpu,
                       browser_cpu_seconds() - browser)


def _three(times) -> str:
    wall, server, browser = times
    return f"{wall:.2f} s (CPU server {server:.2f}, browser {browser:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("slugs", nargs="*", default=DECKS)
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument("--pages", action="store_true",
                        help="open each lesson's default view (no deck) instead of walking its deck")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with streamlit_server() as (pid, port), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        url = f"http://127.0.0.1:{port}"
        if args.pages:
            for number in range(1, args.passes + 1):
                print(f"pass {number}{' (fresh server)' if number == 1 else ''}, default views:")
                opened = {slug: open_page(page, url, slug, pid) for slug in args.slugs}
                for slug, times in opened.items():
                    print(f"  {slug:18} {_three(times)}", flush=True)
                walls = [wall for wall, _, _ in opened.values()]
                print(f"  all: {len(walls)} pages, median {statistics.median(walls):.2f} s, max "
                      f"{max(walls):.2f} s, {sum(t > SLOW for t in walls)} over {SLOW:g} s; CPU: server "
                      f"{sum(t[1] for t in opened.values()):.1f} s; load {os.getloadavg()[0]:.1f}")
            browser.close()
            return
        for number in range(1, args.passes + 1):
            print(f"pass {number}{' (fresh server)' if number == 1 else ''}:")
            every, firsts, server_cpu, browser_cpu = [], [], 0.0, 0.0
            for slug in args.slugs:
                times = walk(page, url, slug, pid)
                walls = {step: wall for step, (wall, _, _) in times.items()}
                every += walls.values()
                firsts.append(walls[1])
                server_cpu += sum(server for _, server, _ in times.values())
                browser_cpu += sum(browser for _, _, browser in times.values())
                later = [t for step, t in times.items() if step > 1]
                worst = max(later, key=lambda t: t[0])
                slow = {step: f"{wall:.2f} s (browser {browser:.2f})"
                        for step, (wall, _, browser) in times.items() if wall > SLOW}
                print(f"  {slug:18} {len(times):2} steps  first {_three(times[1])}"
                      f"  later median {_three([statistics.median(t[i] for t in later) for i in range(3)])}"
                      f"  slowest {_three(worst)}  over {SLOW:g} s: {slow or 'none'}"
                      f"  browser CPU, all steps {sum(t[2] for t in times.values()):.1f} s"
                      f"  load {os.getloadavg()[0]:.1f}", flush=True)
            print(f"  all: {len(every)} steps, median {statistics.median(every):.2f} s, "
                  f"max {max(every):.2f} s, {sum(t > SLOW for t in every)} over {SLOW:g} s "
                  f"({sum(t > SLOW for t in firsts)} of them first steps); CPU: server "
                  f"{server_cpu:.1f} s, browser {browser_cpu:.1f} s")
        browser.close()


if __name__ == "__main__":
    main()
