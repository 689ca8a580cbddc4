"""Noise-adding mechanisms and their calibration: Laplace and Gaussian."""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

from dp import _checks as check


def laplace_scale(sensitivity, epsilon) -> float:
    """Scale of the Laplace mechanism: b = Δ/ε.

    Dwork & Roth 2014, Def. 3.3 and Thm 3.6.
    """
    sensitivity = check.non_negative("sensitivity", sensitivity)
    epsilon = check.positive("epsilon", epsilon)
    return sensitivity / epsilon


def laplace_mechanism(value, sensitivity, epsilon, rng):
    """M(x) = f(x) + Y with Y ~ Lap(Δ/ε), one independent draw per entry of `value`.

    The density of Lap(b) is exp(−|y|/b)/(2b). ε-DP when Δ is the L1 sensitivity of f
    (Dwork & Roth 2014, Thm 3.6).
    """
    rng = check.generator(rng)
    b = laplace_scale(sensitivity, epsilon)
    value = check.finite_array("value", value)
    noisy = value + rng.laplace(0.0, b, size=value.shape)
    return noisy if noisy.ndim else float(noisy)


def laplace_tail(scale, t):
    """Pr[|Y| > t] = exp(−t/b) for Y ~ Lap(b) and t ≥ 0.

    Dwork & Roth 2014, Fact 3.7: Pr[|Y| ≥ t·b] = exp(−t).
    """
    b = check.positive("scale", scale)
    t = check.finite_array("t", t)
    if np.any(t < 0):
        raise ValueError("t must be ≥ 0")
    tail = np.exp(-t / b)
    return tail if tail.ndim else float(tail)


def gaussian_delta(sigma, epsilon, sensitivity=1.0) -> float:
    """The exact δ at which N(0, σ²) noise on a Δ-sensitive query is (ε, δ)-DP.

    δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε·Φ(−Δ/(2σ) − εσ/Δ)   (Balle & Wang 2018, Thm 8).
    Evaluated in log space so that large ε and tiny δ do not overflow or cancel.
    """
    sigma = check.positive("sigma", sigma)
    epsilon = check.non_negative("epsilon", epsilon)
    sensitivity = check.positive("sensitivity", sensitivity)
    a = sensitivity / (2 * sigma)
    x = epsilon * sigma / sensitivity
    log_first = log_ndtr(a - x)
    log_second = epsilon + log_ndtr(-a - x)
    return float(np.exp(log_first) * -np.expm1(log_second - log_first))


def _bracket_root(f, start: float, grow: float = 2.0) -> tuple[float, float]:
    """Find lo < hi with f(lo) > 0 ≥ f(hi) for a decreasing f on (0, ∞)."""
    lo = hi = start
    while f(hi) > 0:
        lo, hi = hi, hi * grow
    while f(lo) <= 0:
        lo, hi = lo / grow, lo
    return lo, hi


def gaussian_sigma(sensitivity, epsilon, delta, method="analytic") -> float:
    """Noise σ for the Gaussian mechanism to be (ε, δ)-DP.

    - "analytic": the smallest σ with gaussian_delta(σ, ε, Δ) ≤ δ, found by bisection
      (Balle & Wang 2018, Alg. 1). Valid for every ε > 0.
    - "classic": σ = Δ·√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1), proved only for ε < 1.
    """
    sensitivity = check.positive("sensitivity", sensitivity)
    epsilon = check.positive("epsilon", epsilon)
    delta = check.open_unit("delta", delta)
    if method == "classic":
        if epsilon >= 1:
            raise ValueError(
                f"the classic Gaussian bound needs epsilon < 1, got {epsilon}; "
                'use method="analytic" for larger epsilon'
            )
        return sensitivity * np.sqrt(2 * np.log(1.25 / delta)) / epsilon
    if method != "analytic":
        raise ValueError(f'method must be "analytic" or "classic", got {method!r}')

    def excess(sigma):
        return gaussian_delta(sigma, epsilon, sensitivity) - delta

    lo, hi = _bracket_root(excess, sensitivity)
    return float(brentq(excess, lo, hi, xtol=1e-14 * hi, rtol=1e-13))


def gaussian_mechanism(value, sensitivity, epsilon, delta, rng, method="analytic"):
    """M(x) = f(x) + N(0, σ²) with σ = gaussian_sigma(Δ₂, ε, δ, method), per entry.

    Δ here is the L2 sensitivity (Dwork & Roth 2014, Thm A.1; Balle & Wang 2018).
    """
    rng = check.generator(rng)
    sigma = gaussian_sigma(sensitivity, epsilon, delta, method)
    value = check.finite_array("value", value)
    noisy = value + rng.normal(0.0, sigma, size=value.shape)
    return noisy if noisy.ndim else float(noisy)


def gaussian_epsilon(sigma, delta, sensitivity=1.0) -> float:
    """The smallest ε ≥ 0 at which N(0, σ²) noise is (ε, δ)-DP: the inverse of the
    analytic calibration (Balle & Wang 2018, Thm 8).

    Returns 0 when δ already covers the whole difference at ε = 0, i.e. when
    δ ≥ 2Φ(Δ/(2σ)) − 1.
    """
    sigma = check.positive("sigma", sigma)
    delta = check.open_unit("delta", delta)
    sensitivity = check.positive("sensitivity", sensitivity)

    def excess(epsilon):
        return gaussian_delta(sigma, epsilon, sensitivity) - delta

    if excess(0.0) <= 0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0:
        hi *= 2
    return float(brentq(excess, 0.0, hi, xtol=1e-13, rtol=1e-13))
