"""Where does the class poll's closed-form interval fall short of its level, beyond the tests?

    python -m bench.rr_interval_scan [largest_n] [--epsilon E ...]

For every ε the poll offers (fair coins, ε = ln 3, and the "Choose ε" values 0.1 … 5) and every
class size n up to `largest_n` (default 1000), computes the exact coverage of
π̂ ± (z·√(n·q(1 − q)) + ½)/(n(2q − 1)) for every true Yes count, with the same routine as
dp.rr_inference (exact distribution of the Yes count, tails below 1e-13 dropped), and prints the
class sizes where some true count is covered less than 95% of the time. dp.rr_inference widens
the interval at exactly those sizes up to its EXACT_MAX_N; this scan says what happens above.
Recorded result (2026-11-25): only ε = 5 at n = 8, 9, 84–88, 243, 244 for n ≤ 1000; nothing at
ε = 2, 3 or 5 for 1000 < n ≤ 3000.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.special import expit
from scipy.stats import norm

from dp.rr_inference import _MARGIN, _coverage_by_true_count

POLL_EPSILONS = [math.log(3), 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0]


def short_sizes(epsilon: float, sizes, level: float = 0.95) -> list[int]:
    q = float(expit(epsilon))
    z = float(norm.ppf(0.5 + level / 2))
    return [int(n) for n in sizes
            if _coverage_by_true_count(n, q, z * math.sqrt(n * q * (1 - q)) + 0.5).min()
            < level + _MARGIN]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("largest_n", type=int, nargs="?", default=1000)
    parser.add_argument("--smallest-n", type=int, default=1)
    parser.add_argument("--epsilon", type=float, nargs="*", default=POLL_EPSILONS)
    args = parser.parse_args()
    sizes = np.arange(args.smallest_n, args.largest_n + 1)
    for epsilon in args.epsilon:
        start = time.perf_counter()
        short = short_sizes(epsilon, sizes)
        print(f"ε = {epsilon:.4g}: closed form short of 95% at n = {short or 'none'} "
              f"({time.perf_counter() - start:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
