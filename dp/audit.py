"""Auditing a mechanism: an empirical lower bound on its ε from samples.

ε-DP promises Pr[M(D) ∈ S] ≤ e^ε·Pr[M(D′) ∈ S] + δ for every event S and neighbours D, D′.
Sample M(D) and M(D′) many times, count how often each lands in one fixed S, and put
confidence bounds on the two probabilities: if even the pessimistic ratio exceeds e^ε̂,
the mechanism cannot be better than ε̂-DP. A correct mechanism passes (ε̂ ≤ ε with
probability ≥ 1 − α); a buggy one is caught when ε̂ > its claimed ε.
"""

from __future__ import annotations

import math

import numpy as np

# betaincinv(a, b, q) is scipy.stats.beta.ppf(q, a, b) without the distribution object's
# per-call overhead: the same number, about 170 times faster (the class game's bound is live).
from scipy.special import betaincinv

from dp import _checks as check


def _binomial_sample(hits, trials, alpha) -> tuple[int, int, float]:
    trials = check.count("trials", trials)
    hits = check.count("hits", hits, minimum=0)
    if hits > trials:
        raise ValueError(f"hits must be ≤ trials = {trials}, got {hits}")
    return hits, trials, check.open_unit("alpha", alpha)


def clopper_pearson_lower(hits: int, trials: int, alpha: float) -> float:
    """One-sided lower confidence bound on p from `hits` successes in `trials` Bernoulli(p):

        p̲ = Beta⁻¹(α; hits, trials − hits + 1),   and p̲ = 0 when hits = 0,

    so that Pr[p̲ ≤ p] ≥ 1 − α (Clopper & Pearson 1934).
    """
    hits, trials, alpha = _binomial_sample(hits, trials, alpha)
    return 0.0 if hits == 0 else float(betaincinv(hits, trials - hits + 1, alpha))


def clopper_pearson_upper(hits: int, trials: int, alpha: float) -> float:
    """One-sided upper bound p̄ = Beta⁻¹(1 − α; hits + 1, trials − hits), and 1 when hits = trials.

    Pr[p̄ ≥ p] ≥ 1 − α (Clopper & Pearson 1934).
    """
    hits, trials, alpha = _binomial_sample(hits, trials, alpha)
    return 1.0 if hits == trials else float(betaincinv(hits + 1, trials - hits, 1 - alpha))


def _event_hits(name: str, outputs, event) -> tuple[int, int]:
    """(number of outputs in S, number of outputs), with S given by the indicator `event`."""
    outputs = np.asarray(outputs)
    if outputs.ndim == 0 or len(outputs) == 0:
        raise ValueError(f"{name} must be a non-empty array of sampled outputs")
    inside = np.asarray(event(outputs))
    if inside.shape != (len(outputs),) or not np.all((inside == 0) | (inside == 1)):
        raise ValueError(
            f"event must map {name} to a boolean array of length {len(outputs)}, "
            f"got shape {inside.shape}"
        )
    return int(np.count_nonzero(inside)), len(outputs)


def audit_epsilon(outputs_d, outputs_d_prime, event, alpha=0.05, delta=0.0) -> float:
    """A lower bound on ε, valid with probability ≥ 1 − α, from samples of M(D) and M(D′).

    With p = Pr[M(D) ∈ S] and p′ = Pr[M(D′) ∈ S], (ε, δ)-DP gives p ≤ e^ε·p′ + δ, so

        ε ≥ ln((p − δ)/p′) ≥ ε̂ = max(0, ln((p̲ − δ)/p̄′)),

    where p̲ is a one-sided Clopper–Pearson lower bound on p and p̄′ an upper bound on p′,
    each at level α/2 (Bonferroni), so both hold together with probability ≥ 1 − α.
    If M is (ε, δ)-DP then Pr[ε̂ ≤ ε] ≥ 1 − α. (Ding et al. 2018, "Detecting Violations of
    Differential Privacy"; Jagielski, Ullman & Oprea 2020, "Auditing Differentially Private
    Machine Learning".)

    `event` maps an array of outputs to a boolean array, True where the output is in S.
    Choose S before sampling (otherwise the bound is not valid). Only this S and this
    direction are tested: to test Pr[M(D′) ∈ S] against Pr[M(D) ∈ S], swap the samples.
    """
    if not callable(event):
        raise ValueError("event must be a function from an array of outputs to booleans")
    alpha = check.open_unit("alpha", alpha)
    delta = check.delta_or_zero("delta", delta)
    hits, trials = _event_hits("outputs_d", outputs_d, event)
    hits_prime, trials_prime = _event_hits("outputs_d_prime", outputs_d_prime, event)
    p_low = clopper_pearson_lower(hits, trials, alpha / 2)
    p_prime_high = clopper_pearson_upper(hits_prime, trials_prime, alpha / 2)
    if p_low <= delta:
        return 0.0
    return max(0.0, math.log((p_low - delta) / p_prime_high))
