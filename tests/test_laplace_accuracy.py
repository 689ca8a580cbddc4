"""dp.laplace_accuracy against closed forms, the course's numbers, scipy, and its own samples."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dp.laplace_accuracy import (
    POSTPROCESSING,
    age_distribution,
    both_move_event,
    bucket_counts,
    clipped_mean_decomposition,
    consistent_counts,
    epsilon_for_error,
    histogram_errors,
    laplace_interval,
    laplace_quantile,
    laplace_samples,
    laplace_variance,
    max_error_probability,
    per_coordinate_shift,
    postprocess,
    postprocessing_errors,
    private_clipped_mean,
    project_to_simplex,
    query_sensitivity,
    synthetic_age_counts,
    synthetic_incomes,
    union_bound_error,
    zipf_distribution,
)
from dp.privacy_loss import laplace_density
from ui.audit import certified_epsilon

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)
scales = st.floats(0.01, 100)
probabilities = st.floats(1e-6, 1 - 1e-6)


# --- sensitivity ---------------------------------------------------------------------------

@pytest.mark.parametrize("relation", ["add/remove", "replace-one"])
def test_count_and_k_counts_do_not_depend_on_the_relation(relation):
    assert query_sensitivity("count", relation) == 1
    assert query_sensitivity("k counts", relation, k=7) == 7


def test_histogram_sensitivity_is_1_under_add_remove_and_2_under_replace_one():
    # ML lecture: "k disjoint buckets ... Ans: 1" (add/remove); its blue-eyes example and the
    # mechanisms notes use 2 (replace-one: one bucket loses a person, another gains one).
    assert query_sensitivity("histogram", "add/remove") == 1
    assert query_sensitivity("histogram", "replace-one") == 2


def test_bounded_mean_needs_a_public_n():
    # Blog post: Δ = (ub − lb)/n, e.g. ages in [0, 110] over 1,000 people.
    assert query_sensitivity("bounded mean", "replace-one", lower=0, upper=110, n=1000) == pytest.approx(0.11)
    with pytest.raises(ValueError, match="public n"):
        query_sensitivity("bounded mean", "add/remove", lower=0, upper=110, n=1000)
    with pytest.raises(ValueError, match="lower"):
        query_sensitivity("bounded mean", "replace-one", lower=5, upper=5, n=10)


@pytest.mark.parametrize("kwargs, name", [
    ({"query": "median", "relation": "add/remove"}, "query"),
    ({"query": "count", "relation": "swap"}, "relation"),
    ({"query": "k counts", "relation": "add/remove", "k": 0}, "k"),
    ({"query": "bounded mean", "relation": "replace-one", "n": 0}, "n"),
])
def test_sensitivity_rejects_bad_input_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        query_sensitivity(**kwargs)


def test_per_coordinate_shift():
    assert per_coordinate_shift("histogram", 2) == 1  # two coordinates move by 1 each
    assert per_coordinate_shift("k counts", 10) == 1
    assert per_coordinate_shift("bounded mean", 0.5) == 0.5
    with pytest.raises(ValueError, match="query"):
        per_coordinate_shift("median", 1)


# --- accuracy -------------------------------------------------------------------------------

def test_density_integrates_to_one_and_matches_scipy():
    x = np.linspace(-200, 200, 400_001)
    p = laplace_density(x, 3.0, 4.0)
    assert np.trapezoid(p, x) == pytest.approx(1.0, abs=1e-6)
    assert np.allclose(p, stats.laplace.pdf(x, loc=3.0, scale=4.0))


def test_variance_closed_form_and_samples():
    assert laplace_variance(3.0) == 18.0
    assert laplace_variance(1 / 0.5) == pytest.approx(2 / 0.5**2)  # intro lecture: Var = 2/ε²
    # Var(s²) ≈ (μ₄ − σ⁴)/N = (24 − 4)·b⁴/N for Laplace; N = 200,000, b = 3 gives sd 0.09.
    # A 6-sd tolerance (0.54) does not flake for any seed in practice.
    noise = np.random.default_rng(4).laplace(0, 3.0, 200_000)
    assert noise.var() == pytest.approx(18.0, abs=0.54)


@SETTINGS
@given(scale=scales, p=probabilities)
def test_quantile_matches_scipy(scale, p):
    assert laplace_quantile(scale, p) == pytest.approx(stats.laplace.ppf(p, scale=scale),
                                                       rel=1e-9, abs=1e-9 * scale)


def test_quantile_is_vectorised_and_validated():
    q = laplace_quantile(2.0, [0.025, 0.5, 0.975])
    assert q[1] == 0 and q[0] == pytest.approx(-q[2]) and q[2] == pytest.approx(2 * math.log(20))
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="p"):
            laplace_quantile(1.0, bad)


def test_95_percent_interval_is_b_ln_20():
    assert laplace_interval(1.0, 0.95) == pytest.approx(math.log(20))
    assert laplace_interval(20.0, 0.95) == pytest.approx(59.9, abs=0.05)  # blue eyes: ±60


@SETTINGS
@given(scale=scales, c=st.floats(0.01, 0.999))
def test_interval_has_the_stated_coverage(scale, c):
    w = laplace_interval(scale, c)
    coverage = stats.laplace.cdf(w, scale=scale) - stats.laplace.cdf(-w, scale=scale)
    assert coverage == pytest.approx(c, abs=1e-9)


@SETTINGS
@given(delta=st.floats(0.1, 100), error=st.floats(0.01, 1e4), c=st.floats(0.01, 0.999))
def test_accuracy_to_epsilon_inverts_the_interval(delta, error, c):
    epsilon = epsilon_for_error(delta, error, c)
    assert laplace_interval(delta / epsilon, c) == pytest.approx(error, rel=1e-9)


def test_quiz_numbers_for_the_inverse():
    # ε = 0.3 gives ±ln 20/0.3 ≈ ±10 at 95%; halving the error doubles ε.
    assert laplace_interval(1 / 0.3, 0.95) == pytest.approx(10.0, abs=0.02)
    assert epsilon_for_error(1, 5, 0.95) == pytest.approx(2 * epsilon_for_error(1, 10, 0.95))
    with pytest.raises(ValueError, match="error"):
        epsilon_for_error(1, 0, 0.95)
    with pytest.raises(ValueError, match="confidence"):
        epsilon_for_error(1, 1, 1.0)


# --- many buckets --------------------------------------------------------------------------------

def test_census_first_names_bound():
    # Mechanisms notes: k = 10,000, ε = 0.1, b = 1/ε (add/remove): 10·(10 + 9.2) ≈ 200.
    assert union_bound_error(10, 10_000) == pytest.approx(192.1, abs=0.1)
    assert union_bound_error(20, 10_000) == pytest.approx(384.2, abs=0.1)  # replace-one, Δ = 2
    s = 10 + math.log(10_000)
    assert max_error_probability(10_000, s, "union") == pytest.approx(math.exp(-10))


@SETTINGS
@given(k=st.integers(1, 100_000), t=st.floats(0, 40))
def test_exact_max_error_lies_between_one_bucket_and_the_union_bound(k, t):
    single = max_error_probability(k, t, "single")
    exact = max_error_probability(k, t, "exact")
    union = max_error_probability(k, t, "union")
    assert single * (1 - 1e-12) <= exact <= union * (1 + 1e-12)


def test_max_error_edge_cases_and_samples():
    assert max_error_probability(5, 0.0) == 1.0
    assert max_error_probability(1, 2.0) == pytest.approx(math.exp(-2))
    # k = 10, t = 3: p = 1 − (1 − e^−3)^10 ≈ 0.395. With N = 20,000 runs the sd is 0.0035;
    # tolerance 0.02 (≈ 6 sd).
    noise = np.random.default_rng(7).laplace(0, 1, (20_000, 10))
    observed = np.mean(np.abs(noise).max(axis=1) > 3)
    assert observed == pytest.approx(max_error_probability(10, 3.0), abs=0.02)
    with pytest.raises(ValueError, match="method"):
        max_error_probability(10, 1.0, "bonferroni")
    with pytest.raises(ValueError, match="t"):
        max_error_probability(10, -1.0)


# --- synthetic data ----------------------------------------------------------------------------

def test_synthetic_ages_and_buckets():
    pmf = age_distribution()
    assert pmf.shape == (100,) and np.all(pmf > 0) and pmf.sum() == pytest.approx(1)
    counts = synthetic_age_counts(np.random.default_rng(0), 12_345)
    assert counts.sum() == 12_345
    for k in (2, 5, 10, 20, 50, 100):
        assert bucket_counts(counts, k).sum() == 12_345
    with pytest.raises(ValueError, match="k must divide"):
        bucket_counts(counts, 3)
    with pytest.raises(ValueError, match="rng"):
        synthetic_age_counts(0, 10)


def test_same_seed_same_data():
    a = synthetic_age_counts(np.random.default_rng(3), 1000)
    b = synthetic_age_counts(np.random.default_rng(3), 1000)
    assert np.array_equal(a, b)


def test_zipf_names_and_incomes():
    p = zipf_distribution(10_000)
    assert p.sum() == pytest.approx(1) and 0.01 < p[0] < 0.03 and np.all(np.diff(p) < 0)
    incomes = synthetic_incomes(np.random.default_rng(1), 20_000)
    # Median of a log-normal is e^μ = 45; the sample median's sd is ≈ 0.5 here, tolerance 3.
    assert np.median(incomes) == pytest.approx(45, abs=3)
    assert np.all(incomes > 0)


def test_histogram_error_does_not_grow_with_n():
    rng = np.random.default_rng(11)
    pops = [10_000, 1_000_000, 300_000_000]
    max_errors, top = histogram_errors(rng, pops, zipf_distribution(10_000), 10.0)
    assert np.all(np.diff(top) > 0)
    # Every run is within the union bound except with probability e^−10 each.
    assert np.all(max_errors <= union_bound_error(10.0, 10_000))
    # The expected maximum of 10,000 |Lap(10)| is 10·H(10,000) ≈ 98 whatever n is; a single
    # maximum has sd ≈ 10·π/√6 ≈ 13, so each lies within 60 of 98.
    assert np.all(np.abs(max_errors - 97.9) < 60)


# --- post-processing -------------------------------------------------------------------------------

@SETTINGS
@given(values=st.lists(st.floats(-100, 100), min_size=1, max_size=30),
       total=st.floats(0, 1000))
def test_projection_lands_on_the_simplex_and_is_the_closest_point(values, total):
    v = np.array(values)
    x = project_to_simplex(v, total)
    assert np.all(x >= 0)
    assert x.sum() == pytest.approx(total, abs=1e-6 * (1 + total))
    if np.any(x > 0):  # (a subnormal total rounds every entry to 0)
        # Optimality (KKT): v − x equals one θ on the positive entries and is ≤ θ elsewhere.
        theta = (v - x)[x > 0]
        assert np.ptp(theta) < 1e-6 * (1 + np.abs(v).max() + total)
        assert np.all((v - x)[x == 0] <= theta.max() + 1e-6 * (1 + total))


def test_projection_leaves_feasible_points_alone_and_handles_rows():
    v = np.array([[1.0, 2.0, 3.0], [-5.0, 1.0, 1.0]])
    out = project_to_simplex(v, [6, 2])
    assert np.allclose(out[0], [1, 2, 3])
    assert np.allclose(out[1], [0, 1, 1])
    assert np.allclose(project_to_simplex([-1.0, -2.0], 0), [0, 0])
    with pytest.raises(ValueError, match="total"):
        project_to_simplex([1.0], -1)


@SETTINGS
@given(values=st.lists(st.floats(-50, 200), min_size=1, max_size=25), total=st.integers(0, 2000))
def test_consistent_counts_are_whole_non_negative_and_add_up(values, total):
    x = consistent_counts(np.array(values), total)
    assert np.all(x >= 0) and np.all(x == np.round(x))
    assert x.sum() == total
    assert np.all(np.abs(x - project_to_simplex(np.array(values), total)) < 1 + 1e-9)


def test_postprocess_recipes():
    noisy = np.array([-2.4, 3.6, 10.5])
    assert np.array_equal(postprocess(noisy, "rounded"), [-2, 4, 10])
    assert np.array_equal(postprocess(noisy, "negatives → 0"), [0, 3.6, 10.5])
    assert np.array_equal(postprocess(noisy, "rounded, negatives → 0"), [0, 4, 10])
    assert postprocess(noisy, "consistent", 12).sum() == 12
    with pytest.raises(ValueError, match="total"):
        postprocess(noisy, "consistent")
    with pytest.raises(ValueError, match="variant"):
        postprocess(noisy, "smoothed")


def test_postprocessing_errors_match_the_noise_when_counts_are_large():
    rng = np.random.default_rng(5)
    counts = np.full(20, 1000.0)  # far from 0: clamping never bites
    errors = postprocessing_errors(rng, counts, scale=10.0, repeats=400)
    assert set(errors) == set(POSTPROCESSING)
    # E|Y| = b = 10; 8,000 draws give an sd of 10/√8000 ≈ 0.11 for the mean; tolerance 0.7.
    assert errors["noisy (raw)"][0] == pytest.approx(10.0, abs=0.7)
    assert errors["negatives → 0"] == errors["noisy (raw)"]
    # The total's error: a sum of 20 Lap(10) has sd √(20·200) ≈ 63, E|·| ≈ 50 (±2.5 sd of 400).
    assert errors["noisy (raw)"][1] == pytest.approx(50, abs=8)


def test_clamping_small_counts_helps_buckets_but_biases_the_total():
    rng = np.random.default_rng(6)
    counts = np.array([0, 1, 2, 50, 3, 0, 1, 0, 0, 2], dtype=float)
    errors = postprocessing_errors(rng, counts, scale=10.0, repeats=400, public_total=59)
    raw, clamped, consistent = (errors[v] for v in ("noisy (raw)", "negatives → 0", "consistent"))
    assert clamped[0] < raw[0]  # fewer wild negative buckets
    assert clamped[1] > raw[1]  # but the total only ever goes up
    assert consistent[1] == 0  # the public total is matched exactly


# --- clipping ---------------------------------------------------------------------------------------

def test_clipped_mean_decomposition_against_direct_computation():
    x = synthetic_incomes(np.random.default_rng(2), 500)
    uppers = np.array([30.0, 60, 100, 200, 500, 1e5])
    d = clipped_mean_decomposition(x, 10, uppers, 0.5)
    direct = np.array([np.clip(x, 10, u).mean() - x.mean() for u in uppers])
    assert np.allclose(d["bias"], direct)
    assert np.allclose(d["noise_sd"], math.sqrt(2) * (uppers - 10) / (500 * 0.5))
    assert np.allclose(d["rmse"] ** 2, d["bias"] ** 2 + d["noise_sd"] ** 2)
    assert d["bias"][-1] > 0  # nothing above 1e5; L = 10 only pushes the mean up


@SETTINGS
@given(values=st.lists(st.floats(-1000, 1000), min_size=1, max_size=50),
       lower=st.floats(-500, 500), width=st.floats(0.1, 1000))
def test_clipped_bias_matches_numpy_clip(values, lower, width):
    x = np.array(values)
    d = clipped_mean_decomposition(x, lower, lower + width, 1.0)
    assert float(d["bias"]) == pytest.approx(np.clip(x, lower, lower + width).mean() - x.mean(),
                                             abs=1e-9 * (1 + np.abs(x).max() + abs(lower) + width))


def test_clipping_validation():
    with pytest.raises(ValueError, match="upper"):
        clipped_mean_decomposition([1.0, 2.0], 5, 5, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        clipped_mean_decomposition([1.0, 2.0], 0, 5, 0)


def test_private_clipped_mean_is_unbiased_for_the_clipped_mean():
    x = synthetic_incomes(np.random.default_rng(8), 100)
    rng = np.random.default_rng(9)
    releases = np.array([private_clipped_mean(x, 0, 200, 1.0, rng) for _ in range(4000)])
    b = 200 / (100 * 1.0)
    # mean of 4,000 Lap(2) has sd √(2·4)/√4000 ≈ 0.045; tolerance 0.3.
    assert releases.mean() == pytest.approx(np.clip(x, 0, 200).mean(), abs=0.3)
    assert releases.var() == pytest.approx(laplace_variance(b), rel=0.15)


# --- audit -----------------------------------------------------------------------------------------

def test_the_audit_event_has_ratio_e_to_the_2_over_b():
    # p_D = Pr[Y₁ ≥ 0]·Pr[Y₂ ≤ 0] = 1/4 and p_D′ = (e^(−1/b)/2)² with b = 2/ε.
    rng = np.random.default_rng(12)
    d = laplace_samples(rng, 200_000, [120, 80], 2, 1.0)
    d_prime = laplace_samples(rng, 200_000, [119, 81], 2, 1.0)
    assert d.shape == (200_000, 2)
    p, p_prime = both_move_event(d, 120, 80).mean(), both_move_event(d_prime, 120, 80).mean()
    # sd of each estimate ≤ √(0.25·0.75/200000) ≈ 0.001; tolerance 0.005.
    assert p == pytest.approx(0.25, abs=0.005)
    assert p_prime == pytest.approx(0.25 * math.exp(-1), abs=0.005)


@pytest.mark.parametrize("used, caught", [(2.0, False), (1.0, True)])
def test_audit_catches_the_add_remove_sensitivity_used_for_replace_one(used, caught):
    # With Δ = 1 the true ε is 2ε = 2; 100,000 samples certify ≈ 1.9 > 1. With Δ = 2 a
    # correct mechanism stays ≤ ε except with probability α = 5% (fixed seed: deterministic).
    rng = np.random.default_rng(13)
    d = laplace_samples(rng, 100_000, [120, 80], used, 1.0)
    d_prime = laplace_samples(rng, 100_000, [119, 81], used, 1.0)
    eps_hat = certified_epsilon(d, d_prime, lambda y: both_move_event(y, 120, 80))
    assert (eps_hat > 1.0) is caught
    if caught:
        assert eps_hat > 1.7
