"""The ε-DP definition seen on one noisy release: densities, privacy loss and guessing games.

- laplace_density: the density of f(D) + Lap(b) at a grid of outputs.
- laplace_privacy_loss: L(x) = ln(p_D(x)/p_D′(x)) for two Laplace releases.
- laplace_roc: false/true positive rates of the threshold tests "say D′ when x > t".
- laplace_guess_accuracy: the best chance of telling D from D′ after one Laplace release.
- max_guess_accuracy: the ceiling on that chance for any (ε, δ)-DP mechanism.
- simple_posterior_bounds: the lecture's looser p·e^±ε range for a posterior.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from dp import _checks as check


def _scalar_or_array(values):
    return values if values.ndim else float(values)


def laplace_density(x, center, scale):
    """p(x) = exp(−|x − center|/b) / (2b): the density of center + Lap(b) at x.

    Dwork & Roth 2014, Def. 3.3. Vectorised in x.
    """
    x = check.finite_array("x", x)
    center = check._finite_number("center", center)
    b = check.positive("scale", scale)
    return _scalar_or_array(np.exp(-np.abs(x - center) / b) / (2 * b))


def laplace_privacy_loss(x, value_d, value_d_prime, scale):
    """The privacy loss of output x for M(D) = f(D) + Lap(b) against M(D′) = f(D′) + Lap(b):

        L(x) = ln(p_D(x) / p_D′(x)) = (|x − f(D′)| − |x − f(D)|) / b.

    By the triangle inequality |L(x)| ≤ |f(D) − f(D′)|/b ≤ Δ/b = ε when b = Δ/ε, which is
    the Laplace mechanism's proof of ε-DP (Dwork & Roth 2014, Thm 3.6). The bound is reached
    for every x outside the interval between f(D) and f(D′). Vectorised in x.
    """
    x = check.finite_array("x", x)
    value_d = check._finite_number("value_d", value_d)
    value_d_prime = check._finite_number("value_d_prime", value_d_prime)
    b = check.positive("scale", scale)
    return _scalar_or_array((np.abs(x - value_d_prime) - np.abs(x - value_d)) / b)


def laplace_roc(thresholds, shift, scale):
    """(FPR, TPR) of the tests "say D′ when x > t" with M(D) = Lap(b), M(D′) = shift + Lap(b).

        FPR(t) = Pr[Lap(b) > t],   TPR(t) = Pr[shift + Lap(b) > t],
        Pr[Lap(b) > t] = ½e^{−t/b} for t ≥ 0 and 1 − ½e^{t/b} for t < 0.

    By the Neyman–Pearson lemma these threshold tests are the most powerful ones, since the
    likelihood ratio of two shifted Laplace densities is monotone in x. shift ≥ 0.
    Vectorised in the thresholds; returns (fpr, tpr).
    """
    t = check.finite_array("thresholds", thresholds)
    shift = check.non_negative("shift", shift)
    b = check.positive("scale", scale)

    def survival(z):
        return np.where(z >= 0, 0.5 * np.exp(-np.abs(z) / b), 1 - 0.5 * np.exp(-np.abs(z) / b))

    return _scalar_or_array(survival(t)), _scalar_or_array(survival(t - shift))


def laplace_guess_accuracy(value_d, value_d_prime, scale) -> float:
    """The best chance of naming the right database after one output x of f(·) + Lap(b),
    when D and D′ are equally likely a priori:

        1 − ½·exp(−|f(D) − f(D′)| / (2b)).

    The Bayes-optimal guess picks the database with the higher density at x, i.e. the nearer
    of f(D) and f(D′); it errs when the noise carries x past the midpoint, which has
    probability Pr[Lap(b) > s/2] = ½e^{−s/(2b)} with s = |f(D) − f(D′)|. With s = Δ and
    b = Δ/ε this is 1 − ½e^{−ε/2}, below the ε-DP ceiling e^ε/(1 + e^ε).
    """
    value_d = check._finite_number("value_d", value_d)
    value_d_prime = check._finite_number("value_d_prime", value_d_prime)
    b = check.positive("scale", scale)
    return 1 - 0.5 * math.exp(-abs(value_d - value_d_prime) / (2 * b))


def max_guess_accuracy(epsilon, delta=0.0) -> float:
    """The highest chance any attacker has of telling neighbours D and D′ apart from one
    output of an (ε, δ)-DP mechanism, when each is equally likely a priori:

        (e^ε + δ) / (1 + e^ε),   which is e^ε/(1 + e^ε) for pure ε-DP.

    Accuracy is ½(TPR + 1 − FPR); the trade-off TPR ≤ min(e^ε·FPR + δ, 1 − e^−ε(1 − δ − FPR))
    (Kairouz, Oh & Viswanath 2015, Thm 2.1) is maximised where its two lines cross, at
    FPR = (1 − δ)/(1 + e^ε). Randomized response with keep probability e^ε/(1 + e^ε)
    attains it (Wasserman & Zhou 2010).
    """
    epsilon = check.positive("epsilon", epsilon)
    delta = check.delta_or_zero("delta", delta)
    # (e^ε + δ)/(1 + e^ε) = expit(ε) + δ·expit(−ε), without overflow at large ε.
    return float(expit(epsilon) + delta * expit(-epsilon))


def simple_posterior_bounds(prior, epsilon):
    """The ML lecture's simpler range for a posterior after an ε-DP output:

        p·e^−ε ≤ Pr[x ∈ D | y] ≤ min(1, p·e^ε).

    It follows from the same Bayes step as dp.posterior_bounds but drops a term, so it always
    contains the tight range and, for a prior of 0.4 and ε ≥ ln 2.5, its upper end is 1, a
    promise of nothing (DDA4210, "Privacy in Machine Learning", Anna and Patrick).
    Vectorised in epsilon (ε > 0) for a scalar prior in [0, 1]; returns (lower, upper).
    """
    p = check.unit("prior", prior)
    eps = check.finite_array("epsilon", epsilon)
    if np.any(eps <= 0):
        raise ValueError("epsilon must be > 0")
    return _scalar_or_array(p * np.exp(-eps)), _scalar_or_array(np.minimum(1.0, p * np.exp(np.minimum(eps, 700))))
