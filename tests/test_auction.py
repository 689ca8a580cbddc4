"""dp.auction: the digital-goods auction, selection accuracy, the utility line and the factor 2."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

import dp
from dp import auction

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)
NOTES_BIDS = [1.0, 1.0, 1.0, 3.01]
bids_strategy = st.lists(st.floats(0, 20).map(lambda b: round(b, 2)), min_size=1, max_size=12)


# --- reading the editable tables ------------------------------------------------------------------

def test_read_numbers_accepts_a_clean_column():
    out = auction.read_numbers("Bids", [1, "2.5", 3.01], minimum=0, maximum=10, max_count=5)
    assert out.tolist() == [1.0, 2.5, 3.01]


@pytest.mark.parametrize(("values", "message"), [
    ([1.0, None], "row 2 is empty"),
    ([float("nan")], "row 1 is empty"),
    (["abc"], "row 1 is 'abc', not a number"),
    ([True], "not a number"),
    ([1.0, -5.0], "row 2 is -5; keep every value between 0 and 1e+06"),
    ([1e300], "row 1 is 1e+300"),
    ([float("inf")], "row 1 is inf"),
    ([1.0] * 51, "51 rows is too many; keep at most 50"),
    ([], "add at least 1"),
])
def test_read_numbers_names_the_bad_row(values, message):
    with pytest.raises(ValueError, match="Bids") as error:
        auction.read_numbers("Bids", values, minimum=0, maximum=1e6, max_count=50)
    assert message in str(error.value)


@pytest.mark.parametrize(("values", "message"), [
    (["a", None], "row 2 has no name"),
    (["a", "  "], "row 2 has no name"),
    (["a", "a"], "'a' appears twice"),
    (["x" * 41], "longer than 40"),
    (["a"] * 31, "31 rows is too many"),
])
def test_read_names_rejects_bad_labels(values, message):
    with pytest.raises(ValueError, match=message):
        auction.read_names("Candidates", values, max_count=30)


def test_read_names_strips_spaces():
    assert auction.read_names("Candidates", [" Flu ", "Asthma"], max_count=30) == ["Flu", "Asthma"]


# --- revenue ----------------------------------------------------------------------------------------

def test_revenue_reproduces_the_notes_example():
    # Price 1: all four buy (4). Price 3.01: one buys (3.01). Price 3.02: nobody (0).
    assert auction.revenue(NOTES_BIDS, [1.0, 3.01, 3.02]).tolist() == [4.0, 3.01, 0.0]
    assert auction.buyers(NOTES_BIDS, [0.5, 1.0, 1.01, 3.01, 3.02]).tolist() == [4, 4, 1, 1, 0]


@pytest.mark.parametrize("bad", [[-1.0], [float("nan")], []])
def test_revenue_rejects_bad_bids(bad):
    with pytest.raises(ValueError, match="bids"):
        auction.revenue(bad, [1.0])


def test_revenue_curve_has_the_cliff_above_the_highest_bid():
    x, y = auction.revenue_curve(NOTES_BIDS, 4.0)
    points = {(a, b) for a, b in zip(x, y, strict=True) if not math.isnan(a)}
    assert (1.0, 4.0) in points and (3.01, 3.01) in points and (4.0, 0.0) in points
    assert (1.0, 1.0) in points  # just above 1, only the 3.01 bidder still buys
    assert np.isnan(x).sum() == 2  # one break after each distinct bid's segment


def test_revenue_curve_samples_a_grid_for_many_bids():
    bids = np.random.default_rng(1).uniform(0, 10, 5000)
    x, y = auction.revenue_curve(bids, 10.0, max_segments=100)
    assert x.size == 200 and np.allclose(y, auction.revenue(bids, x))


@SETTINGS
@given(bids_strategy)
def test_revenue_curve_points_lie_on_the_revenue_function(bids):
    # Every drawn segment end (a bid) carries that bid's revenue.
    x, y = auction.revenue_curve(bids, 30.0)
    ends = ~np.isnan(x)
    positive = np.unique([b for b in bids if b > 0])
    for b in positive:
        assert np.any(np.isclose(x[ends], b) & np.isclose(y[ends], auction.revenue(bids, [b])[0]))


def test_price_grid_is_every_cent_or_a_thousand_steps():
    grid = auction.price_grid(5)
    assert grid.size == 500 and grid[0] == 0.01 and grid[-1] == 5.0
    grid = auction.price_grid(100)
    assert grid.size == 1000 and grid[0] == pytest.approx(0.1) and grid[-1] == 100.0
    with pytest.raises(ValueError, match="cap"):
        auction.price_grid(0)


# --- the mechanism ---------------------------------------------------------------------------------

def test_price_probabilities_use_the_highest_price_as_sensitivity():
    prices = auction.price_grid(5)
    p = auction.price_probabilities(NOTES_BIDS, prices, 1.0)
    expected = dp.exponential_probabilities(auction.revenue(NOTES_BIDS, prices), 1.0, 5.0)
    assert np.allclose(p, expected) and p.sum() == pytest.approx(1.0)


def test_expected_revenue_limits():
    prices = np.array([1.0, 3.01])
    low, high = auction.expected_revenue(NOTES_BIDS, prices, [1e-9, 1e4])
    assert low == pytest.approx((4 + 3.01) / 2)  # ε → 0: uniform over the menu
    assert high == pytest.approx(4.0)  # ε → ∞: the best price


@SETTINGS
@given(bids_strategy, st.floats(0.01, 10), st.floats(1.0, 10))
def test_expected_revenue_grows_with_epsilon_and_meets_the_guarantee(bids, epsilon, factor):
    # d E[u]/dβ = Var(u) ≥ 0 for a softmax at inverse temperature β, so E[revenue] is monotone.
    prices = auction.price_grid(10, max_prices=200)
    low, high = auction.expected_revenue(bids, prices, [epsilon, factor * epsilon])
    assert high >= low - 1e-9
    opt = auction.revenue(bids, prices).max()
    # E[OPT − u] ≤ (2Δu/ε)(ln|R| + 1), from integrating the utility theorem's tail.
    assert low >= auction.utility_threshold(opt, epsilon, 10.0, prices.size, 1.0) - 1e-9


@SETTINGS
@given(st.lists(st.integers(-20, 60), min_size=2, max_size=25), st.floats(0.05, 10),
       st.sampled_from([0.5, 1.0, 2.0]), st.floats(0, 6))
def test_utility_theorem_holds_exactly(scores, epsilon, sensitivity, t):
    # Dwork & Roth Thm 3.11: Pr[u ≤ OPT − (2Δu/ε)(ln|R| + t)] ≤ e^−t, checked on the exact probabilities.
    p = dp.exponential_probabilities(scores, epsilon, sensitivity)
    line = auction.utility_threshold(max(scores), epsilon, sensitivity, len(scores), t)
    assert auction.probability_below(scores, p, line) <= math.exp(-t) + 1e-12


def test_utility_threshold_closed_form():
    # The disease table's default: OPT 48, |R| = 6, ε = 1, Δu = 1, t = 1: 48 − 2(ln 6 + 1).
    assert auction.utility_threshold(48, 1.0, 1.0, 6, 1.0) == pytest.approx(48 - 2 * (math.log(6) + 1))
    assert auction.probability_below([3.0, 1.0], [0.7, 0.3], 1.0) == pytest.approx(0.3)


@SETTINGS
@given(bids_strategy, st.floats(0.05, 3), st.data())
def test_no_report_beats_e_to_the_epsilon_times_the_truth(bids, epsilon, data):
    # McSherry & Talwar: with a public menu and Δu ≥ the top price, lying gains at most a factor e^ε.
    bidder = data.draw(st.integers(0, len(bids) - 1))
    grid = auction.price_grid(10, max_prices=200)
    value = bids[bidder]
    reports = np.linspace(0, 25, 51)
    lies = auction.bidder_utilities(bids, bidder, value, reports, grid, epsilon, 10.0)
    truth = auction.bidder_utilities(bids, bidder, value, [value], grid, epsilon, 10.0)[0]
    assert np.all(lies <= math.exp(epsilon) * truth + 1e-12)


def test_truthful_utility_matches_a_direct_sum():
    grid = auction.price_grid(5)
    p = auction.price_probabilities(NOTES_BIDS, grid, 1.0, 5.0)
    direct = np.sum(p * np.maximum(3.01 - grid, 0))
    assert auction.bidder_utilities(NOTES_BIDS, 3, 3.01, [3.01], grid, 1.0, 5.0)[0] == pytest.approx(direct)


# --- most common disease ----------------------------------------------------------------------------

EPSILONS = np.array([0.05, 0.2, 0.5, 1.0, 2.0])


def _laplace_cdf(z: float) -> float:
    return 0.5 * math.exp(z) if z < 0 else 1 - 0.5 * math.exp(-z)


def _exact_tied(gap, k, scale):
    """Pr[g + b·Z₀ > b·max of k − 1 Laplace], by quadrature over Z₀ ~ Lap(1)."""
    shift = gap / scale
    value, _ = integrate.quad(lambda z: 0.5 * math.exp(-abs(z)) * _laplace_cdf(z + shift) ** (k - 1),
                              -60, 60, points=[0.0, -shift], limit=200)
    return value


@pytest.mark.parametrize("k", [2, 10, 300])
def test_top_choice_accuracy_matches_quadrature(k):
    # Each Monte-Carlo point is a mean of 200,000 Bernoulli draws: standard error ≤ 0.5/√200,000
    # ≈ 0.0011, so 6 standard errors (0.0067) fail with probability < 1e-8 per point.
    gap, trials = 3.0, 200_000
    curves = auction.top_choice_accuracy(gap, k, EPSILONS, np.random.default_rng(3), trials)
    for j, epsilon in enumerate(EPSILONS):
        assert abs(curves["noisy_max"][j] - _exact_tied(gap, k, 1 / epsilon)) < 6 * 0.5 / math.sqrt(trials)
        assert abs(curves["laplace_all"][j] - _exact_tied(gap, k, k / epsilon)) < 6 * 0.5 / math.sqrt(trials)
    weight = np.exp(EPSILONS * gap / 2)
    assert np.allclose(curves["exponential"], weight / (weight + k - 1))


def test_two_candidate_noisy_max_matches_its_closed_form():
    # k = 2: Pr[pick the top] = 1 − ½e^{−εd}(1 + εd/2) (the difference of two Laplace variables).
    d, trials = 4.0, 200_000
    curves = auction.top_choice_accuracy(d, 2, EPSILONS, np.random.default_rng(4), trials)
    exact = 1 - 0.5 * np.exp(-EPSILONS * d) * (1 + EPSILONS * d / 2)
    assert np.all(np.abs(curves["noisy_max"] - exact) < 6 * 0.5 / math.sqrt(trials))


@SETTINGS
@given(st.integers(0, 20), st.integers(2, 5000))
def test_accuracy_curves_are_monotone_and_probabilities(gap, k):
    grid = np.geomspace(0.01, 10, 30)
    curves = auction.top_choice_accuracy(gap, k, grid, np.random.default_rng(5), 2000)
    for values in curves.values():
        assert np.all((values >= 0) & (values <= 1))
        assert np.all(np.diff(values) >= -1e-12)  # common random numbers: never decreasing


def test_epsilon_reaching():
    grid = np.array([0.1, 0.5, 1.0])
    assert auction.epsilon_reaching(grid, [0.2, 0.95, 0.99], 0.9) == 0.5
    assert auction.epsilon_reaching(grid, [0.2, 0.5, 0.8], 0.9) is None


# --- the factor two ---------------------------------------------------------------------------------

def test_approval_scores_move_in_opposite_directions():
    d, d_prime = auction.approval_scores(3)
    assert d.tolist() == [11, 10, 10, 10] and d_prime.tolist() == [10, 11, 11, 11]
    assert np.max(np.abs(d - d_prime)) == 1


@pytest.mark.parametrize("m", [1, 5, 20, 200])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_privacy_loss_on_the_approval_pair(m, epsilon):
    # Option A: ratio e^{ε/2}(1 + m·e^{ε/2})/(e^{ε/2} + m), the largest of all outputs.
    d, d_prime = auction.approval_scores(m)
    half = math.exp(epsilon / 2)
    exact = math.log(half * (1 + m * half) / (half + m))
    assert auction.privacy_loss(d, d_prime, epsilon, 1.0) == pytest.approx(exact)
    assert exact <= epsilon
    # The notes' form is ours at 2ε: its loss exceeds ε once m is large enough.
    notes = auction.privacy_loss(d, d_prime, 2 * epsilon, 1.0)
    assert notes <= 2 * epsilon
    if m >= 5 and epsilon >= 1:
        assert notes > epsilon


@SETTINGS
@given(st.lists(st.integers(0, 30), min_size=2, max_size=10), st.data(), st.floats(0.01, 5))
def test_privacy_loss_never_exceeds_epsilon_for_neighbouring_scores(scores, data, epsilon):
    shifts = data.draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=len(scores), max_size=len(scores)))
    neighbour = np.array(scores) + np.array(shifts)
    assert auction.privacy_loss(scores, neighbour, epsilon, 1.0) <= epsilon + 1e-9


def test_audit_catches_the_notes_form_labelled_epsilon():
    # 100,000 samples each way; the notes' form at ε = 1 has true loss ≈ 1.89 at m = 20.
    from ui.audit import certified_epsilon

    d, d_prime = auction.approval_scores(20)
    rng = np.random.default_rng(6)
    notes = certified_epsilon(dp.exponential_mechanism(d, 2.0, 1.0, rng, size=100_000),
                              dp.exponential_mechanism(d_prime, 2.0, 1.0, rng, size=100_000),
                              lambda out: out == 0)
    ours = certified_epsilon(dp.exponential_mechanism(d, 1.0, 1.0, rng, size=100_000),
                             dp.exponential_mechanism(d_prime, 1.0, 1.0, rng, size=100_000),
                             lambda out: out == 0)
    assert notes > 1.0 and ours <= 1.0


def test_exponential_top_epsilon_solves_the_closed_form():
    from dp.auction import exponential_top_epsilon, top_choice_accuracy

    for gap, k in [(1, 2), (5, 100), (50, 10_000)]:
        eps = exponential_top_epsilon(gap, k, 0.9)
        exact = top_choice_accuracy(gap, k, [eps], np.random.default_rng(0), trials=10)["exponential"]
        assert exact[0] == pytest.approx(0.9, rel=1e-12)
    assert exponential_top_epsilon(5, 100, 0.9) == pytest.approx(0.4 * math.log(891))
    assert exponential_top_epsilon(5, 2, 0.4) == 0.0  # already above 40% at ε = 0
