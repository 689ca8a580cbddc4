"""Per-page rerun time under AppTest, and how much of it is our own compute.

    python bench/pages.py [slug ...] [--runs N] [--no-extremes]

For every registered page: the median and p95 wall time of a full script rerun through
app.py (AppTest, so Streamlit's own overhead is included), and "ours": the time spent
inside dp/ and ui/charts/ functions during the rerun. Reruns hit the pages' caches as a
slider move that returns to a seen value would; moving to a new value costs more.

Twice per page: at default settings, and with every main widget (every keyed slider and
number input, as tests/test_pages.py finds them) at its most expensive extreme, set
through the link as a shared URL would. The most expensive end of each widget is found by
timing one first (cold-cache) run with that widget alone at its minimum and at its
maximum; the "cold" column is the first run with all of them at once, before any cache
holds its results. Prints a table; record results in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import inspect
import math
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import app_test  # noqa: E402
from ui.course import LESSONS  # noqa: E402


class OwnComputeTimer:
    """Wall time spent inside dp/ and ui/charts/ functions, from any thread.

    AppTest runs the page script in its own thread, where a cProfile started here sees
    nothing; so every function of those packages is wrapped instead, and only the
    outermost call of a nest is counted.
    """

    def __init__(self) -> None:
        self.seconds = 0.0
        self._local = threading.local()
        self._wrapped: dict[int, object] = {}

    def _wrap(self, func):
        timer = self

        @functools.wraps(func)
        def timed(*args, **kwargs):
            depth = getattr(timer._local, "depth", 0)
            timer._local.depth = depth + 1
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                timer._local.depth = depth
                if depth == 0:
                    timer.seconds += time.perf_counter() - start

        return timed

    def install(self) -> None:
        import dp  # noqa: F401  (load every dp module before patching)
        import ui.charts  # noqa: F401

        for lesson in LESSONS:  # chart modules are imported by the pages
            module = f"ui.charts.{lesson.slug.replace('-', '_')}"
            with contextlib.suppress(ImportError):
                importlib.import_module(module)
        for name, module in list(sys.modules.items()):
            if not (name == "dp" or name.startswith(("dp.", "ui.charts"))):
                continue
            for attr, value in list(vars(module).items()):
                if inspect.isfunction(value) and value.__module__.startswith(("dp", "ui.charts")):
                    if id(value) not in self._wrapped:
                        self._wrapped[id(value)] = self._wrap(value)
                    setattr(module, attr, self._wrapped[id(value)])


def first_run_seconds(lesson, query: dict) -> float:
    start = time.perf_counter()
    at = app_test(lesson, query)
    seconds = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
    return seconds


def most_expensive_extremes(lesson) -> dict[str, str]:
    """Each main widget at whichever of its two ends makes a first run slower."""
    from tests.test_pages import _extremes, _sliders

    chosen = {}
    for widget in _sliders(app_test(lesson)):
        low, high = _extremes(widget)
        chosen[widget.key] = max((low, high), key=lambda v: first_run_seconds(lesson, {widget.key: v}))
    return chosen


def bench_page(lesson, runs: int, timer: OwnComputeTimer, query: dict | None = None) -> dict:
    timer.seconds = 0.0
    start = time.perf_counter()
    at = app_test(lesson, query)  # first run: cold caches (and imports), not in the median
    cold = time.perf_counter() - start
    cold_ours = timer.seconds
    totals, ours = [], []
    for _ in range(runs):
        timer.seconds = 0.0
        start = time.perf_counter()
        at.run()
        totals.append(time.perf_counter() - start)
        ours.append(timer.seconds)
    assert not at.exception, [e.value for e in at.exception]
    return {
        "median_ms": 1000 * statistics.median(totals),
        "p95_ms": 1000 * sorted(totals)[max(0, math.ceil(0.95 * len(totals)) - 1)],
        "ours_ms": 1000 * statistics.median(ours),
        "cold_ms": 1000 * cold,
        "cold_ours_ms": 1000 * cold_ours,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-extremes", action="store_true", help="defaults only")
    args = parser.parse_args()
    chosen = [lesson for lesson in LESSONS if not args.slugs or lesson.slug in args.slugs]
    timer = OwnComputeTimer()
    timer.install()
    print(f"AppTest full rerun through app.py, ms; median and p95 of {args.runs} warm reruns, "
          f"'ours' = inside dp/ and ui/charts/ (median), cold = the first run")
    header = f"{'page':<22}{'median':>8}{'p95':>8}{'ours':>7}"
    if not args.no_extremes:
        header += f"  │ extremes:{'cold':>7}{'ours':>7}{'median':>8}{'p95':>8}{'ours':>7}"
    print(header)
    extremes_used = {}
    for lesson in chosen:
        row = bench_page(lesson, args.runs, timer)
        line = f"{lesson.slug:<22}{row['median_ms']:>8.1f}{row['p95_ms']:>8.1f}{row['ours_ms']:>7.1f}"
        if not args.no_extremes:
            extremes_used[lesson.slug] = query = most_expensive_extremes(lesson)
            top = bench_page(lesson, args.runs, timer, query)
            line += (f"  │ {'':>9}{top['cold_ms']:>7.0f}{top['cold_ours_ms']:>7.0f}"
                     f"{top['median_ms']:>8.1f}{top['p95_ms']:>8.1f}{top['ours_ms']:>7.1f}")
        print(line, flush=True)
    for slug, query in extremes_used.items():
        print(f"  {slug} extremes: " + (", ".join(f"{k}={v}" for k, v in sorted(query.items())) or "(no keyed sliders)"))


if __name__ == "__main__":
    main()
