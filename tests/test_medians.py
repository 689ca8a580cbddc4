"""dp.medians: rank error, the three private medians, and the coin's two estimators."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import dp
from dp import medians

SETTINGS = settings(derandomize=True, max_examples=50, deadline=None)


def test_synthetic_data_is_seeded_and_in_range():
    a = medians.synthetic_data("continuous", 500, np.random.default_rng(1))
    b = medians.synthetic_data("continuous", 500, np.random.default_rng(1))
    assert np.array_equal(a, b) and np.all((a >= 0) & (a <= 1))
    levels = medians.synthetic_data("education", 2000, np.random.default_rng(2))
    assert set(np.unique(levels)) <= set(range(1, 17))
    assert np.median(levels) in (10.0, 11.0)  # the weights put 50% of people at level ≤ 10 or 11
    with pytest.raises(ValueError, match="kind"):
        medians.synthetic_data("income", 10, np.random.default_rng(0))


def test_rank_error_closed_forms():
    data = [1.0, 2.0, 3.0, 4.0]  # n = 4, n/2 = 2
    assert medians.rank_error(data, [2.5, 0.0, 5.0, 2.0, 3.0]).tolist() == [0, 2, 2, 0, 0]
    ties = [1.0, 1.0, 1.0, 5.0]  # level 1 holds ranks 0..3, so it is a median
    assert medians.rank_error(ties, [1.0, 0.0, 3.0, 5.0]).tolist() == [0, 2, 1, 1]


@SETTINGS
@given(st.lists(st.integers(0, 10), min_size=1, max_size=15), st.data())
def test_rank_error_moves_by_at_most_one_under_replace_one(data, draw):
    # This is the score's sensitivity Δu = 1 that the exponential mechanism relies on.
    i = draw.draw(st.integers(0, len(data) - 1))
    neighbour = list(data)
    neighbour[i] = draw.draw(st.integers(0, 10))
    grid = np.arange(-1, 12, 0.5)
    assert np.max(np.abs(medians.rank_error(data, grid) - medians.rank_error(neighbour, grid))) <= 1


@pytest.mark.parametrize("n", [3, 4])
def test_median_sensitivity_matches_brute_force(n):
    # Over every dataset in {0, ½, 1}ⁿ and every replace-one neighbour, the largest median jump.
    values = [0.0, 0.5, 1.0]
    worst = 0.0
    for data in itertools.product(values, repeat=n):
        for i, v in itertools.product(range(n), values):
            other = list(data)
            other[i] = v
            worst = max(worst, abs(np.median(data) - np.median(other)))
    assert medians.median_sensitivity(0, 1, n) == worst


def test_laplace_median_piles_up_at_the_ends():
    # Data all at 0.25, range [0, 1], n even: Δ = ½, b = Δ/ε = ½ at ε = 1. The clipped output
    # equals 1 with probability Pr[Lap(½) ≥ 0.75] = ½·e^{−1.5}; 6 standard errors of a
    # 200,000-draw proportion (≈ 0.00067 each) bound the check.
    data = np.full(10, 0.25)
    out = medians.laplace_median(data, 0, 1, 1.0, np.random.default_rng(3), size=200_000)
    p = 0.5 * math.exp(-1.5)
    assert np.all((out >= 0) & (out <= 1))
    assert abs(np.mean(out == 1.0) - p) < 6 * math.sqrt(p * (1 - p) / 200_000)
    levels = medians.laplace_median(np.full(9, 9.0), 1, 16, 1.0, np.random.default_rng(4), size=100,
                                    discrete=True)
    assert np.all(levels == np.round(levels)) and np.all((levels >= 1) & (levels <= 16))


def test_laplace_median_clipped_share_is_the_share_clipping_moves_to_the_ends():
    # Data at 0.25 on [0, 1], n even, ε = 1: b = ½, share = ½e^{−0.5} + ½e^{−1.5}, in closed form
    # and against the sampled outputs that sit exactly on an end (6 binomial standard errors).
    data = np.full(10, 0.25)
    share = medians.laplace_median_clipped_share(data, 0, 1, 1.0)
    assert share == pytest.approx(0.5 * math.exp(-0.5) + 0.5 * math.exp(-1.5), rel=1e-12)
    out = medians.laplace_median(data, 0, 1, 1.0, np.random.default_rng(5), size=200_000)
    assert abs(np.mean((out == 0) | (out == 1)) - share) < 6 * math.sqrt(share * (1 - share) / 200_000)
    # b ≥ the range's width keeps the share at or above e^{−½}, wherever the median sits.
    for m in [0.0, 0.3, 0.5, 1.0]:
        assert medians.laplace_median_clipped_share(np.full(4, m), 0, 1, 0.5) >= math.exp(-0.5) - 1e-12


def test_histogram_edges():
    assert medians.histogram_edges(1, 16, discrete=True).tolist() == list(np.arange(0.5, 17))
    assert medians.histogram_edges(0, 1).size == 21
    assert medians.histogram_edges(-3, 4).size == 141
    with pytest.raises(ValueError, match="whole levels"):
        medians.histogram_edges(0.5, 3, discrete=True)


def test_histogram_median_without_noise_finds_the_median_bin():
    data = medians.synthetic_data("education", 1001, np.random.default_rng(5))
    out = medians.histogram_median(data, medians.histogram_edges(1, 16, True), 1e9,
                                   np.random.default_rng(6), size=50)
    assert np.all(out == np.median(data))
    continuous = np.linspace(0.01, 0.99, 99)  # median 0.5, in bin [0.5, 0.55)
    out = medians.histogram_median(continuous, medians.histogram_edges(0, 1), 1e9, np.random.default_rng(7))
    assert out == pytest.approx(0.475) or out == pytest.approx(0.525)


def test_level_median_probabilities_are_the_exponential_mechanism():
    data = np.array([1, 2, 2, 9, 9, 9, 13, 16], dtype=float)
    levels, p = medians.level_median_probabilities(data, 1, 16, 0.7)
    expected = dp.exponential_probabilities(-medians.rank_error(data, levels), 0.7, 1.0)
    assert levels.tolist() == list(range(1, 17)) and np.allclose(p, expected)
    assert levels[np.argmax(p)] == 9


@SETTINGS
@given(st.lists(st.integers(1, 16), min_size=2, max_size=20), st.data(), st.floats(0.05, 5))
def test_level_median_is_epsilon_dp_under_replace_one(data, draw, epsilon):
    i = draw.draw(st.integers(0, len(data) - 1))
    neighbour = list(data)
    neighbour[i] = draw.draw(st.integers(1, 16))
    _, p = medians.level_median_probabilities(data, 1, 16, epsilon)
    _, q = medians.level_median_probabilities(neighbour, 1, 16, epsilon)
    assert np.max(np.abs(np.log(p) - np.log(q))) <= epsilon + 1e-9


def test_expected_rank_error_of_the_exponential_mechanism_is_exact():
    # Compare the exact mean with 100,000 draws of dp.private_median: rank errors here are at
    # most n/2 = 50, so the sample mean's standard error is below 50/√100,000 ≈ 0.16; allow 6 of them.
    data = medians.synthetic_data("continuous", 100, np.random.default_rng(8))
    exact = medians.expected_rank_errors(data, 0, 1, [0.3], np.random.default_rng(9))["exponential"][0]
    draws = dp.private_median(data, 0, 1, 0.3, np.random.default_rng(10), size=100_000)
    sampled = medians.rank_error(data, draws)
    assert abs(sampled.mean() - exact) < 6 * sampled.std() / math.sqrt(draws.size)


def test_expected_rank_errors_order_the_methods():
    data = medians.synthetic_data("continuous", 1000, np.random.default_rng(11))
    errors = medians.expected_rank_errors(data, 0, 1, [0.1, 1.0, 10.0], np.random.default_rng(12))
    assert np.all(errors["exponential"] < errors["histogram"])
    assert np.all(errors["histogram"] < errors["laplace"])
    assert errors["laplace"][0] > 0.4 * 500  # Laplace output is nearly uniform junk at ε = 0.1
    assert np.all(np.diff(errors["exponential"]) < 0)
    levels = medians.synthetic_data("education", 200, np.random.default_rng(13))
    discrete = medians.expected_rank_errors(levels, 1, 16, [0.5], np.random.default_rng(14), discrete=True)
    lv, p = medians.level_median_probabilities(levels, 1, 16, 0.5)
    assert discrete["exponential"][0] == pytest.approx(np.sum(p * medians.rank_error(levels, lv)))


def test_empty_levels_below_the_median_hurt_the_histogram_far_more():
    # CS208: O(√|Y|)/ε against O(log|Y|)/ε. Declaring levels −47..16 instead of 1..16 puts 48
    # empty noisy bins in front of the running total; the exponential mechanism gives those
    # levels rank error ≈ n/2 and so almost no probability. (Empty levels above the median are
    # never reached by the running total, so widening upward costs the histogram little.)
    levels = medians.synthetic_data("education", 100, np.random.default_rng(15))
    narrow = medians.expected_rank_errors(levels, 1, 16, [0.3], np.random.default_rng(16), 2000, True)
    wide = medians.expected_rank_errors(levels, -47, 16, [0.3], np.random.default_rng(16), 2000, True)
    hist_growth = wide["histogram"][0] - narrow["histogram"][0]
    assert hist_growth > 10
    assert hist_growth > 10 * (wide["exponential"][0] - narrow["exponential"][0])


# --- the coin ---------------------------------------------------------------------------------------

def test_coin_parameters_match_the_lecture():
    # ε = 0.1, ΔL = ln 10: c = 0.1/(2 ln 10) ≈ 0.0217, the lecture's 0.022.
    a, b, c = medians.coin_exponential_parameters(30, 70, 0.1)
    assert c == pytest.approx(0.1 / (2 * math.log(10))) and round(c, 3) == 0.022
    assert (a, b) == pytest.approx((1 + 30 * c, 1 + 70 * c))
    with pytest.raises(ValueError, match="bounds"):
        medians.coin_exponential_parameters(1, 1, 0.1, bounds=(0.0, 0.9))


@pytest.mark.parametrize(("a", "b", "lo", "hi"), [(3.0, 4.0, 0.1, 0.9), (50.0, 120.0, 0.1, 0.9),
                                                  (2.0, 2.0, 0.0, 1.0), (1.2, 8.0, 0.3, 0.6)])
def test_truncated_beta_moments_match_quadrature(a, b, lo, hi):
    pdf = stats.beta(a, b).pdf
    z = integrate.quad(pdf, lo, hi)[0]
    mean = integrate.quad(lambda x: x * pdf(x), lo, hi)[0] / z
    var = integrate.quad(lambda x: (x - mean) ** 2 * pdf(x), lo, hi)[0] / z
    assert medians.truncated_beta_moments(a, b, lo, hi) == pytest.approx((mean, var), rel=1e-6)


def test_coin_exponential_density_and_samples_agree():
    heads, tails, epsilon = 290, 710, 0.1
    grid = np.linspace(0.05, 0.95, 9001)
    density = medians.coin_exponential_density(heads, tails, epsilon, grid)
    assert np.trapezoid(density, grid) == pytest.approx(1.0, abs=1e-3)
    a, b, _ = medians.coin_exponential_parameters(heads, tails, epsilon)
    mean, var = medians.truncated_beta_moments(a, b, 0.1, 0.9)
    draws = medians.coin_exponential_estimate(heads, tails, epsilon, np.random.default_rng(17), size=100_000)
    assert np.all((draws >= 0.1) & (draws <= 0.9))
    assert abs(draws.mean() - mean) < 6 * math.sqrt(var / draws.size)


def test_coin_laplace_estimate_is_a_probability_and_centred():
    draws = medians.coin_laplace_estimate(300, 700, 0.1, np.random.default_rng(18), size=100_000)
    assert np.all((draws >= 0) & (draws <= 1))
    # Noise of scale 10 on counts of 300 and 700: sd ≈ 10·√2·0.7/1000 ≈ 0.01; the mean stays at 0.3.
    assert abs(draws.mean() - 0.3) < 0.002 and 0.005 < draws.std() < 0.02
    assert 0 <= medians.coin_laplace_estimate(0, 0, 0.1, np.random.default_rng(19)) <= 1


def test_coin_variances_have_slopes_minus_one_and_minus_two():
    flips = [10_000, 100_000, 1_000_000]
    v = medians.coin_variances(0.3, flips, 0.1, np.random.default_rng(20), trials=20_000)
    slope_exp = np.polyfit(np.log10(flips), np.log10(v["exponential"]), 1)[0]
    slope_lap = np.polyfit(np.log10(flips), np.log10(v["laplace"]), 1)[0]
    assert slope_exp == pytest.approx(-1, abs=0.05)
    assert slope_lap == pytest.approx(-2, abs=0.1)
    assert np.allclose(v["sampling"], 0.21 / np.array(flips))
    # The truncated Beta behaves like cN flips: variance ≈ θ(1−θ)/(cN), 1/c ≈ 46 times sampling.
    c = 0.1 / (2 * math.log(10))
    assert v["exponential"][-1] == pytest.approx(0.21 / (c * 1_000_000), rel=0.02)
