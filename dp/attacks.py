"""What an attacker can and cannot learn: posterior bounds, hypothesis tests, and two attacks.

- posterior_bounds: how far ε-DP lets a Bayesian attacker's belief move (Anna and Patrick,
  Tammy the tax investigator).
- max_true_positive_rate: the best membership test any attacker can build against (ε, δ)-DP.
- averaging_attack_queries: how many repeated Laplace answers pin down a count.
- reconstruction_attack: Dinur & Nissim's linear-programming attack on noisy subset sums.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.special import expit, logit, ndtri

from dp import _checks as check
from dp.noise import laplace_scale


def _probabilities(name: str, values) -> np.ndarray:
    """A float array of probabilities in [0, 1]."""
    arr = check.finite_array(name, values)
    if np.any((arr < 0) | (arr > 1)):
        raise ValueError(f"{name} must be in [0, 1]")
    return arr


def _scalar_or_array(values):
    return values if values.ndim else float(values)


def posterior_bounds(prior, epsilon):
    """The range an ε-DP output can move a prior p = Pr[x ∈ D] to, whatever the output y.

    Bayes' rule with Pr[y | x ∉ D] ≤ e^ε·Pr[y | x ∈ D] and the reverse gives

        lower = p / (p + e^ε(1 − p)),    upper = p·e^ε / (p·e^ε + 1 − p),

    i.e. the prior odds are multiplied by at most e^ε either way:
    logit(posterior) ∈ [logit(p) − ε, logit(p) + ε]. Computed as expit(logit(p) ± ε),
    which does not overflow at large ε. These are tighter than the p·e^−ε ≤ … ≤ p·e^ε
    of the ML lecture's Anna/Patrick example (DDA4210, "Privacy in Machine Learning").

    prior is a probability in the closed interval [0, 1] (scalar or array): a certain
    prior (0 or 1) stays certain. Returns (lower, upper) of the same shape.
    """
    p = _probabilities("prior", prior)
    epsilon = check.positive("epsilon", epsilon)
    with np.errstate(divide="ignore"):
        log_odds = logit(p)
    return _scalar_or_array(expit(log_odds - epsilon)), _scalar_or_array(expit(log_odds + epsilon))


def max_true_positive_rate(false_positive_rate, epsilon, delta=0.0):
    """The highest power of any test for "x ∈ D" against an (ε, δ)-DP mechanism.

        TPR ≤ min(e^ε·FPR + δ,  1 − e^−ε·(1 − δ − FPR)),   clipped to [0, 1].

    (ε, δ)-DP is exactly this bound on the trade-off between false and true positive
    rates of every rejection region (Wasserman & Zhou 2010, Thm 2.4;
    Kairouz, Oh & Viswanath 2015, Thm 2.1). Vectorised in the false positive rate.
    """
    alpha = _probabilities("false_positive_rate", false_positive_rate)
    epsilon = check.positive("epsilon", epsilon)
    delta = check.delta_or_zero("delta", delta)
    with np.errstate(divide="ignore"):
        # e^ε·FPR as exp(ε + ln FPR), capped at 1 before exponentiating: no overflow at large ε.
        scaled = np.exp(np.minimum(epsilon + np.log(alpha), 0.0))
    complement = 1 - np.exp(-epsilon) * (1 - delta - alpha)
    return _scalar_or_array(np.clip(np.minimum(scaled + delta, complement), 0.0, 1.0))


def averaging_attack_queries(epsilon, sensitivity=1.0, half_width=0.5, confidence=0.95) -> int:
    """How many Lap(Δ/ε) answers to the same query pin its true value to ± half_width.

    The mean of m independent answers has standard deviation √2·b/√m (Var Lap(b) = 2b²).
    Its normal-approximation confidence interval is narrower than half_width h once

        z·√2·b/√m < h,   i.e.   m > (z·√2·b/h)²,   z = Φ⁻¹((1 + confidence)/2).

    Returns the smallest such integer m. With h = ½, rounding the mean then discloses an
    integer count (the averaging attack; "Introduction to Differential Privacy" blog post,
    Fig. 5, count 4 at ε = 0.5).
    """
    b = laplace_scale(sensitivity, epsilon)
    half_width = check.positive("half_width", half_width)
    confidence = check.open_unit("confidence", confidence)
    z = ndtri((1 + confidence) / 2)
    return math.floor((z * math.sqrt(2) * b / half_width) ** 2) + 1


def _random_subset_queries(n, n_queries, rng) -> np.ndarray:
    """A k×n 0/1 matrix A: row j is a random subset, each person in it with probability ½."""
    return check.generator(rng).integers(0, 2, size=(n_queries, n))


def _noisy_subset_sums(queries, secret_bits, noise_bound, rng) -> np.ndarray:
    """The curator's answers a = A·x + e, with each e_j ~ Uniform[−E, E], so |e_j| ≤ E."""
    rng = check.generator(rng)
    return queries @ secret_bits + rng.uniform(-noise_bound, noise_bound, size=len(queries))


def _lp_reconstruct(queries, answers, noise_bound) -> np.ndarray:
    """Find x̂ ∈ [0, 1]^n with a − E ≤ A·x̂ + s⁺ − s⁻ ≤ a + E, minimising Σ(s⁺ + s⁻), s± ≥ 0.

    When the curator kept its promise |e_j| ≤ E, the true bits are feasible with zero
    slack, so this is Dinur & Nissim's feasibility LP; the slack only keeps the LP
    solvable if it did not. Then round x̂ at ½.
    """
    k, n = queries.shape
    eye = sparse.eye_array(k)
    rows = LinearConstraint(
        sparse.hstack([queries, eye, -eye]), answers - noise_bound, answers + noise_bound
    )
    cost = np.concatenate([np.zeros(n), np.ones(2 * k)])
    box = Bounds(np.zeros(n + 2 * k), np.concatenate([np.ones(n), np.full(2 * k, np.inf)]))
    # milp with no integer variables is HiGHS's plain LP solver (what linprog(method="highs")
    # calls), but it accepts two-sided rows: k rows instead of 2k, about twice as fast here.
    result = milp(cost, constraints=rows, bounds=box, options={"presolve": False})
    if result.x is None:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"reconstruction LP failed: {result.message}")
    return (result.x[:n] >= 0.5).astype(np.int64)


def reconstruction_attack(secret_bits, n_queries, noise_bound, rng) -> np.ndarray:
    """Dinur & Nissim 2003: reconstruct secret bits from k noisy random subset sums.

    The attacker asks k random subset-sum queries A (k×n, entries 0/1 with probability ½),
    the curator answers a = A·x + e with |e_j| ≤ E, and the attacker finds any
    x̂ ∈ [0, 1]^n with ‖A·x̂ − a‖_∞ ≤ E by linear programming and rounds it at ½.
    With k = O(n) queries and error E = αn, all but O(α²n²) = O(E²) bits come out right
    with high probability (Dinur & Nissim 2003, "Revealing information while preserving
    privacy", PODS, and the work that sharpened it; as stated in DDA4210). That is o(n)
    wrong bits whenever E = o(√n): noise below √n per answer is blatantly non-private.

    Returns the reconstructed bits, an int array of the same length as secret_bits.
    """
    rng = check.generator(rng)
    x = check.bits("secret_bits", secret_bits).ravel()  # a scalar counts as one person
    n_queries = check.count("n_queries", n_queries)
    noise_bound = check.non_negative("noise_bound", noise_bound)
    queries = _random_subset_queries(len(x), n_queries, rng)
    answers = _noisy_subset_sums(queries, x, noise_bound, rng)
    return _lp_reconstruct(queries, answers, noise_bound)
