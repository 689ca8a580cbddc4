"""dp.local_sensitivity: the median's local and smooth sensitivity, PTR, and audits of every
mechanism (the broken one is caught; the safe ones stay within their promise).

Audits that assert "ε̂ ≤ ε" use α = 1e-6 (as tests/test_audit.py does), so a change of seed
breaks them with probability ≤ 1e-6. Audits that must catch the broken mechanism use the
same α: the margin is large (ε̂ ≈ 7 against a claim of 1).
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from dp import local_sensitivity as ls
from dp.audit import audit_epsilon
from dp.selection import private_median

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)
LO, HI = 0.0, 100.0
ALPHA = 1e-6
N = 200_000

DATASETS = st.lists(st.integers(0, 20), min_size=1, max_size=15).map(lambda xs: [float(x) for x in xs])


def _neighbour(data, draw):
    i = draw.draw(st.integers(0, len(data) - 1))
    other = list(data)
    other[i] = float(draw.draw(st.integers(0, 20)))
    return other


def _median(values) -> float:
    values = sorted(values)
    return values[(len(values) + 1) // 2 - 1]


def _reference_reach(data, lower, upper) -> np.ndarray:
    """A⁽ᵏ⁾ straight from the NRS formula, one k at a time."""
    n, m = len(data), (len(data) + 1) // 2
    y = np.concatenate(([lower], np.sort(np.clip(data, lower, upper)), [upper]))
    out = []
    for k in range(n + 1):
        t = np.arange(k + 2)
        out.append(np.max(y[np.minimum(m + t, n + 1)] - y[np.maximum(m + t - k - 1, 0)]))
    return np.array(out)


def _certified(sample_d, sample_d_prime, event, alpha=ALPHA) -> float:
    """ε̂ from S (D against D′) and from its complement (D′ against D), as ui.audit does."""
    return max(audit_epsilon(sample_d, sample_d_prime, event, alpha=alpha / 2),
               audit_epsilon(sample_d_prime, sample_d, lambda y: ~np.asarray(event(y)), alpha=alpha / 2))


def _near(centre, radius):
    return lambda y: np.abs(np.asarray(y) - centre) <= radius


# --- Closed forms on the page's data --------------------------------------------------------

def test_example_datasets():
    expected = {"spread": (58, 52, 66, 8), "bunched": (60, 60, 60, 0), "camps": (27, 24, 81, 54)}
    for name, (median, low, high, local) in expected.items():
        data = ls.EXAMPLE_SCORES[name]
        assert len(data) == 11
        assert ls.clipped_median(data, LO, HI) == median
        assert ls.reachable_medians(data, LO, HI) == (low, high)
        assert ls.median_local_sensitivity(data, LO, HI) == local


@pytest.mark.parametrize("spread", [0, 0.5, 1, 5, 20])
def test_trap_pair_has_equal_medians_and_wildly_different_local_sensitivity(spread):
    d, d_prime = ls.trap_pair(spread)
    assert np.count_nonzero(d != d_prime) == 1  # replace-one neighbours
    assert ls.clipped_median(d, LO, HI) == ls.clipped_median(d_prime, LO, HI) == 60
    assert ls.median_local_sensitivity(d, LO, HI) == spread
    assert ls.median_local_sensitivity(d_prime, LO, HI) == 28
    with pytest.raises(ValueError, match="spread"):
        ls.trap_pair(21)


def test_even_n_uses_the_lower_middle_value():
    assert ls.clipped_median([4, 1, 3, 2], LO, HI) == 2
    assert ls.clipped_median([-5, 200, 7], LO, HI) == 7  # clipped first
    assert ls.clipped_median([-5, -6, 7], LO, HI) == 0


def test_synthetic_scores_are_seeded_and_in_range():
    a = ls.synthetic_scores(1001, np.random.default_rng(1))
    assert np.array_equal(a, ls.synthetic_scores(1001, np.random.default_rng(1)))
    assert a.min() >= 0 and a.max() <= 100
    assert abs(np.median(a) - 62) < 2  # Normal(62, 14): sd of the sample median ≈ 1.25·14/√1001 ≈ 0.55


# --- Local sensitivity against brute force --------------------------------------------------

@SETTINGS
@given(DATASETS)
def test_local_sensitivity_is_the_largest_move_over_all_neighbours(data):
    # Every replacement value that matters is a data point or an end of [0, 20].
    candidates = sorted(set(data) | {0.0, 20.0})
    median = _median(data)
    moves = [abs(_median(data[:i] + [v] + data[i + 1:]) - median)
             for i in range(len(data)) for v in candidates]
    assert ls.median_local_sensitivity(data, 0, 20) == max(moves)
    low, high = ls.reachable_medians(data, 0, 20)
    reached = [_median(data[:i] + [v] + data[i + 1:]) for i in range(len(data)) for v in candidates]
    assert (low, high) == (min(reached), max(reached))


@SETTINGS
@given(DATASETS, st.data())
def test_median_after_replacing_matches_recomputing(data, draw):
    i = draw.draw(st.integers(0, len(data) - 1))
    values = np.linspace(-2, 22, 49)
    expected = [_median(data[:i] + [min(max(v, 0), 20)] + data[i + 1:]) for v in values]
    assert np.array_equal(ls.median_after_replacing(data, i, values, 0, 20), expected)


@SETTINGS
@given(DATASETS)
def test_sensitivity_at_distance_matches_the_formula_one_k_at_a_time(data):
    reach = ls.median_sensitivity_at_distance(data, 0, 20)
    assert np.array_equal(reach, _reference_reach(data, 0, 20))
    assert reach[0] == ls.median_local_sensitivity(data, 0, 20)
    assert reach[-1] == 20 and np.all(np.diff(reach) >= 0)
    assert np.array_equal(ls.median_sensitivity_at_distance(data, 0, 20, 2), reach[:3])


@pytest.mark.parametrize("n", [4, 5])
def test_sensitivity_at_distance_is_the_largest_local_sensitivity_within_k_changes(n):
    # Brute force over every dataset at most k changes away, values in {0, …, 4}.
    rng = np.random.default_rng(n)
    domain = range(5)
    for _ in range(12):
        data = [float(v) for v in rng.integers(0, 5, n)]
        reach = ls.median_sensitivity_at_distance(data, 0, 4)
        for k in (1, 2):
            best = 0.0
            for people in itertools.combinations(range(n), k):
                for values in itertools.product(domain, repeat=k):
                    other = list(data)
                    for person, value in zip(people, values, strict=True):
                        other[person] = float(value)
                    best = max(best, ls.median_local_sensitivity(other, 0, 4))
            assert reach[k] == best, (data, k)


# --- Smooth sensitivity and distance to instability -----------------------------------------

@SETTINGS
@given(DATASETS, st.data(), st.sampled_from([0.01, 0.1, 0.5, 2.0]))
def test_smooth_sensitivity_is_a_beta_smooth_upper_bound(data, draw, beta):
    other = _neighbour(data, draw)
    s, s_other = (ls.median_smooth_sensitivity(x, 0, 20, beta) for x in (data, other))
    assert ls.median_local_sensitivity(data, 0, 20) <= s
    assert s_other <= math.exp(beta) * s * (1 + 1e-12)


def test_smooth_sensitivity_closed_form_and_vectorised_beta():
    data = ls.EXAMPLE_SCORES["bunched"]  # A = 0, 28, 30, 36, 40, 60, 60, 88, 90, 93, 97, 100
    reach = ls.median_sensitivity_at_distance(data, LO, HI)
    assert reach[:5].tolist() == [0, 28, 30, 36, 40]
    beta = 0.5
    expected = max(math.exp(-k * beta) * a for k, a in enumerate(reach))
    assert ls.median_smooth_sensitivity(data, LO, HI, beta) == pytest.approx(expected)
    assert expected == pytest.approx(28 * math.exp(-0.5))  # k = 1 wins here
    both = ls.median_smooth_sensitivity(data, LO, HI, np.array([beta, 1e-9]))
    assert both[0] == pytest.approx(expected) and both[1] == pytest.approx(100, rel=1e-6)


@SETTINGS
@given(DATASETS, st.data(), st.sampled_from([0.0, 0.5, 1.0, 3.0, 7.0]))
def test_distance_to_instability_has_sensitivity_one(data, draw, bound):
    other = _neighbour(data, draw)
    d, d_other = (ls.distance_to_instability(x, 0, 20, bound) for x in (data, other))
    assert abs(d - d_other) <= 1
    assert (d == 0) == (ls.median_local_sensitivity(data, 0, 20) > bound)


def test_distance_to_instability_edges():
    data = ls.EXAMPLE_SCORES["bunched"]
    assert ls.distance_to_instability(data, LO, HI, 0) == 1  # LS = 0 is not > 0; one change gives 28
    assert ls.distance_to_instability(data, LO, HI, 29) == 2
    assert ls.distance_to_instability(data, LO, HI, 100) == math.inf


# --- The smooth-sensitivity mechanism: the ε-DP proof, checked numerically ------------------

def _cauchy_log_density(y, centre, scale):
    return -np.log(np.pi * scale * (1 + ((y - centre) / scale) ** 2))


@SETTINGS
@given(DATASETS, st.data(), st.sampled_from([0.1, 0.5, 1.0, 3.0]))
def test_smooth_cauchy_density_ratio_is_at_most_epsilon(data, draw, epsilon):
    # The unclipped output densities of neighbours never differ by more than e^ε anywhere.
    other = _neighbour(data, draw)
    y = np.concatenate((np.linspace(-200, 220, 20_001), [_median(data), _median(other)]))
    log_p, log_q = (_cauchy_log_density(y, _median(x), ls.smooth_cauchy_scale(x, 0, 20, epsilon))
                    for x in (data, other))
    assert np.max(np.abs(log_p - log_q)) <= epsilon * (1 + 1e-9)


# --- PTR --------------------------------------------------------------------------------------

def test_ptr_pass_probability_closed_forms():
    epsilon, delta = 1.0, 1e-6
    threshold = ls.ptr_threshold(epsilon, delta)
    assert threshold == pytest.approx(2 * math.log(1e6))
    assert ls.ptr_pass_probability(0, epsilon, delta) == pytest.approx(delta / 2)
    assert ls.ptr_pass_probability(threshold, epsilon, delta) == pytest.approx(0.5)
    assert ls.ptr_pass_probability(math.inf, epsilon, delta) == 1.0
    d = np.arange(0, 60)
    probabilities = ls.ptr_pass_probability(d, epsilon, delta)
    assert np.all(np.diff(probabilities) > 0)
    # Neighbours' distances differ by ≤ 1, so answering is at most e^(ε/2) times likelier
    ratio = np.maximum(probabilities[1:] / probabilities[:-1], (1 - probabilities[:-1]) / (1 - probabilities[1:]))
    assert np.max(ratio) <= math.exp(epsilon / 2) * (1 + 1e-8)  # 1 − p loses digits near p = 1


def test_ptr_answers_as_often_as_promised():
    rng = np.random.default_rng(11)
    data = ls.synthetic_scores(1001, rng)
    for epsilon in (0.5, 1.0):
        outputs = ls.ptr_median(data, LO, HI, epsilon, 1e-6, 1.0, rng, size=N)
        p = ls.ptr_pass_probability(ls.distance_to_instability(data, LO, HI, 1.0), epsilon, 1e-6)
        answered = int(np.count_nonzero(~np.isnan(outputs)))
        low, high = binom.ppf([1e-7, 1 - 1e-7], N, p)  # a 2-in-10-million band
        assert low <= answered <= high
        released = outputs[~np.isnan(outputs)]
        assert np.all((released >= LO) & (released <= HI))


def test_ptr_never_answers_on_a_small_fragile_dataset():
    # n = 11: 6 changes move the median anywhere, so d ≤ 6 against a threshold of 27.6.
    data = ls.EXAMPLE_SCORES["spread"]
    assert ls.distance_to_instability(data, LO, HI, 5) <= 6
    outputs = ls.ptr_median(data, LO, HI, 1.0, 1e-6, 5, np.random.default_rng(0), size=N)
    assert np.count_nonzero(~np.isnan(outputs)) <= 10  # expected N·½e^(−10.8) ≈ 2


# --- Accuracy ---------------------------------------------------------------------------------

def test_typical_clipped_error_closed_forms_and_monte_carlo():
    # Far from the ends, the median |noise| is b·ln 2 (Laplace) and the scale (Cauchy).
    assert ls.typical_clipped_error(50, LO, HI, [1.0, 2.0], "laplace") == pytest.approx(
        [math.log(2), 2 * math.log(2)], rel=1e-9)
    assert ls.typical_clipped_error(50, LO, HI, [3.0], "cauchy") == pytest.approx([3.0], rel=1e-9)
    assert ls.typical_clipped_error(50, LO, HI, [0.0], "cauchy") == [0.0]
    mixed = ls.typical_clipped_error(50, LO, HI, [[2.0, 3.0], [2.0, 3.0]], [["laplace"], ["cauchy"]])
    assert np.allclose(mixed, [[2 * math.log(2), 3 * math.log(2)], [2.0, 3.0]], rtol=1e-9, atol=0)
    # Near an end, clipping caps the error: compare with samples (the sample median of 10⁶
    # draws has sd ≈ 1/(2f√N) ≈ 10⁻³ here; 0.02 is many sd).
    rng = np.random.default_rng(3)
    for noise, draws in (("laplace", rng.laplace(size=10**6)), ("cauchy", rng.standard_cauchy(10**6))):
        sampled = np.median(np.abs(np.clip(90 + 20 * draws, LO, HI) - 90))
        assert ls.typical_clipped_error(90, LO, HI, [20.0], noise)[0] == pytest.approx(sampled, abs=0.02 * 20)


def test_exponential_typical_error_matches_private_median():
    rng = np.random.default_rng(4)
    for data in (ls.EXAMPLE_SCORES["spread"], ls.synthetic_scores(301, rng)):
        epsilons = np.array([0.1, 1.0, 5.0])
        exact = ls.exponential_typical_error(data, LO, HI, epsilons)
        median = ls.clipped_median(data, LO, HI)
        for epsilon, value in zip(epsilons, exact, strict=True):
            errors = np.abs(private_median(data, LO, HI, epsilon, rng, size=100_000) - median)
            # Pr[error ≤ exact] = ½; the empirical share of 10⁵ draws has sd 0.0016: allow 6 sd.
            assert np.mean(errors <= value) == pytest.approx(0.5, abs=0.01)


def test_accuracy_sweep_orders_the_mechanisms_sensibly():
    data = ls.synthetic_scores(1001, np.random.default_rng(2014))
    epsilons = np.geomspace(0.01, 10, 13)
    sweep = ls.accuracy_sweep(data, LO, HI, epsilons, 1e-6, 2.0)
    assert set(sweep) == {*ls.MECHANISMS, "ptr_answers"}
    assert all(v.shape == epsilons.shape for v in sweep.values())
    assert np.all(np.diff(sweep["ptr_answers"]) >= 0)
    assert np.all(sweep["global"] >= sweep["exponential"])  # the range-wide Laplace never wins
    assert np.all(sweep["local"] <= sweep["smooth"])  # smooth pays for its privacy
    one = np.argmin(np.abs(epsilons - 1))
    assert sweep["exponential"][one] < sweep["smooth"][one] < sweep["ptr"][one]


# --- Audits: the broken mechanism is caught, the safe ones are not --------------------------

def _event_radius(spread, epsilon):
    """The page's event: within 8 noise scales of D's Laplace noise of 60, at most 35."""
    return min(8 * spread / epsilon, 35.0)


@pytest.mark.parametrize(("spread", "epsilon"), [(0, 1.0), (1, 1.0), (5, 1.0), (10, 1.0), (1, 3.0)])
def test_audit_catches_noise_proportional_to_local_sensitivity(spread, epsilon):
    rng = np.random.default_rng(100 + spread)
    d, d_prime = ls.trap_pair(spread)
    outputs = [ls.local_sensitivity_median(x, LO, HI, epsilon, rng, size=N) for x in (d, d_prime)]
    certified = _certified(*outputs, _near(60, _event_radius(spread, epsilon)))
    assert certified > epsilon + 1, certified


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("spread", [0, 1, 5])
def test_audit_passes_the_smooth_sensitivity_median(spread, epsilon):
    rng = np.random.default_rng(200 + spread)
    d, d_prime = ls.trap_pair(spread)
    outputs = [ls.smooth_sensitivity_median(x, LO, HI, epsilon, rng, size=N) for x in (d, d_prime)]
    for radius in (_event_radius(spread, epsilon), 1.0, 5.0, 20.0):
        assert _certified(*outputs, _near(60, radius)) <= epsilon


def _fragile_pair():
    """Neighbours whose PTR distances (bound 1) are 10 and 9, either side of the threshold
    ln(1/δ)/(ε/2) ≈ 9.2 of the parametrised (ε, δ): answering is as different as it can be.

    D: ten 0s, twenty-one 50s, ten 100s (n = 41, median 50 at position 21): ten changes
    reach a 0 next to the median. D′ turns one 50 into a 0, so nine changes are enough.
    """
    data = np.array([50.0] * 21 + [0.0] * 10 + [100.0] * 10)
    other = data.copy()
    other[0] = 0.0
    distances = [ls.distance_to_instability(x, LO, HI, 1.0) for x in (data, other)]
    assert distances == [10.0, 9.0]
    return data, other


@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 0.01), (2.0, 1e-4)])
def test_audit_passes_ptr(epsilon, delta):
    rng = np.random.default_rng(300)
    d, d_prime = _fragile_pair()
    assert ls.ptr_threshold(epsilon, delta) == pytest.approx(2 * math.log(100))
    outputs = [ls.ptr_median(x, LO, HI, epsilon, delta, 1.0, rng, size=N) for x in (d, d_prime)]
    answered = [np.mean(~np.isnan(o)) for o in outputs]
    assert 0.05 < min(answered) and max(answered) < 0.95  # the test itself is being exercised
    for event in (lambda y: np.isnan(y), _near(50, 0.5), _near(50, 2.0)):
        # PTR is (ε, δ)-DP: subtract δ as the audit allows.
        for a, b in (outputs, outputs[::-1]):
            assert audit_epsilon(a, b, event, alpha=ALPHA, delta=delta) <= epsilon


def test_audit_catches_ptr_without_noise_in_its_test():
    # The same PTR with a noiseless test answers on D and refuses on D′: not DP at all.
    d, d_prime = _fragile_pair()
    threshold = 9.5
    rng = np.random.default_rng(301)

    def broken(x):
        passed = ls.distance_to_instability(x, LO, HI, 1.0) > threshold
        return (ls.clipped_median(x, LO, HI) + rng.laplace(0, 2.0, N)) if passed else np.full(N, np.nan)

    assert audit_epsilon(broken(d_prime), broken(d), lambda y: np.isnan(y), alpha=ALPHA) > 5


@pytest.mark.parametrize("spread", [0, 1])
def test_audit_passes_the_exponential_mechanism_on_the_trap_pair(spread):
    rng = np.random.default_rng(400)
    d, d_prime = ls.trap_pair(spread)
    outputs = [private_median(x, LO, HI, 1.0, rng, size=N) for x in (d, d_prime)]
    for radius in (_event_radius(spread, 1.0), 2.0, 10.0):
        assert _certified(*outputs, _near(60, radius)) <= 1.0


# --- Bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("call", "match"), [
    (lambda: ls.clipped_median([], LO, HI), "data"),
    (lambda: ls.clipped_median([1.0], 5, 5), "lower"),
    (lambda: ls.median_after_replacing([1.0, 2.0], 2, [3.0], LO, HI), "index"),
    (lambda: ls.median_smooth_sensitivity([1.0], LO, HI, 0), "beta"),
    (lambda: ls.distance_to_instability([1.0], LO, HI, -1), "bound"),
    (lambda: ls.local_sensitivity_median([1.0], LO, HI, 0, np.random.default_rng(0)), "epsilon"),
    (lambda: ls.ptr_median([1.0], LO, HI, 1.0, 1.0, 1.0, np.random.default_rng(0)), "delta"),
    (lambda: ls.ptr_median([1.0], LO, HI, 1.0, 1e-6, 0, np.random.default_rng(0)), "bound"),
    (lambda: ls.smooth_sensitivity_median([1.0], LO, HI, 1.0, 42), "rng"),
    (lambda: ls.ptr_pass_probability(-1, 1.0, 1e-6), "distance"),
    (lambda: ls.typical_clipped_error(50, LO, HI, [1.0], "gauss"), "noise"),
    (lambda: ls.typical_clipped_error(150, LO, HI, [1.0], "cauchy"), "median"),
    (lambda: ls.accuracy_sweep([1.0], LO, HI, [0.0], 1e-6, 1.0), "epsilons"),
    (lambda: ls.synthetic_scores(0, np.random.default_rng(0)), "n"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- best_single_guess: what one release of the trap gives away ------------------------------


def _best_guess_by_integration(centre, a, b, lower, upper, points=400_001):
    """½(1 + TV) by brute force: the two clipped Laplace laws on a fine grid plus their atoms."""
    y = np.linspace(lower, upper, points)
    step = y[1] - y[0]
    density = [np.exp(-np.abs(y - centre) / s) / (2 * s) for s in (a, b)]
    gap = np.abs(density[0] - density[1])
    continuous = step * (gap.sum() - (gap[0] + gap[-1]) / 2)  # trapezoid rule
    atoms = sum(abs(0.5 * math.exp(-dist / a) - 0.5 * math.exp(-dist / b))
                for dist in (centre - lower, upper - centre))
    return 0.5 * (1 + 0.5 * (continuous + atoms))


@pytest.mark.parametrize("spread, epsilon", itertools.product([0.5, 1, 2, 5, 10], [0.1, 0.2, 0.5, 1, 2, 3]))
def test_best_single_guess_matches_integration_on_the_trap_pair(spread, epsilon):
    a, b = spread / epsilon, 28 / epsilon
    expected = _best_guess_by_integration(60, a, b, 0, 100)
    assert ls.best_single_guess(60, a, b, 0, 100) == pytest.approx(expected, abs=2e-5)
    assert ls.best_single_guess(60, b, a, 0, 100) == ls.best_single_guess(60, a, b, 0, 100)


def test_best_single_guess_known_values_and_limits():
    # The audit of issue 13: 93% at s = 1, 68% at s = 10 (ε = 1), 61% at s = 10, ε = 0.1.
    assert ls.best_single_guess(60, 1, 28, 0, 100) == pytest.approx(0.9262, abs=1e-4)
    assert ls.best_single_guess(60, 10, 28, 0, 100) == pytest.approx(0.6814, abs=1e-4)
    assert ls.best_single_guess(60, 100, 280, 0, 100) == pytest.approx(0.6137, abs=1e-4)
    # no clipping in reach: ½(1 + e^(−t/b) − e^(−t/a)) with t = ab·ln(b/a)/(b − a)
    t = 2 * 5 * math.log(2.5) / 3
    assert ls.best_single_guess(0, 2, 5, -1e6, 1e6) == pytest.approx(
        0.5 * (1 + math.exp(-t / 5) - math.exp(-t / 2)), rel=1e-12)
    assert ls.best_single_guess(60, 7, 7, 0, 100) == 0.5
    assert ls.best_single_guess(60, 0, 28, 0, 100) == 1.0


def test_best_single_guess_rejects_a_centre_outside_the_range():
    with pytest.raises(ValueError, match="centre"):
        ls.best_single_guess(100, 1, 2, 0, 100)
    with pytest.raises(ValueError, match="scale"):
        ls.best_single_guess(50, -1, 2, 0, 100)


@pytest.mark.parametrize("spread, epsilon", itertools.product([0.5, 1, 2, 5, 10], [0.1, 0.2, 0.5, 1, 2, 3]))
def test_clipped_laplace_max_loss_matches_a_grid_and_the_atoms(spread, epsilon):
    a, b = spread / epsilon, 28 / epsilon
    y = np.linspace(0, 100, 200_001)
    interior = np.abs(np.log((np.exp(-np.abs(y - 60) / a) / a) / (np.exp(-np.abs(y - 60) / b) / b)))
    atoms = [abs(math.log(math.exp(-dist / a) / math.exp(-dist / b))) for dist in (60, 40)]
    assert ls.clipped_laplace_max_loss(60, a, b, 0, 100) == pytest.approx(
        max(interior.max(), *atoms), rel=1e-9)


def test_clipped_laplace_max_loss_limits():
    assert ls.clipped_laplace_max_loss(60, 0, 28, 0, 100) == math.inf
    assert ls.clipped_laplace_max_loss(60, 3, 3, 0, 100) == 0.0
    assert ls.clipped_laplace_max_loss(60, 1, 28, 0, 100) == pytest.approx(60 * (1 - 1 / 28))


def test_clipped_laplace_lowest_loss_is_the_far_atom():
    """Against the loss computed from the two clipped distributions on a grid: the atoms at
    both ends (½e^(−D/b)) and the densities in between; the lowest is the atom at 0."""
    from dp.local_sensitivity import clipped_laplace_lowest_loss

    a, b, centre = 1.0, 28.0, 60.0
    y = np.linspace(0, 100, 2001)
    inside = (np.log(np.exp(-np.abs(y - centre) / a) / (2 * a))
              - np.log(np.exp(-np.abs(y - centre) / b) / (2 * b)))
    atoms = [(-d / a) - (-d / b) for d in (centre - 0, 100 - centre)]  # ln ½e^(−d/a) − ln ½e^(−d/b)
    lowest = clipped_laplace_lowest_loss(centre, a, b, 0, 100)
    assert lowest == pytest.approx(min(*atoms, inside.min()), rel=1e-12)
    assert lowest == pytest.approx(-57.857, abs=1e-3)  # the page's defaults: s = 1, ε = 1
    for bad in ((centre, b, a, 0, 100), (0.0, a, b, 0, 100), (centre, 0.0, b, 0, 100)):
        with pytest.raises(ValueError):
            clipped_laplace_lowest_loss(*bad)
