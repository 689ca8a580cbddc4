"""dp.privacy_loss: Laplace densities, privacy loss, ROC curves and guessing accuracy."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dp.attacks import max_true_positive_rate
from dp.noise import laplace_mechanism, laplace_scale
from dp.privacy_loss import (
    laplace_density,
    laplace_guess_accuracy,
    laplace_privacy_loss,
    laplace_roc,
    max_guess_accuracy,
    simple_posterior_bounds,
)
from dp.randomized_response import rr_keep_probability

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)
EPSILON = st.floats(0.01, 20)
VALUE = st.floats(-1e3, 1e3)
SCALE = st.floats(0.05, 100)


# --- laplace_density --------------------------------------------------------------------


def test_laplace_density_matches_scipy_and_integrates_to_one():
    x = np.linspace(-60, 70, 20_001)
    p = laplace_density(x, 5.0, 3.0)
    assert np.allclose(p, stats.laplace(loc=5.0, scale=3.0).pdf(x))
    # Trapezoid rule on a grid of step 0.0065 over ±18 scales: the missing tails weigh
    # e^−18 < 1e-7 and the kink at the centre costs O(step²/b²) ≈ 5e-6.
    assert np.trapezoid(p, x) == pytest.approx(1.0, abs=1e-5)
    assert laplace_density(5.0, 5.0, 3.0) == pytest.approx(1 / 6)
    assert isinstance(laplace_density(0.0, 0.0, 1.0), float)


@pytest.mark.parametrize("kwargs", [{"scale": 0}, {"scale": -1}, {"center": math.nan}, {"x": [1, math.inf]}])
def test_laplace_density_rejects_bad_input(kwargs):
    args = {"x": [0.0], "center": 0.0, "scale": 1.0, **kwargs}
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        laplace_density(**args)


# --- laplace_privacy_loss ----------------------------------------------------------------


def test_blog_example_privacy_loss_stays_inside_epsilon():
    # Blog: f(D) = 5, f(D′) = 10, Δ = 7. At ε = 0.2 the scale is b = 35 and the loss is
    # at most |5 − 10|/35 = 1/7 ≈ 0.143 < 0.2; at ε = 10, b = 0.7 and it reaches 5/0.7 ≈ 7.14.
    for epsilon, worst in [(0.2, 5 / 35), (10.0, 5 / 0.7)]:
        b = laplace_scale(7, epsilon)
        x = np.linspace(-200, 200, 4001)
        loss = laplace_privacy_loss(x, 5, 10, b)
        assert np.max(np.abs(loss)) == pytest.approx(worst)
        assert worst <= epsilon
    # Left of both centres an output favours D by the full factor; right of both, D′.
    assert laplace_privacy_loss(-100.0, 5, 10, 35) == pytest.approx(1 / 7)
    assert laplace_privacy_loss(100.0, 5, 10, 35) == pytest.approx(-1 / 7)
    assert laplace_privacy_loss(7.5, 5, 10, 35) == pytest.approx(0.0)


@SETTINGS
@given(x=VALUE, value_d=VALUE, value_d_prime=VALUE, scale=SCALE)
def test_privacy_loss_is_the_log_density_ratio_and_is_bounded(x, value_d, value_d_prime, scale):
    loss = laplace_privacy_loss(x, value_d, value_d_prime, scale)
    # Triangle inequality: |L| ≤ s/b; a relative slack of 1e-9 absorbs float rounding.
    bound = abs(value_d - value_d_prime) / scale
    assert abs(loss) <= bound * (1 + 1e-9) + 1e-12
    # The log of the two densities' ratio, where neither underflows.
    p, q = laplace_density(x, value_d, scale), laplace_density(x, value_d_prime, scale)
    if p > 1e-300 and q > 1e-300:
        assert loss == pytest.approx(math.log(p / q), rel=1e-6, abs=1e-9)


def test_privacy_loss_rejects_bad_input():
    with pytest.raises(ValueError, match="scale"):
        laplace_privacy_loss([0.0], 0, 1, 0)
    with pytest.raises(ValueError, match="value_d_prime"):
        laplace_privacy_loss([0.0], 0, math.nan, 1)


# --- laplace_roc -------------------------------------------------------------------------


def test_laplace_roc_matches_scipy():
    t = np.linspace(-5, 8, 27)
    fpr, tpr = laplace_roc(t, 2.0, 1.5)
    assert np.allclose(fpr, stats.laplace(scale=1.5).sf(t))
    assert np.allclose(tpr, stats.laplace(loc=2.0, scale=1.5).sf(t))
    assert laplace_roc(0.0, 1.0, 1.0) == pytest.approx((0.5, 1 - 0.5 * math.exp(-1)))


@SETTINGS
@given(epsilon=EPSILON, t=st.floats(-50, 50))
def test_laplace_roc_lies_inside_the_dp_region(epsilon, t):
    # Δ = 1, b = 1/ε: the Laplace mechanism is ε-DP, so every test obeys the trade-off.
    fpr, tpr = laplace_roc(t, 1.0, 1 / epsilon)
    assert tpr <= max_true_positive_rate(fpr, epsilon) + 1e-12


def test_laplace_roc_rejects_a_negative_shift():
    with pytest.raises(ValueError, match="shift"):
        laplace_roc([0.0], -1, 1)


# --- guessing accuracy -------------------------------------------------------------------


def test_laplace_guess_accuracy_closed_form():
    # ε = 1, s = Δ: 1 − ½e^−½ ≈ 0.6967, below the ceiling e/(1 + e) ≈ 0.7311.
    assert laplace_guess_accuracy(100, 101, 1.0) == pytest.approx(1 - 0.5 * math.exp(-0.5))
    assert laplace_guess_accuracy(100, 101, 1.0) < max_guess_accuracy(1.0)
    assert laplace_guess_accuracy(3, 3, 1.0) == 0.5  # identical databases: a coin flip


def test_laplace_guess_accuracy_is_the_best_point_of_its_roc_curve():
    # Accuracy of a threshold test with equal priors is ½(TPR + 1 − FPR); the best
    # threshold is the midpoint s/2. A grid of step 0.001 gets within 1e-6 of it.
    t = np.linspace(-5, 6, 11_001)
    fpr, tpr = laplace_roc(t, 1.0, 0.8)
    assert np.max(0.5 * (tpr + 1 - fpr)) == pytest.approx(laplace_guess_accuracy(0, 1, 0.8), abs=1e-6)


def test_laplace_guess_accuracy_by_simulation():
    # 200,000 seeded rounds of the "In or out?" game played with the midpoint rule.
    # Standard error √(0.7·0.3/2e5) ≈ 0.001; a tolerance of 0.005 is five of them.
    rng = np.random.default_rng(7)
    rounds, epsilon = 200_000, 1.0
    secret = rng.integers(0, 2, rounds)
    outputs = laplace_mechanism(100.0 + secret, 1.0, epsilon, rng)
    guesses = (outputs > 100.5).astype(int)
    accuracy = np.mean(guesses == secret)
    assert accuracy == pytest.approx(laplace_guess_accuracy(100, 101, 1 / epsilon), abs=0.005)


def test_max_guess_accuracy_closed_forms():
    assert max_guess_accuracy(math.log(3)) == pytest.approx(0.75)
    assert max_guess_accuracy(1.0) == pytest.approx(math.e / (1 + math.e))
    assert max_guess_accuracy(1000.0) == 1.0  # no overflow
    assert max_guess_accuracy(1.0, 0.1) == pytest.approx((math.e + 0.1) / (1 + math.e))


@SETTINGS
@given(epsilon=EPSILON, delta=st.floats(0, 0.5))
def test_max_guess_accuracy_is_the_best_point_of_the_trade_off(epsilon, delta):
    # Cross-check against dp.max_true_positive_rate on a fine grid of false positive rates
    # (step 1e-4; accuracy is 1-Lipschitz in FPR, so the grid maximum is within 1e-4).
    fpr = np.linspace(0, 1, 10_001)
    best = np.max(0.5 * (max_true_positive_rate(fpr, epsilon, delta) + 1 - fpr))
    assert best == pytest.approx(max_guess_accuracy(epsilon, delta), abs=1e-4)
    assert best <= max_guess_accuracy(epsilon, delta) + 1e-12


@SETTINGS
@given(epsilon=EPSILON)
def test_randomized_response_attains_the_ceiling(epsilon):
    assert rr_keep_probability(epsilon) == pytest.approx(max_guess_accuracy(epsilon))
    assert laplace_guess_accuracy(0, 1, 1 / epsilon) <= max_guess_accuracy(epsilon)


def test_max_guess_accuracy_rejects_bad_input():
    with pytest.raises(ValueError, match="epsilon"):
        max_guess_accuracy(0)
    with pytest.raises(ValueError, match="delta"):
        max_guess_accuracy(1, 1.0)


# --- simple_posterior_bounds -------------------------------------------------------------


@SETTINGS
@given(prior=st.floats(0, 1), epsilon=EPSILON)
def test_simple_posterior_bounds_contain_the_tight_ones(prior, epsilon):
    from dp.attacks import posterior_bounds

    loose_low, loose_high = simple_posterior_bounds(prior, epsilon)
    low, high = posterior_bounds(prior, epsilon)
    assert loose_low <= low + 1e-12
    assert high <= loose_high + 1e-12


def test_simple_posterior_bounds_for_anna_and_patrick():
    # Prior 0.4: at ε = 1 the lecture's range is [0.147, 1] (1 = no promise), the tight
    # one is [0.197, 0.644].
    low, high = simple_posterior_bounds(0.4, [1.0])
    assert low[0] == pytest.approx(0.4 / math.e)
    assert high[0] == 1.0
    with pytest.raises(ValueError, match="epsilon"):
        simple_posterior_bounds(0.4, [0.0])
    with pytest.raises(ValueError, match="prior"):
        simple_posterior_bounds(1.5, 1.0)
