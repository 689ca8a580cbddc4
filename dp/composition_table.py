"""The exact Laplace composition curve, computed once for every point a lesson can ask for.

`dp.accounting.laplace_composition_epsilon` is exact but costly: an FFT over ~100·k grid
points, 5 ms at k = 100 and 90 ms at k = 10⁴. The composition lesson draws the curve at 13
values of k for each (ε, δ′) a student picks: about 0.2 s of CPU the first time anyone
picks that pair, which a lecture hall exploring ε at once turns into a queue.

So the values for the lesson's whole grid (ε on the course's ε slider, δ′ on its δ slider,
k = 1, 2, 5, …, 10⁴) are computed ahead, by

    python -m dp.composition_table        # rewrites dp/laplace_composition.json (~1 min)

and shipped in `laplace_composition.json`. `exact_laplace_epsilon` reads a point from the
table when it holds it, and otherwise computes it (and remembers it for the process).
tests/test_composition_table.py checks that the table covers the page's grid and that its
values are what the live computation gives.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

from dp import _checks as check
from dp.accounting import laplace_composition_epsilon

TABLE_PATH = Path(__file__).with_name("laplace_composition.json")

# The grid: the course's ε options (ui.params.EPSILONS), its δ options (ui.params.DELTAS)
# and the composition page's k options. tests/test_composition_table.py checks they agree.
GRID_EPSILONS = (0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7,
                 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0)
GRID_DELTAS = tuple(10.0**-k for k in range(12, 0, -1))
GRID_KS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000)


@lru_cache(maxsize=1)
def _table() -> dict[tuple[float, float, int], float]:
    if not TABLE_PATH.exists():
        return {}
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    return {(epsilon, delta, k): value
            for epsilon, by_delta in zip(data["epsilons"], data["values"], strict=True)
            for delta, by_k in zip(data["deltas"], by_delta, strict=True)
            for k, value in zip(data["ks"], by_k, strict=True)}


def tabulated(epsilon: float, delta: float) -> bool:
    """Whether the table holds the whole curve (every k of GRID_KS) at (ε, δ′)."""
    table = _table()
    return all((epsilon, delta, k) in table for k in GRID_KS)


@lru_cache(maxsize=4096)
def _computed(epsilon: float, k: int, delta: float) -> float:
    return laplace_composition_epsilon(1 / epsilon, k, delta)


def exact_laplace_epsilon(epsilon, k, delta) -> float:
    """The exact total ε at δ′ of k Laplace releases, each ε-DP (b = Δ/ε):
    `laplace_composition_epsilon(1/ε, k, δ′)` (only a = Δ/b = ε matters, so Δ = 1).

    Read from the precomputed table where it holds the point, else computed once per
    process (pure, so every session shares the result)."""
    epsilon = check.positive("epsilon", epsilon)
    delta = check.open_unit("delta", delta)
    k = check.count("k", k)
    value = _table().get((epsilon, delta, k))
    return value if value is not None else _computed(epsilon, k, delta)


def compute_table(epsilons=GRID_EPSILONS, deltas=GRID_DELTAS, ks=GRID_KS) -> dict:
    """Every point of the grid, computed live (the table's contents)."""
    return {"epsilons": list(epsilons), "deltas": list(deltas), "ks": list(ks),
            "values": [[[laplace_composition_epsilon(1 / epsilon, k, delta) for k in ks]
                        for delta in deltas] for epsilon in epsilons]}


def main() -> None:
    data = compute_table()
    assert all(math.isfinite(v) for row in data["values"] for col in row for v in col)
    data = {"about": "dp.composition_table: laplace_composition_epsilon(1/epsilon, k, delta) "
                     "for every epsilon, delta and k below; regenerate with "
                     "`python -m dp.composition_table`.", **data}
    TABLE_PATH.write_text(json.dumps(data, indent=None) + "\n", encoding="utf-8")
    print(f"wrote {TABLE_PATH} ({len(data['epsilons'])} ε × {len(data['deltas'])} δ × "
          f"{len(data['ks'])} k)")


if __name__ == "__main__":
    main()
