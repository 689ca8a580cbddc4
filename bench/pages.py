"""Per-page rerun time under AppTest, and how much of it is our own compute.

    python bench/pages.py [slug ...] [--runs N]

For every registered page: the median and p95 wall time of a full script rerun through
app.py (AppTest, so Streamlit's own overhead is included), and "ours": the time spent
inside dp/ and ui/charts/ functions during the rerun. Reruns hit the pages' caches as a
slider move that returns to a seen value would; moving to a new value costs more.
Prints a table; record results in docs/PERFORMANCE.md.
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


def bench_page(lesson, runs: int, timer: OwnComputeTimer) -> dict:
    at = app_test(lesson)  # first run: imports and cold caches, not counted
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
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    chosen = [lesson for lesson in LESSONS if not args.slugs or lesson.slug in args.slugs]
    print(f"{'page':<22}{'median ms':>10}{'p95 ms':>10}{'ours ms':>10}   (AppTest rerun, defaults, {args.runs} runs)")
    timer = OwnComputeTimer()
    timer.install()
    for lesson in chosen:
        row = bench_page(lesson, args.runs, timer)
        print(f"{lesson.slug:<22}{row['median_ms']:>10.1f}{row['p95_ms']:>10.1f}{row['ours_ms']:>10.1f}")


if __name__ == "__main__":
    main()
