"""What a class poll can say from randomized answers: the debiased share and its 95% interval.

n people answer a yes/no question through randomized response with keep probability
q = e^ε/(1 + e^ε): each reports their true answer with probability q, the opposite otherwise.
Of the n reports, `yes` say Yes. The target is π, the share of the n respondents whose true
answer is Yes (the class itself, not a larger population it might be a sample of).

Neighbouring relation: replace-one (one person's true answer changes).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from scipy.stats import norm

from dp import _checks as check


def _scalar_or_array(values):
    values = np.asarray(values, dtype=float)
    return values if values.ndim else float(values)


def _counts(yes, n) -> tuple[np.ndarray, np.ndarray]:
    yes = check.finite_array("yes", yes)
    n = check.finite_array("n", n)
    if np.any(n < 1) or np.any(n != np.round(n)):
        raise ValueError("n must contain integers ≥ 1 (the number of reports)")
    if np.any(yes < 0) or np.any(yes > n) or np.any(yes != np.round(yes)):
        raise ValueError("yes must contain integers between 0 and n (the number of Yes reports)")
    return yes, n


def rr_debiased_share(yes, n, epsilon):
    """The unbiased estimate of π from `yes` Yes reports out of n:

        π̂ = (yes/n − (1 − q)) / (2q − 1),   q = e^ε/(1 + e^ε).

    E[yes/n] = (1 − q) + (2q − 1)·π, so π̂ is unbiased (Warner 1965). It can fall outside
    [0, 1] when few people have answered. Vectorised in yes and n.
    """
    yes, n = _counts(yes, n)
    q = expit(check.positive("epsilon", epsilon))
    return _scalar_or_array((yes / n - (1 - q)) / (2 * q - 1))


def rr_half_width(n, epsilon, level=0.95):
    """Half-width of the interval below, the same for every answer pattern:

        h = (z·√(n·q(1 − q)) + ½) / (n·(2q − 1)),   z = Φ⁻¹(½ + level/2).

    The number of Yes reports is a sum of n independent coin outcomes, each with variance
    q(1 − q) whatever the person's truth, so Var[π̂] = q(1 − q)/(n(2q − 1)²) exactly
    (Warner 1965; dp.local_dp.rr_rmse). The normal approximation gives z standard
    deviations; the ½ is the usual continuity correction for a count (Feller 1968, ch. VII),
    half a step of the lattice on which yes lives.
    """
    n = check.finite_array("n", n)
    if np.any(n < 1):
        raise ValueError("n must be ≥ 1 (the number of reports)")
    q = expit(check.positive("epsilon", epsilon))
    level = check.open_unit("level", level)
    z = norm.ppf(0.5 + level / 2)
    return _scalar_or_array((z * np.sqrt(n * q * (1 - q)) + 0.5) / (n * (2 * q - 1)))


def rr_interval(yes, n, epsilon, level=0.95):
    """A `level` confidence interval for π: [π̂ − h, π̂ + h] intersected with [0, 1].

    π̂ is rr_debiased_share and h is rr_half_width. Cutting the interval to [0, 1] never
    drops the truth, since π lies in [0, 1]. With the continuity correction the exact
    coverage is at least 95% on the grid checked in tests/test_rr_inference.py
    (n from 5 to 300, ε from 0.5 to 5, every π); this is checked, not a theorem.

    If the class is instead a random sample of a larger population, the sampling error
    π(1 − π)/n adds to the variance and this interval is too narrow for that target.
    Returns (lower, upper), vectorised in yes and n.
    """
    estimate = np.asarray(rr_debiased_share(yes, n, epsilon))
    half = np.asarray(rr_half_width(n, epsilon, level))
    lower = np.clip(estimate - half, 0.0, 1.0)
    upper = np.clip(estimate + half, 0.0, 1.0)
    return _scalar_or_array(lower), _scalar_or_array(upper)


def rr_running_estimates(reports, epsilon, level=0.95) -> dict[str, np.ndarray]:
    """After each report in arrival order: n, the reported Yes share, π̂ and its interval.

    Returns arrays "n" (1, 2, …), "reported_share", "estimate", "lower" and "upper",
    each as long as `reports` (a sequence of 0/1 randomized answers, at least one).
    """
    reports = check.bits("reports", reports)
    n = np.arange(1, reports.size + 1)
    yes = np.cumsum(reports)
    lower, upper = rr_interval(yes, n, epsilon, level)
    return {
        "n": n,
        "reported_share": yes / n,
        "estimate": np.asarray(rr_debiased_share(yes, n, epsilon)),
        "lower": np.asarray(lower),
        "upper": np.asarray(upper),
    }
