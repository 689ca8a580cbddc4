"""What a mouse drag of a page's main slider costs, in headless Chromium, and what the page's
first visit sends.

    python bench/drag.py [slug] [--drags 6] [--steps 30]

One `streamlit run app.py` (its pid known, so its CPU is read from /proc). A fresh browser
context opens the page: the bytes of every websocket message the server sends until the script
has finished are the first visit's cost ("first visit"). Then the main slider (the first one in
the main area) is dragged with the mouse from its thumb to the far end of its track and, next
time, back, in `--steps` pointer moves about 16 ms apart (a hand's drag at 60 Hz), then
released. Per drag:

- *reruns*: rerun requests the browser sent, from the press until the page settled;
- *redraws in drag*: how often the main chart's decoded data (gd._fullData) changed between the
  press and the release, sampled at every animation frame;
- *server CPU*: the server process's user + system time from the press until settled (10 ms
  ticks: the mean over the drags is what counts);
- *bytes*: websocket bytes received from the server from the press until settled.

Prints one row per drag and the means. Record results in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import cpu_seconds, streamlit_server  # noqa: E402
from tests.conftest import CHROMIUM, CHROMIUM_ARGS, wait_for_app  # noqa: E402

MAIN_SLIDER = "[data-testid=stMain] [data-testid=stSlider]"

# Counts the main chart's redraws: at every animation frame, the first chart's decoded data is
# compared by identity (Plotly replaces gd._fullData on every redraw), then by content.
_PROBE = """
() => {
  const probe = {changes: 0, released: false, running: true};
  const chart = () => document.querySelector('[data-testid=stMain] .js-plotly-plot');
  const signature = gd => JSON.stringify((gd._fullData || []).map(t => [t.x, t.y]));
  let seen = null, seenSignature = null;
  const tick = () => {
    if (!probe.running) return;
    const gd = chart();
    if (gd && gd._fullData !== seen) {
      const now = signature(gd);
      if (seen !== null && now !== seenSignature && !probe.released) probe.changes += 1;
      seen = gd._fullData;
      seenSignature = now;
    }
    requestAnimationFrame(tick);
  };
  tick();
  window.__drag = probe;
}
"""


def socket_counter(page) -> dict:
    """Websocket traffic of the page: bytes received, and rerun requests sent."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    counts = {"received": 0, "reruns": 0}

    def on_websocket(ws) -> None:
        def received(payload) -> None:
            counts["received"] += len(payload) if isinstance(payload, (bytes, str)) else 0

        def sent(payload) -> None:
            if isinstance(payload, bytes):
                message = BackMsg.FromString(payload)
                counts["reruns"] += message.WhichOneof("type") == "rerun_script"

        ws.on("framereceived", received)
        ws.on("framesent", sent)

    page.on("websocket", on_websocket)
    return counts


def settle(page) -> None:
    page.wait_for_timeout(300)  # a rerun request leaves after the release
    wait_for_app(page)
    page.wait_for_timeout(200)  # late deltas of the same run


def drag(page, counts: dict, pid: int, steps: int, to_right: bool) -> dict:
    # Streamlit 1.67's slider (react-aria): the track is the horizontal element that takes the
    # pointer; the thumb holds the hidden range input two levels down.
    track = page.locator(f"{MAIN_SLIDER} [data-orientation=horizontal][style*='touch-action']").first
    thumb = page.locator(f"{MAIN_SLIDER} input[type=range]").first.locator("xpath=../..")
    track.scroll_into_view_if_needed()
    box, knob = track.bounding_box(), thumb.bounding_box()
    start_x, y = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
    end_x = box["x"] + box["width"] + 20 if to_right else box["x"] - 20
    page.evaluate(_PROBE)
    before = dict(counts)
    cpu = cpu_seconds(pid)
    page.mouse.move(start_x, y)
    page.mouse.down()
    for step in range(1, steps + 1):
        page.mouse.move(start_x + (end_x - start_x) * step / steps, y)
        page.wait_for_timeout(16)
    redraws = page.evaluate("window.__drag.released = true, window.__drag.changes")
    page.mouse.up()
    settle(page)
    page.evaluate("window.__drag.running = false")
    return {"reruns": counts["reruns"] - before["reruns"], "redraws": redraws,
            "cpu_ms": 1000 * (cpu_seconds(pid) - cpu),
            "kB": (counts["received"] - before["received"]) / 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slug", nargs="?", default="laplace")
    parser.add_argument("--drags", type=int, default=6, help="timed drags (end to end, alternating)")
    parser.add_argument("--steps", type=int, default=30, help="pointer moves per drag")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    os.environ.setdefault("DPLAB_WARM", "0")  # the drag's own values are visited untimed first
    with streamlit_server() as (pid, port), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        url = f"http://127.0.0.1:{port}/{args.slug}"
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        counts = socket_counter(page)
        page.goto(url)
        wait_for_app(page)
        page.locator(MAIN_SLIDER).first.wait_for(timeout=30_000)
        settle(page)
        first_visit = counts["received"] / 1000
        # One untimed drag each way: every value the drags land on has been shown once.
        for to_right in (True, False):
            drag(page, counts, pid, args.steps, to_right)
        rows = [drag(page, counts, pid, args.steps, to_right=drag_no % 2 == 0)
                for drag_no in range(args.drags)]
        errors = page.locator("[data-testid=stException]").count()
        browser.close()
    print(f"{args.slug}: first visit {first_visit:.0f} kB received; {args.drags} drags of "
          f"{args.steps} moves, errors on the page: {errors}")
    print(f"{'drag':>4}{'reruns':>8}{'redraws in drag':>17}{'server CPU ms':>15}{'kB':>8}")
    for number, row in enumerate(rows, 1):
        print(f"{number:>4}{row['reruns']:>8}{row['redraws']:>17}{row['cpu_ms']:>15.0f}{row['kB']:>8.1f}")
    print(f"{'mean':>4}{statistics.mean(r['reruns'] for r in rows):>8.1f}"
          f"{statistics.mean(r['redraws'] for r in rows):>17.1f}"
          f"{statistics.mean(r['cpu_ms'] for r in rows):>15.1f}"
          f"{statistics.mean(r['kB'] for r in rows):>8.1f}")


if __name__ == "__main__":
    main()
