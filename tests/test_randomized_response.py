"""dp.randomized_response: the keep probability, its inverse, and the unbiased estimator."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dp

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)


def test_two_coin_protocol_is_epsilon_ln3():
    assert dp.rr_keep_probability(math.log(3)) == pytest.approx(0.75)
    assert dp.rr_epsilon(0.75) == pytest.approx(math.log(3))


@SETTINGS
@given(st.floats(0.001, 20))
def test_keep_probability_and_epsilon_are_inverse(epsilon):
    # keep = 1 − e^−ε to first order, so rounding keep to a double (error ~1e-16) moves ε
    # by about 1e-16·e^ε: that is the conditioning of the inverse, not an error in it.
    recovered = dp.rr_epsilon(dp.rr_keep_probability(epsilon))
    assert recovered == pytest.approx(epsilon, rel=1e-12, abs=1e-15 * math.exp(epsilon))


@SETTINGS
@given(st.floats(0.001, 0.499))
def test_notes_alpha_parametrisation(alpha):
    # CSE 312 notes: keep = 1/2 + α gives ε = ln((1+2α)/(1−2α)), i.e. α = (e^ε − 1)/(2(e^ε + 1)).
    # The notes' theorem states α = (e^ε − 1)/(e^ε + 1), which drops this factor of 2.
    epsilon = dp.rr_epsilon(0.5 + alpha)
    assert epsilon == pytest.approx(math.log((1 + 2 * alpha) / (1 - 2 * alpha)), rel=1e-9)
    assert alpha == pytest.approx((math.exp(epsilon) - 1) / (2 * (math.exp(epsilon) + 1)), rel=1e-9)
    assert alpha != pytest.approx((math.exp(epsilon) - 1) / (math.exp(epsilon) + 1), rel=1e-3)


def test_no_overflow_at_large_epsilon():
    assert dp.rr_keep_probability(50) == pytest.approx(1.0)
    assert np.isfinite(dp.rr_simulate(100, 0.3, 50, np.random.default_rng(0), trials=5)).all()


def test_randomized_response_flip_rate():
    # 10^6 reports at keep q = 0.75: the flip count is Bin(10^6, 0.25), sd ≈ 433.
    # Allow 6 sd (a two-sided 6-sigma event has probability 2e-9).
    rng = np.random.default_rng(3)
    bits = np.ones(1_000_000, dtype=int)
    flips = np.sum(dp.randomized_response(bits, math.log(3), rng) == 0)
    assert abs(flips - 250_000) < 6 * math.sqrt(1e6 * 0.25 * 0.75)


@pytest.mark.parametrize("epsilon", [0.1, math.log(3), 3.0])
@pytest.mark.parametrize("fraction", [0.0, 0.02, 0.5])
def test_estimator_is_unbiased(epsilon, fraction):
    # Mean of T estimates has sd = sqrt(q(1−q)/(n(2q−1)²)/T); allow 6 sd.
    rng = np.random.default_rng(4)
    n, trials = 1000, 4000
    q = dp.rr_keep_probability(epsilon)
    estimates = dp.rr_simulate(n, fraction, epsilon, rng, trials=trials)
    sd_of_mean = math.sqrt(q * (1 - q) / (n * (2 * q - 1) ** 2) / trials)
    assert abs(estimates.mean() - fraction) < 6 * sd_of_mean
    # and its spread matches Warner's variance within sampling error of a variance (~6·√(2/T))
    assert estimates.var() == pytest.approx(sd_of_mean**2 * trials, rel=6 * math.sqrt(2 / trials))


def test_rr_estimate_agrees_with_per_person_simulation():
    rng = np.random.default_rng(5)
    truth = (rng.random(200_000) < 0.3).astype(int)
    reports = dp.randomized_response(truth, 1.0, rng)
    q = dp.rr_keep_probability(1.0)
    sd = math.sqrt(q * (1 - q) / (truth.size * (2 * q - 1) ** 2))
    assert abs(dp.rr_estimate(reports, 1.0) - truth.mean()) < 6 * sd


def test_simulation_is_instant_at_a_billion_people():
    estimates = dp.rr_simulate(10**9, 0.3, 1.0, np.random.default_rng(6), trials=1000)
    assert estimates.shape == (1000,)
    assert abs(estimates.mean() - 0.3) < 1e-3


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: dp.rr_keep_probability(0), "epsilon"),
        (lambda: dp.rr_keep_probability(math.nan), "epsilon"),
        (lambda: dp.rr_epsilon(0.5), "keep_probability"),
        (lambda: dp.rr_epsilon(1.0), "keep_probability"),
        (lambda: dp.randomized_response([0, 2], 1, np.random.default_rng(0)), "bits"),
        (lambda: dp.randomized_response([], 1, np.random.default_rng(0)), "bits"),
        (lambda: dp.rr_estimate([0.5], 1), "reported"),
        (lambda: dp.rr_simulate(0, 0.5, 1, np.random.default_rng(0)), "n"),
        (lambda: dp.rr_simulate(10, 1.5, 1, np.random.default_rng(0)), "true_fraction"),
        (lambda: dp.rr_simulate(10, 0.5, 1, np.random.default_rng(0), trials=0), "trials"),
        (lambda: dp.rr_simulate(10, 0.5, 1, None), "rng"),
    ],
)
def test_invalid_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
