"""dp.audit: empirical privacy audits of every mechanism, and the audit's own guarantees.

Each audit samples M(D) and M(D′) N times with a fixed seed and checks

    true ln-ratio − tolerance ≤ ε̂ ≤ true ln-ratio ≤ claimed ε.

The upper inequality is the audit's promise: it fails with probability ≤ α. The audits
that assert it use α = 1e-6, so a change of seed breaks them with probability ≤ 1e-6.
The lower one is about power; `shortfall` below derives how far under the truth ε̂ lands.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, norm

from dp.audit import audit_epsilon, clopper_pearson_lower, clopper_pearson_upper
from dp.noise import gaussian_mechanism, gaussian_sigma, laplace_mechanism
from dp.randomized_response import randomized_response
from dp.selection import exponential_probabilities

SETTINGS = settings(derandomize=True, max_examples=40, deadline=None)
ALPHA = 1e-6  # for the "ε̂ ≤ ε" assertions: a flake needs a 1-in-a-million seed
N = 1_000_000
NOT_OPEN_UNIT = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(math.nan))
NOT_DELTA = st.one_of(
    st.floats(max_value=0.0, exclude_max=True), st.floats(min_value=1.0), st.just(math.nan)
)


def shortfall(p, p_prime, n, alpha=ALPHA):
    """How far below ln(p/p′) the audit's ε̂ can land, with n samples on each side.

    The relative standard errors of p̂ and p̂′ are s = √((1 − p)/(n·p)) and
    s′ = √((1 − p′)/(n·p′)). To first order (delta method) the Clopper–Pearson bounds at
    level α/2 sit z·s below and z·s′ above, z = Φ⁻¹(1 − α/2), so ε̂ ≈ ln(p/p′) − z(s + s′),
    and it fluctuates around that with sd √(s² + s′²). We allow 6 such sd on top
    (probability < 1e-9 of falling further).
    """
    s = math.sqrt((1 - p) / (n * p))
    s_prime = math.sqrt((1 - p_prime) / (n * p_prime))
    return norm.ppf(1 - alpha / 2) * (s + s_prime) + 6 * math.hypot(s, s_prime)


def at_least(threshold):
    """The event S = {y ≥ t}, fixed before sampling."""
    return lambda outputs: outputs >= threshold


# --- Laplace -----------------------------------------------------------------------------


def test_laplace_on_a_count_passes_and_is_nearly_tight():
    # A count with Patrick, f(D) = 1, and without him, f(D′) = 0; Δ = 1, ε = 1, b = 1.
    # For S = {y ≥ 1}: Pr[M(D) ∈ S] = ½ and Pr[M(D′) ∈ S] = ½e^−1, ratio exactly e^ε
    # (every y ≥ 1 has density ratio e^ε). At N = 10^6 the shortfall is ≈ 0.03, so
    # ε̂ ∈ [0.97, 1]. Measured: 0.988 (0.997 at α = 0.05).
    epsilon = 1.0
    rng = np.random.default_rng(2024)
    with_patrick = laplace_mechanism(np.ones(N), 1.0, epsilon, rng)
    without = laplace_mechanism(np.zeros(N), 1.0, epsilon, rng)
    bound = audit_epsilon(with_patrick, without, at_least(1.0), alpha=ALPHA)
    assert epsilon - shortfall(0.5, 0.5 / math.e, N) <= bound <= epsilon
    assert bound >= 0.8 * epsilon


def test_broken_laplace_is_caught():
    # A bug: the count's sensitivity is taken as ½, so b = Δ/(2ε) and the mechanism is only
    # 2ε-DP. For S = {y ≥ 1} the ratio is (½)/(½e^−2) = e^2ε. At N = 10^5 the shortfall is
    # ≈ 0.15, so ε̂ ≥ 1.85 > ε = 1 = the claim. Measured: 1.95 (1.99 at α = 0.05).
    epsilon = 1.0
    rng = np.random.default_rng(7)
    n = 100_000
    with_patrick = laplace_mechanism(np.ones(n), 0.5, epsilon, rng)
    without = laplace_mechanism(np.zeros(n), 0.5, epsilon, rng)
    bound = audit_epsilon(with_patrick, without, at_least(1.0), alpha=ALPHA)
    assert 2 * epsilon - shortfall(0.5, 0.5 * math.exp(-2), n) <= bound <= 2 * epsilon
    assert bound > epsilon


# --- randomized response -----------------------------------------------------------------


def test_randomized_response_passes_and_is_nearly_tight():
    # One person, bit 1 (D) versus bit 0 (D′); S = {reported 1}. Pr = e^ε/(1+e^ε) versus
    # 1/(1+e^ε): the ratio is exactly e^ε. Shortfall at N = 10^6 ≈ 0.022.
    # Measured: 0.989 (0.996 at α = 0.05).
    epsilon = 1.0
    rng = np.random.default_rng(99)
    reports_one = randomized_response(np.ones(N, dtype=int), epsilon, rng)
    reports_zero = randomized_response(np.zeros(N, dtype=int), epsilon, rng)
    bound = audit_epsilon(reports_one, reports_zero, lambda r: r == 1, alpha=ALPHA)
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    assert epsilon - shortfall(keep, 1 - keep, N) <= bound <= epsilon
    assert bound >= 0.8 * epsilon


def test_the_audit_is_wrong_at_most_alpha_of_the_time():
    # The audit's own promise, at the default α = 0.05: run 500 independent audits of
    # randomized response (ε = 1, 1,000 samples a side) and count those with ε̂ > ε. Each
    # does so with probability q ≤ α, so the count is at most Binomial(500, 0.05), whose
    # 1 − 10^−9 quantile (59) we use as the limit. Measured: 1 of 500 (the Clopper–Pearson
    # bounds and the Bonferroni split are conservative).
    epsilon, trials, n, alpha = 1.0, 500, 1000, 0.05
    rng = np.random.default_rng(31337)
    ones = randomized_response(np.ones((trials, n), dtype=int), epsilon, rng)
    zeros = randomized_response(np.zeros((trials, n), dtype=int), epsilon, rng)
    bounds = [
        audit_epsilon(a, b, lambda r: r == 1, alpha=alpha) for a, b in zip(ones, zeros, strict=True)
    ]
    violations = sum(bound > epsilon for bound in bounds)
    assert violations <= binom.ppf(1 - 1e-9, trials, alpha)


# --- exponential mechanism ---------------------------------------------------------------


def _exponential_samples(scores, epsilon, rng, sensitivity=1.0):
    # Exactly what dp.selection.exponential_mechanism does, N times at once.
    p = exponential_probabilities(scores, epsilon, sensitivity)
    return rng.choice(len(p), size=N, p=p)


def _worst_case_loss(epsilon, m):
    """Pr[0 | u]/Pr[0 | u′] for u = (1, 0, …, 0), u′ = (0, 1, …, 1), m candidates, Δu = 1.

    = e^(ε/2) · (1 + (m − 1)e^(ε/2))/(e^(ε/2) + m − 1): the numerator moves by e^(ε/2) and
    the normaliser by up to e^(ε/2), so the ln-ratio is < ε and tends to ε as m → ∞.
    """
    h = math.exp(epsilon / 2)
    return epsilon / 2 + math.log((1 + (m - 1) * h) / (h + m - 1))


def test_exponential_mechanism_two_candidates_loses_only_half_epsilon():
    # u = (1, 0) versus u′ = (0, 1), Δu = 1 (each score moves by 1). Both normalisers are
    # e^(ε/2) + 1, so Pr[0 | u]/Pr[0 | u′] = e^(ε/2): this pair only loses ε/2 = 0.5, for
    # any event (there are only two outcomes). Shortfall ≈ 0.019.
    # Measured: 0.489 (0.496 at α = 0.05).
    epsilon = 1.0
    rng = np.random.default_rng(11)
    picks = _exponential_samples([1.0, 0.0], epsilon, rng)
    picks_prime = _exponential_samples([0.0, 1.0], epsilon, rng)
    bound = audit_epsilon(picks, picks_prime, lambda r: r == 0, alpha=ALPHA)
    true_loss = epsilon / 2
    p = math.exp(epsilon / 2) / (math.exp(epsilon / 2) + 1)
    assert true_loss - shortfall(p, 1 - p, N) <= bound <= true_loss <= epsilon


def test_exponential_mechanism_worst_case_pair():
    # m = 20 candidates: u = (1, 0, …, 0), u′ = (0, 1, …, 1), S = {candidate 0}.
    # True loss = 0.5 + ln(32.33/20.65) = 0.948 < ε = 1. Pr[S] = 0.080 versus 0.031, so the
    # shortfall is ≈ 0.083. Measured: 0.900 (0.926 at α = 0.05).
    epsilon, m = 1.0, 20
    rng = np.random.default_rng(12)
    u = np.r_[1.0, np.zeros(m - 1)]
    u_prime = 1 - u
    picks = _exponential_samples(u, epsilon, rng)
    picks_prime = _exponential_samples(u_prime, epsilon, rng)
    bound = audit_epsilon(picks, picks_prime, lambda r: r == 0, alpha=ALPHA)
    true_loss = _worst_case_loss(epsilon, m)
    assert true_loss == pytest.approx(0.9482, abs=1e-4)
    p = exponential_probabilities(u, epsilon, 1.0)[0]
    p_prime = exponential_probabilities(u_prime, epsilon, 1.0)[0]
    assert math.log(p / p_prime) == pytest.approx(true_loss, rel=1e-12)
    assert true_loss - shortfall(p, p_prime, N) <= bound <= true_loss <= epsilon


def test_exponential_mechanism_without_the_two_is_caught():
    # The lecture notes' exp(ε·u/Δu) is our formula at 2ε. Claimed as ε = 1, on the same
    # worst-case pair it loses _worst_case_loss(2, 20) = 1.886 > 1 (shortfall ≈ 0.094). Measured: 1.83
    # (1.86 at α = 0.05).
    epsilon, m = 1.0, 20
    rng = np.random.default_rng(13)
    u = np.r_[1.0, np.zeros(m - 1)]
    picks = _exponential_samples(u, 2 * epsilon, rng)
    picks_prime = _exponential_samples(1 - u, 2 * epsilon, rng)
    bound = audit_epsilon(picks, picks_prime, lambda r: r == 0, alpha=ALPHA)
    assert bound > epsilon
    assert bound <= _worst_case_loss(2 * epsilon, m)


# --- Gaussian: an (ε, δ) audit -----------------------------------------------------------


def test_gaussian_mechanism_passes_with_delta():
    # N(0, σ²) with the analytic σ for (ε, δ) = (1, 1e-5), Δ = 1: σ ≈ 3.7. For S = {y ≥ t}
    # the audit can certify at most ln((p − δ)/p′), p = Φ̄((t − 1)/σ), p′ = Φ̄(t/σ), which is
    # well below ε: threshold events see only part of the Gaussian's privacy loss. We fix
    # t = 1 + 2σ in advance (ln-ratio 0.668; shortfall ≈ 0.145). Measured: 0.590
    # (0.637 at α = 0.05).
    epsilon, delta = 1.0, 1e-5
    sigma = gaussian_sigma(1.0, epsilon, delta)
    t = 1 + 2 * sigma
    p, p_prime = norm.sf((t - 1) / sigma), norm.sf(t / sigma)
    best = math.log((p - delta) / p_prime)
    rng = np.random.default_rng(5)
    with_patrick = gaussian_mechanism(np.ones(N), 1.0, epsilon, delta, rng)
    without = gaussian_mechanism(np.zeros(N), 1.0, epsilon, delta, rng)
    bound = audit_epsilon(with_patrick, without, at_least(t), alpha=ALPHA, delta=delta)
    assert best - shortfall(p, p_prime, N) <= bound <= best < epsilon


# --- closed forms and edge cases -------------------------------------------------------


def test_all_versus_none_closed_form():
    # 100 of 100 in S versus 0 of 100: the Clopper–Pearson bounds are (α/2)^(1/n) and
    # 1 − (α/2)^(1/n), so ε̂ = ln(0.9638/0.0362) = 3.28 at α = 0.05.
    n, alpha = 100, 0.05
    low = (alpha / 2) ** (1 / n)
    bound = audit_epsilon(np.ones(n), np.zeros(n), lambda y: y == 1, alpha=alpha)
    assert bound == pytest.approx(math.log(low / (1 - low)), rel=1e-9)
    assert bound == pytest.approx(3.281, abs=1e-3)
    assert clopper_pearson_lower(n, n, alpha / 2) == pytest.approx(low, rel=1e-12)
    assert clopper_pearson_upper(0, n, alpha / 2) == pytest.approx(1 - low, rel=1e-12)


def test_no_evidence_gives_zero():
    assert audit_epsilon(np.zeros(50), np.ones(50), lambda y: y == 1) == 0.0  # never in S under D
    assert audit_epsilon(np.ones(50), np.ones(50), lambda y: y == 1) == 0.0  # same rate
    # δ at least the lower bound on Pr[M(D) ∈ S] explains everything.
    assert audit_epsilon(np.ones(50), np.zeros(50), lambda y: y == 1, delta=0.99) == 0.0


@SETTINGS
@given(st.floats(0.0, 0.5), st.floats(0.0, 0.5))
def test_larger_delta_never_raises_the_bound(delta_a, delta_b):
    small, large = sorted([delta_a, delta_b])
    sample = np.r_[np.ones(80), np.zeros(20)]
    sample_prime = np.r_[np.ones(20), np.zeros(80)]
    loose = audit_epsilon(sample, sample_prime, at_least(1.0), delta=large)
    assert loose <= audit_epsilon(sample, sample_prime, at_least(1.0), delta=small)


def test_outputs_may_be_vectors():
    # Each output a pair (say two noisy counts); the event looks at rows.
    outputs = np.tile([1.0, 0.0], (40, 1))
    outputs_prime = np.tile([0.0, 1.0], (40, 1))
    bound = audit_epsilon(outputs, outputs_prime, lambda y: y[:, 0] > y[:, 1])
    assert bound > 0


@SETTINGS
@given(NOT_OPEN_UNIT)
def test_audit_rejects_invalid_alpha(alpha):
    with pytest.raises(ValueError, match="alpha"):
        audit_epsilon(np.ones(10), np.zeros(10), lambda y: y == 1, alpha=alpha)


@SETTINGS
@given(NOT_DELTA)
def test_audit_rejects_invalid_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        audit_epsilon(np.ones(10), np.zeros(10), lambda y: y == 1, delta=delta)


def test_audit_rejects_empty_outputs():
    with pytest.raises(ValueError, match="outputs_d "):
        audit_epsilon([], np.zeros(10), lambda y: y == 1)
    with pytest.raises(ValueError, match="outputs_d_prime"):
        audit_epsilon(np.ones(10), [], lambda y: y == 1)
    with pytest.raises(ValueError, match="outputs_d "):
        audit_epsilon(1.0, np.zeros(10), lambda y: y == 1)


def test_audit_rejects_a_bad_event():
    with pytest.raises(ValueError, match="event"):
        audit_epsilon(np.ones(10), np.zeros(10), "y >= 1")
    with pytest.raises(ValueError, match="event"):
        audit_epsilon(np.ones(10), np.zeros(10), lambda y: True)  # not one flag per output
    with pytest.raises(ValueError, match="event"):
        audit_epsilon(np.ones(10), np.zeros(10), lambda y: y * 2)  # not booleans


@pytest.mark.parametrize(
    ("hits", "trials", "alpha", "name"),
    [(-1, 10, 0.05, "hits"), (11, 10, 0.05, "hits"), (0, 0, 0.05, "trials"), (1, 10, 1.0, "alpha")],
)
def test_clopper_pearson_rejects_invalid_input(hits, trials, alpha, name):
    for bound in (clopper_pearson_lower, clopper_pearson_upper):
        with pytest.raises(ValueError, match=name):
            bound(hits, trials, alpha)
