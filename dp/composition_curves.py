"""Composition bounds side by side: the total ε after k queries, one array per bound.

These are thin loops over `dp.accounting` (nothing is re-derived here), plus the one new
formula the comparison needs: the number of queries beyond which advanced composition
starts to beat basic composition.

Every curve is the ε of the whole k-query interaction at the same total δ, so the curves
can be read against each other:

- ε-DP queries (e.g. Laplace with b = Δ/ε): basic is (kε, 0); advanced, optimal and the
  exact Laplace value are all at total δ = δ′.
- Gaussian queries with noise σ: every curve is at total δ = δ′. Basic and advanced need a
  per-query (ε₀, δ₀) first, so they split δ′ between the queries (see `gaussian_curves`).
"""

from __future__ import annotations

import math

import numpy as np

from dp import _checks as check
from dp.accounting import (
    advanced_composition,
    gaussian_composition_epsilon,
    gaussian_zcdp_rho,
    optimal_composition,
    zcdp_to_dp,
)
from dp.composition_table import exact_laplace_epsilon
from dp.noise import gaussian_epsilon


def _counts(ks) -> list[int]:
    ks = check.finite_array("ks", ks)
    if ks.ndim != 1:
        raise ValueError("ks must be a one-dimensional list of query counts")
    return [check.count("ks", k) for k in ks]


def advanced_crossover(epsilon, delta_prime) -> float:
    """The number of queries k* beyond which advanced composition beats basic composition.

    Advanced composition (Dwork & Roth 2014, Thm 3.20, with δ = 0 per query) gives
    ε′ = √(2k ln(1/δ′))·ε + k·ε·(e^ε − 1); basic composition (Thm 3.16) gives kε. Dividing
    ε′ < kε by kε and solving for k:

        √(2k ln(1/δ′)) < k·(2 − e^ε)   ⟺   k > k* = 2·ln(1/δ′) / (2 − e^ε)².

    For ε ≥ ln 2 the right-hand side is ≤ 0 and advanced never wins: returns inf.
    At ε = 0.1, δ′ = 10⁻⁶ this gives k* ≈ 34.5: at k = 10 advanced says 1.77, basic 1.0.
    """
    epsilon = check.positive("epsilon", epsilon)
    delta_prime = check.open_unit("delta_prime", delta_prime)
    if epsilon >= math.log(2):  # e^ε ≥ 2: the second term alone is ≥ kε
        return math.inf
    return 2 * math.log(1 / delta_prime) / (2 - math.exp(epsilon)) ** 2


def advanced_terms(epsilon, k, delta_prime) -> dict[str, float]:
    """The two terms of advanced composition, and where the second one takes over.

    ε′ = ε·√(2k ln(1/δ′)) + k·ε·(e^ε − 1) (Dwork & Roth 2014, Thm 3.20). The first term
    grows like √k, but with the factor √(2 ln(1/δ′)) (≈ 5.3 at δ′ = 10⁻⁶); the second grows
    like k, with slope ε(e^ε − 1) instead of basic composition's ε. The second is the larger
    once √(2k ln(1/δ′)) < k(e^ε − 1), i.e. for

        k > 2·ln(1/δ′)/(e^ε − 1)²   (about 66 at ε = 0.5, δ′ = 10⁻⁶; about 2,500 at ε = 0.1).

    Returns "first", "second", "root" = √(2 ln(1/δ′)), "slope" = ε(e^ε − 1) and
    "linear_from" = that k.
    """
    epsilon = check.positive("epsilon", epsilon)
    delta_prime = check.open_unit("delta_prime", delta_prime)
    k = check.count("k", k)
    root = math.sqrt(2 * math.log(1 / delta_prime))
    slope = epsilon * math.expm1(epsilon)
    return {"first": epsilon * root * math.sqrt(k), "second": k * slope, "root": root,
            "slope": slope, "linear_from": (root / math.expm1(epsilon)) ** 2}


def pure_dp_curves(epsilon, ks, delta_prime) -> dict[str, np.ndarray]:
    """Total ε after k ε-DP queries, for each k in ks.

    Returns arrays "basic" (kε, at δ = 0; Dwork & Roth 2014, Thm 3.16), "advanced"
    (Dwork, Rothblum & Vadhan 2010, at δ = δ′) and "optimal" (the exact worst case over all
    ε-DP mechanisms; Kairouz, Oh & Viswanath 2015, at δ = δ′).
    """
    epsilon = check.positive("epsilon", epsilon)
    delta_prime = check.open_unit("delta_prime", delta_prime)
    ks = _counts(ks)
    return {
        "basic": np.array([k * epsilon for k in ks]),
        "advanced": np.array([advanced_composition(epsilon, 0.0, k, delta_prime)[0] for k in ks]),
        "optimal": np.array([optimal_composition(epsilon, k, delta_prime) for k in ks]),
    }


def laplace_curve(epsilon, ks, delta_prime) -> np.ndarray:
    """The exact total ε at δ′ of k Laplace releases, each ε-DP (b = Δ/ε), for each k in ks.

    `dp.laplace_composition_epsilon` from the privacy-loss distribution (Koskela, Jälkö &
    Honkela 2020). Only a = Δ/b = ε matters, so Δ = 1 and b = 1/ε. Costly for large k
    (the loss grid has ~100·k points beyond k ≈ 650): evaluate it on a sparse grid. Points
    on the lessons' grid come precomputed (`dp.composition_table`); others are computed
    once per process.
    """
    epsilon = check.positive("epsilon", epsilon)
    delta_prime = check.open_unit("delta_prime", delta_prime)
    return np.array([exact_laplace_epsilon(epsilon, k, delta_prime) for k in _counts(ks)])


def gaussian_curves(sigma, ks, delta_prime, sensitivity=1.0) -> dict[str, np.ndarray]:
    """Total ε at total δ = δ′ after k Gaussian queries with noise N(0, σ²), Δ₂ = Δ.

    - "basic": each query is (ε₀, δ′/k)-DP with ε₀ = gaussian_epsilon(σ, δ′/k) (Balle &
      Wang 2018); basic composition gives (k·ε₀, δ′).
    - "advanced": each query is (ε₁, δ′/(2k))-DP, ε₁ = gaussian_epsilon(σ, δ′/(2k)), and
      advanced composition with slack δ′/2 gives total δ = k·δ′/(2k) + δ′/2 = δ′.
    - "zcdp": each query is ρ-zCDP with ρ = Δ²/(2σ²); k of them are kρ-zCDP (Bun & Steinke
      2016, Lemma 2.3), converted with ε = kρ + 2√(kρ·ln(1/δ′)) (Prop 1.3).
    - "exact": `gaussian_composition_epsilon(σ, k, δ′)`, the true ε (k releases are one
      release with noise σ/√k).
    Splitting δ′ evenly is one reasonable choice for basic and advanced, not the best one.
    A per-query ε of 0 (δ₀ covers everything) gives a total of 0.
    """
    sigma = check.positive("sigma", sigma)
    delta_prime = check.open_unit("delta_prime", delta_prime)
    sensitivity = check.positive("sensitivity", sensitivity)
    ks = _counts(ks)
    rho = gaussian_zcdp_rho(sigma, sensitivity)

    def advanced(k: int) -> float:
        eps_1 = gaussian_epsilon(sigma, delta_prime / (2 * k), sensitivity)
        if eps_1 == 0:
            return 0.0
        return advanced_composition(eps_1, delta_prime / (2 * k), k, delta_prime / 2)[0]

    return {
        "basic": np.array([k * gaussian_epsilon(sigma, delta_prime / k, sensitivity) for k in ks]),
        "advanced": np.array([advanced(k) for k in ks]),
        "zcdp": np.array([zcdp_to_dp(k * rho, delta_prime) for k in ks]),
        "exact": np.array([gaussian_composition_epsilon(sigma, k, delta_prime, sensitivity)
                           for k in ks]),
    }
