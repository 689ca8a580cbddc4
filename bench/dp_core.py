"""Microbenchmarks of dp functions on the hot paths of the lesson pages.

    python bench/dp_core.py

Each line: median time per call over repeated runs. Where a naïve baseline is
instructive it is timed next to the real implementation.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dp  # noqa: E402


def timed(label: str, call, repeat: int = 20) -> float:
    call()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    ms = 1000 * statistics.median(times)
    print(f"{label:<62}{ms:>10.3f} ms")
    return ms


def naive_rr_survey(n: int, fraction: float, epsilon: float, rng) -> float:
    """One survey, person by person: what rr_simulate avoids."""
    truth = (rng.random(n) < fraction).astype(int)
    return dp.rr_estimate(dp.randomized_response(truth, epsilon, rng), epsilon)


def main() -> None:
    rng = np.random.default_rng(0)
    print("Randomized response, one survey of n people:")
    for n in (10**4, 10**6, 10**7):
        timed(f"  per person (randomized_response + rr_estimate), n={n:.0e}",
              lambda n=n: naive_rr_survey(n, 0.3, 1.0, rng), repeat=5)
        timed(f"  binomial counts (rr_simulate, trials=1), n={n:.0e}",
              lambda n=n: dp.rr_simulate(n, 0.3, 1.0, rng))
    timed("  rr_simulate n=1e9, trials=2000 (a whole histogram)",
          lambda: dp.rr_simulate(10**9, 0.3, 1.0, rng, trials=2000))

    print("Calibration and accounting:")
    timed("  gaussian_sigma analytic (brentq)", lambda: dp.gaussian_sigma(1, 1, 1e-5))
    timed("  gaussian_epsilon", lambda: dp.gaussian_epsilon(3.0, 1e-5))
    timed("  optimal_composition eps=0.1 k=100", lambda: dp.optimal_composition(0.1, 100, 1e-5))
    timed("  optimal_composition eps=0.1 k=10000", lambda: dp.optimal_composition(0.1, 10_000, 1e-5),
          repeat=5)
    timed("  laplace_composition_epsilon k=10", lambda: dp.laplace_composition_epsilon(10, 10, 1e-5))
    timed("  laplace_composition_epsilon k=100", lambda: dp.laplace_composition_epsilon(10, 100, 1e-5),
          repeat=5)

    print("Selection:")
    scores = rng.integers(0, 1000, size=10_000)
    timed("  exponential_probabilities, 10^4 candidates", lambda: dp.exponential_probabilities(scores, 1, 1))
    timed("  report_noisy_max, 20 counts x 10^4 trials",
          lambda: dp.report_noisy_max(scores[:20], 1, rng, size=10_000))
    data = rng.random(1001)
    timed("  private_median, n=1001, 2000 draws",
          lambda: dp.private_median(data, 0, 1, 1, rng, size=2000))

    print("Attacks:")
    bits = rng.integers(0, 2, 100)
    timed("  reconstruction_attack n=100, k=400, E=2",
          lambda: dp.reconstruction_attack(bits, 400, 2.0, rng), repeat=3)
    bits = rng.integers(0, 2, 300)
    timed("  reconstruction_attack n=300, k=1200, E=5",
          lambda: dp.reconstruction_attack(bits, 1200, 5.0, rng), repeat=3)


if __name__ == "__main__":
    main()
