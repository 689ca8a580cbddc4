"""dp.noise against closed forms, the course's numbers, and its own distributions."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import dp

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)
BAD_POSITIVE = [0.0, -1.0, math.nan, math.inf, -math.inf, "x", None]


def test_laplace_scale_is_sensitivity_over_epsilon():
    assert dp.laplace_scale(1, 0.5) == 2.0
    assert dp.laplace_scale(3, 1.5) == 2.0


def test_blue_eyes_histogram_scale_is_20_at_epsilon_0_1():
    # ML lecture: a histogram with L1 sensitivity 2 (replace-one), at ε = 0.1, needs Lap(20).
    assert dp.laplace_scale(2, 0.1) == pytest.approx(20.0)


def test_laplace_tail_closed_form():
    assert dp.laplace_tail(2.0, 0.0) == 1.0
    assert dp.laplace_tail(2.0, 2.0) == pytest.approx(math.exp(-1))
    assert np.allclose(dp.laplace_tail(1.0, [1, 2, 3]), np.exp(-np.array([1, 2, 3])))


def test_census_first_names_error_bound():
    # Notes on mechanisms: k = 10,000 name counts at ε = 0.1. With probability ≥ 1 − e^−10
    # (union bound over Pr[|Y| > t·b] = e^−t), every count is within b·(ln k + 10) ≈ 192, "≈ 200".
    k, epsilon = 10_000, 0.1
    b = dp.laplace_scale(1, epsilon)
    t = b * (math.log(k) + 10)
    assert t == pytest.approx(192.1, abs=0.1)
    assert k * dp.laplace_tail(b, t) == pytest.approx(math.exp(-10))


def test_laplace_mechanism_shapes_and_validation():
    rng = np.random.default_rng(0)
    assert isinstance(dp.laplace_mechanism(5, 1, 1, rng), float)
    assert dp.laplace_mechanism(np.zeros((3, 4)), 1, 1, rng).shape == (3, 4)
    assert dp.laplace_mechanism(7.0, 0, 1, rng) == 7.0  # a constant query needs no noise
    with pytest.raises(ValueError, match="rng"):
        dp.laplace_mechanism(1, 1, 1, rng=42)
    with pytest.raises(ValueError, match="value"):
        dp.laplace_mechanism([], 1, 1, rng)
    with pytest.raises(ValueError, match="value"):
        dp.laplace_mechanism([1, math.nan], 1, 1, rng)


def test_laplace_samples_follow_laplace_distribution():
    # KS test at a fixed seed: deterministic. The threshold p > 1e-3 is what a correct
    # sampler passes for 99.9% of seeds, so a change of seed would not break it either.
    rng = np.random.default_rng(1)
    noise = dp.laplace_mechanism(np.zeros(20_000), 3.0, 1.5, rng)
    assert stats.kstest(noise, stats.laplace(scale=2.0).cdf).pvalue > 1e-3


def test_gaussian_samples_follow_normal_distribution():
    rng = np.random.default_rng(2)
    sigma = dp.gaussian_sigma(1.0, 1.0, 1e-5)
    noise = dp.gaussian_mechanism(np.zeros(20_000), 1.0, 1.0, 1e-5, rng)
    assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > 1e-3


def test_classic_gaussian_formula_and_its_validity_range():
    sigma = dp.gaussian_sigma(2.0, 0.5, 1e-5, method="classic")
    assert sigma == pytest.approx(2.0 * math.sqrt(2 * math.log(1.25e5)) / 0.5)
    with pytest.raises(ValueError, match="epsilon < 1"):
        dp.gaussian_sigma(1.0, 1.0, 1e-5, method="classic")
    with pytest.raises(ValueError, match="method"):
        dp.gaussian_sigma(1.0, 0.5, 1e-5, method="exact")


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 0.99])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-10])
def test_analytic_gaussian_is_tight_and_beats_classic(epsilon, delta):
    sigma = dp.gaussian_sigma(1.0, epsilon, delta)
    # Exactly (ε, δ) at σ, and not at a slightly smaller σ.
    assert dp.gaussian_delta(sigma, epsilon) == pytest.approx(delta, rel=1e-8)
    assert dp.gaussian_delta(sigma * (1 - 1e-6), epsilon) > delta
    assert sigma < dp.gaussian_sigma(1.0, epsilon, delta, method="classic")


def test_gaussian_delta_matches_privacy_loss_integral():
    # δ(ε) = E_P[(1 − e^{ε−L})₊] with the loss L ~ N(μ, 2μ), μ = Δ²/(2σ²): integrate it numerically.
    sigma, epsilon = 1.3, 0.7
    mu = 1 / (2 * sigma**2)
    loss = stats.norm(mu, math.sqrt(2 * mu))
    expected = loss.expect(lambda x: max(0.0, 1 - math.exp(epsilon - x)), lb=epsilon, ub=60)
    assert dp.gaussian_delta(sigma, epsilon) == pytest.approx(expected, rel=1e-7)


@pytest.mark.parametrize("sensitivity", [0.5, 1.0, 4.0])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0, 50.0])
def test_gaussian_epsilon_inverts_gaussian_sigma(sensitivity, epsilon):
    sigma = dp.gaussian_sigma(sensitivity, epsilon, 1e-6)
    assert dp.gaussian_epsilon(sigma, 1e-6, sensitivity) == pytest.approx(epsilon, rel=1e-7)


def test_gaussian_epsilon_is_zero_when_delta_covers_everything():
    # δ ≥ 2Φ(Δ/2σ) − 1 means the two output distributions are already δ-close in total variation.
    sigma = 100.0
    assert dp.gaussian_epsilon(sigma, 2 * stats.norm.cdf(1 / (2 * sigma)) - 1 + 1e-9) == 0.0


@SETTINGS
@given(st.floats(0.01, 50), st.floats(1e-12, 0.5), st.floats(1.01, 2))
def test_gaussian_sigma_monotone(epsilon, delta, factor):
    base = dp.gaussian_sigma(1.0, epsilon, delta)
    assert np.isfinite(base) and base > 0
    assert dp.gaussian_sigma(1.0, epsilon * factor, delta) < base  # more ε, less noise
    assert dp.gaussian_sigma(1.0, epsilon, delta / factor) > base  # smaller δ, more noise


@SETTINGS
@given(st.sampled_from(BAD_POSITIVE))
def test_invalid_epsilon_rejected_everywhere(bad):
    rng = np.random.default_rng(0)
    calls = [
        lambda: dp.laplace_scale(1, bad),
        lambda: dp.laplace_mechanism(0, 1, bad, rng),
        lambda: dp.gaussian_sigma(1, bad, 1e-5),
        lambda: dp.gaussian_mechanism(0, 1, bad, 1e-5, rng),
        lambda: dp.laplace_tail(bad, 1),
        lambda: dp.gaussian_epsilon(bad, 1e-5),
    ]
    for call in calls:
        with pytest.raises(ValueError):
            call()


@SETTINGS
@given(st.sampled_from([0.0, 1.0, -0.1, 1.5, math.nan, math.inf]))
def test_invalid_delta_rejected(bad):
    for call in (lambda: dp.gaussian_sigma(1, 0.5, bad), lambda: dp.gaussian_epsilon(1, bad)):
        with pytest.raises(ValueError, match="delta"):
            call()


@SETTINGS
@given(st.sampled_from([-1.0, -1e-9, math.nan, math.inf]))
def test_invalid_sensitivity_rejected(bad):
    with pytest.raises(ValueError, match="sensitivity"):
        dp.laplace_scale(bad, 1)
    with pytest.raises(ValueError, match="sensitivity"):
        dp.gaussian_sigma(bad, 0.5, 1e-5)


def test_error_messages_name_the_valid_range():
    with pytest.raises(ValueError, match=r"epsilon must be > 0"):
        dp.laplace_scale(1, 0)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        dp.gaussian_sigma(1, 0.5, 2)
    with pytest.raises(ValueError, match=r"t must be ≥ 0"):
        dp.laplace_tail(1, -1)
