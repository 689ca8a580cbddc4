"""dp.tails: closed forms, properties and seeded statistics for Laplace vs Gaussian."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import laplace, norm

from dp import gaussian_delta, gaussian_mechanism, gaussian_sigma, laplace_mechanism, laplace_tail
from dp.privacy_loss import laplace_density, laplace_privacy_loss
from dp.tails import (
    audit_with_delta,
    delta_integrand,
    dimension_crossover,
    gaussian_loss,
    gaussian_loss_density,
    gaussian_loss_exceeds,
    gaussian_loss_mean,
    gaussian_loss_threshold,
    gaussian_noise_density,
    gaussian_tail,
    leaked_records,
    noise_std_in_d_dimensions,
    sample_leaked_records,
    tail_crossover,
)

PROPERTY = settings(derandomize=True, deadline=None, max_examples=60)
sigmas = st.floats(0.05, 50.0)
scales = st.floats(0.05, 50.0)
epsilons = st.floats(0.01, 10.0)
sensitivities = st.floats(0.1, 10.0)
deltas = st.sampled_from([1e-12, 1e-8, 1e-5, 1e-3, 1e-2, 0.1])


# --- densities and tails ---------------------------------------------------------------

def test_densities_match_scipy():
    y = np.linspace(-20, 20, 101)
    np.testing.assert_allclose(laplace_density(y, 0.0, 2.5), laplace.pdf(y, scale=2.5), rtol=1e-12)
    np.testing.assert_allclose(gaussian_noise_density(y, 3.0), norm.pdf(y, scale=3.0), rtol=1e-12)
    assert laplace_density(0.0, 0.0, 1.0) == 0.5  # 1/(2b)


def test_gaussian_tail_matches_scipy_and_underflows_gracefully():
    t = np.array([0.0, 1.0, 5.0, 30.0])
    np.testing.assert_allclose(gaussian_tail(2.0, t), 2 * norm.sf(t / 2.0), rtol=1e-12)
    assert gaussian_tail(1.0, 0.0) == 1.0
    assert gaussian_tail(1.0, 40.0) < 1e-300


@PROPERTY
@given(scales, sigmas)
def test_tails_cross_exactly_once(b, sigma):
    t_star = tail_crossover(b, sigma)
    if t_star == 0:
        # σ ≤ √(2/π)·b: the Gaussian tail is below the Laplace tail for every t > 0
        assert sigma <= math.sqrt(2 / math.pi) * b * (1 + 1e-12)
        t = np.linspace(0.01, 50, 50) * b
        assert np.all(gaussian_tail(sigma, t) <= laplace_tail(b, t) * (1 + 1e-9))
        return
    # at t*, the two tails agree (compare logs: they can be tiny)
    log_gauss = math.log(2) + norm.logsf(t_star / sigma)
    assert log_gauss == pytest.approx(-t_star / b, rel=1e-7, abs=1e-9)
    # Gaussian heavier before t*, lighter after it (h is concave with one positive root)
    before, after = 0.5 * t_star, 1.5 * t_star
    assert math.log(2) + norm.logsf(before / sigma) > -before / b
    assert math.log(2) + norm.logsf(after / sigma) < -after / b


def test_tail_crossover_at_the_default_settings():
    # ε = 1, δ = 1e-5, Δ = 1: b = 1, σ ≈ 3.73; the tails cross far out, near t ≈ 25.5
    sigma = gaussian_sigma(1.0, 1.0, 1e-5)
    assert tail_crossover(1.0, sigma) == pytest.approx(25.4667, rel=1e-4)


# --- privacy loss -----------------------------------------------------------------------

@PROPERTY
@given(epsilons, sensitivities, st.floats(-1e3, 1e3))
def test_laplace_loss_is_bounded_by_epsilon(epsilon, sensitivity, y):
    b = sensitivity / epsilon
    loss = laplace_privacy_loss(y, 0.0, sensitivity, b)
    assert abs(loss) <= epsilon * (1 + 1e-12)
    if y <= 0:
        assert loss == pytest.approx(epsilon)
    if y >= sensitivity:
        assert loss == pytest.approx(-epsilon)


def test_losses_are_log_density_ratios():
    y = np.linspace(-10, 10, 41)
    ratio_lap = np.log(laplace.pdf(y, scale=2.0) / laplace.pdf(y, loc=1.5, scale=2.0))
    ratio_gauss = np.log(norm.pdf(y, scale=2.0) / norm.pdf(y, loc=1.5, scale=2.0))
    np.testing.assert_allclose(laplace_privacy_loss(y, 0.0, 1.5, 2.0), ratio_lap, atol=1e-12)
    np.testing.assert_allclose(gaussian_loss(y, 2.0, 1.5), ratio_gauss, atol=1e-12)


@PROPERTY
@given(sigmas, epsilons, sensitivities)
def test_threshold_is_where_the_gaussian_loss_equals_epsilon(sigma, epsilon, sensitivity):
    y_star = gaussian_loss_threshold(sigma, epsilon, sensitivity)
    assert gaussian_loss(y_star, sigma, sensitivity) == pytest.approx(epsilon, abs=1e-9 * (1 + abs(y_star)))
    # and Pr[L > ε] = Pr[y < y*] for y ~ N(0, σ²)
    assert gaussian_loss_exceeds(sigma, epsilon, sensitivity) == pytest.approx(
        norm.cdf(y_star / sigma), rel=1e-9, abs=1e-300)


def test_loss_density_is_normal_mu_two_mu():
    mu = gaussian_loss_mean(2.0, 1.0)
    assert mu == 1 / 8
    grid = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(gaussian_loss_density(grid, 2.0, 1.0),
                               norm.pdf(grid, loc=mu, scale=math.sqrt(2 * mu)), rtol=1e-12)


def test_loss_exceeds_matches_a_seeded_simulation():
    # 400,000 draws: the count of L > ε is Binomial(N, p); 5 standard errors never flake.
    sigma, epsilon = 1.5, 0.5
    y = np.random.default_rng(7).normal(0, sigma, 400_000)
    p = gaussian_loss_exceeds(sigma, epsilon)
    frac = np.mean(gaussian_loss(y, sigma) > epsilon)
    assert abs(frac - p) < 5 * math.sqrt(p * (1 - p) / y.size)


@PROPERTY
@given(sigmas, epsilons, sensitivities)
def test_delta_is_the_integral_of_the_excess_and_below_pr_exceeds(sigma, epsilon, sensitivity):
    mu = gaussian_loss_mean(sigma, sensitivity)
    s = math.sqrt(2 * mu)
    exact = gaussian_delta(sigma, epsilon, sensitivity)
    exceeds = gaussian_loss_exceeds(sigma, epsilon, sensitivity)
    assert exact <= exceeds
    if exact < 1e-200:  # beyond the quadrature's reach; the inequality is what matters
        return
    start = max(epsilon, mu - 12 * s)
    quad, _ = integrate.quad(lambda loss: delta_integrand(loss, sigma, epsilon, sensitivity),
                             start, max(start, mu) + 40 * s, epsabs=0, epsrel=1e-10, limit=200,
                             points=[start + s, start + 3 * s])
    assert quad == pytest.approx(exact, rel=1e-5)


def test_delta_share_at_the_default_settings():
    # ε = 1, δ = 1e-5: Pr[L > ε] ≈ 1.6e-4, about 16 times δ (the quiz says so)
    sigma = gaussian_sigma(1.0, 1.0, 1e-5)
    assert gaussian_loss_exceeds(sigma, 1.0) / 1e-5 == pytest.approx(16.12, rel=1e-3)


# --- what δ means ------------------------------------------------------------------------

def test_leaked_records_closed_form():
    expected, at_least_one = leaked_records(1_000_000, 1e-5)
    assert expected == pytest.approx(10.0)
    assert at_least_one == pytest.approx(1 - math.exp(-10), rel=1e-6)  # (1 − δ)^n ≈ e^{−nδ}
    assert leaked_records(3 * 10**8, 1e-6)[0] == pytest.approx(300.0)  # the census quiz
    assert leaked_records(10, 0.0) == (0.0, 0.0)
    assert leaked_records(10, 1.0) == (10.0, 1.0)
    # tiny δ: no cancellation, 1 − (1 − δ)^n ≈ nδ
    assert leaked_records(100, 1e-15)[1] == pytest.approx(1e-13, rel=1e-9)


def test_sampled_leaks_average_n_delta():
    # 4,000 runs of Binomial(1000, 0.01): mean 10, sd of the mean √(9.9/4000) ≈ 0.05; 5 SE.
    draws = sample_leaked_records(1000, 0.01, np.random.default_rng(3), size=4000)
    assert abs(draws.mean() - 10.0) < 5 * math.sqrt(1000 * 0.01 * 0.99 / 4000)


def test_per_record_mechanism_is_zero_delta_dp():
    # Neighbours differ in one record; the outputs differ only in whether that record is shown,
    # so for any event S the probabilities differ by at most Pr[shown] = δ. Check on the
    # event "the differing record is shown", the worst one: probability exactly δ vs 0.
    delta, trials = 0.05, 200_000
    shown = np.random.default_rng(11).random(trials) < delta
    assert abs(shown.mean() - delta) < 5 * math.sqrt(delta * (1 - delta) / trials)


# --- many dimensions ------------------------------------------------------------------------

@PROPERTY
@given(epsilons, deltas)
def test_noise_in_d_dimensions_and_crossover(epsilon, delta):
    sigma_1 = gaussian_sigma(1.0, epsilon, delta)
    lap, gauss = noise_std_in_d_dimensions(np.array([1.0, 4.0]), epsilon, delta)
    np.testing.assert_allclose(lap, [math.sqrt(2) / epsilon, 4 * math.sqrt(2) / epsilon])
    np.testing.assert_allclose(gauss, [sigma_1, 2 * sigma_1])
    d_star = dimension_crossover(epsilon, delta)
    lap_star, gauss_star = noise_std_in_d_dimensions(max(d_star, 1.0), epsilon, delta)
    if d_star >= 1:
        assert lap_star == pytest.approx(gauss_star, rel=1e-9)
    lap_far, gauss_far = noise_std_in_d_dimensions(4 * max(d_star, 1.0), epsilon, delta)
    assert gauss_far < lap_far


def test_hundred_counts_quiz_numbers():
    lap, gauss = noise_std_in_d_dimensions(100.0, 1.0, 1e-5)
    assert lap == pytest.approx(141.42, rel=1e-4)
    assert gauss == pytest.approx(37.31, rel=1e-3)
    assert dimension_crossover(1.0, 1e-5) == pytest.approx(6.959, rel=1e-3)


# --- audit -----------------------------------------------------------------------------------

def test_audit_breaks_pure_epsilon_but_not_epsilon_delta():
    # ε = 1, δ = 0.01, S = {y < −3σ}: p ≈ 0.00135 and p′ ≈ 0.00021, so p/p′ ≈ 6.5 (ln ≈ 1.9).
    # With 200,000 samples each the 97.5% Clopper–Pearson bounds still give ε̂ ≈ 1.4–1.6 > 1,
    # while p − δ < 0 makes the (ε, δ) audit certify 0.
    epsilon, delta, n = 1.0, 0.01, 200_000
    rng = np.random.default_rng(2014)
    sigma = gaussian_sigma(1.0, epsilon, delta)
    out_d = gaussian_mechanism(np.zeros(n), 1.0, epsilon, delta, rng)
    out_d_prime = gaussian_mechanism(np.ones(n), 1.0, epsilon, delta, rng)
    result = audit_with_delta(out_d, out_d_prime, lambda y: y < -3 * sigma, delta)
    assert result["epsilon_pure"] > epsilon
    assert result["epsilon_delta"] == 0.0
    p, low, high = result["p"]
    assert low <= p <= high
    assert abs(p - norm.cdf(-3)) < 5 * math.sqrt(norm.cdf(-3) / n)


def test_audit_of_laplace_stays_below_epsilon():
    epsilon, n = 1.0, 200_000
    rng = np.random.default_rng(5)
    out_d = laplace_mechanism(np.zeros(n), 1.0, epsilon, rng)
    out_d_prime = laplace_mechanism(np.ones(n), 1.0, epsilon, rng)
    result = audit_with_delta(out_d, out_d_prime, lambda y: y < -3.0, 0.0)
    assert result["epsilon_pure"] <= epsilon


# --- validation --------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda: laplace_density(0.0, 0.0, 0.0),
    lambda: gaussian_noise_density([np.nan], 1.0),
    lambda: gaussian_tail(1.0, -1.0),
    lambda: tail_crossover(-1.0, 1.0),
    lambda: gaussian_loss_density(0.0, 1.0, 0.0),
    lambda: gaussian_loss_threshold(1.0, 1.0, 0.0),
    lambda: leaked_records(0, 0.1),
    lambda: leaked_records(10, 1.5),
    lambda: sample_leaked_records(10, 0.1, rng=42),
    lambda: noise_std_in_d_dimensions(0.5, 1.0, 1e-5),
    lambda: dimension_crossover(1.0, 0.0),
    lambda: audit_with_delta([0.0], [0.0], lambda y: y < 0, delta=1.0),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()
