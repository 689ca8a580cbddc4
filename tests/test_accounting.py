"""dp.accounting against closed forms, an exact evaluation of Kairouz–Oh–Viswanath, the
reference libraries dp-accounting and opendp, and hypothesis properties.

Tolerances against the references are derived from what those references guarantee:
- dp-accounting's PLDs are built on a grid of step h. The pessimistic ("connect the dots")
  PLD over-reports ε, the optimistic one (privacy buckets, rounding down) under-reports it,
  and each k-fold result is within k·h of the exact ε (every loss moves by less than h).
  Composition also truncates ≤ 1e-15 of tail probability (folded into δ pessimistically).
- dp-accounting's exact Gaussian calibration uses brentq with xtol = 1e-12; its PLD-based
  calibration uses a bisection on σ with absolute tolerance 1e-7 (common.BinarySearchParameters).
"""

import functools
import math
import warnings
from decimal import Decimal, localcontext

import numpy as np
import opendp.prelude as odp
import pytest
from dp_accounting import gaussian_mechanism as dpa_gaussian
from dp_accounting.pld import accountant as dpa_accountant
from dp_accounting.pld import common as dpa_common
from dp_accounting.pld import privacy_loss_distribution as dpa_pld
from dp_accounting.rdp import rdp_privacy_accountant as dpa_rdp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from dp import accounting as acc
from dp.accounting import (
    advanced_composition,
    basic_composition,
    gaussian_composition_epsilon,
    gaussian_zcdp_rho,
    group_privacy,
    laplace_composition_epsilon,
    optimal_composition,
    zcdp_to_dp,
)

odp.enable_features("contrib")

SETTINGS = settings(derandomize=True, max_examples=40, deadline=None)
FEW = settings(derandomize=True, max_examples=10, deadline=None)

EPSILONS = [0.1, 0.5, 1.0, 2.0]
KS = [1, 10, 100]
DELTAS = [1e-3, 1e-5, 1e-8]


def params(*names):
    """Parametrize a test over the (ε, k) grid."""
    return pytest.mark.parametrize(names, [(e, k) for e in EPSILONS for k in KS])


# --------------------------------------------------------------------------------------------
# Kairouz, Oh & Viswanath 2015, evaluated exactly (60 significant digits, exact binomials).
# --------------------------------------------------------------------------------------------


def _dec(x) -> Decimal:
    return Decimal(repr(float(x)))


def kov_delta_i(epsilon, k, i) -> Decimal:
    """KOV 2015, Thm 3.3, as printed: the k-fold composition of ε-DP mechanisms is
    ((k − 2i)ε, δ_i)-DP with δ_i = Σ_{j=0}^{i−1} C(k,j)(e^{(k−j)ε} − e^{(k−2i+j)ε}) / (1+e^ε)^k."""
    with localcontext() as ctx:
        ctx.prec = 60
        e = _dec(epsilon).exp()
        total = sum(math.comb(k, j) * (e ** (k - j) - e ** (k - 2 * i + j)) for j in range(i))
        return +(Decimal(total) / (1 + e) ** k)


def kov_delta(epsilon, k, eps_prime) -> Decimal:
    """The same curve at any ε′ (Murtagh & Vadhan 2016, Thm 1.5):
    δ(ε′) = Σ_j C(k,j)·max(0, e^{(k−j)ε} − e^{ε′}·e^{jε}) / (1+e^ε)^k."""
    with localcontext() as ctx:
        ctx.prec = 60
        e, ep = _dec(epsilon).exp(), _dec(eps_prime).exp()
        total = sum(
            math.comb(k, j) * max(Decimal(0), e ** (k - j) - ep * e**j) for j in range(k + 1)
        )
        return +(total / (1 + e) ** k)


# --------------------------------------------------------------------------------------------
# Closed forms
# --------------------------------------------------------------------------------------------


def test_basic_composition_sums():
    assert basic_composition([0.1] * 10) == (pytest.approx(1.0), 0.0)
    assert basic_composition([0.5, 1.0, 0.25], [1e-6, 0.0, 2e-6]) == (
        pytest.approx(1.75),
        pytest.approx(3e-6),
    )
    assert basic_composition(np.array([2.0])) == (2.0, 0.0)


def test_basic_composition_rejects_bad_lists():
    with pytest.raises(ValueError, match="epsilons"):
        basic_composition([])
    with pytest.raises(ValueError, match="epsilons"):
        basic_composition([0.1, 0.0])
    with pytest.raises(ValueError, match="deltas"):
        basic_composition([0.1, 0.2], [1e-6])
    with pytest.raises(ValueError, match="deltas"):
        basic_composition([0.1, 0.2], [1e-6, 1.0])


def test_advanced_composition_course_number():
    # The course: at ε = 0.1 and k = 10, advanced composition gives ≈ 1.77 against basic 1.0.
    # That is δ′ = 1e-6: √(20·ln 10⁶)·0.1 + 10·0.1·(e^0.1 − 1) = 1.6623 + 0.1052 = 1.7674.
    eps_total, delta_total = advanced_composition(0.1, 0.0, 10, 1e-6)
    assert eps_total == pytest.approx(1.7674, abs=5e-5)
    assert round(eps_total, 2) == 1.77
    assert delta_total == 1e-6
    assert basic_composition([0.1] * 10)[0] == pytest.approx(1.0)


def test_advanced_composition_formula():
    eps, delta, k, delta_prime = 0.05, 1e-7, 400, 1e-5
    expected = math.sqrt(2 * k * math.log(1 / delta_prime)) * eps + k * eps * math.expm1(eps)
    assert advanced_composition(eps, delta, k, delta_prime) == (
        pytest.approx(expected, rel=1e-14),
        pytest.approx(k * delta + delta_prime, rel=1e-14),
    )
    # Worth it for many small-ε queries: 400 × 0.05 = 20 by basic composition.
    assert expected < 20 / 3


def test_group_privacy():
    assert group_privacy(0.5, 0.0, 3) == (1.5, 0.0)
    eps, delta = group_privacy(0.5, 1e-6, 3)
    assert (eps, delta) == (1.5, pytest.approx(3 * math.e * 1e-6, rel=1e-14))
    assert group_privacy(0.7, 1e-6, 1) == (0.7, pytest.approx(1e-6, rel=1e-14))
    # k·e^{(k−1)ε}·δ = 5·e⁴·0.1 > 1: reported as δ = 1, which promises nothing.
    assert group_privacy(1.0, 0.1, 5) == (5.0, 1.0)


def test_zcdp_closed_forms():
    assert gaussian_zcdp_rho(2.0) == 0.125
    assert gaussian_zcdp_rho(3.0, sensitivity=2.0) == pytest.approx(4 / 18)
    rho, delta = 0.125, 1e-5
    assert zcdp_to_dp(rho, delta) == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e5)))
    assert zcdp_to_dp(0.0, delta) == 0.0


def test_zcdp_to_dp_is_the_best_renyi_conversion():
    # Bun & Steinke's bound is min over α > 1 of the Rényi conversion ρα + ln(1/δ)/(α − 1)
    # (Mironov 2017, Prop 3), attained at α = 1 + √(ln(1/δ)/ρ).
    for rho in [0.01, 0.125, 1.0, 5.0]:
        for delta in DELTAS:
            res = minimize_scalar(
                lambda alpha, rho=rho, delta=delta: rho * alpha + math.log(1 / delta) / (alpha - 1),
                bounds=(1 + 1e-9, 1e6),
                method="bounded",
                options={"xatol": 1e-10},
            )
            assert zcdp_to_dp(rho, delta) == pytest.approx(res.fun, rel=1e-9)


def test_optimal_composition_k1_closed_form():
    # k = 1: losses ±ε with P-probabilities p = e^ε/(1+e^ε) and 1 − p, so for ε′ < ε
    # δ(ε′) = (e^ε − e^{ε′})/(1 + e^ε), i.e. ε′ = ln(e^ε − δ(1 + e^ε)) ≤ ε.
    for eps in EPSILONS + [10.0, 50.0]:
        for delta in DELTAS:
            expected = math.log(math.exp(eps) - delta * (1 + math.exp(eps)))
            got = optimal_composition(eps, 1, delta)
            assert got == pytest.approx(expected, rel=1e-12)
            assert got <= eps


def test_optimal_composition_is_zero_when_delta_covers_everything():
    # δ(0) is the total variation distance, (e^ε − 1)/(e^ε + 1) at k = 1.
    eps = 0.5
    tv = math.expm1(eps) / (math.exp(eps) + 1)
    assert optimal_composition(eps, 1, tv * 1.000001) == 0.0
    assert optimal_composition(eps, 1, tv * 0.999) > 0.0
    assert optimal_composition(0.01, 10, 0.5) == 0.0


@pytest.mark.parametrize("eps,k,i", [(0.1, 10, 3), (0.5, 10, 1), (1.0, 100, 40), (0.1, 100, 45),
                                     (2.0, 100, 2)])
def test_optimal_composition_hits_kov_grid_points(eps, k, i):
    # At δ = δ_i (KOV Thm 3.3 as printed), the answer is the grid point (k − 2i)ε.
    delta_i = float(kov_delta_i(eps, k, i))
    assert optimal_composition(eps, k, delta_i) == pytest.approx((k - 2 * i) * eps, rel=1e-10)


@params("eps", "k")
def test_optimal_composition_is_exact_between_grid_points(eps, k):
    for delta in DELTAS:
        got = optimal_composition(eps, k, delta)
        # The exact root lies within 1e-12 (relative) of the returned float: δ(ε′) is decreasing,
        # so it is enough that δ just below ε′ is ≥ δ and δ just above ε′ is ≤ δ.
        step = 1e-12 * max(got, 1.0)
        assert kov_delta(eps, k, got - step) >= _dec(delta) >= kov_delta(eps, k, got + step)
        # δ(ε′) = δ to 1e-9 where the root is well conditioned: ε′ = ln(A − δ) − ln(B) is a
        # difference of floats of size ≲ max(1, ε′), so it carries an absolute error of a few
        # 1e-16·max(1, ε′), which moves δ by |δ′(ε′)| times that (δ′ = −e^{ε′}·Q[loss > ε′]).
        slope = kov_delta(eps, k, got) - kov_delta(eps, k, got + step)
        rounding = float(slope / _dec(step)) * 1e-15 * max(got, 1.0)
        assert abs(float(kov_delta(eps, k, got)) - delta) <= 1e-9 * delta + rounding


def test_optimal_composition_lands_between_grid_points():
    got = optimal_composition(0.1, 100, 1e-5)
    assert got == pytest.approx(4.306791372516502, rel=1e-12)  # not on the 0.2 grid
    assert min(abs(got - (100 - 2 * i) * 0.1) for i in range(101)) > 0.09


@params("eps", "k")
def test_optimal_composition_beats_basic_and_advanced(eps, k):
    for delta in DELTAS:
        got = optimal_composition(eps, k, delta)
        assert got <= basic_composition([eps] * k)[0] + 1e-12
        assert got <= advanced_composition(eps, 0.0, k, delta)[0]


def test_optimal_composition_large_k_and_epsilon():
    for eps, k in [(0.01, 10_000), (1.0, 10_000), (50.0, 10_000), (50.0, 1)]:
        got = optimal_composition(eps, k, 1e-6)
        assert math.isfinite(got) and 0 < got <= k * eps
        assert got <= advanced_composition(eps, 0.0, k, 1e-6)[0]
    # For small ε and large k the optimum is far below k·ε.
    assert optimal_composition(0.01, 10_000, 1e-6) < 0.1 * 10_000 * 0.01


# --------------------------------------------------------------------------------------------
# Cross-checks: optimal composition
# --------------------------------------------------------------------------------------------


@params("eps", "k")
def test_optimal_composition_matches_dp_accounting_pld(eps, k):
    # dp-accounting's pessimistic PLD of an ε-DP mechanism (from_privacy_parameters) is exactly
    # randomized response: losses ±ε with P-probabilities 1/(1+e^{∓ε}). With step h = ε/4 the
    # losses sit on the grid, so nothing is rounded; the only errors are the ≤ 1e-15 tail mass
    # truncated in self_compose and FFT round-off. Allowing |δ_ref − δ| ≤ η = 1e-14 gives the
    # bracket ε(δ + η) ≤ ε_ref ≤ ε(δ − η) (observed: ≤ 6e-9 relative, at δ = 1e-8, k = 100).
    ref_pld = dpa_pld.from_privacy_parameters(
        dpa_common.DifferentialPrivacyParameters(eps, 0.0), value_discretization_interval=eps / 4
    ).self_compose(k)
    eta = 1e-14
    for delta in DELTAS:
        ref = ref_pld.get_epsilon_for_delta(delta)
        low = optimal_composition(eps, k, delta + eta)
        high = optimal_composition(eps, k, delta - eta)
        assert low - 1e-12 <= ref <= high + 1e-12
        assert optimal_composition(eps, k, delta) == pytest.approx(ref, rel=1e-8)


@params("eps", "k")
def test_optimal_composition_matches_dp_accounting_kov(eps, k):
    # dp-accounting's advanced_composition evaluates KOV Thm 3.3 at grid points only: it
    # returns the smallest (k − 2i)ε that suffices, so the exact value is in (ref − 2ε, ref].
    for delta in DELTAS:
        ref = dpa_accountant.advanced_composition(
            dpa_common.DifferentialPrivacyParameters(eps, 0.0), k, delta
        )
        got = optimal_composition(eps, k, delta)
        assert ref - 2 * eps < got <= ref + 1e-12


# --------------------------------------------------------------------------------------------
# Cross-checks: Gaussian
# --------------------------------------------------------------------------------------------


@functools.cache
def _dpa_gaussian_pld(sigma, h):
    return dpa_pld.from_gaussian_mechanism(sigma, value_discretization_interval=h)


@functools.cache
def _dpa_laplace_plds(b, h):
    """dp-accounting's pessimistic (connect the dots) and optimistic (privacy buckets) PLDs."""
    pessimistic = dpa_pld.from_laplace_mechanism(b, value_discretization_interval=h)
    optimistic = dpa_pld.from_laplace_mechanism(
        b, value_discretization_interval=h, pessimistic_estimate=False, use_connect_dots=False
    )
    return pessimistic, optimistic


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("k", KS)
def test_gaussian_composition_matches_dp_accounting(sigma, k):
    # Exact: dp-accounting's analytic Gaussian at σ/√k (brentq, xtol 1e-12).
    # Independent: dp-accounting's k-fold PLD of N(0, σ²), pessimistic with step h = 1e-3, which
    # over-reports ε by less than k·h (observed: ≤ 2.3e-5 absolute, 1.3e-6 relative).
    h = 1e-3
    ref_pld = _dpa_gaussian_pld(sigma, h).self_compose(k)
    for delta in DELTAS:
        got = gaussian_composition_epsilon(sigma, k, delta)
        assert got == pytest.approx(dpa_gaussian.get_epsilon_gaussian(sigma / math.sqrt(k), delta),
                                    abs=1e-11)
        ref = ref_pld.get_epsilon_for_delta(delta)
        assert got - 1e-9 <= ref <= got + k * h


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("k", [1, 100])
def test_analytic_gaussian_sigma_matches_dp_accounting(eps, k):
    # σ from dp-accounting's calibrations must give back ε through our exact accountant.
    for delta in DELTAS:
        # Exact analytic calibration (brentq, xtol 1e-12 on σ for one query).
        sigma = dpa_gaussian.get_sigma_gaussian(eps, delta) * math.sqrt(k)
        assert gaussian_composition_epsilon(sigma, k, delta) == pytest.approx(eps, rel=1e-9)
        # PLD-based calibration for k queries: σ_ref ∈ [σ*, σ* + 1e-7] (bisection tolerance),
        # so ε(σ_ref) ≤ ε ≤ ε(σ_ref − 1e-7).
        sigma_ref = dpa_accountant.get_smallest_gaussian_noise(
            dpa_common.DifferentialPrivacyParameters(eps, delta), num_queries=k
        )
        assert gaussian_composition_epsilon(sigma_ref, k, delta) <= eps * (1 + 1e-12)
        assert gaussian_composition_epsilon(sigma_ref - 1e-7, k, delta) >= eps * (1 - 1e-12)


def test_gaussian_composition_with_sensitivity():
    # Only Δ/σ matters.
    assert gaussian_composition_epsilon(4.0, 10, 1e-5, sensitivity=2.0) == pytest.approx(
        gaussian_composition_epsilon(2.0, 10, 1e-5), rel=1e-12
    )
    assert gaussian_composition_epsilon(1.0, 5, 1e-5, sensitivity=0.0) == 0.0


# --------------------------------------------------------------------------------------------
# Cross-checks: zCDP
# --------------------------------------------------------------------------------------------

SPACE = (odp.atom_domain(T=float, nan=False), odp.absolute_distance(T=float))


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("sensitivity", [1.0, 2.0])
def test_zcdp_matches_opendp(sigma, sensitivity):
    gaussian = odp.m.make_gaussian(*SPACE, scale=sigma)
    rho = gaussian_zcdp_rho(sigma, sensitivity)
    # opendp rounds its privacy maps up (conservative float arithmetic): a few ulps.
    assert gaussian.map(sensitivity) == pytest.approx(rho, rel=1e-12)
    # opendp composes zCDP by adding ρ.
    composed = odp.c.make_composition([gaussian] * 10)
    assert composed.map(sensitivity) == pytest.approx(10 * rho, rel=1e-12)
    # opendp's zCDP → (ε, δ) conversion is the tighter one of Canonne, Kamath & Steinke 2020
    # (Prop 12: min over α of ρα + ln(1 − 1/α) − ln(αδ)/(α − 1); dp-accounting's RDP
    # compute_epsilon uses the same bound). Bun & Steinke's simpler formula is never smaller.
    profile = odp.c.make_zCDP_to_approxDP(gaussian).map(sensitivity)
    orders = np.linspace(1.01, 200, 2_000)
    for delta in DELTAS:
        ours = zcdp_to_dp(rho, delta)
        assert ours >= profile.epsilon(delta=delta)
        assert ours >= dpa_rdp.compute_epsilon(orders, rho * orders, delta)[0]
        # Both are upper bounds on the exact Gaussian ε.
        assert gaussian_composition_epsilon(sigma, 1, delta, sensitivity) <= profile.epsilon(delta=delta)


def test_zcdp_bound_is_above_the_exact_gaussian_composition():
    for sigma in [0.5, 2.0, 10.0]:
        for k in KS:
            for delta in DELTAS:
                exact = gaussian_composition_epsilon(sigma, k, delta)
                assert exact <= zcdp_to_dp(k * gaussian_zcdp_rho(sigma), delta)


def test_basic_composition_matches_opendp():
    laplace_scales = [1.0, 2.0, 4.0]
    composed = odp.c.make_composition(
        [odp.m.make_laplace(*SPACE, scale=b) for b in laplace_scales]
    )
    assert basic_composition([1 / b for b in laplace_scales])[0] == pytest.approx(composed.map(1.0))


# --------------------------------------------------------------------------------------------
# Cross-checks: Laplace
# --------------------------------------------------------------------------------------------


def test_laplace_single_release_closed_form():
    # k = 1: the loss is +a w.p. ½, −a w.p. e^{−a}/2 and has density ¼e^{(L−a)/2} on (−a, a),
    # so δ(ε) = 1 − e^{(ε−a)/2} and ε(δ) = a + 2 ln(1 − δ). Ours is an upper bound, above the
    # exact value by less than k·h with h = a/laplace_steps(k) (observed: ≤ 1e-10 relative),
    # up to floating-point round-off in the FFT (observed: ≤ 3e-11 relative below).
    for a in [0.01, 1.0, 50.0]:
        h = a / acc.laplace_steps(1)
        for delta in DELTAS + [1e-14]:
            exact = a + 2 * math.log1p(-delta)
            got = laplace_composition_epsilon(1 / a, 1, delta)
            assert exact * (1 - 1e-9) <= got <= exact + h


@pytest.mark.parametrize("a", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("k", KS)
def test_laplace_composition_matches_dp_accounting(a, k):
    # dp-accounting with step h = a/1000: its pessimistic PLD (connect the dots) over-reports,
    # its optimistic one (privacy buckets, losses rounded down) under-reports by < k·h.
    # Ours is an upper bound that over-reports by < k·h_ours, so
    #   ε_opt ≤ ε_exact ≤ ours ≤ ε_exact + k·h_ours ≤ ε_opt + k·(h + h_ours),
    # and against the pessimistic reference the target accuracy is 1e-3 relative
    # (observed: ≤ 4.7e-7 relative).
    b, h = 1 / a, a / 1000
    h_ours = a / acc.laplace_steps(k)
    pess, opt = (pld.self_compose(k) for pld in _dpa_laplace_plds(b, h))
    for delta in DELTAS:
        got = laplace_composition_epsilon(b, k, delta)
        low = opt.get_epsilon_for_delta(delta)
        assert low - 1e-12 <= got <= low + k * (h + h_ours)
        assert got == pytest.approx(pess.get_epsilon_for_delta(delta), rel=1e-3)


def test_laplace_with_sensitivity():
    # Only a = Δ/b matters.
    assert laplace_composition_epsilon(4.0, 10, 1e-5, sensitivity=2.0) == pytest.approx(
        laplace_composition_epsilon(2.0, 10, 1e-5), rel=1e-12
    )
    assert laplace_composition_epsilon(1.0, 5, 1e-5, sensitivity=0.0) == 0.0


@pytest.mark.parametrize("k", [1, 8, 64])
def test_laplace_refining_the_grid_converges_from_above(monkeypatch, k):
    # The PLD on the coarse grid is the one on the fine grid with each midpoint's mass split again
    # between its two neighbours (keeping P and Q), so its δ(ε) is larger for every ε, also
    # after composition: refining the grid lowers the upper bound towards the exact ε.
    before = [laplace_composition_epsilon(2.0, k, delta) for delta in DELTAS]
    steps = acc.laplace_steps
    monkeypatch.setattr(acc, "laplace_steps", lambda k: 2 * steps(k))
    after = [laplace_composition_epsilon(2.0, k, delta) for delta in DELTAS]
    for coarse, fine in zip(before, after, strict=True):
        assert fine <= coarse + 1e-12
        assert coarse - fine < 1e-5 * fine


def _direct_convolution_epsilon(a, k, delta):
    """The same discretised PLD, composed by exact (non-FFT) convolution of positive numbers."""
    steps = acc.laplace_steps(k)
    _, probs = acc._laplace_pld(a, steps)
    composed = np.array([1.0])
    for _ in range(k):
        composed = np.convolve(composed, probs)
    losses = (np.arange(composed.size) - k * steps) * (a / steps)
    with np.errstate(divide="ignore"):
        log_probs = np.log(composed)
    return acc._epsilon_from_pld(losses[::-1], log_probs[::-1], delta)


@pytest.mark.parametrize("a", [0.1, 1.0])
def test_laplace_fft_is_accurate_for_tiny_delta(monkeypatch, a):
    # FFT round-off is ~1e-16 of the largest probability. Without the exponential tilt it
    # swamps tails of mass ~1e-12, and at k = 100 ε came out too small by ~1e-5 (δ = 1e-12)
    # and ~2e-4 (δ = 1e-14) relative. With it, ε agrees with an exact convolution of the same
    # discretised PLD to floating-point accuracy. (A coarse grid keeps the exact convolution
    # cheap; the tilt does not depend on the grid size.)
    monkeypatch.setattr(acc, "laplace_steps", lambda k: 40)
    k = 100
    for delta in [1e-6, 1e-10, 1e-12, 1e-14]:
        assert laplace_composition_epsilon(1 / a, k, delta) == pytest.approx(
            _direct_convolution_epsilon(a, k, delta), rel=1e-9
        )


@pytest.mark.parametrize("a", [0.1, 1.0])
@pytest.mark.parametrize("k", KS)
def test_laplace_is_never_worse_than_the_worst_case(a, k):
    # Lap(Δ/a) is a-DP, so its exact composition is never worse than the worst case for a-DP
    # mechanisms (optimal composition).
    for delta in DELTAS:
        assert laplace_composition_epsilon(1 / a, k, delta) <= optimal_composition(a, k, delta) + 1e-9


# --------------------------------------------------------------------------------------------
# Properties (hypothesis)
# --------------------------------------------------------------------------------------------

NAN, INF = math.nan, math.inf
BAD_POSITIVE = st.one_of(st.floats(max_value=0.0), st.sampled_from([NAN, INF]))
BAD_NON_NEGATIVE = st.one_of(st.floats(max_value=0.0, exclude_max=True), st.sampled_from([NAN, INF]))
BAD_OPEN_UNIT = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(NAN))
BAD_DELTA_OR_ZERO = st.one_of(
    st.floats(max_value=0.0, exclude_max=True), st.floats(min_value=1.0), st.just(NAN)
)
BAD_COUNT = st.one_of(
    st.integers(max_value=0),
    st.floats(min_value=0.01, max_value=1e6).filter(lambda x: not x.is_integer()),
    st.sampled_from([NAN, INF, -INF, "3", None]),
)

VALID = {
    advanced_composition: dict(epsilon=0.5, delta=1e-6, k=10, delta_prime=1e-6),
    optimal_composition: dict(epsilon=0.5, k=10, delta=1e-6),
    gaussian_composition_epsilon: dict(sigma=2.0, k=10, delta=1e-6, sensitivity=1.0),
    laplace_composition_epsilon: dict(scale=2.0, k=10, delta=1e-6, sensitivity=1.0),
    gaussian_zcdp_rho: dict(sigma=2.0, sensitivity=1.0),
    zcdp_to_dp: dict(rho=0.1, delta=1e-6),
    group_privacy: dict(epsilon=0.5, delta=1e-6, group_size=3),
}
BAD = {
    "epsilon": BAD_POSITIVE, "sigma": BAD_POSITIVE, "scale": BAD_POSITIVE,
    "sensitivity": BAD_NON_NEGATIVE, "rho": BAD_NON_NEGATIVE,
    "k": BAD_COUNT, "group_size": BAD_COUNT,
    "delta_prime": BAD_OPEN_UNIT,
}
PURE_DP_ALLOWED = (advanced_composition, group_privacy)  # these accept δ = 0
CASES = [
    (func, name, BAD[name] if name in BAD else
     BAD_DELTA_OR_ZERO if func in PURE_DP_ALLOWED else BAD_OPEN_UNIT)
    for func, kwargs in VALID.items()
    for name in kwargs
]


@pytest.mark.parametrize(
    "func,name,bad", CASES, ids=[f"{func.__name__}-{name}" for func, name, _ in CASES]
)
@SETTINGS
@given(data=st.data())
def test_invalid_parameters_raise_value_error_naming_them(func, name, bad, data):
    value = data.draw(bad, label=name)
    with pytest.raises(ValueError, match=name):
        func(**{**VALID[func], name: value})


@SETTINGS
@given(
    epsilons=st.lists(st.one_of(BAD_POSITIVE, st.floats(0.1, 1.0)), min_size=1).filter(
        lambda xs: any(not (isinstance(x, float) and math.isfinite(x) and x > 0) for x in xs)
    )
)
def test_basic_composition_rejects_invalid_epsilons(epsilons):
    with pytest.raises(ValueError, match="epsilons"):
        basic_composition(epsilons)


EPS = st.floats(0.01, 5.0)
DELTA = st.floats(-12.0, -0.5).map(lambda x: 10.0**x)
K = st.integers(1, 300)


@SETTINGS
@given(eps=EPS, k=K, delta=DELTA)
def test_optimal_composition_is_monotone(eps, k, delta):
    got = optimal_composition(eps, k, delta)
    slack = 1e-12 * max(got, 1.0)
    assert got <= optimal_composition(eps, k + 1, delta) + slack
    assert got <= optimal_composition(eps * 1.1, k, delta) + slack
    assert got >= optimal_composition(eps, k, delta * 2) - slack
    assert got <= k * eps + slack


@SETTINGS
@given(sigma=st.floats(0.1, 50.0), k=K, delta=DELTA)
def test_gaussian_composition_is_monotone(sigma, k, delta):
    got = gaussian_composition_epsilon(sigma, k, delta)
    slack = 1e-10 * max(got, 1.0)
    assert got <= gaussian_composition_epsilon(sigma, k + 1, delta) + slack
    assert got <= gaussian_composition_epsilon(sigma / 1.1, k, delta) + slack
    assert got >= gaussian_composition_epsilon(sigma, k, delta * 2) - slack


@FEW
@given(scale=st.floats(0.2, 100.0), k=st.integers(1, 100), delta=DELTA)
def test_laplace_composition_is_monotone(scale, k, delta):
    got = laplace_composition_epsilon(scale, k, delta)
    slack = 1e-9 * max(got, 1.0)
    assert got <= laplace_composition_epsilon(scale, k + 1, delta) + slack
    assert got <= laplace_composition_epsilon(scale / 1.1, k, delta) + slack
    assert got >= laplace_composition_epsilon(scale, k, delta * 2) - slack
    assert got <= k / scale + slack  # never worse than basic composition


@SETTINGS
@given(eps=EPS, k=K, delta=DELTA, delta_prime=DELTA)
def test_advanced_composition_and_zcdp_are_monotone(eps, k, delta, delta_prime):
    e, d = advanced_composition(eps, delta, k, delta_prime)
    assert advanced_composition(eps, delta, k + 1, delta_prime)[0] >= e
    assert advanced_composition(eps * 1.1, delta, k, delta_prime)[0] >= e
    assert advanced_composition(eps, delta, k, delta_prime / 2)[0] >= e
    assert d == pytest.approx(k * delta + delta_prime)
    rho = gaussian_zcdp_rho(1 / eps)
    assert zcdp_to_dp(rho, delta) <= zcdp_to_dp(rho * 1.1, delta)
    assert zcdp_to_dp(rho, delta) <= zcdp_to_dp(rho, delta / 2)


@FEW
@given(eps=st.floats(1.0, 50.0), k=st.integers(1, 10_000), delta=DELTA)
def test_no_overflow_or_nan_up_to_epsilon_50(eps, k, delta):
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise", divide="raise"):
        warnings.simplefilter("error")
        results = [
            optimal_composition(eps, k, delta),
            *advanced_composition(eps, delta, k, delta),
            *basic_composition([eps] * k, [delta / k] * k),
            *group_privacy(eps, delta, min(k, 1000)),
            zcdp_to_dp(gaussian_zcdp_rho(1 / eps), delta),
            gaussian_composition_epsilon(1 / eps, k, delta),
            laplace_composition_epsilon(1 / eps, min(k, 100), delta),
        ]
    assert all(math.isfinite(x) and x >= 0 for x in results)
    assert results[0] <= k * eps * (1 + 1e-12)
