"""dp.selection: exponential mechanism, report-noisy-max and the private median."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import dp

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)
scores_strategy = st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30)


def test_exponential_probabilities_closed_form():
    # Scores 0 and 1 with Δu = 1: the ratio is exp(ε·1/(2·1)).
    p = dp.exponential_probabilities([0.0, 1.0], epsilon=2.0, sensitivity=1.0)
    assert p[1] / p[0] == pytest.approx(math.e)
    assert p.sum() == pytest.approx(1.0)


def test_exponential_probabilities_limits():
    scores = [1.0, 1.0, 1.0, 3.01]  # the auction bids from the notes, used as scores
    assert np.allclose(dp.exponential_probabilities(scores, 1e-9, 1.0), 0.25)  # ε → 0: uniform
    assert dp.exponential_probabilities(scores, 50.0, 0.01)[3] == pytest.approx(1.0)  # large ε: argmax


@SETTINGS
@given(scores_strategy, st.floats(1e-3, 50), st.floats(1e-3, 1e3))
def test_probabilities_sum_to_one_without_overflow(scores, epsilon, sensitivity):
    p = dp.exponential_probabilities(scores, epsilon, sensitivity)
    assert np.all(np.isfinite(p)) and np.all(p >= 0)
    assert p.sum() == pytest.approx(1.0)


@SETTINGS
@given(st.lists(st.integers(-50, 50), min_size=2, max_size=10, unique=True), st.floats(0.01, 5))
def test_best_candidate_gains_probability_as_epsilon_grows(scores, epsilon):
    best = int(np.argmax(scores))
    low = dp.exponential_probabilities(scores, epsilon, 1.0)[best]
    high = dp.exponential_probabilities(scores, 2 * epsilon, 1.0)[best]
    assert high >= low


@SETTINGS
@given(st.lists(st.integers(0, 20), min_size=2, max_size=8), st.floats(0.05, 5),
       st.integers(0, 7), st.sampled_from([-1, 1]))
def test_exponential_mechanism_is_epsilon_dp_on_neighbours(scores, epsilon, who, direction):
    # Neighbouring score vectors differ by at most Δu = 1 in each coordinate.
    scores = np.array(scores, dtype=float)
    neighbour = scores.copy()
    neighbour[who % len(scores)] += direction
    p = dp.exponential_probabilities(scores, epsilon, 1.0)
    q = dp.exponential_probabilities(neighbour, epsilon, 1.0)
    assert np.max(np.abs(np.log(p / q))) <= epsilon + 1e-9


def test_exponential_mechanism_samples_match_probabilities():
    # Chi-square goodness of fit at a fixed seed; p > 1e-3 passes for 99.9% of seeds.
    scores = [0.0, 1.0, 2.0, 4.0]
    p = dp.exponential_probabilities(scores, 1.0, 1.0)
    draws = dp.exponential_mechanism(scores, 1.0, 1.0, np.random.default_rng(7), size=50_000)
    observed = np.bincount(draws, minlength=4)
    assert stats.chisquare(observed, 50_000 * p).pvalue > 1e-3
    assert isinstance(int(dp.exponential_mechanism(scores, 1.0, 1.0, np.random.default_rng(7))), int)


def test_report_noisy_max_matches_its_exact_two_candidate_probability():
    # Two counts a > b: Pr[pick a] = Pr[Y₁ − Y₂ > b − a] with Y₁ − Y₂ the difference of two
    # Lap(1/ε). For d = a − b ≥ 0 that is 1 − ½·e^{−εd}·(1 + εd/2).
    epsilon, d = 0.5, 2.0
    exact = 1 - 0.5 * math.exp(-epsilon * d) * (1 + epsilon * d / 2)
    trials = 200_000
    picks = dp.report_noisy_max([d, 0.0], epsilon, np.random.default_rng(8), size=trials)
    share = np.mean(picks == 0)
    assert abs(share - exact) < 6 * math.sqrt(exact * (1 - exact) / trials)


def test_private_median_interval_probabilities_closed_form():
    data = [0.2, 0.4, 0.6]
    edges, p = dp.private_median_probabilities(data, 0.0, 1.0, epsilon=2.0)
    assert np.allclose(edges, [0.0, 0.2, 0.4, 0.6, 1.0])
    # intervals have i = 0..3 points below; u = −|i − 1.5|; weight = length · exp(ε·u/2)
    weights = np.array([0.2, 0.2, 0.2, 0.4]) * np.exp(-np.abs(np.arange(4) - 1.5))
    assert np.allclose(p, weights / weights.sum())


def test_private_median_clips_and_concentrates():
    rng = np.random.default_rng(9)
    data = np.concatenate([rng.uniform(0.4, 0.6, 1001), [-5.0, 7.0]])  # outliers get clipped
    edges, _ = dp.private_median_probabilities(data, 0.0, 1.0, 1.0)
    assert edges.min() == 0.0 and edges.max() == 1.0 and len(edges) == data.size + 2
    draws = dp.private_median(data, 0.0, 1.0, 1.0, rng, size=2000)
    ranks = np.searchsorted(np.sort(data), draws)
    # utility theorem: rank error ≤ (2/ε)(ln(n+1) + t) except with probability e^−t; t = 10
    assert np.max(np.abs(ranks - data.size / 2)) <= 2 / 1.0 * (math.log(data.size + 1) + 10)


def test_private_median_on_ties_never_picks_empty_intervals():
    edges, p = dp.private_median_probabilities([0.5] * 4, 0.0, 1.0, 1.0)
    lengths = np.diff(edges)
    assert np.all(p[lengths == 0] == 0)
    assert p.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: dp.exponential_probabilities([], 1, 1), "scores"),
        (lambda: dp.exponential_probabilities([1, math.nan], 1, 1), "scores"),
        (lambda: dp.exponential_probabilities([1], 0, 1), "epsilon"),
        (lambda: dp.exponential_probabilities([1], 1, 0), "sensitivity"),
        (lambda: dp.exponential_mechanism([1], 1, 1, "seed"), "rng"),
        (lambda: dp.report_noisy_max([1, 2], -1, np.random.default_rng(0)), "epsilon"),
        (lambda: dp.report_noisy_max([], 1, np.random.default_rng(0)), "counts"),
        (lambda: dp.private_median([1.0], 1, 1, 1, np.random.default_rng(0)), "lower"),
        (lambda: dp.private_median([], 0, 1, 1, np.random.default_rng(0)), "data"),
        (lambda: dp.private_median_probabilities([0.5], 0, math.inf, 1), "upper"),
        (lambda: dp.private_median_probabilities([0.5], 0, 1, math.inf), "epsilon"),
    ],
)
def test_invalid_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
