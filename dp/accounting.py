"""Privacy accounting: how ε and δ add up when mechanisms are combined.

- Composition of k mechanisms: basic, advanced, optimal (exact for ε-DP mechanisms), and the
  exact k-fold Gaussian and Laplace mechanisms via their privacy-loss distributions (PLDs).
- Zero-concentrated DP (zCDP) and its conversion to (ε, δ)-DP.
- Group privacy.

The privacy loss of an output y is L(y) = ln(P(y)/Q(y)), where P and Q are the output
distributions on two neighbouring datasets. A mechanism is (ε, δ)-DP exactly when, for both
orders of the pair,

    δ(ε) = E_{y~P}[(1 − e^{ε − L(y)})₊] = P[L > ε] − e^ε·Q[L > ε] ≤ δ.

Composing mechanisms adds their independent privacy losses, so the PLD of a composition is
the convolution of the PLDs (Sommer, Meiser & Mohammadi 2019; Koskela, Jälkö & Honkela 2020).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import fft
from scipy.special import gammaln

from dp import _checks as check
from dp.noise import gaussian_epsilon

# Laplace PLD discretisation (see `laplace_composition_epsilon`): about this many grid points
# for the k-fold loss, with between LAPLACE_MIN_STEPS and LAPLACE_MAX_STEPS steps per
# single-release loss range a.
LAPLACE_GRID_POINTS = 2**16
LAPLACE_MIN_STEPS = 50
LAPLACE_MAX_STEPS = 4096


def basic_composition(epsilons, deltas=None) -> tuple[float, float]:
    """Running mechanisms that are (ε_i, δ_i)-DP gives (Σ ε_i, Σ δ_i)-DP.

    Dwork & Roth 2014, Thm 3.16. `deltas` defaults to all zeros (pure ε-DP mechanisms).
    """
    epsilons = check.finite_array("epsilons", epsilons)
    if epsilons.ndim != 1 or np.any(epsilons <= 0):
        raise ValueError("epsilons must be a non-empty list of numbers > 0")
    if deltas is None:
        return float(epsilons.sum()), 0.0
    deltas = check.finite_array("deltas", deltas)
    if deltas.shape != epsilons.shape:
        raise ValueError(f"deltas must have one entry per epsilon ({epsilons.size})")
    if np.any((deltas < 0) | (deltas >= 1)):
        raise ValueError("deltas must all be in [0, 1)")
    return float(epsilons.sum()), float(deltas.sum())


def advanced_composition(epsilon, delta, k, delta_prime) -> tuple[float, float]:
    """k-fold (adaptive) composition of (ε, δ)-DP mechanisms is (ε′, kδ + δ′)-DP with

        ε′ = √(2k ln(1/δ′))·ε + k·ε·(e^ε − 1).

    Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm 3.20. For large ε the second
    term dominates and basic composition (kε) is the better bound.
    """
    epsilon = check.positive("epsilon", epsilon)
    delta = check.delta_or_zero("delta", delta)
    k = check.count("k", k)
    delta_prime = check.open_unit("delta_prime", delta_prime)
    with np.errstate(over="ignore"):  # ε > 709: the bound is +inf, i.e. vacuous
        growth = float(np.expm1(epsilon))
    eps_total = math.sqrt(2 * k * math.log(1 / delta_prime)) * epsilon + k * epsilon * growth
    return eps_total, k * delta + delta_prime


def _log1mexp(x):
    """ln(1 − e^x) for x ≤ 0, accurate near 0 and for very negative x."""
    x = np.minimum(x, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(-np.expm1(x))


def _epsilon_from_pld(losses, log_probs, delta) -> float:
    """The smallest ε ≥ 0 with δ(ε) = Σ_{L > ε} P(L)·(1 − e^{ε−L}) ≤ δ, for a discrete PLD.

    `losses` are sorted in decreasing order, `log_probs` are their log-probabilities under P.
    On the piece L_{j+1} ≤ ε < L_j the losses above ε are L_0 … L_j, so

        δ(ε) = A_j − e^ε·B_j,  A_j = Σ_{i≤j} P(L_i),  B_j = Σ_{i≤j} P(L_i)·e^{−L_i},

    and δ(ε) = δ is solved exactly: ε = ln((A_j − δ)/B_j). Sums are kept in log space.
    """
    keep = (losses > 0) & (log_probs > -np.inf)  # losses ≤ 0 never exceed an ε ≥ 0
    losses, log_probs = losses[keep], log_probs[keep]
    if losses.size == 0:
        return 0.0
    log_a = np.logaddexp.accumulate(log_probs)
    log_b = np.logaddexp.accumulate(log_probs - losses)
    lower = np.append(losses[1:], 0.0)  # left end of piece j
    log_delta_at_lower = log_a + _log1mexp(lower + log_b - log_a)
    log_delta = math.log(delta)
    reached = np.nonzero(log_delta_at_lower >= log_delta)[0]
    if reached.size == 0:  # δ ≥ δ(0): (0, δ)-DP
        return 0.0
    j = reached[0]
    eps = log_a[j] + _log1mexp(log_delta - log_a[j]) - log_b[j]
    return float(np.clip(eps, lower[j], losses[j]))


def optimal_composition(epsilon, k, delta) -> float:
    """The smallest ε′ such that every k-fold composition of ε-DP mechanisms is (ε′, δ)-DP.

    Kairouz, Oh & Viswanath 2015, Thm 3.3: the worst case is k-fold randomized response. With
    p = e^ε/(1 + e^ε), its privacy loss is (k − 2i)·ε with probability C(k, i)·p^{k−i}·(1−p)^i
    (i = number of "flipped" answers), so

        δ(ε′) = Σ_i C(k, i)·(p^{k−i}(1−p)^i − e^{ε′}·p^i(1−p)^{k−i})₊,

    which is KOV's δ_i at ε′ = (k − 2i)ε and is exact in between (Murtagh & Vadhan 2016,
    Thm 1.5). We return the exact solution of δ(ε′) = δ, or 0.0 when δ ≥ δ(0).
    """
    epsilon = check.positive("epsilon", epsilon)
    k = check.count("k", k)
    delta = check.open_unit("delta", delta)
    i = np.arange(k + 1)
    log_p = -np.logaddexp(0.0, -epsilon)  # ln p, p = e^ε/(1 + e^ε)
    log_1mp = -epsilon + log_p  # ln(1 − p)
    log_binom = gammaln(k + 1) - gammaln(i + 1) - gammaln(k - i + 1)
    log_probs = log_binom + (k - i) * log_p + i * log_1mp
    return _epsilon_from_pld((k - 2 * i) * epsilon, log_probs, delta)


def gaussian_composition_epsilon(sigma, k, delta, sensitivity=1.0) -> float:
    """The exact ε at δ of k Gaussian releases, each with noise N(0, σ²) on a Δ-sensitive query.

    The privacy loss of one release is N(η, 2η) with η = Δ²/(2σ²). Losses add, so k releases
    have loss N(kη, 2kη), exactly that of one release with noise σ/√k (in the language of
    Dong, Roth & Su 2022, Cor. 3.3: μ-GDP composes to √k·μ-GDP, with μ = Δ/σ).
    Then ε = gaussian_epsilon(σ/√k, δ, Δ) (Balle & Wang 2018, Thm 8).
    """
    sigma = check.positive("sigma", sigma)
    k = check.count("k", k)
    delta = check.open_unit("delta", delta)
    sensitivity = check.non_negative("sensitivity", sensitivity)
    if sensitivity == 0:
        return 0.0
    return gaussian_epsilon(sigma / math.sqrt(k), delta, sensitivity)


def _laplace_pld(a, steps):
    """The privacy loss of one Laplace release, on the grid L = j·h, h = a/steps, j = −steps … steps.

    With P = Lap(0, b), Q = Lap(Δ, b) and a = Δ/b, the loss L(y) = (|y − Δ| − |y|)/b is
      +a with probability 1/2 (y ≤ 0), −a with probability e^{−a}/2 (y ≥ Δ), and
      in between it has density ¼·e^{(L − a)/2} on (−a, a).
    A cell (L_{j−1}, L_j] has P-probability ½·e^{(L_j − a)/2}·(1 − e^{−h/2}) and Q-probability
    (the same integral weighted by e^{−L}) ½·e^{−(L_{j−1} + a)/2}·(1 − e^{−h/2}). We split it
    between its two ends so that both stay exact, which puts the fraction 1/(1 + e^{−h/2}) on
    L_j ("connect the dots", Doroshenko et al. 2022). By convexity this can only increase δ(ε),
    for every ε and under composition, so the result is an upper bound; its error is O(h²).
    Returns the P-probabilities of the 2·steps + 1 grid points.
    """
    h = a / steps
    grid = np.arange(-steps, steps + 1) * h
    cells = 0.5 * np.exp((grid[1:] - a) / 2) * -math.expm1(-h / 2)
    upper = 1 / (1 + math.exp(-h / 2))
    probs = np.zeros(grid.size)
    probs[1:] += upper * cells
    probs[:-1] += (1 - upper) * cells
    probs[0] += 0.5 * math.exp(-a)
    probs[-1] += 0.5
    return grid, probs


def _power(z, k):
    """z**k elementwise by repeated squaring (much faster than numpy's complex power)."""
    result = np.ones_like(z)
    while k:
        if k & 1:
            result *= z
        k >>= 1
        if k:
            z = z * z
    return result


def laplace_composition_epsilon(scale, k, delta, sensitivity=1.0) -> float:
    """ε at δ of k Laplace releases, each with noise Lap(b) on a Δ-sensitive query.

    Numerically from the privacy-loss distribution (Koskela, Jälkö & Honkela 2020):
    1. discretise the loss of one release on a grid of step h = a/m, a = Δ/b (`_laplace_pld`);
    2. add k independent losses: raise its Fourier transform to the k-th power (FFT);
    3. solve δ(ε) = E[(1 − e^{ε−L})₊] = δ exactly on the result (`_epsilon_from_pld`).
    The answer is an upper bound on the exact ε that converges to it as h → 0. It is too large
    by less than k·h; in practice, with m = `laplace_steps(k)`, by ~1e-6 (relative) for k ≤ 100.
    Before the FFT the probabilities are tilted by e^{θL}, which commutes with convolution and
    is undone afterwards; θ is chosen so that the losses near the answer are computed with full
    floating-point precision even for tiny δ. The Laplace PLD is the same for both orders of
    the neighbouring pair, so one order suffices.
    """
    scale = check.positive("scale", scale)
    k = check.count("k", k)
    delta = check.open_unit("delta", delta)
    sensitivity = check.non_negative("sensitivity", sensitivity)
    if sensitivity == 0:
        return 0.0
    a = sensitivity / scale
    steps = laplace_steps(k)
    grid, probs = _laplace_pld(a, steps)
    # Tilt towards the tail that matters: θ ≈ √(2 ln(1/δ))/(standard deviation of the sum),
    # at most 50/a so that e^{θL} stays within e^{±100} for one release.
    spread = k * float(probs @ (grid - probs @ grid) ** 2)
    theta = min(50 / a, math.sqrt(2 * math.log(1 / delta) / spread)) if spread > 0 else 50 / a
    tilted = probs * np.exp(theta * (grid - a))
    norm = tilted.sum()
    size = k * (grid.size - 1) + 1
    n_fft = fft.next_fast_len(size, real=True)
    composed = fft.irfft(_power(fft.rfft(tilted / norm, n_fft), k), n_fft)[:size]
    losses = (np.arange(size) - k * steps) * (a / steps)
    with np.errstate(divide="ignore"):  # FFT round-off can dip below 0: those losses get P = 0
        log_probs = np.log(np.clip(composed, 0.0, None))
    log_probs += k * (math.log(norm) + theta * a) - theta * losses  # undo the tilt
    return _epsilon_from_pld(losses[::-1], log_probs[::-1], delta)


@functools.lru_cache(maxsize=16)  # one per (a, k): a page asks several thresholds per move
def _laplace_sum_tail(a: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k-fold Laplace loss on its grid (connect-the-dots, as `laplace_composition_epsilon`)
    and Pr[L ≥ each grid point], from one FFT."""
    steps = laplace_steps(k)
    grid, probs = _laplace_pld(a, steps)
    size = k * (grid.size - 1) + 1
    n_fft = fft.next_fast_len(size, real=True)
    composed = np.clip(fft.irfft(_power(fft.rfft(probs, n_fft), k), n_fft)[:size], 0.0, None)
    losses = (np.arange(size) - k * steps) * (a / steps)
    return losses, np.minimum(1.0, np.cumsum(composed[::-1])[::-1])


def laplace_composition_loss_exceeds(scale, k, threshold, sensitivity=1.0) -> float:
    """Pr[L > t] for the privacy loss L of k Laplace releases when y ~ P (the person is in):
    how often the k answers together are more telling than e^t. 0 for t ≥ k·Δ/b.

    From the same privacy-loss distribution as `laplace_composition_epsilon` (the accountant's
    figure): one release's loss is +a with probability 1/2, −a with probability e^{−a}/2 and
    has density ¼·e^{(L − a)/2} on (−a, a) (a = Δ/b); the grid keeps each cell's probability
    under both neighbours, and a grid point at t counts as above t. An estimate, not a bound:
    its error is a fraction of one grid step's probability (tests/test_bounds_odds.py checks
    it against seeded simulations of the k releases).
    """
    scale = check.positive("scale", scale)
    k = check.count("k", k)
    threshold = check._finite_number("threshold", threshold)
    sensitivity = check.non_negative("sensitivity", sensitivity)
    a = sensitivity / scale
    if a == 0 or threshold >= k * a:
        return 0.0
    losses, tail = _laplace_sum_tail(a, k)
    first = int(np.searchsorted(losses, threshold - 1e-9 * a / laplace_steps(k)))
    return float(tail[first]) if first < tail.size else 0.0


def laplace_steps(k) -> int:
    """Grid steps m per loss range a used by `laplace_composition_epsilon` for k releases:
    about LAPLACE_GRID_POINTS points for the k-fold loss, within the step limits above."""
    k = check.count("k", k)
    return min(LAPLACE_MAX_STEPS, max(LAPLACE_MIN_STEPS, LAPLACE_GRID_POINTS // (2 * k)))


def gaussian_zcdp_rho(sigma, sensitivity=1.0) -> float:
    """The Gaussian mechanism with noise N(0, σ²) on a Δ-sensitive query is ρ-zCDP with

        ρ = Δ²/(2σ²)   (Bun & Steinke 2016, Prop 1.6).
    """
    sigma = check.positive("sigma", sigma)
    sensitivity = check.non_negative("sensitivity", sensitivity)
    return sensitivity**2 / (2 * sigma**2)


def zcdp_to_dp(rho, delta) -> float:
    """ρ-zCDP implies (ε, δ)-DP for every δ in (0, 1) with

        ε = ρ + 2·√(ρ·ln(1/δ))   (Bun & Steinke 2016, Prop 1.3).

    Simple, not the tightest: Canonne, Kamath & Steinke 2020, Prop 12 gives a smaller ε.
    """
    rho = check.non_negative("rho", rho)
    delta = check.open_unit("delta", delta)
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def group_privacy(epsilon, delta, group_size) -> tuple[float, float]:
    """An (ε, δ)-DP mechanism is (kε, k·e^{(k−1)ε}·δ)-DP for groups of k = group_size people.

    Dwork & Roth 2014, Thm 2.2 for δ = 0. The δ term comes from applying the definition k times
    along a chain of neighbours: δ·(1 + e^ε + … + e^{(k−1)ε}) ≤ k·e^{(k−1)ε}·δ. We report
    min(1, k·e^{(k−1)ε}·δ): a δ of 1 already promises nothing.
    """
    epsilon = check.positive("epsilon", epsilon)
    delta = check.delta_or_zero("delta", delta)
    k = check.count("group_size", group_size)
    if delta == 0:
        return k * epsilon, 0.0
    log_delta = math.log(k) + (k - 1) * epsilon + math.log(delta)
    return k * epsilon, math.exp(min(log_delta, 0.0))
