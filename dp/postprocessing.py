"""Post-processing: what an analyst may do with a released number without spending budget.

If M is (ε, δ)-DP and f is any function that does not look at the data, then f∘M is
(ε, δ)-DP too (Dwork & Roth 2014, Prop 2.1): every event about f(M(D)) is an event about
M(D), so the same inequality holds. Rounding, clamping and rescaling below are such f.
Asking the database again is not: that is a new mechanism, and composition applies.
"""

from __future__ import annotations

import numpy as np

from dp import _checks as check

STEPS = ("round", "clamp", "percent")  # the order in which `post_process` applies them


def post_process(value, population, steps) -> float:
    """Apply post-processing steps to a released count, in the order of STEPS.

    - "round": to the nearest whole number (counts are integers);
    - "clamp": into [0, n], the only possible counts for n = population people;
    - "percent": 100·value/n, the count as a share of the population.
    None of them reads the data, only the released value and the public n.
    """
    value = float(check.finite_array("value", value))
    population = check.count("population", population)
    unknown = set(steps) - set(STEPS)
    if unknown:
        raise ValueError(f"steps must be among {STEPS}, got {sorted(unknown)}")
    if "round" in steps:
        value = float(np.round(value))
    if "clamp" in steps:
        value = float(np.clip(value, 0, population))
    if "percent" in steps:
        value = 100 * value / population
    return value
