"""From the accuracy you need to the ε it costs: "I need ±A with confidence c".

Each mechanism has a forward function (ε → the error it gives) and its inverse (error → ε),
in closed form where one exists:

- Laplace, Y ~ Lap(Δ/ε):      Pr[|Y| ≤ A] = 1 − e^(−Aε/Δ), so  ε = Δ·ln(1/(1 − c))/A.  Exact.
- Gaussian, Y ~ N(0, σ²):     Pr[|Y| ≤ A] = c at σ = A/z,  z = Φ⁻¹((1 + c)/2).  Exact; the ε
                              then depends on δ: the analytic Gaussian calibration (Balle &
                              Wang 2018) solved for ε by dp.noise.gaussian_epsilon (brentq).
- Randomized response, n people: the debiased share π̂ has standard deviation
                              1/(2√n·sinh(ε/2)) exactly, whatever the true share (the reports
                              are n independent coins with variance q(1 − q), q = e^ε/(1 + e^ε)).
                              Under the normal approximation, z·sd ≤ A gives
                              ε = 2·asinh(z/(2A√n)). With the continuity correction of the class
                              poll's interval (dp.rr_inference.rr_half_width: half a report
                              more) it is ε = 2(φ + asinh(C/R)), see rr_epsilon_for_error.

Every inverse raises ValueError for a request no ε can meet: 100% confidence (the noise is
unbounded, or for randomized response every answer may flip), or a continuity-corrected
randomized-response interval narrower than half a report.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri

from dp import _checks as check
from dp.laplace_accuracy import epsilon_for_error, laplace_interval
from dp.noise import gaussian_epsilon, laplace_scale


def _confidence(confidence) -> float:
    """A confidence in (0, 1), with a clear reason for 100%."""
    c = check._finite_number("confidence", confidence)
    if c >= 1:
        raise ValueError(
            "confidence must be below 100%: the noise can always, with some small "
            "probability, be larger than any error you name, so no ε guarantees it every time"
        )
    return check.open_unit("confidence", c)


def two_sided_z(confidence) -> float:
    """z = Φ⁻¹((1 + c)/2): a normal variable lies within ±z·sd with probability c."""
    return float(ndtri((1 + _confidence(confidence)) / 2))


# --- Laplace ------------------------------------------------------------------------------

def laplace_error(epsilon, confidence, sensitivity=1.0) -> float:
    """A with Pr[|Lap(Δ/ε)| ≤ A] = c:  A = (Δ/ε)·ln(1/(1 − c))  (dp.laplace_accuracy)."""
    return laplace_interval(laplace_scale(sensitivity, epsilon), _confidence(confidence))


def laplace_epsilon(error, confidence, sensitivity=1.0) -> float:
    """The smallest ε with Pr[|Lap(Δ/ε)| ≤ A] ≥ c:  ε = Δ·ln(1/(1 − c))/A."""
    return epsilon_for_error(sensitivity, error, _confidence(confidence))


# --- Gaussian -----------------------------------------------------------------------------

def gaussian_error(sigma, confidence) -> float:
    """A with Pr[|N(0, σ²)| ≤ A] = c:  A = z·σ."""
    return two_sided_z(confidence) * check.positive("sigma", sigma)


def gaussian_sigma_for_error(error, confidence) -> float:
    """The largest σ with Pr[|N(0, σ²)| ≤ A] ≥ c:  σ = A/z."""
    return check.positive("error", error) / two_sided_z(confidence)


def gaussian_epsilon_for_error(error, confidence, delta, sensitivity=1.0) -> float:
    """The smallest ε at which the σ = A/z Gaussian mechanism is (ε, δ)-DP (analytic
    calibration, Balle & Wang 2018, Thm 8). 0 when δ alone already covers that σ."""
    sigma = gaussian_sigma_for_error(error, confidence)
    return gaussian_epsilon(sigma, delta, sensitivity)


def gaussian_tradeoff(error, confidence, deltas, sensitivity=1.0) -> np.ndarray:
    """ε(δ) for the one σ that gives ±A with confidence c: the same noise, read at each δ."""
    sigma = gaussian_sigma_for_error(error, confidence)
    deltas = check.finite_array("deltas", deltas)
    return np.array([gaussian_epsilon(sigma, d, sensitivity) for d in deltas.ravel()]).reshape(deltas.shape)


# --- Randomized response ------------------------------------------------------------------

def rr_share_sd(epsilon, n) -> float:
    """sd of the debiased share from n randomized answers: √(q(1 − q))/(√n·(2q − 1))
    = 1/(2√n·sinh(ε/2)), the same for every true share (Warner 1965)."""
    epsilon = check.positive("epsilon", epsilon)
    n = check.count("n", n)
    return 1 / (2 * math.sqrt(n) * math.sinh(epsilon / 2))


def rr_error(epsilon, confidence, n, continuity=False) -> float:
    """Half-width A of the normal-approximation interval for the share:

        A = (z·√(n·q(1 − q)) + B)/(n·(2q − 1)),   B = ½ with the continuity correction, else 0.

    With continuity=True this is dp.rr_inference.rr_half_width's closed form (which, for
    n ≤ 300, may widen further after an exact coverage check).
    """
    epsilon = check.positive("epsilon", epsilon)
    n = check.count("n", n)
    z = two_sided_z(confidence)
    extra = 0.5 if continuity else 0.0
    # √(q(1 − q)) = 1/(2·cosh(ε/2)) and 2q − 1 = tanh(ε/2): no cancellation as q → 1
    half = epsilon / 2
    return (z * math.sqrt(n) / (2 * math.cosh(half)) + extra) / (n * math.tanh(half))


def rr_epsilon_for_error(error, confidence, n, continuity=False) -> float:
    """The smallest ε whose randomized-response share is within ±A with confidence c
    (normal approximation), the inverse of rr_error.

    With t = ε/2, q(1 − q) = 1/(4cosh²t) and 2q − 1 = tanh t, so rr_error = A reads
    a·sinh t − B·cosh t = C with a = A·n, C = z√n/2. Without the correction (B = 0):
    ε = 2·asinh(z/(2A√n)). With it (B = ½, possible only when A·n > ½):
    ε = 2(φ + asinh(C/R)),  R = √(a² − B²),  φ = atanh(B/a).
    """
    error = check.positive("error", error)
    n = check.count("n", n)
    z = two_sided_z(confidence)
    a, c = error * n, z * math.sqrt(n) / 2
    b = 0.5 if continuity else 0.0
    if a <= b:
        raise ValueError(
            f"error must be more than half a report out of n = {n} (1/(2n) = {1 / (2 * n):.3g}) "
            "for this interval: even ε = ∞ (everyone tells the truth) leaves that much"
        )
    r = math.sqrt(a * a - b * b)
    return 2 * (math.atanh(b / a) + math.asinh(c / r))
