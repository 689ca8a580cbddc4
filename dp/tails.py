"""Laplace versus Gaussian noise: densities, tails, privacy loss, and what δ buys.

Conventions. Neighbours D and D′ with f(D) = 0 and f(D′) = Δ, so the mechanism's output
is y ~ P = noise around 0 on D and y ~ Q = noise around Δ on D′. The privacy loss of an
output y is L(y) = ln(p(y)/q(y)); y is drawn from P unless said otherwise.

Sources: Dwork & Roth 2014 (Laplace, Fact 3.7; classic Gaussian, Thm A.1);
Balle & Wang 2018 ("Improving the Gaussian mechanism", Thm 8, analytic calibration);
Dwork & Roth 2014, §2.3 and the lecture notes' "δ ≪ 1/n" example.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import erfc, log_ndtr, ndtr

from dp import _checks as check
from dp.audit import audit_epsilon, clopper_pearson_lower, clopper_pearson_upper
from dp.noise import gaussian_sigma


def _array_out(values):
    return values if np.ndim(values) else float(values)


def gaussian_noise_density(y, sigma):
    """Density of N(0, σ²) at y: exp(−y²/(2σ²))/(σ√(2π))."""
    sigma = check.positive("sigma", sigma)
    y = check.finite_array("y", y)
    return _array_out(np.exp(-0.5 * (y / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi)))


def _non_negative_t(t) -> np.ndarray:
    t = check.finite_array("t", t)
    if np.any(t < 0):
        raise ValueError("t must be ≥ 0")
    return t


def gaussian_tail(sigma, t):
    """Pr[|Z| > t] = 2·Φ(−t/σ) = erfc(t/(σ√2)) for Z ~ N(0, σ²) and t ≥ 0.

    For comparison, Laplace noise has Pr[|Y| > t] = exp(−t/b) (dp.laplace_tail).
    """
    sigma = check.positive("sigma", sigma)
    t = _non_negative_t(t)
    return _array_out(erfc(t / (sigma * math.sqrt(2))))


def tail_crossover(scale, sigma) -> float:
    """The t > 0 beyond which the Gaussian tail is lighter than the Laplace tail.

    Solves h(t) = ln Pr[|Z| > t] − ln Pr[|Y| > t] = ln 2 + ln Φ(−t/σ) + t/b = 0. h(0) = 0
    and h is concave (Φ is log-concave), so there is one positive root when
    h′(0) = 1/b − √(2/π)/σ > 0 and none otherwise; then the Gaussian tail is lighter for
    every t > 0 and 0.0 is returned.
    """
    b = check.positive("scale", scale)
    sigma = check.positive("sigma", sigma)
    if 1 / b <= math.sqrt(2 / math.pi) / sigma:
        return 0.0

    def h(t):
        return math.log(2) + float(log_ndtr(-t / sigma)) + t / b

    hi = sigma
    while h(hi) > 0:
        hi *= 2
    lo = hi / 2
    for _ in range(1100):  # the root is above 0: walk lo down to where h > 0
        if h(lo) > 0:
            break
        lo /= 2
    else:  # h′(0) > 0 by a rounding error only: the curves part at t = 0
        return 0.0
    return float(brentq(h, lo, hi, xtol=1e-12 * hi, rtol=1e-12))


def gaussian_loss(y, sigma, sensitivity=1.0):
    """L(y) = ln(p(y)/q(y)) = (Δ² − 2Δy)/(2σ²) for P = N(0, σ²), Q = N(Δ, σ²).

    Linear in y, so unbounded: no finite ε covers every output, hence the δ.
    """
    sigma = check.positive("sigma", sigma)
    sensitivity = check.non_negative("sensitivity", sensitivity)
    y = check.finite_array("y", y)
    return _array_out((sensitivity**2 - 2 * sensitivity * y) / (2 * sigma**2))


def gaussian_loss_mean(sigma, sensitivity=1.0) -> float:
    """With y ~ P the Gaussian loss is L ~ N(μ, 2μ), μ = Δ²/(2σ²) (Balle & Wang 2018, Lemma 3)."""
    sigma = check.positive("sigma", sigma)
    sensitivity = check.non_negative("sensitivity", sensitivity)
    return sensitivity**2 / (2 * sigma**2)


def gaussian_loss_density(loss, sigma, sensitivity=1.0):
    """Density of the Gaussian privacy loss L ~ N(μ, 2μ), μ = Δ²/(2σ²), at `loss`."""
    mu = gaussian_loss_mean(sigma, sensitivity)
    if mu == 0:
        raise ValueError("sensitivity must be > 0 for the privacy loss to have a density")
    loss = check.finite_array("loss", loss)
    return _array_out(np.exp(-((loss - mu) ** 2) / (4 * mu)) / math.sqrt(4 * math.pi * mu))


def gaussian_loss_exceeds(sigma, epsilon, sensitivity=1.0) -> float:
    """Pr[L > ε] = Φ((μ − ε)/√(2μ)) for L ~ N(μ, 2μ): how often an output is more
    telling than e^ε allows. Always ≥ δ(ε) = E[(1 − e^{ε−L})₊] (dp.gaussian_delta),
    because 0 ≤ 1 − e^{ε−L} < 1 on {L > ε}.
    """
    mu = gaussian_loss_mean(sigma, sensitivity)
    epsilon = check.non_negative("epsilon", epsilon)
    if mu == 0:
        return 0.0
    return float(ndtr((mu - epsilon) / math.sqrt(2 * mu)))


def gaussian_loss_threshold(sigma, epsilon, sensitivity=1.0) -> float:
    """The output y* = Δ/2 − εσ²/Δ below which the Gaussian loss exceeds ε: L(y) > ε ⇔ y < y*."""
    sigma = check.positive("sigma", sigma)
    epsilon = check.non_negative("epsilon", epsilon)
    sensitivity = check.positive("sensitivity", sensitivity)
    return sensitivity / 2 - epsilon * sigma**2 / sensitivity


def delta_integrand(loss, sigma, epsilon, sensitivity=1.0):
    """(1 − e^{ε−L})₊ · f(L), whose integral over L is δ(ε) (Balle & Wang 2018, Thm 5).

    Each output with loss L > ε pays only its excess 1 − e^{ε−L}, never more than 1.
    """
    epsilon = check.non_negative("epsilon", epsilon)
    loss = check.finite_array("loss", loss)
    density = np.asarray(gaussian_loss_density(loss, sigma, sensitivity))
    return _array_out(np.where(loss > epsilon, -np.expm1(epsilon - loss), 0.0) * density)


def leaked_records(n, delta) -> tuple[float, float]:
    """Publish each of n records, independently, with probability δ (else publish junk).

    Neighbours differ in one record, which is published with probability δ on one side
    and never on the other: the two output distributions are δ apart in total variation,
    so the mechanism is (0, δ)-DP. Yet it publishes n·δ whole records on average, and at
    least one with probability 1 − (1 − δ)^n. (Lecture notes on approximate DP; Dwork &
    Roth 2014, §2.3.) Returns (n·δ, 1 − (1 − δ)^n).
    """
    n = check.count("n", n)
    delta = check.unit("delta", delta)
    at_least_one = 1.0 if delta == 1 else -math.expm1(n * math.log1p(-delta))
    return n * delta, at_least_one


def sample_leaked_records(n, delta, rng, size=None):
    """Number of whole records published by one run of the mechanism in `leaked_records`:
    Binomial(n, δ), drawn as one aggregate rather than n coin flips."""
    rng = check.generator(rng)
    n = check.count("n", n)
    delta = check.unit("delta", delta)
    return rng.binomial(n, delta, size=size)


def noise_std_in_d_dimensions(d, epsilon, delta):
    """Per-coordinate noise standard deviation for d counts, each changed by at most 1 by
    one person, at matched privacy.

    - Laplace (ε-DP): L1 sensitivity Δ₁ = d, b = d/ε, std = √2·d/ε.
    - Gaussian ((ε, δ)-DP): L2 sensitivity Δ₂ = √d, σ = √d·σ₁ with
      σ₁ = gaussian_sigma(1, ε, δ) (σ is linear in Δ).
    Returns (laplace_std, gaussian_std), arrays shaped like d.
    """
    d = check.finite_array("d", d)
    if np.any(d < 1):
        raise ValueError("d must be ≥ 1")
    epsilon = check.positive("epsilon", epsilon)
    sigma_1 = gaussian_sigma(1.0, epsilon, delta)
    return _array_out(math.sqrt(2) * d / epsilon), _array_out(np.sqrt(d) * sigma_1)


def dimension_crossover(epsilon, delta) -> float:
    """The d* above which Gaussian noise is smaller than Laplace noise on d counts:
    √2·d/ε = √d·σ₁  ⇔  d* = (ε·σ₁/√2)²."""
    epsilon = check.positive("epsilon", epsilon)
    sigma_1 = gaussian_sigma(1.0, epsilon, delta)
    return (epsilon * sigma_1 / math.sqrt(2)) ** 2


def audit_with_delta(outputs_d, outputs_d_prime, event, delta, alpha=0.05) -> dict:
    """Audit one event S twice: as pure ε-DP (δ = 0) and as (ε, δ)-DP.

    (ε, δ)-DP promises p ≤ e^ε·p′ + δ with p = Pr[M(D) ∈ S], p′ = Pr[M(D′) ∈ S]. A rare
    event S can make p/p′ far larger than e^ε (pure ε-DP is broken) while p − δ is ≤ 0
    (δ covers it). Returns the estimates p̂, p̂′ with one-sided Clopper–Pearson bounds
    at level α/2 each, and ε̂ = dp.audit_epsilon(...) at δ = 0 and at the given δ.
    """
    delta = check.delta_or_zero("delta", delta)
    alpha = check.open_unit("alpha", alpha)
    result = {}
    for name, outputs in (("p", outputs_d), ("p_prime", outputs_d_prime)):
        outputs = np.asarray(outputs)
        hits, trials = int(np.count_nonzero(event(outputs))), len(outputs)
        result[name] = (hits / trials, clopper_pearson_lower(hits, trials, alpha / 2),
                        clopper_pearson_upper(hits, trials, alpha / 2))
    result["epsilon_pure"] = audit_epsilon(outputs_d, outputs_d_prime, event, alpha=alpha)
    result["epsilon_delta"] = audit_epsilon(outputs_d, outputs_d_prime, event, alpha=alpha,
                                            delta=delta)
    return result
