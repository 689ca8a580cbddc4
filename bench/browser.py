"""Key press to updated plot, in headless Chromium, for every page against a bare reference.

    python bench/browser.py [slug ...] [--presses 15] [--url http://127.0.0.1:8080]

One `streamlit run app.py` serves the lessons and, because DPLAB_BENCH=1, two hidden
reference pages from bench/: "bench-reference" (one slider, one number; the issue's bare
page) and "bench-reference-chart" (the same plus a two-point Plotly chart). For each page
the main slider (the first one in the main area) gets keyboard focus and ArrowRight /
ArrowLeft presses walk it up to its end and back, so a run sees both first-time values and
revisited, cached ones. A key press reruns at once (a drag would wait for the release).

Each press is timed inside the page, on the browser's clock: from the keydown event until
the first chart's decoded data (gd._fullData; Plotly 7 ships arrays base64-encoded, so
gd.data would not do) differs from before the press ("first"), and until the last chart
that changes has changed ("all"). On the reference page the number's text stands in for
the chart. The page then settles (script finished) before the next press.

`--url` times a server that is already running instead (it must have been started with
DPLAB_BENCH=1), e.g. replicas behind nginx (deploy/replicas.py).

Prints median and p95 per page, and each page's median over the bare reference's median
(target ≤ 1.3) and over the chart reference's. Record results in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import SLIDER_PAGES  # noqa: E402
from tests.conftest import CHROMIUM, CHROMIUM_ARGS, serve_app, wait_for_app  # noqa: E402
from ui.course import BENCH_PAGES, LESSONS  # noqa: E402

MAIN_SLIDER = "[data-testid=stMain] [data-testid=stSlider] input[type=range]"
REFERENCE, REFERENCE_CHART = (url_path for _, _, url_path in BENCH_PAGES)

# Installed once per page load. arm() snapshots what is on screen; a MutationObserver then
# notes, for every chart (or, on the reference page, the number), the first moment its
# content differs from the snapshot. Comparing gd._fullData by identity first keeps the
# observer cheap: only a chart Plotly has redrawn gets serialised.
_PROBE = """
() => {
  const charts = () => Array.from(document.querySelectorAll('.js-plotly-plot'));
  const chartSignature = gd => JSON.stringify([
    (gd._fullData || []).map(t => [t.x, t.y, t.z, t.values]),
    gd._fullLayout && gd._fullLayout.title && gd._fullLayout.title.text,
  ]);
  const number = () => {
    const el = document.querySelector('[data-testid=stMain] [data-testid=stMetricValue]');
    return el ? el.textContent : null;
  };
  const probe = {keydownAt: null, changes: {}, observer: null, sentAt: null, arrivals: []};
  window.addEventListener('keydown', e => {
    if (probe.armed && probe.keydownAt === null) probe.keydownAt = e.timeStamp;
  }, true);
  // Where the time goes: when the rerun request leaves, and when each server message lands.
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (probe.armed && probe.keydownAt !== null && probe.sentAt === null) probe.sentAt = performance.now();
    if (!this.__benchListening) {
      this.__benchListening = true;
      this.addEventListener('message', () => { if (probe.armed) probe.arrivals.push(performance.now()); });
    }
    return send.call(this, data);
  };
  probe.arm = watchNumber => {
    probe.keydownAt = null;
    probe.sentAt = null;
    probe.arrivals = [];
    probe.changes = {};
    probe.armed = true;
    // Charts are followed by element, not by position: while a rerun replaces elements the
    // list shifts, and a chart remounted with the same data is not a change.
    const before = new Map(charts().map(gd => [gd, {fullData: gd._fullData, signature: chartSignature(gd)}]));
    const signaturesBefore = new Set(Array.from(before.values(), b => b.signature));
    const changed = new Set();
    const numberBefore = number();
    const check = () => {
      const now = performance.now();
      if (watchNumber) {
        if (!('number' in probe.changes) && number() !== numberBefore) probe.changes.number = now;
        return;
      }
      for (const gd of charts()) {
        if (changed.has(gd)) continue;
        const old = before.get(gd);
        if (old && old.fullData === gd._fullData) continue;
        const signature = chartSignature(gd);
        if (old ? signature !== old.signature : !signaturesBefore.has(signature)) {
          changed.add(gd);
          probe.changes[changed.size] = now;
        } else if (old) {
          old.fullData = gd._fullData;  // redrawn with the same data
        }
      }
    };
    if (probe.observer) probe.observer.disconnect();
    probe.observer = new MutationObserver(check);
    probe.observer.observe(document.body,
      {subtree: true, childList: true, attributes: true, characterData: true});
  };
  probe.collect = () => {
    probe.observer.disconnect();
    probe.armed = false;
    const changedAt = Object.values(probe.changes);
    const times = changedAt.map(t => t - probe.keydownAt);
    const first = Math.min(...changedAt);
    const landed = probe.arrivals.filter(t => t <= first);
    const lastBefore = landed.length ? Math.max(...landed) : null;
    return {keydown: probe.keydownAt !== null, first: times.length ? Math.min(...times) : null,
            all: times.length ? Math.max(...times) : null, charts: times.length,
            toSend: probe.sentAt === null ? null : probe.sentAt - probe.keydownAt,
            toLastMessage: (probe.sentAt === null || lastBefore === null) ? null : lastBefore - probe.sentAt,
            toDraw: lastBefore === null ? null : first - lastBefore};
  };
  window.__bench = probe;
}
"""

_SLIDER_POSITION = """el => [Number(el.value), Number(el.min), Number(el.max),
                              el === document.activeElement]"""


def p95(values: list[float]) -> float:
    """Nearest-rank 95th percentile (with 15 presses, the slowest one)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def time_presses(page, url: str, presses: int, watch_number: bool) -> dict:
    """Open the page, then time `presses` slider key presses (after one untimed one)."""
    page.goto(url)
    wait_for_app(page)
    slider = page.locator(MAIN_SLIDER).first
    try:  # "not running" can come before the first run has started
        slider.wait_for(timeout=20_000)
    except Exception:  # noqa: BLE001
        return {"skipped": "no slider in the main area"}
    wait_for_app(page)
    page.evaluate(_PROBE)
    slider.focus()
    firsts, alls, changed, misses, refocused = [], [], [], 0, 0
    parts: dict[str, list[float]] = {"toSend": [], "toLastMessage": [], "toDraw": []}
    key = "ArrowRight"
    for press in range(presses + 1):
        value, low, high, focused = slider.evaluate(_SLIDER_POSITION)
        if not focused:  # rare, but a press must never go to another widget
            refocused += 1
            slider.focus()
        if value >= high:
            key = "ArrowLeft"
        elif value <= low:
            key = "ArrowRight"
        page.evaluate(f"window.__bench.arm({'true' if watch_number else 'false'})")
        page.keyboard.press(key)
        try:
            page.wait_for_function("Object.keys(window.__bench.changes).length > 0", timeout=30_000)
        except Exception:  # noqa: BLE001 (a press that changed nothing is counted, not fatal)
            misses += 1
        wait_for_app(page)
        page.wait_for_timeout(250)  # late charts of the same rerun
        result = page.evaluate("window.__bench.collect()")
        if press == 0 or result["first"] is None or not result["keydown"]:
            continue
        firsts.append(result["first"])
        alls.append(result["all"])
        changed.append(result["charts"])
        for part, values in parts.items():
            if result[part] is not None:
                values.append(result[part])
    if not firsts:
        return {"skipped": "no press changed a chart"}
    return {"median": statistics.median(firsts), "p95": p95(firsts),
            "all_median": statistics.median(alls), "all_p95": p95(alls),
            "charts": statistics.median(changed), "misses": misses, "refocused": refocused,
            "n": len(firsts),
            **{part: statistics.median(values) if values else math.nan
               for part, values in parts.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="lesson slugs (default: every lesson)")
    parser.add_argument("--presses", type=int, default=15, help="timed presses per page")
    parser.add_argument("--url", help="a running server (started with DPLAB_BENCH=1) to time "
                                      "instead of starting one")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    os.environ["DPLAB_BENCH"] = "1"  # the server registers the hidden reference pages
    # Home and the class-poll pages have no slider (see bench/load.py's SLIDER_PAGES).
    lessons = [lesson for lesson in LESSONS if lesson.slug in SLIDER_PAGES
               and (not args.slugs or lesson.slug in args.slugs)]
    rows: dict[str, dict] = {}
    server = contextlib.nullcontext(args.url.rstrip("/")) if args.url else serve_app()
    with server as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        # One untimed visit of every page first: imports, and the first-ever draw of
        # each chart, are not what a student waits for when moving a slider.
        for path in [REFERENCE, REFERENCE_CHART, *(lesson.slug for lesson in lessons)]:
            page.goto(f"{url}/{path}")
            wait_for_app(page)
        rows[REFERENCE] = time_presses(page, f"{url}/{REFERENCE}", args.presses, True)
        rows[REFERENCE_CHART] = time_presses(page, f"{url}/{REFERENCE_CHART}", args.presses, False)
        for lesson in lessons:
            rows[lesson.slug] = time_presses(page, f"{url}/{lesson.slug}", args.presses, False)
        browser.close()

    bare, chart = rows[REFERENCE]["median"], rows[REFERENCE_CHART]["median"]
    print(f"Key press → plot updated, headless Chromium, {args.presses} presses per page "
          f"(ms, browser clock)")
    print(f"{'page':<24}{'median':>8}{'p95':>8}{'all med':>9}{'all p95':>9}"
          f"{'÷ bare':>8}{'÷ chart':>9}{'charts':>8}{'send':>6}{'server':>8}{'draw':>6}  notes")
    for name, row in rows.items():
        if "skipped" in row:
            print(f"{name:<24}{'':>79}  skipped: {row['skipped']}")
            continue
        notes = "; ".join(
            [f"{row['misses']} presses changed no chart"] * bool(row["misses"])
            + [f"focus lost {row['refocused']}x (refocused)"] * bool(row["refocused"]))
        print(f"{name:<24}{row['median']:>8.0f}{row['p95']:>8.0f}{row['all_median']:>9.0f}"
              f"{row['all_p95']:>9.0f}{row['median'] / bare:>8.2f}{row['median'] / chart:>9.2f}"
              f"{row['charts']:>8g}{row['toSend']:>6.0f}{row['toLastMessage']:>8.0f}"
              f"{row['toDraw']:>6.0f}  {notes}")
    print("Home and the class-poll pages have no slider and are not timed. "
          "'all' = until the last chart that changed; "
          "charts = how many charts one press changed (median; the number on the bare page).\n"
          "Medians of the parts of 'median': send = key press → rerun request sent; server = "
          "request sent → the last server message before the first chart changed; draw = that "
          "message → the chart changed (the browser decoding and drawing).")


if __name__ == "__main__":
    main()
