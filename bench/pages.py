"""Per-page rerun time under AppTest, and how much of it is our own compute.

    python bench/pages.py [slug ...] [--runs N]

For every registered page: the median and p95 wall time of a full script rerun through
app.py (AppTest, so Streamlit's own overhead is included), and "ours": the time spent
inside dp/ and ui/charts/, measured with cProfile as the cumulative time of calls that
enter those packages from outside. Prints a table; record results in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import app_test  # noqa: E402
from ui.course import LESSONS  # noqa: E402

OURS = (str(ROOT / "dp"), str(ROOT / "ui" / "charts"))


def _our_seconds(profile: cProfile.Profile) -> float:
    """Cumulative time of calls that enter dp/ or ui/charts/ from outside them."""
    stats = pstats.Stats(profile).stats
    total = 0.0
    for (filename, _, _), (_, _, _, _, callers) in stats.items():
        if not filename.startswith(OURS):
            continue
        for (caller_file, _, _), (_, _, _, cumulative) in callers.items():
            if not caller_file.startswith(OURS):
                total += cumulative
    return total


def bench_page(lesson, runs: int) -> dict:
    at = app_test(lesson)  # first run: imports and cold caches, not counted
    totals, ours = [], []
    for _ in range(runs):
        profile = cProfile.Profile()
        start = time.perf_counter()
        profile.enable()
        at.run()
        profile.disable()
        totals.append(time.perf_counter() - start)
        ours.append(_our_seconds(profile))
    assert not at.exception, [e.value for e in at.exception]
    # Profiling inflates wall time; time the same reruns again without it.
    plain = []
    for _ in range(runs):
        start = time.perf_counter()
        at.run()
        plain.append(time.perf_counter() - start)
    return {
        "median_ms": 1000 * statistics.median(plain),
        "p95_ms": 1000 * sorted(plain)[max(0, int(0.95 * len(plain)) - 1)],
        "ours_ms": 1000 * statistics.median(ours),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    chosen = [lesson for lesson in LESSONS if not args.slugs or lesson.slug in args.slugs]
    print(f"{'page':<22}{'median ms':>10}{'p95 ms':>10}{'ours ms':>10}   (AppTest rerun, defaults, {args.runs} runs)")
    for lesson in chosen:
        row = bench_page(lesson, args.runs)
        print(f"{lesson.slug:<22}{row['median_ms']:>10.1f}{row['p95_ms']:>10.1f}{row['ours_ms']:>10.1f}")


if __name__ == "__main__":
    main()
