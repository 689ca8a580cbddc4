"""dp.attacks: posterior bounds, the hypothesis-testing view, the averaging and reconstruction attacks."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dp.attacks import (
    averaging_attack_queries,
    max_true_positive_rate,
    posterior_bounds,
    reconstruction_attack,
)
from dp.noise import laplace_mechanism

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)

# Invalid values, by the range they violate.
NOT_POSITIVE = st.one_of(st.floats(max_value=0.0), st.sampled_from([math.nan, math.inf]))
NOT_PROBABILITY = st.one_of(
    st.floats(max_value=0.0, exclude_max=True),
    st.floats(min_value=1.0, exclude_min=True),
    st.just(math.nan),
)
NOT_DELTA = st.one_of(
    st.floats(max_value=0.0, exclude_max=True), st.floats(min_value=1.0), st.just(math.nan)
)
NOT_OPEN_UNIT = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(math.nan))
EPSILON = st.floats(0.001, 50)
PRIOR = st.floats(0.0, 1.0)


# --- posterior_bounds ---------------------------------------------------------------------


def test_tammy_posterior_after_a_yes():
    # DDA4210: randomized response with two coins keeps the truth with probability 3/4,
    # so ε = ln 3. Tammy's prior 0.02 becomes 0.02·¾/(0.02·¾ + 0.98·¼) ≈ 0.058 after "Yes".
    lower, upper = posterior_bounds(0.02, math.log(3))
    assert upper == pytest.approx(0.02 * 3 / (0.02 * 3 + 0.98), rel=1e-12)
    assert upper == pytest.approx(0.0577, abs=5e-5)
    assert lower == pytest.approx(0.02 / (0.02 + 3 * 0.98), rel=1e-12)


def test_anna_and_patrick():
    # DDA4210: prior 0.4 that Patrick is in the database. The lecture's loose bounds are
    # 0.4·e^−ε ≤ posterior ≤ 0.4·e^ε; the exact ones are tighter. At ε = ln 2:
    # lower = 0.4/(0.4 + 2·0.6) = 0.25 ≥ 0.2, upper = 0.8/(0.8 + 0.6) = 4/7 ≤ 0.8.
    lower, upper = posterior_bounds(0.4, math.log(2))
    assert lower == pytest.approx(0.25, rel=1e-12)
    assert upper == pytest.approx(4 / 7, rel=1e-12)
    for epsilon in [0.1, 0.5, 1.0, 2.0, 5.0]:
        lower, upper = posterior_bounds(0.4, epsilon)
        assert (
            0.4 * math.exp(-epsilon) <= lower <= 0.4 <= upper <= min(1.0, 0.4 * math.exp(epsilon))
        )


def test_posterior_bounds_are_vectorised():
    priors = np.array([[0.0, 0.02, 0.4], [0.5, 0.9, 1.0]])
    lower, upper = posterior_bounds(priors, 1.0)
    assert lower.shape == upper.shape == priors.shape
    for p, lo, hi in zip(priors.ravel(), lower.ravel(), upper.ravel(), strict=True):
        assert (lo, hi) == pytest.approx(posterior_bounds(float(p), 1.0), rel=1e-12)
    # Certain priors stay certain.
    assert (lower[0, 0], upper[0, 0], lower[1, 2], upper[1, 2]) == (0.0, 0.0, 1.0, 1.0)


def test_posterior_bounds_do_not_overflow_at_large_epsilon():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lower, upper = posterior_bounds(np.array([0.02, 0.5]), 50.0)
        assert np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))
        # upper = 1 − (1 − p)/(p·e^50 + 1 − p): 1 to double precision; lower ≈ p·e^−50/(1 − p).
        assert upper == pytest.approx([1.0, 1.0])
        assert lower == pytest.approx([0.02 * math.exp(-50) / 0.98, math.exp(-50)], rel=1e-9)


@SETTINGS
@given(PRIOR, EPSILON)
def test_posterior_bounds_match_the_closed_form(prior, epsilon):
    lower, upper = posterior_bounds(prior, epsilon)
    assert 0 <= lower <= prior <= upper <= 1
    if epsilon < 30:  # the direct formula is fine here; expit/logit is what keeps ε = 50 finite
        e = math.exp(epsilon)
        assert lower == pytest.approx(prior / (prior + e * (1 - prior)), rel=1e-9, abs=1e-300)
        assert upper == pytest.approx(prior * e / (prior * e + 1 - prior), rel=1e-9, abs=1e-300)


@SETTINGS
@given(PRIOR, EPSILON, EPSILON)
def test_posterior_bounds_widen_with_epsilon(prior, eps_a, eps_b):
    small, large = sorted([eps_a, eps_b])
    lower_small, upper_small = posterior_bounds(prior, small)
    lower_large, upper_large = posterior_bounds(prior, large)
    assert upper_small <= upper_large
    assert lower_small >= lower_large


@SETTINGS
@given(st.floats(0.0, 1.0), EPSILON)
def test_posterior_bounds_are_symmetric(prior, epsilon):
    # Pr[x ∉ D | y] has the bounds of the prior 1 − p: lower(p) = 1 − upper(1 − p).
    lower, _ = posterior_bounds(prior, epsilon)
    _, upper_complement = posterior_bounds(1 - prior, epsilon)
    assert lower == pytest.approx(1 - upper_complement, abs=1e-12)


@SETTINGS
@given(NOT_PROBABILITY)
def test_posterior_bounds_reject_invalid_prior(prior):
    with pytest.raises(ValueError, match="prior"):
        posterior_bounds(prior, 1.0)


@SETTINGS
@given(NOT_POSITIVE)
def test_posterior_bounds_reject_invalid_epsilon(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        posterior_bounds(0.5, epsilon)


# --- max_true_positive_rate ---------------------------------------------------------------


def test_max_tpr_closed_form_at_delta_zero():
    # With δ = 0 the two lines cross at FPR = 1/(1 + e^ε) (≈ 0.269 at ε = 1):
    # below it TPR ≤ e^ε·FPR, above it TPR ≤ 1 − e^−ε(1 − FPR).
    epsilon = 1.0
    assert max_true_positive_rate(0.01, epsilon) == pytest.approx(math.e * 0.01, rel=1e-12)
    assert max_true_positive_rate(0.9, epsilon) == pytest.approx(1 - 0.1 / math.e, rel=1e-12)
    assert max_true_positive_rate(0.0, epsilon) == 0.0
    assert max_true_positive_rate(1.0, epsilon) == 1.0


def test_randomized_response_attains_the_bound():
    # The test "reported 1" against RR at ε = ln 3 has FPR ¼ and TPR ¾: exactly on the curve.
    assert max_true_positive_rate(0.25, math.log(3)) == pytest.approx(0.75, rel=1e-12)


def test_max_tpr_with_delta():
    # At FPR = 0 an (ε, δ)-DP mechanism still allows TPR = δ.
    assert max_true_positive_rate(0.0, 1.0, delta=1e-3) == pytest.approx(1e-3)
    expected = min(math.e * 0.1 + 0.05, 1 - math.exp(-1) * (1 - 0.05 - 0.1))
    assert max_true_positive_rate(0.1, 1.0, delta=0.05) == pytest.approx(expected, rel=1e-12)


def test_max_tpr_is_vectorised_and_does_not_overflow():
    fpr = np.linspace(0, 1, 11)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tpr = max_true_positive_rate(fpr, 50.0)
        huge = max_true_positive_rate(fpr, 1000.0, delta=0.1)
    assert tpr.shape == fpr.shape
    assert tpr[0] == 0.0 and np.all(tpr[1:] == 1.0)
    assert huge[0] == pytest.approx(0.1) and np.all(huge[1:] == 1.0)


@SETTINGS
@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), EPSILON, st.floats(0.0, 0.5))
def test_max_tpr_is_a_tradeoff_curve(fpr_a, fpr_b, epsilon, delta):
    low, high = sorted([fpr_a, fpr_b])
    tpr_low = max_true_positive_rate(low, epsilon, delta)
    tpr_high = max_true_positive_rate(high, epsilon, delta)
    assert 0 <= tpr_low <= tpr_high <= 1
    assert tpr_low >= low - 1e-12  # never worse than guessing
    assert max_true_positive_rate(low, epsilon / 2, delta) <= tpr_low + 1e-12


@SETTINGS
@given(NOT_PROBABILITY)
def test_max_tpr_rejects_invalid_fpr(fpr):
    with pytest.raises(ValueError, match="false_positive_rate"):
        max_true_positive_rate(fpr, 1.0)


@SETTINGS
@given(NOT_POSITIVE)
def test_max_tpr_rejects_invalid_epsilon(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        max_true_positive_rate(0.1, epsilon)


@SETTINGS
@given(NOT_DELTA)
def test_max_tpr_rejects_invalid_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        max_true_positive_rate(0.1, 1.0, delta)


# --- averaging_attack_queries -------------------------------------------------------------


def test_averaging_attack_on_the_blog_count():
    # Blog post, Fig. 5: count 4, Δ = 1, ε = 0.5, so b = 2 and each answer has sd 2√2.
    # m > (1.96·2√2/0.5)² = 122.9, so m = 123. The blog says "about 130" because it read
    # the number off one simulated run's plot, where the running mean wanders; the
    # normal-approximation threshold is 123.
    assert averaging_attack_queries(0.5) == 123
    z = 1.959963984540054
    assert averaging_attack_queries(0.5) == math.floor((z * 2 * math.sqrt(2) / 0.5) ** 2) + 1


def test_averaging_attack_interval_covers_as_promised():
    # Simulate: 4,000 attackers each average 123 answers of Lap(2) around the count 4.
    # The mean of 123 Laplace draws is close to normal, so about 95% of the means land in
    # (3.5, 4.5). Binomial sd over 4,000 attackers is √(0.95·0.05/4000) ≈ 0.0034; the
    # ±0.02 tolerance is 6 sd, plus a little for the normal approximation.
    rng = np.random.default_rng(20240312)
    m = averaging_attack_queries(0.5)
    means = laplace_mechanism(np.full((4000, m), 4.0), 1.0, 0.5, rng).mean(axis=1)
    coverage = np.mean(np.abs(means - 4) < 0.5)
    assert coverage == pytest.approx(0.95, abs=0.02)


def test_averaging_attack_scales_like_one_over_epsilon_squared():
    assert averaging_attack_queries(0.5, sensitivity=0.0) == 1  # no noise: one query
    # b = Δ/ε, so m ≈ 8z²Δ²/(ε²h²): halving ε quadruples m (up to rounding).
    assert averaging_attack_queries(0.25) == pytest.approx(4 * 123, abs=4)
    assert averaging_attack_queries(
        1.0, confidence=0.99, half_width=0.25
    ) > averaging_attack_queries(1.0)


@SETTINGS
@given(EPSILON, EPSILON)
def test_averaging_attack_needs_fewer_queries_at_larger_epsilon(eps_a, eps_b):
    small, large = sorted([eps_a, eps_b])
    assert averaging_attack_queries(large) <= averaging_attack_queries(small)
    assert averaging_attack_queries(large) >= 1


@SETTINGS
@given(NOT_POSITIVE)
def test_averaging_attack_rejects_invalid_epsilon_and_half_width(value):
    with pytest.raises(ValueError, match="epsilon"):
        averaging_attack_queries(value)
    with pytest.raises(ValueError, match="half_width"):
        averaging_attack_queries(0.5, half_width=value)


@SETTINGS
@given(NOT_OPEN_UNIT)
def test_averaging_attack_rejects_invalid_confidence(confidence):
    with pytest.raises(ValueError, match="confidence"):
        averaging_attack_queries(0.5, confidence=confidence)


def test_averaging_attack_rejects_negative_sensitivity():
    with pytest.raises(ValueError, match="sensitivity"):
        averaging_attack_queries(0.5, sensitivity=-1.0)


# --- reconstruction_attack ----------------------------------------------------------------


def _recovery(n, n_queries, noise_bound, seed):
    rng = np.random.default_rng(seed)
    secret = rng.integers(0, 2, size=n)
    guess = reconstruction_attack(secret, n_queries, noise_bound, rng)
    assert guess.shape == secret.shape and guess.dtype.kind == "i"
    assert set(np.unique(guess)) <= {0, 1}
    return np.mean(guess == secret)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exact_answers_give_the_secret_away(seed):
    # E = 0: the LP must solve A·x̂ = A·x exactly. A random 0/1 matrix with 2n rows has full
    # column rank except with probability exponentially small in n (it is already so for
    # square ±1 matrices, Kahn, Komlós & Szemerédi 1995), so x̂ = x: recovery is 1.
    assert _recovery(100, 200, 0.0, seed) >= 0.95


def test_noise_well_below_root_n_still_reconstructs():
    # Dinur & Nissim: with k = O(n) queries and error E all but O(E²) bits come out
    # right. E = 1 ≪ √200 ≈ 14; seeded runs recover every bit (over 20 seeds: 100%).
    assert _recovery(200, 400, 1.0, 7) >= 0.95


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_noise_of_order_n_defeats_the_attack(seed):
    # E = n/2: every answer may be off by as much as the whole range of a subset sum (a
    # subset has ≈ n/2 people), so the constraints hardly bind and the LP's first feasible
    # point says little about x. Recovery is near chance, ½ with sd ½/√n ≈ 0.035 at
    # n = 200 if x̂ were independent of x; over 20 seeds we measured 0.50–0.62. 0.75 is far
    # above that.
    assert _recovery(200, 400, 100.0, seed) <= 0.75


def test_reconstruction_is_reproducible():
    secret = np.random.default_rng(0).integers(0, 2, size=50)
    first = reconstruction_attack(secret, 60, 3.0, np.random.default_rng(5))
    again = reconstruction_attack(secret, 60, 3.0, np.random.default_rng(5))
    np.testing.assert_array_equal(first, again)


@pytest.mark.parametrize("bits", [[], [0, 1, 2], [0.5, 1], [0, math.nan], [[]]])
def test_reconstruction_rejects_invalid_bits(bits):
    with pytest.raises(ValueError, match="secret_bits"):
        reconstruction_attack(bits, 10, 1.0, np.random.default_rng(0))


@SETTINGS
@given(st.one_of(st.integers(max_value=0), st.floats(0.1, 0.9), st.just(math.nan)))
def test_reconstruction_rejects_invalid_query_count(n_queries):
    with pytest.raises(ValueError, match="n_queries"):
        reconstruction_attack([0, 1, 1], n_queries, 1.0, np.random.default_rng(0))


@SETTINGS
@given(st.one_of(st.floats(max_value=0.0, exclude_max=True), st.sampled_from([math.nan, math.inf])))
def test_reconstruction_rejects_invalid_noise_bound(noise_bound):
    with pytest.raises(ValueError, match="noise_bound"):
        reconstruction_attack([0, 1, 1], 5, noise_bound, np.random.default_rng(0))


def test_reconstruction_needs_an_explicit_generator():
    with pytest.raises(ValueError, match="rng"):
        reconstruction_attack([0, 1, 1], 5, 1.0, 42)
