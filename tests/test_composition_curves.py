"""dp.composition_curves (the Composition page's curves) and dp.postprocessing."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dp.accounting import (
    advanced_composition,
    gaussian_composition_epsilon,
    laplace_composition_epsilon,
    optimal_composition,
)
from dp.composition_curves import (
    advanced_crossover,
    gaussian_curves,
    laplace_curve,
    pure_dp_curves,
)
from dp.noise import gaussian_epsilon
from dp.postprocessing import post_process

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)


# --- advanced_crossover -------------------------------------------------------------------


def test_crossover_reproduces_the_issue_example():
    # k* = 2 ln(1e6)/(2 − e^0.1)² = 27.631/0.80072 ≈ 34.51; at k = 10: 1.767 against 1.0.
    assert advanced_crossover(0.1, 1e-6) == pytest.approx(34.5078, abs=1e-3)
    assert advanced_composition(0.1, 0.0, 10, 1e-6)[0] == pytest.approx(1.767, abs=1e-3)
    assert advanced_composition(0.1, 0.0, 34, 1e-6)[0] > 34 * 0.1
    assert advanced_composition(0.1, 0.0, 35, 1e-6)[0] < 35 * 0.1


@SETTINGS
@given(epsilon=st.floats(0.005, 0.68), log_delta=st.floats(-12, -1))
def test_crossover_separates_worse_from_better(epsilon, log_delta):
    delta = 10.0**log_delta
    k_star = advanced_crossover(epsilon, delta)
    assert math.isfinite(k_star)
    # at k* the two bounds are equal (the defining equation, solved exactly)
    eps_total = math.sqrt(2 * k_star * math.log(1 / delta)) * epsilon + k_star * epsilon * math.expm1(epsilon)
    assert eps_total == pytest.approx(k_star * epsilon, rel=1e-9)
    below, above = math.ceil(k_star) - 1, math.floor(k_star) + 1  # nearest integers either side
    if below >= 1:
        assert advanced_composition(epsilon, 0.0, below, delta)[0] > below * epsilon
    if above < 1e12:
        assert advanced_composition(epsilon, 0.0, above, delta)[0] < above * epsilon


@pytest.mark.parametrize("epsilon", [math.log(2), 0.7, 1.0, 10.0])
def test_no_crossover_from_ln2_on(epsilon):
    assert advanced_crossover(epsilon, 1e-6) == math.inf
    for k in (1, 10, 10**4, 10**8):
        assert advanced_composition(epsilon, 0.0, k, 1e-6)[0] >= k * epsilon


@pytest.mark.parametrize("bad", [(0.0, 1e-6), (-1.0, 1e-6), (0.1, 0.0), (0.1, 1.0), (math.nan, 0.1)])
def test_crossover_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        advanced_crossover(*bad)


# --- pure_dp_curves and laplace_curve -----------------------------------------------------------


def test_pure_curves_are_the_accounting_functions():
    ks = [1, 2, 10, 100, 10_000]
    curves = pure_dp_curves(0.1, ks, 1e-6)
    assert np.allclose(curves["basic"], [0.1 * k for k in ks])
    assert np.allclose(curves["advanced"], [advanced_composition(0.1, 0, k, 1e-6)[0] for k in ks])
    assert np.allclose(curves["optimal"], [optimal_composition(0.1, k, 1e-6) for k in ks])
    # The optimal bound never exceeds basic composition (basic is one valid (ε, δ) pair).
    assert np.all(curves["optimal"] <= curves["basic"] + 1e-12)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(epsilon=st.floats(0.01, 3), log_delta=st.floats(-12, -1))
def test_exact_laplace_is_below_optimal_is_below_basic(epsilon, log_delta):
    delta = 10.0**log_delta
    ks = [1, 3, 20]
    laplace = laplace_curve(epsilon, ks, delta)
    optimal = pure_dp_curves(epsilon, ks, delta)["optimal"]
    # KOV is the worst case over all ε-DP mechanisms, so the (upper-bounding) Laplace PLD
    # value can exceed it only by its discretisation error, < k·h with h = ε/m, m ≥ 50 steps
    # for these k (documented in dp.accounting.laplace_composition_epsilon).
    assert np.all(laplace <= optimal + np.array(ks) * epsilon / 50 + 1e-9)
    assert np.all(laplace <= epsilon * np.array(ks) + 1e-9)


def test_laplace_curve_is_the_accounting_function():
    assert laplace_curve(0.5, [1, 5], 1e-5) == pytest.approx(
        [laplace_composition_epsilon(2.0, 1, 1e-5), laplace_composition_epsilon(2.0, 5, 1e-5)])
    # One release: the loss is +ε with probability ½, so ε(δ) = ε + ln(1 − 2δ) ≈ ε − 2δ.
    assert laplace_curve(0.1, [1], 1e-6)[0] == pytest.approx(0.1, abs=1e-5)


@pytest.mark.parametrize("ks", [[0], [1.5], [[1, 2]], [], ["a"]])
def test_curves_reject_bad_query_counts(ks):
    with pytest.raises(ValueError):
        pure_dp_curves(0.1, ks, 1e-6)


# --- gaussian_curves ---------------------------------------------------------------------------


def test_gaussian_curves_match_their_definitions():
    ks = [1, 10, 1000]
    sigma, delta = 10.0, 1e-6
    curves = gaussian_curves(sigma, ks, delta)
    rho = 1 / (2 * sigma**2)
    assert np.allclose(curves["zcdp"], [k * rho + 2 * math.sqrt(k * rho * math.log(1 / delta)) for k in ks])
    assert np.allclose(curves["exact"], [gaussian_composition_epsilon(sigma, k, delta) for k in ks])
    assert np.allclose(curves["basic"], [k * gaussian_epsilon(sigma, delta / k) for k in ks])
    eps_1 = gaussian_epsilon(sigma, delta / 20)
    assert curves["advanced"][1] == pytest.approx(advanced_composition(eps_1, delta / 20, 10, delta / 2)[0])
    # With one query, basic composition is the exact value.
    assert curves["basic"][0] == pytest.approx(curves["exact"][0])


@SETTINGS
@given(log_sigma=st.floats(-0.3, 2.3), log_delta=st.floats(-12, -1))
def test_exact_gaussian_is_the_smallest(log_sigma, log_delta):
    sigma, delta = 10.0**log_sigma, 10.0**log_delta
    curves = gaussian_curves(sigma, [1, 7, 300], delta)
    tol = 1e-7  # root-finding tolerance of gaussian_epsilon (xtol = rtol = 1e-13), with room
    for name in ("basic", "advanced", "zcdp"):
        assert np.all(curves["exact"] <= curves[name] * (1 + tol) + tol), name


def test_gaussian_zero_epsilon_when_delta_covers_everything():
    # σ = 200, δ′ = 0.1: one release is already (0, 0.1)-DP (2Φ(1/400) − 1 ≈ 0.002 < 0.1).
    curves = gaussian_curves(200.0, [1], 0.1)
    assert curves["exact"][0] == 0.0 and curves["basic"][0] == 0.0 and curves["advanced"][0] == 0.0
    assert curves["zcdp"][0] > 0


# --- post_process ---------------------------------------------------------------------------------


def test_post_process_steps():
    assert post_process(3.4, 200, []) == 3.4
    assert post_process(3.6, 200, ["round"]) == 4.0
    assert post_process(-2.3, 200, ["clamp"]) == 0.0
    assert post_process(250.0, 200, ["clamp"]) == 200.0
    assert post_process(-2.6, 200, ["clamp", "round"]) == 0.0  # applied in STEPS order
    assert post_process(3.0, 200, ["percent"]) == pytest.approx(1.5)
    with pytest.raises(ValueError):
        post_process(1.0, 200, ["peek at the data"])
    with pytest.raises(ValueError):
        post_process(1.0, 0, [])


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 2.0])
def test_rounding_and_clamping_keep_epsilon(epsilon):
    # Post-processing, checked exactly: release 3 + Lap(1/ε) or 4 + Lap(1/ε) (neighbours),
    # round and clamp into [0, 10]. Every output's probability ratio stays within e^ε.
    b = 1 / epsilon
    edges = np.arange(-0.5, 11.0)
    edges[0], edges[-1] = -np.inf, np.inf  # clamping sends the tails to 0 and 10
    p = np.diff(stats.laplace(3, b).cdf(edges))
    q = np.diff(stats.laplace(4, b).cdf(edges))
    assert all(post_process(x, 10, ["round", "clamp"]) in range(11) for x in (-7.2, 3.4, 99.0))
    # Tail cells near 1e-6 come from differences of CDF values near 1, so they carry a
    # relative round-off of about 1e-16/1e-6 = 1e-10: allow 1e-8 on the log ratio.
    assert np.max(np.abs(np.log(p / q))) <= epsilon + 1e-8


def test_advanced_terms_add_up_to_advanced_composition_and_cross_where_stated():
    from dp.accounting import advanced_composition
    from dp.composition_curves import advanced_terms
    for epsilon, k, delta_prime in [(0.1, 10, 1e-6), (0.5, 66, 1e-6), (0.5, 67, 1e-6), (2.0, 3, 0.1)]:
        terms = advanced_terms(epsilon, k, delta_prime)
        assert terms["first"] + terms["second"] == pytest.approx(
            advanced_composition(epsilon, 0.0, k, delta_prime)[0], rel=1e-12)
        assert (terms["second"] > terms["first"]) == (k > terms["linear_from"])
    assert advanced_terms(0.5, 1, 1e-6)["linear_from"] == pytest.approx(65.7, abs=0.05)
    assert advanced_terms(0.1, 1, 1e-6)["linear_from"] == pytest.approx(2498.1, abs=0.05)
    assert advanced_terms(0.1, 1, 1e-6)["root"] == pytest.approx(5.26, abs=0.005)
