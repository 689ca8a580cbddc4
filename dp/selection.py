"""Private selection: the exponential mechanism, report-noisy-max and the private median."""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp, softmax

from dp import _checks as check
from dp.noise import laplace_scale


def exponential_probabilities(scores, epsilon, sensitivity) -> np.ndarray:
    """Pr[choose r] = exp(ε·u(r)/(2Δu)) / Σ_r' exp(ε·u(r')/(2Δu)).

    This is the ε-DP form of McSherry & Talwar 2007 (Dwork & Roth 2014, Thm 3.10).
    Dropping the 2 in the exponent, as some notes do, gives a 2ε-DP mechanism.
    Computed with a stable softmax, so large ε and large scores do not overflow.
    """
    scores = check.finite_array("scores", scores)
    epsilon = check.positive("epsilon", epsilon)
    sensitivity = check.positive("sensitivity", sensitivity)
    return softmax(epsilon * scores / (2 * sensitivity))


def exponential_mechanism(scores, epsilon, sensitivity, rng, size=None):
    """Sample an index r with probability ∝ exp(ε·u(r)/(2Δu)); `size` draws many at once."""
    rng = check.generator(rng)
    p = exponential_probabilities(scores, epsilon, sensitivity)
    return rng.choice(len(p), size=size, p=p)


def report_noisy_max(counts, epsilon, rng, size=None):
    """argmax_i (c_i + Y_i) with Y_i ~ Lap(1/ε) independently.

    ε-DP for counting queries, where adding or removing one person changes every
    count by at most 1 in the same direction (Dwork & Roth 2014, Claim 3.9).
    `size` runs that many independent selections at once.
    """
    rng = check.generator(rng)
    counts = check.finite_array("counts", counts)
    b = laplace_scale(1.0, epsilon)
    shape = counts.shape if size is None else (size, *counts.shape)
    return np.argmax(counts + rng.laplace(0.0, b, size=shape), axis=-1)


def private_median_probabilities(data, lower, upper, epsilon):
    """The exponential mechanism for the median over the continuous range [lower, upper].

    The n sorted, clipped points cut the range into n + 1 intervals; every y in
    interval i has exactly i points below it, so its score is u = −|i − n/2|, with
    Δu = 1 under replace-one neighbours. An interval is chosen with probability
    ∝ length · exp(ε·u/2) (Dwork & Roth 2014, §3.4; Smith 2011).

    Returns (edges, probabilities): n + 2 edges and n + 1 interval probabilities.
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    data = check.finite_array("data", data)
    epsilon = check.positive("epsilon", epsilon)
    points = np.sort(np.clip(data.ravel(), lower, upper))
    n = points.size
    edges = np.concatenate(([lower], points, [upper]))
    lengths = np.diff(edges)
    scores = -np.abs(np.arange(n + 1) - n / 2)
    with np.errstate(divide="ignore"):
        log_weights = np.log(lengths) + epsilon * scores / 2
    return edges, np.exp(log_weights - logsumexp(log_weights))


def private_median(data, lower, upper, epsilon, rng, size=None):
    """Draw an interval from private_median_probabilities, then y uniformly inside it. ε-DP."""
    rng = check.generator(rng)
    edges, p = private_median_probabilities(data, lower, upper, epsilon)
    i = rng.choice(len(p), size=size, p=p)
    return rng.uniform(edges[i], edges[i + 1])
