"""Randomized response: the oldest local-DP mechanism (Warner 1965).

Each person reports their true bit with probability e^ε/(1+e^ε) and the flipped bit
otherwise. The two-coin protocol from the lectures (answer truthfully on heads,
otherwise answer with a second coin) keeps the truth with probability 3/4: ε = ln 3.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

from dp import _checks as check


def rr_keep_probability(epsilon) -> float:
    """Pr[report the true bit] = e^ε/(1+e^ε) (Dwork & Roth 2014, §3.2).

    In the notes' parametrisation keep = ½ + α, so α = (e^ε − 1)/(2(e^ε + 1)).
    """
    epsilon = check.positive("epsilon", epsilon)
    return float(expit(epsilon))


def rr_epsilon(keep_probability) -> float:
    """The inverse: ε = ln(keep/(1 − keep)), for keep in (½, 1).

    With keep = ½ + α this is ε = ln((1 + 2α)/(1 − 2α)).
    """
    keep = check.open_unit("keep_probability", keep_probability)
    if keep <= 0.5:
        raise ValueError(
            f"keep_probability must be in (0.5, 1) for a positive epsilon, got {keep_probability!r}"
        )
    return float(logit(keep))


def randomized_response(bits, epsilon, rng):
    """Report each bit truthfully with probability e^ε/(1+e^ε), flipped otherwise.

    ε-local-DP: the likelihood ratio of any report under bit 1 versus bit 0 is at most
    keep/(1 − keep) = e^ε.
    """
    rng = check.generator(rng)
    bits = check.bits("bits", bits)
    keep = rr_keep_probability(epsilon)
    flip = rng.random(bits.shape) >= keep
    return np.where(flip, 1 - bits, bits)


def rr_estimate(reported, epsilon) -> float:
    """Unbiased estimate of the true fraction of ones from randomized reports.

    E[mean report] = (1 − q) + (2q − 1)·π with q the keep probability, so
    π̂ = (mean report − (1 − q))/(2q − 1). It can fall outside [0, 1]; clamping it is
    post-processing, but makes it biased.
    """
    reported = check.bits("reported", reported)
    q = rr_keep_probability(epsilon)
    return float((reported.mean() - (1 - q)) / (2 * q - 1))


def rr_simulate(n, true_fraction, epsilon, rng, trials=1) -> np.ndarray:
    """Estimates π̂ from `trials` independent surveys of n people, round(n·π) of whom hold a 1.

    Samples the number of reported ones as Bin(n₁, q) + Bin(n − n₁, 1 − q), so the cost
    does not depend on n. Var[π̂] = q(1 − q)/(n(2q − 1)²) (Warner 1965).
    """
    rng = check.generator(rng)
    n = check.count("n", n)
    true_fraction = check.unit("true_fraction", true_fraction)
    trials = check.count("trials", trials)
    q = rr_keep_probability(epsilon)
    ones = round(n * true_fraction)
    reported_ones = rng.binomial(ones, q, size=trials) + rng.binomial(n - ones, 1 - q, size=trials)
    return (reported_ones / n - (1 - q)) / (2 * q - 1)
