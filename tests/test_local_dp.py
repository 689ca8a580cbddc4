"""dp.local_dp: RR parametrisations (ε, α, coins), local-vs-central accuracy, Tammy's posterior."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dp
from dp.local_dp import (
    alpha_epsilon,
    central_rmse,
    central_simulate,
    coin_heads_probability,
    coin_keep_probability,
    coin_report,
    lecture_theorem_alpha,
    local_central_ratio,
    local_n_to_match_central,
    population_fraction,
    randomized_response_alpha,
    rr_alpha,
    rr_estimate_step,
    rr_posterior,
    rr_rmse,
    rr_yes_share,
    sampling_rmse,
    simulated_rmse,
    yes_rates,
)

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)
LN3 = math.log(3)


def test_fair_coins_closed_forms():
    assert rr_alpha(LN3) == pytest.approx(0.25)
    assert coin_heads_probability(LN3) == pytest.approx(0.5)
    assert coin_keep_probability(0.5) == pytest.approx(0.75)
    assert alpha_epsilon(0.25) == pytest.approx(LN3)
    # The CSE 312 theorem's α (no factor 2) is ½ at ln 3: keep probability 1, no privacy.
    assert lecture_theorem_alpha(LN3) == pytest.approx(0.5)
    assert alpha_epsilon(0.5) == math.inf


def test_tammy_posterior_is_3_over_52():
    # 0.02·¾ / (0.02·¾ + 0.98·¼) = 0.015/0.26 = 3/52 ≈ 0.0577 (DDA4210).
    assert rr_posterior(0.02, LN3, report=1) == pytest.approx(3 / 52, rel=1e-12)
    assert rr_posterior(0.02, LN3, report=0) == pytest.approx(0.005 / 0.74, rel=1e-12)


def test_accuracy_closed_forms():
    # Fair coins: √(q(1−q)) / (2q − 1) = √(3/16)/½ = √3/2; Laplace: √2/ε per 1/n.
    assert rr_rmse(10_000, LN3) == pytest.approx(math.sqrt(3) / 2 / 100)
    assert central_rmse(10_000, LN3) == pytest.approx(math.sqrt(2) / LN3 / 10_000)
    assert local_central_ratio(10**6, LN3) == pytest.approx(math.sqrt(3) / 2 * LN3 / math.sqrt(2) * 1000)
    assert sampling_rmse(100, 0.5) == pytest.approx(0.05)
    assert rr_estimate_step(1000, LN3) == pytest.approx(1 / 500)
    assert population_fraction(10, 0.33) == pytest.approx(0.3)


@SETTINGS
@given(st.floats(0.001, 30))
def test_parametrisations_agree(epsilon):
    q = dp.rr_keep_probability(epsilon)
    assert 0.5 + rr_alpha(epsilon) == pytest.approx(q, rel=1e-12)
    assert coin_keep_probability(coin_heads_probability(epsilon)) == pytest.approx(q, rel=1e-12)
    # The slide's expression is the first coin's heads probability h = 2α, not α.
    assert lecture_theorem_alpha(epsilon) == pytest.approx(2 * rr_alpha(epsilon), rel=1e-9)
    assert rr_alpha(epsilon) == pytest.approx(math.expm1(epsilon) / (2 * (math.exp(epsilon) + 1)), rel=1e-9)


@SETTINGS
@given(st.floats(0.001, 15))
def test_alpha_epsilon_inverts_rr_alpha(epsilon):
    # Conditioning as in dp.rr_epsilon: rounding ½ − α to a double moves ε by ~1e-16·e^ε.
    assert alpha_epsilon(rr_alpha(epsilon)) == pytest.approx(epsilon, rel=1e-9, abs=1e-15 * math.exp(epsilon))


@SETTINGS
@given(st.floats(0.0, 1.0), st.floats(0.01, 10))
def test_posterior_moves_the_odds_by_exactly_e_to_the_epsilon(prior, epsilon):
    # RR is tight: after a Yes the posterior is the upper bound of dp.posterior_bounds.
    lower, upper = dp.posterior_bounds(prior, epsilon)
    assert rr_posterior(prior, epsilon, report=1) == pytest.approx(upper, rel=1e-9, abs=1e-300)
    assert rr_posterior(prior, epsilon, report=0) == pytest.approx(lower, rel=1e-9, abs=1e-300)


@SETTINGS
@given(st.floats(-2, 3), st.floats(0.01, 10))
def test_yes_share_inverts_the_debiasing(estimate, epsilon):
    q = dp.rr_keep_probability(epsilon)
    share = rr_yes_share(estimate, epsilon)
    assert (share - (1 - q)) / (2 * q - 1) == pytest.approx(estimate, rel=1e-9, abs=1e-9)


@SETTINGS
@given(st.integers(1, 10**9), st.floats(0.01, 10))
def test_local_n_to_match_central_matches_the_errors(n, epsilon):
    n_local = local_n_to_match_central(n, epsilon)
    assert float(rr_rmse(1, epsilon)) / math.sqrt(n_local) == pytest.approx(central_rmse(n, epsilon), rel=1e-9)


def test_vectorised_in_n_and_epsilon():
    ns = np.array([10, 100, 1000])
    assert np.shape(rr_rmse(ns, 1.0)) == (3,)
    assert np.allclose(rr_rmse(ns * 100, 1.0), np.asarray(rr_rmse(ns, 1.0)) / 10)
    assert np.shape(rr_alpha(np.array([0.1, 1.0]))) == (2,)


@pytest.mark.parametrize("truth", [0, 1])
def test_coin_report_truth_table(truth):
    assert coin_report(truth, first_heads=True, second_heads=True) == truth
    assert coin_report(truth, first_heads=True, second_heads=False) == truth
    assert coin_report(truth, first_heads=False, second_heads=True) == 1
    assert coin_report(truth, first_heads=False, second_heads=False) == 0


def test_coin_protocol_keeps_the_truth_three_times_in_four():
    # 20,000 respondents with fair coins: matches ~ Bin(2e4, ¾), sd ≈ 61; allow 6 sd.
    rng = np.random.default_rng(11)
    coins = rng.random((20_000, 2)) < 0.5
    matches = sum(coin_report(1, a, b) == 1 for a, b in coins.tolist())
    assert abs(matches - 15_000) < 6 * math.sqrt(2e4 * 0.75 * 0.25)


def test_randomized_response_alpha_flip_rate_and_edges():
    # α = ¼: flips ~ Bin(10⁶, ¼), sd ≈ 433; allow 6 sd.
    rng = np.random.default_rng(5)
    reports = randomized_response_alpha(np.ones(1_000_000, dtype=int), 0.25, rng)
    assert abs(np.sum(reports == 0) - 250_000) < 6 * math.sqrt(1e6 * 0.25 * 0.75)
    bits = rng.integers(0, 2, 1000)
    assert np.array_equal(randomized_response_alpha(bits, 0.5, rng), bits)  # α = ½: the truth
    with pytest.raises(ValueError, match="alpha"):
        randomized_response_alpha(bits, 0.6, rng)


def test_central_simulate_matches_its_rmse():
    # MSE of T Laplace draws: Var[Y²]/(E[Y²])² = 20b⁴/(2b²)² = 5, so the estimate's relative
    # sd is √(5/T) = 1.6% at T = 20,000; the RMSE's is half that. Allow 6 sd ≈ 5%.
    rng = np.random.default_rng(6)
    n, epsilon, trials = 1000, 0.5, 20_000
    errors = central_simulate(n, 0.3, epsilon, rng, trials=trials) - population_fraction(n, 0.3)
    assert math.sqrt(np.mean(errors**2)) == pytest.approx(central_rmse(n, epsilon), rel=0.05)


@pytest.mark.parametrize("model", ["local", "central"])
def test_simulated_rmse_follows_the_formulas(model):
    # 4000 trials: relative sd of the RMSE ≈ √(1/(2T)) = 1.1% (local, near-Gaussian) and
    # √(5/T)/2 = 1.8% (central, Laplace). 6 sd ≈ 11%.
    rng = np.random.default_rng(7)
    ns = [100, 10_000, 10**7]
    sim = simulated_rmse(ns, 0.4, LN3, rng, trials=4000, model=model)
    theory = rr_rmse(np.array(ns), LN3) if model == "local" else central_rmse(np.array(ns), LN3)
    assert np.allclose(sim, theory, rtol=0.11)


def test_yes_rates_and_the_audit_catch_the_missing_factor_two():
    rng = np.random.default_rng(8)
    n = 100_000
    for alpha, caught in [(rr_alpha(LN3), False), (lecture_theorem_alpha(LN3), True)]:
        alpha = min(alpha, 0.5)
        yes = randomized_response_alpha(np.ones(n, dtype=int), alpha, rng)
        no = randomized_response_alpha(np.zeros(n, dtype=int), alpha, rng)
        p_yes, p_no, ratio = yes_rates(yes, no)
        certified = dp.audit_epsilon(yes, no, lambda y: y == 1)
        assert (certified > LN3) == caught
        if not caught:  # sd of each rate ≈ 0.0014; allow 6 sd
            assert p_yes == pytest.approx(0.75, abs=0.009)
            assert p_no == pytest.approx(0.25, abs=0.009)
        else:
            assert (p_yes, p_no, ratio) == (1.0, 0.0, math.inf)


@pytest.mark.parametrize("call", [
    lambda: rr_alpha(0), lambda: rr_alpha(float("nan")), lambda: alpha_epsilon(0.6),
    lambda: coin_keep_probability(1.5), lambda: rr_rmse(0, 1.0), lambda: rr_rmse(2.5, 1.0),
    lambda: central_rmse(10, -1), lambda: rr_posterior(1.2, 1.0), lambda: rr_posterior(0.5, 1.0, report=2),
    lambda: coin_report(2, True, True), lambda: population_fraction(0, 0.5),
    lambda: simulated_rmse([10], 0.5, 1.0, np.random.default_rng(0), model="global"),
    lambda: central_simulate(10, 0.5, 1.0, rng=None), lambda: yes_rates([], [1]),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()
