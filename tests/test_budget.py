"""dp.budget: the averaging attack, splitting a budget, the accountant and the budget game.

Closed forms, hypothesis properties, seeded statistical checks (tolerances derived in the
comments), and a cross-check of the accountant's refusals against OpenDP's privacy filter.
"""

import math

import numpy as np
import opendp.prelude as odp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dp import advanced_composition, averaging_attack_queries
from dp.budget import (
    AGE_GROUPS,
    BP_RANGE,
    GAME_N,
    QUESTIONS,
    REGIONS,
    BudgetExceeded,
    BudgetGame,
    GameOver,
    PrivacyAccountant,
    at_least,
    attack_threshold,
    average_sd,
    averaged_laplace_samples,
    clinic_data,
    combine_answers,
    disclosure_budget,
    first_inside,
    laplace_half_width,
    per_query_epsilon,
    question_sensitivity,
    running_mean_band,
    settled_from,
    simulate_averaging_attack,
    true_answer,
    z_value,
)

odp.enable_features("contrib")

SETTINGS = settings(derandomize=True, max_examples=50, deadline=None)
Z95 = 1.959963984540054


# --- closed forms -----------------------------------------------------------------------------


def test_laplace_half_width_is_b_ln_20_at_95_percent():
    assert laplace_half_width(2.0) == pytest.approx(2 * math.log(20), rel=1e-12)
    # Pr[|Y| > t] = e^{−t/b} = 1 − confidence at the returned t.
    t = laplace_half_width(3.0, 0.9)
    assert math.exp(-t / 3.0) == pytest.approx(0.1, rel=1e-12)


def test_average_sd_and_z():
    assert z_value(0.95) == pytest.approx(Z95, rel=1e-12)
    # Var Lap(b) = 2b²; the mean of k answers has variance 2b²/k. ε = 0.5 → b = 2.
    assert average_sd(0.5, 1) == pytest.approx(math.sqrt(8), rel=1e-12)
    assert average_sd(0.5, 8) == pytest.approx(1.0, rel=1e-12)
    assert average_sd(0.5, 8, sensitivity=3) == pytest.approx(3.0, rel=1e-12)


def test_blog_numbers():
    # ε = 0.5, count: (1.96·√2·2/0.5)² = 122.9…, so the band is narrower than ±0.5 from m = 123.
    assert attack_threshold(0.5) == pytest.approx((Z95 * math.sqrt(2) * 2 / 0.5) ** 2, rel=1e-12)
    assert 122 < attack_threshold(0.5) < 123
    assert averaging_attack_queries(0.5) == 123


@SETTINGS
@given(st.floats(0.05, 20))
def test_attack_threshold_agrees_with_averaging_attack_queries(epsilon):
    assert averaging_attack_queries(epsilon) == math.floor(attack_threshold(epsilon)) + 1


def test_disclosure_budget_is_the_one_query_threshold():
    # z·√2/0.5 ≈ 5.54: one answer at ε_T already has a band within ±0.5 just above it.
    needed = disclosure_budget()
    assert needed == pytest.approx(Z95 * math.sqrt(2) / 0.5, rel=1e-12)
    assert averaging_attack_queries(needed * 1.001) == 1
    assert averaging_attack_queries(needed * 0.999) == 2


@SETTINGS
@given(st.floats(0.05, 20), st.integers(1, 10_000))
def test_splitting_a_budget_never_beats_one_query(total, k):
    # The mean of k answers at ε_T/k has sd √(2k)/ε_T ≥ √2/ε_T, the sd of one answer at ε_T.
    split = average_sd(per_query_epsilon(total, k), k)
    assert split == pytest.approx(math.sqrt(2 * k) / total, rel=1e-9)
    assert split >= average_sd(total, 1) * (1 - 1e-12)


# --- per_query_epsilon ----------------------------------------------------------------------


def test_per_query_epsilon_basic():
    assert per_query_epsilon(1.0, 10) == pytest.approx(0.1)
    assert per_query_epsilon(3.0, 1) == 3.0


@SETTINGS
@given(st.floats(0.01, 10), st.integers(1, 5000), st.sampled_from([1e-3, 1e-6, 1e-9]))
def test_per_query_epsilon_advanced_is_the_largest_that_fits(total, k, delta_prime):
    eps = per_query_epsilon(total, k, delta_prime)
    assert advanced_composition(eps, 0.0, k, delta_prime)[0] <= total
    assert advanced_composition(eps * (1 + 1e-9), 0.0, k, delta_prime)[0] > total * (1 - 1e-9)


def test_advanced_splits_win_only_for_many_queries():
    # ε_T = 1, δ′ = 1e-6: for one query advanced composition charges √(2 ln 10⁶)·ε + ε(e^ε − 1)
    # ≈ 5.3ε, so it allows less than ε_T; for k = 10,000 it allows ~ ε_T/√(2k ln(1/δ′)) ≫ ε_T/k.
    assert per_query_epsilon(1.0, 1, 1e-6) < 0.2
    assert per_query_epsilon(1.0, 10_000, 1e-6) > 10 * per_query_epsilon(1.0, 10_000)


def test_per_query_epsilon_rejects_bad_input():
    with pytest.raises(ValueError, match="total"):
        per_query_epsilon(0, 3)
    with pytest.raises(ValueError, match="k"):
        per_query_epsilon(1.0, 0)
    with pytest.raises(ValueError, match="delta_prime"):
        per_query_epsilon(1.0, 3, 1.5)


# --- the averaging attack -----------------------------------------------------------------------


def test_running_mean_band_by_hand():
    means, half = running_mean_band([4.0, 2.0, 6.0], scale=2.0)
    np.testing.assert_allclose(means, [4.0, 3.0, 4.0])
    np.testing.assert_allclose(half, Z95 * math.sqrt(2) * 2 / np.sqrt([1, 2, 3]))


@SETTINGS
@given(st.sampled_from([0.2, 0.5, 1.0, 2.0, 5.0]))
def test_band_crosses_the_corridor_exactly_at_m_star(epsilon):
    m_star = averaging_attack_queries(epsilon)
    _, half = running_mean_band(np.zeros(m_star), 1 / epsilon)
    assert half[-1] < 0.5
    assert m_star == 1 or half[-2] >= 0.5


def test_first_inside_and_settled_by_hand():
    means = np.array([6.0, 4.4, 3.9, 4.2, 4.6, 4.1, 4.0])
    half = np.array([5.0, 2.0, 0.7, 0.4, 0.3, 0.3, 0.2])
    # |mean − 4| + h ≤ 0.5 first at m = 6 (0.1 + 0.3); m = 4 has 0.2 + 0.4 > 0.5.
    assert first_inside(means, half, 4, 0.5) == 6
    # Outside the corridor last at m = 5 (4.6), so rounding gives 4 from m = 6 on.
    assert settled_from(means, 4, 0.5) == 6
    assert settled_from(np.array([4.0, 4.1]), 4) == 1
    assert settled_from(np.array([4.0, 5.0]), 4) == 0
    assert first_inside(means, half + 1, 4, 0.5) == 0


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.5, 1.0, 2.0]))
def test_the_band_never_fits_before_m_star(seed, epsilon):
    runs = simulate_averaging_attack(np.random.default_rng(seed), epsilon, 3 * 31, 20)
    m_star = averaging_attack_queries(epsilon)
    assert np.all((runs == 0) | (runs >= m_star))


def test_simulated_attacks_succeed_later_than_the_formula():
    rng = np.random.default_rng(20201126)
    m_star = averaging_attack_queries(0.5)
    runs = simulate_averaging_attack(rng, 0.5, 4 * m_star, 400)
    # At m = 4m* the half-width is ≈ 0.25 and the mean's sd is ≈ 0.25/1.96, so the band fits
    # with probability ≈ Pr[|Z| ≤ 1.96] = 0.95 at that m alone (more by then, counting earlier
    # fits). With 400 runs the binomial sd of the fraction is ≈ 0.011: 0.90 is > 4 sd below.
    assert np.mean(runs > 0) >= 0.90
    # Fitting at m* itself needs |mean| ≤ 0.5 − h_{m*} ≈ 2e-4, i.e. probability ≈ 1e-4 per run;
    # the median first fit is well after m* (≈ 1.4 m* in large simulations).
    median = np.median(runs[runs > 0])
    assert 1.1 * m_star < median < 2.5 * m_star


def test_averaged_laplace_samples_moments():
    rng = np.random.default_rng(7)
    n, k, eps = 200_000, 10, 0.5
    samples = averaged_laplace_samples(rng, n, 4, eps, k)
    sd = average_sd(eps, k)  # √(2/k)·b ≈ 0.894
    # The sample mean has sd σ/√n ≈ 0.002: allow 5 of those.
    assert abs(samples.mean() - 4) < 5 * sd / math.sqrt(n)
    # Sample variance: relative sd √((2 + κ)/n) with excess kurtosis κ = 3/k: ≈ 0.0034. Allow 5×.
    assert samples.var() / sd**2 == pytest.approx(1, abs=5 * math.sqrt((2 + 3 / k) / n))


def test_at_least():
    np.testing.assert_array_equal(at_least([1.0, 2.0, 3.0], 2.0), [False, True, True])


# --- combine_answers ---------------------------------------------------------------------------


def test_combine_equal_scales_is_the_plain_mean():
    estimate, half = combine_answers([3.0, 5.0, 7.0, 1.0], [2.0] * 4)
    assert estimate == pytest.approx(4.0)
    _, band = running_mean_band([3.0, 5.0, 7.0, 1.0], 2.0)
    assert half == pytest.approx(band[-1], rel=1e-12)


def test_combine_weights_precise_answers_more():
    # Scales 1 and 2: weights 1/2 and 1/8, so (0.5·10 + 0.125·20)/0.625 = 12.
    estimate, half = combine_answers([10.0, 20.0], [1.0, 2.0])
    assert estimate == pytest.approx(12.0)
    assert half == pytest.approx(Z95 / math.sqrt(0.625))


def test_combine_histograms_bucket_by_bucket():
    estimate, _ = combine_answers([[1.0, 2.0], [3.0, 6.0]], [1.0, 1.0])
    np.testing.assert_allclose(estimate, [2.0, 4.0])


def test_combine_rejects_bad_scales():
    with pytest.raises(ValueError, match="scales"):
        combine_answers([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="scales"):
        combine_answers([1.0, 2.0], [1.0, 0.0])


# --- the accountant ------------------------------------------------------------------------------


def test_accountant_spends_and_refuses():
    acc = PrivacyAccountant(1.0)
    assert (acc.spent, acc.remaining, acc.advanced(1e-6)) == (0.0, 1.0, None)
    acc.charge(0.3)
    acc.charge(0.5)
    assert acc.spent == pytest.approx(0.8)
    assert acc.affordable(0.1) == 2
    with pytest.raises(BudgetExceeded, match=r"costs ε = 0.5.*only 0.2 .*ε_T = 1"):
        acc.charge(0.5)
    assert acc.spent == pytest.approx(0.8), "a refused query spends nothing"
    acc.charge(0.2)  # what is left still fits exactly
    with pytest.raises(BudgetExceeded, match="whole budget"):
        acc.charge(0.01)


def test_ten_tenths_fit_a_budget_of_one():
    # 0.1 is not exact in binary: the float sum of ten of them is 0.9999999999999999.
    acc = PrivacyAccountant(1.0)
    for _ in range(10):
        acc.charge(0.1)
    assert not acc.can_afford(1e-6)


def test_accountant_advanced_matches_dp_accounting_helper():
    acc = PrivacyAccountant(100.0)
    for eps in (0.1, 0.05, 0.1, 0.02):
        acc.charge(eps)
    assert acc.advanced(1e-6) == advanced_composition(0.1, 0.0, 4, 1e-6)


def test_accountant_rejects_bad_values():
    with pytest.raises(ValueError, match="total"):
        PrivacyAccountant(0.0)
    with pytest.raises(ValueError, match="epsilon"):
        PrivacyAccountant(1.0).charge(-0.1)
    with pytest.raises(ValueError, match="epsilon"):
        PrivacyAccountant(1.0).charge(float("nan"))


@SETTINGS
@given(st.floats(0.1, 10), st.lists(st.floats(0.001, 5), max_size=40))
def test_the_accountant_never_overspends(total, requests):
    acc = PrivacyAccountant(total)
    for eps in requests:
        before = acc.spent
        try:
            acc.charge(eps)
        except BudgetExceeded:
            assert acc.spent == before
            assert before + eps > total
        assert acc.spent <= total * (1 + 1e-9)


# Dyadic ε's keep every sum exact in binary, so both sides decide ties the same way.
DYADIC = st.sampled_from([0.125, 0.25, 0.5, 1.0])


@settings(derandomize=True, max_examples=8, deadline=None)  # OpenDP calls are slow
@given(st.sampled_from([0.5, 1.0, 2.0]), st.lists(DYADIC, min_size=1, max_size=12))
def test_refusals_match_opendp_privacy_filter(total, requests):
    """OpenDP's filter (Rogers et al. 2016) over Laplace counts refuses the same first query.

    After its first refusal OpenDP closes the filter for good; our accountant keeps answering
    queries that still fit (a refusal depends only on the public ε's, never on the data, so it
    is safe either way). So we compare up to and including the first refusal.
    """
    space = odp.atom_domain(T=float, nan=False), odp.absolute_distance(T=float)
    odometer = odp.c.make_fully_adaptive_composition(*space, odp.max_divergence())
    queryable = odp.c.make_privacy_filter(odometer, d_in=1.0, d_out=total)(4.0)
    acc = PrivacyAccountant(total)
    for eps in requests:
        try:
            queryable(odp.m.make_laplace(*space, scale=1 / eps))
            theirs = True
        except odp.OpenDPException:
            theirs = False
        try:
            acc.charge(eps)
            ours = True
        except BudgetExceeded:
            ours = False
        assert ours == theirs
        if not ours:
            break
        assert acc.spent == pytest.approx(queryable.privacy_loss(1.0), rel=1e-12)


# --- the game ------------------------------------------------------------------------------------


def test_clinic_data_is_plausible_and_seeded():
    data = clinic_data(np.random.default_rng(1))
    again = clinic_data(np.random.default_rng(1))
    for name, column in data.items():
        assert column.shape == (GAME_N,)
        np.testing.assert_array_equal(column, again[name])
    assert data["age"].min() >= 18 and data["age"].max() <= 90
    assert BP_RANGE[0] <= data["blood_pressure"].min() <= data["blood_pressure"].max() <= BP_RANGE[1]
    assert set(np.unique(data["region"])) <= set(range(len(REGIONS)))


def test_true_answers_and_sensitivities():
    data = clinic_data(np.random.default_rng(2))
    assert true_answer(data, "smokers") == data["smoker"].sum()
    assert true_answer(data, "regions").sum() == GAME_N
    assert true_answer(data, "age_groups").shape == (len(AGE_GROUPS),)
    assert true_answer(data, "mean_age") == pytest.approx(data["age"].mean())
    assert question_sensitivity("heart_attack") == 1.0
    assert question_sensitivity("regions") == 2.0
    assert question_sensitivity("mean_bp") == pytest.approx((200 - 90) / GAME_N)
    with pytest.raises(ValueError, match="question"):
        true_answer(data, "salary")


def test_every_question_can_be_answered():
    game = BudgetGame(10.0, np.random.default_rng(3))
    for key in QUESTIONS:
        entry = game.ask(key, 0.5)
        assert np.shape(entry.answer) == np.shape(true_answer(game.data, key))
    assert game.accountant.spent == pytest.approx(0.5 * len(QUESTIONS))


def test_game_is_reproducible_and_refusals_do_not_touch_the_data():
    a, b = BudgetGame(1.0, np.random.default_rng(4)), BudgetGame(1.0, np.random.default_rng(4))
    assert a.ask("heart_attack", 0.5).answer == b.ask("heart_attack", 0.5).answer
    state = a.rng.bit_generator.state
    with pytest.raises(BudgetExceeded):
        a.ask("smokers", 0.7)
    assert a.rng.bit_generator.state == state, "a refused query draws no noise"
    assert len(a.log) == 1


def test_averaging_attack_against_the_accountant():
    game = BudgetGame(1.0, np.random.default_rng(5))
    entries = game.ask_until_refused("heart_attack", 0.1)
    assert len(entries) == 10 and len(game.answers_to("heart_attack")) == 10
    with pytest.raises(BudgetExceeded):
        game.ask("heart_attack", 0.1)
    # Ten answers at 0.1 pool to sd √2·10/√10 = √20 ≈ 4.5 patients: one answer at ε = 1 has √2.
    _, half = combine_answers([e.answer for e in entries], [10.0] * 10)
    assert half == pytest.approx(Z95 * math.sqrt(20))


def test_reveal_ends_the_game():
    game = BudgetGame(1.0, np.random.default_rng(6))
    game.ask("smokers", 0.1)
    game.reveal()
    with pytest.raises(GameOver, match="revealed"):
        game.ask("smokers", 0.1)


def test_ask_until_refused_after_reveal_raises():
    game = BudgetGame(1.0, np.random.default_rng(6))
    game.reveal()
    with pytest.raises(GameOver):
        game.ask_until_refused("smokers", 0.1)


# --- issue 13: the exact disclosure bar, the pooling penalty, the split crossover ----------


def test_laplace_disclosure_budget_is_ln_20_over_half_width():
    from dp.budget import laplace_disclosure_budget
    assert laplace_disclosure_budget() == pytest.approx(math.log(20) / 0.5, rel=1e-12)
    bar = laplace_disclosure_budget(2.0, 0.5, 0.9)
    # One answer at exactly that ε_T has its exact interval at ± 0.5.
    assert laplace_half_width(2.0 / bar, 0.9) == pytest.approx(0.5, rel=1e-12)
    assert laplace_disclosure_budget() > disclosure_budget()  # the normal bar is optimistic


@SETTINGS
@given(st.lists(st.floats(0.01, 10), min_size=1, max_size=30))
def test_pooling_penalty_compares_pooled_and_single_standard_deviations(epsilons):
    from dp.budget import pooling_penalty
    _, pooled_half = combine_answers(np.zeros(len(epsilons)), [1 / e for e in epsilons])
    single_sd = math.sqrt(2) / sum(epsilons)
    assert pooled_half / Z95 == pytest.approx(pooling_penalty(epsilons) * single_sd, rel=1e-9)
    assert 1 - 1e-12 <= pooling_penalty(epsilons) <= math.sqrt(len(epsilons)) * (1 + 1e-12)


def test_pooling_penalty_is_root_k_for_equal_epsilons_and_rejects_bad_input():
    from dp.budget import pooling_penalty
    assert pooling_penalty([0.1] * 10) == pytest.approx(math.sqrt(10), rel=1e-12)
    for bad in ([], [0.1, 0.0], [[0.1]]):
        with pytest.raises(ValueError, match="epsilons"):
            pooling_penalty(bad)


@pytest.mark.parametrize("total", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("delta_prime", [1e-12, 1e-6, 0.1])
def test_advanced_split_crossover_is_the_first_k_where_advanced_spends_more(total, delta_prime):
    from dp.budget import advanced_split_crossover
    k = advanced_split_crossover(total, delta_prime)
    assert k is not None and k > 1
    assert per_query_epsilon(total, k, delta_prime) > total / k
    assert all(per_query_epsilon(total, j, delta_prime) <= total / j for j in range(1, k))
    # and advanced composition keeps winning after it (checked up to k = 200)
    assert all(per_query_epsilon(total, j, delta_prime) > total / j for j in range(k, 200))
    # for small budgets it sits just above 2·ln(1/δ′), where √(2k ln(1/δ′)) drops below k
    if total <= 1:
        assert 2 * math.log(1 / delta_prime) < k <= 2 * math.log(1 / delta_prime) + 5


def test_advanced_split_crossover_default_is_30_and_none_past_k_max():
    from dp.budget import advanced_split_crossover
    assert advanced_split_crossover(1.0, 1e-6) == 30
    assert advanced_split_crossover(1.0, 1e-6, k_max=29) is None
