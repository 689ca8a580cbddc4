"""dp.learning: logistic regression, DP-GD (clipping, noise, exact accounting), membership
inference and FedAvg.

Tolerances of the seeded statistical tests are derived in comments: a binomial or normal
standard error, times a z of about 4 to 5 so that a correct implementation fails with
probability < 1e-4 (and, seeded, never flakes).
"""

import math
import re

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.pld import privacy_loss_distribution as dpa_pld
from dp_accounting.rdp import rdp_privacy_accountant as dpa_rdp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import integrate, optimize
from scipy.special import expit, log_expit, ndtr

from dp import gaussian_composition_epsilon, gaussian_sigma, max_true_positive_rate
from dp.audit import audit_epsilon, clopper_pearson_lower, clopper_pearson_upper
from dp.learning import (
    CANARY_N,
    LEARNING_RATE,
    ONE_THREAD_PRODUCT,
    _matmul,
    accuracy,
    advantage_bound,
    attack_rates,
    bayes_accuracy,
    best_threshold,
    canary_event,
    canary_event_probabilities,
    canary_gradient,
    canary_models,
    clip_rows,
    clipped_gradient_sum,
    confidence,
    dp_gd_epsilon,
    dp_gd_mu,
    dp_gd_sigma,
    fedavg,
    gaussian_advantage_bound,
    gaussian_tradeoff,
    logistic_loss,
    mean_and_se,
    membership_roc,
    membership_scores,
    per_example_gradients,
    shadow_attack,
    synthetic_data,
    tpr_at_fpr,
    train_dp_gd,
    train_logistic,
    true_weights,
)

SETTINGS = settings(derandomize=True, max_examples=40, deadline=None)
FLOATS = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
EPSILONS = [0.1, 0.5, 1.0, 3.0, 10.0]
DELTAS = [1e-8, 1e-5, 1e-3]


def _rng(seed=0):
    return np.random.default_rng(seed)


# --- data and model ---------------------------------------------------------------------------


def test_true_weights_have_the_signal_as_norm():
    assert np.linalg.norm(true_weights(20, 3.0)) == pytest.approx(3.0)
    assert true_weights(5, 0.0).tolist() == [0.0] * 5


def test_synthetic_data_shapes_and_label_rate():
    X, y = synthetic_data(1000, 7, _rng(), batch=(3, 2))
    assert X.shape == (3, 2, 1000, 7) and y.shape == (3, 2, 1000)
    assert set(np.unique(y)) <= {0.0, 1.0}
    # Balanced by symmetry: Pr[y = 1] = E[σ(t)] = ½; 6000 labels have SE √(¼/6000) ≈ 0.0065.
    assert abs(y.mean() - 0.5) < 5 * 0.0065


def test_bayes_accuracy_matches_quadrature_and_monte_carlo():
    for signal in [0.0, 0.5, 3.0, 8.0]:
        ref = integrate.quad(lambda t, s=signal: expit(abs(s * t)) * math.exp(-t * t / 2)
                             / math.sqrt(2 * math.pi), -np.inf, np.inf)[0]
        assert bayes_accuracy(signal) == pytest.approx(ref, abs=1e-9)
    assert bayes_accuracy(0.0) == pytest.approx(0.5)
    # w* itself on 200,000 fresh records: SE √(0.84·0.16/2e5) ≈ 0.0008.
    X, y = synthetic_data(200_000, 10, _rng(1))
    assert accuracy(true_weights(10), X, y) == pytest.approx(bayes_accuracy(3.0), abs=5 * 0.0008)


def test_confidence_scores_and_accuracy_agree():
    X, y = synthetic_data(50, 4, _rng(2))
    w = _rng(3).standard_normal(4)
    conf = confidence(w, X, y)
    assert np.allclose(conf, expit(membership_scores(w, X, y)))
    assert np.allclose(conf, np.where(y == 1, expit(X @ w), 1 - expit(X @ w)))
    assert accuracy(w, X, y) == pytest.approx(np.mean(conf > 0.5))


def test_per_example_gradients_are_the_gradients_of_the_loss():
    X, y = synthetic_data(6, 3, _rng(4))
    w = _rng(5).standard_normal(3)
    grads = per_example_gradients(w, X, y)
    for i in range(6):
        def loss(v, i=i):
            return -log_expit((1 if y[i] == 1 else -1) * X[i] @ v)
        numeric = optimize.approx_fprime(w, loss, 1e-7)
        assert np.allclose(grads[i], numeric, atol=1e-5)


def test_train_logistic_reaches_the_optimum():
    X, y = synthetic_data(200, 5, _rng(6))
    w = train_logistic(X, y, l2=0.01)
    ref = optimize.minimize(lambda v: logistic_loss(v, X, y, 0.01), np.zeros(5), method="BFGS",
                            options={"gtol": 1e-10}).x
    assert np.allclose(w, ref, atol=1e-5)


def test_train_logistic_converges_on_separable_data_in_a_batch():
    # n = 10 < d = 30: separable, so only the ridge keeps the optimum finite.
    X, y = synthetic_data(10, 30, _rng(7), batch=4)
    w = train_logistic(X, y, l2=1e-3)
    p = expit(np.einsum("bnd,bd->bn", X, w))
    grad = np.einsum("bnd,bn->bd", X, p - y) / 10 + 1e-3 * w
    assert np.max(np.abs(grad)) < 1e-8
    assert np.all(accuracy(w, X, y) == 1.0)


def test_non_private_accuracy_is_close_to_bayes_with_many_records():
    # n = 5000, d = 20: the MLE's excess 0-1 risk is O(d/n) ≈ 0.004; the test set of 20,000
    # has SE √(0.84·0.16/2e4) ≈ 0.0026. So accuracy ∈ [Bayes − 0.02, Bayes + 5·SE].
    X, y = synthetic_data(5000, 20, _rng(8))
    X_test, y_test = synthetic_data(20_000, 20, _rng(9))
    acc = accuracy(train_logistic(X, y), X_test, y_test)
    assert bayes_accuracy(3.0) - 0.02 <= acc <= bayes_accuracy(3.0) + 5 * 0.0026


def test_matmul_in_pieces_equals_matmul():
    rng = _rng(10)
    for a_shape, b_shape in [((3, 2000, 50), (3, 50, 16)), ((2, 50, 3000), (2, 3000, 50)),
                             ((4, 7), (7, 2))]:
        a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
        assert np.allclose(_matmul(a, b), a @ b)
    assert 2000 * 16 * 50 > ONE_THREAD_PRODUCT  # the first two cases really are split


# --- clipping and sensitivity -----------------------------------------------------------------


@SETTINGS
@given(arrays(float, st.tuples(st.integers(1, 8), st.integers(1, 5)), elements=FLOATS),
       st.floats(1e-3, 1e3))
def test_clipped_rows_never_exceed_the_clip_norm(gradients, clip):
    clipped = clip_rows(gradients, clip)
    norms = np.linalg.norm(clipped, axis=-1)
    assert np.all(norms <= clip * (1 + 1e-12))
    original = np.linalg.norm(gradients, axis=-1)
    inside = original <= clip
    assert np.array_equal(clipped[inside], gradients[inside])  # short rows are untouched
    outside = ~inside  # long rows keep their direction and land on the sphere
    assert np.allclose(norms[outside], clip)
    assert np.allclose(clipped[outside] * original[outside, None],
                       gradients[outside] * norms[outside, None])


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 6), st.floats(0.01, 10))
def test_fast_clipped_sum_equals_explicit_per_example_clipping(seed, n, d, clip):
    rng = _rng(seed)
    X, y = synthetic_data(n, d, rng)
    X *= rng.exponential(3.0, size=(n, 1))  # heavy-ish rows: some clipped, some not
    w = 2 * rng.standard_normal(d)
    explicit = clip_rows(per_example_gradients(w, X, y), clip).sum(axis=0)
    assert np.allclose(clipped_gradient_sum(w, X, y, clip), explicit, atol=1e-10)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(2, 20), st.integers(1, 6), st.floats(0.01, 10))
def test_replacing_one_record_moves_the_clipped_sum_by_at_most_2c(seed, n, d, clip):
    rng = _rng(seed)
    X, y = synthetic_data(n, d, rng)
    w = 3 * rng.standard_normal(d)
    i = rng.integers(n)
    X2, y2 = X.copy(), y.copy()
    X2[i] = 50 * rng.standard_normal(d)  # any record at all, however extreme
    y2[i] = 1 - y[i]
    change = clipped_gradient_sum(w, X, y, clip) - clipped_gradient_sum(w, X2, y2, clip)
    assert np.linalg.norm(change) <= 2 * clip * (1 + 1e-12)


def test_two_c_is_reached():
    # x = e₁ with y = 0 and x = −e₁... both pushed to length C in opposite directions.
    w = np.zeros(2)
    big = 100.0
    a = clipped_gradient_sum(w, np.array([[big, 0.0]]), np.array([0.0]), 1.0)
    b = clipped_gradient_sum(w, np.array([[-big, 0.0]]), np.array([0.0]), 1.0)
    assert np.linalg.norm(a - b) == pytest.approx(2.0)


# --- accounting -------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("steps", [1, 10, 100])
def test_calibrated_noise_gives_back_the_target_epsilon(eps, steps):
    for delta in DELTAS:
        for clip in [0.1, 1.0, 5.0]:
            sigma = dp_gd_sigma(eps, delta, clip, steps)
            assert sigma == pytest.approx(math.sqrt(steps) * gaussian_sigma(2 * clip, eps, delta))
            got = gaussian_composition_epsilon(sigma, steps, delta, sensitivity=2 * clip)
            assert got == pytest.approx(eps, rel=1e-9)
            assert dp_gd_epsilon(sigma, steps, delta, clip) == got


@pytest.mark.parametrize("eps,steps", [(0.5, 1), (1.0, 10), (3.0, 50), (10.0, 20)])
def test_accountant_matches_dp_accounting_pld(eps, steps):
    # dp-accounting's pessimistic PLD of N(0, σ²) with sensitivity 2C, composed T times, on a
    # grid of step h: it over-reports ε by less than T·h, and never under-reports it.
    delta, clip, h = 1e-5, 1.0, 1e-3
    sigma = dp_gd_sigma(eps, delta, clip, steps)
    ref = dpa_pld.from_gaussian_mechanism(sigma, sensitivity=2 * clip,
                                          value_discretization_interval=h).self_compose(steps)
    assert eps - 1e-9 <= ref.get_epsilon_for_delta(delta) <= eps + steps * h


@pytest.mark.parametrize("eps,steps", [(0.5, 1), (1.0, 10), (3.0, 50)])
def test_accountant_is_below_the_rdp_bound(eps, steps):
    # RDP (Mironov 2017) is a valid but looser accountant for the same mechanism: it may only
    # report a larger ε. For Gaussians it is within a modest factor (observed < 1.5ε + 0.3).
    delta, clip = 1e-5, 1.0
    sigma = dp_gd_sigma(eps, delta, clip, steps)
    accountant = dpa_rdp.RdpAccountant()
    accountant.compose(dp_event.GaussianDpEvent(noise_multiplier=sigma / (2 * clip)), count=steps)
    rdp_eps = accountant.get_epsilon(delta)
    assert eps <= rdp_eps <= 1.5 * eps + 0.3


def test_mu_and_the_exact_tradeoff_lie_under_the_dp_bound():
    for eps in EPSILONS:
        for steps in [1, 25]:
            sigma = dp_gd_sigma(eps, 1e-5, 1.0, steps)
            mu = dp_gd_mu(sigma, steps, 1.0)
            assert mu == pytest.approx(1 / gaussian_sigma(1.0, eps, 1e-5) * 1.0, rel=1e-9)
            alpha = np.linspace(0, 1, 2001)
            assert np.all(gaussian_tradeoff(alpha, mu)
                          <= max_true_positive_rate(alpha, eps, 1e-5) + 1e-12)
            assert gaussian_advantage_bound(mu) <= advantage_bound(eps, 1e-5)


def test_gaussian_tradeoff_and_its_advantage():
    assert gaussian_tradeoff(0.05, 0.0) == pytest.approx(0.05)
    assert gaussian_tradeoff(0.0, 2.0) == 0.0 and gaussian_tradeoff(1.0, 2.0) == 1.0
    alpha = np.linspace(0, 1, 100_001)
    for mu in [0.1, 1.0, 3.0]:
        best = np.max(gaussian_tradeoff(alpha, mu) - alpha)
        assert gaussian_advantage_bound(mu) == pytest.approx(best, abs=1e-8)


@pytest.mark.parametrize("eps", EPSILONS + [50.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.1])
def test_advantage_bound_is_the_maximum_of_the_dp_tradeoff(eps, delta):
    alpha = np.linspace(0, 1, 200_001)
    best = np.max(max_true_positive_rate(alpha, eps, delta) - alpha)
    assert advantage_bound(eps, delta) == pytest.approx(best, abs=1e-5)
    if delta == 0:
        assert advantage_bound(eps) == pytest.approx(math.tanh(eps / 2))


# --- DP-GD ------------------------------------------------------------------------------------


def test_noiseless_dp_gd_is_clipped_gradient_descent():
    X, y = synthetic_data(30, 4, _rng(11))
    w = np.zeros(4)
    for _ in range(7):
        w = w - 0.5 * clip_rows(per_example_gradients(w, X, y), 0.3).sum(axis=0) / 30
    got = train_dp_gd(X, y, 0.0, 0.3, 7, _rng(12), learning_rate=0.5)
    assert np.allclose(got, w)
    sweep = train_dp_gd(X, y, np.zeros(3), 0.3, 7, _rng(12), learning_rate=0.5)
    assert sweep.shape == (3, 4) and np.allclose(sweep, w)


def test_dp_gd_noise_has_the_calibrated_scale():
    # With all-zero features every gradient is 0, so w_T = −η·Σ_t N(0, σ²I)/n exactly:
    # each coordinate ~ N(0, T·η²σ²/n²). 4000 models × 3 coordinates = 12,000 draws; the
    # sample variance has relative SE √(2/12000) ≈ 0.013, so 5 SE is 6.5%.
    n, steps, sigma = 10, 5, 2.0
    X = np.zeros((4000, n, 3))
    y = np.ones((4000, n))
    w = train_dp_gd(X, y, sigma, 1.0, steps, _rng(13))
    expected = steps * sigma**2 / n**2
    assert w.var() == pytest.approx(expected, rel=5 * math.sqrt(2 / w.size))
    assert abs(w.mean()) < 5 * math.sqrt(expected / w.size)


def test_dp_gd_with_many_records_is_as_accurate_as_without_noise():
    # n = 10,000 at ε = 1: σ/n ≈ 0.0024 per coordinate, tiny next to the clipped gradient, so
    # the DP model matches the noiseless one to within the test set's noise: 20,000 test
    # records, paired, differ on few points; allow 0.01 (≈ 4 SE of an unpaired difference).
    X, y = synthetic_data(10_000, 20, _rng(14))
    X_test, y_test = synthetic_data(20_000, 20, _rng(15))
    sigma = dp_gd_sigma(1.0, 1e-5, 1.0, 10)
    private, noiseless = train_dp_gd(X, y, np.array([sigma, 0.0]), 1.0, 10, _rng(16))
    acc_private = accuracy(private, X_test, y_test)
    assert acc_private >= accuracy(noiseless, X_test, y_test) - 0.01
    assert acc_private >= bayes_accuracy(3.0) - 0.03


def test_dp_gd_with_few_records_at_small_epsilon_learns_little():
    # n = 50 at ε = 0.1: σ/n ≈ 7.5 per coordinate against clipped gradients of length ≤ 1, so the
    # weights are mostly noise. Over 40 models × 2000 test records the mean accuracy has
    # SE ≤ √(¼/40) ≈ 0.08 from the models alone; it stays well below the noiseless 70%+.
    X, y = synthetic_data(50, 20, _rng(17), batch=40)
    X_test, y_test = synthetic_data(2000, 20, _rng(18), batch=40)
    sigma = dp_gd_sigma(0.1, 1e-5, 1.0, 10)
    private, noiseless = np.moveaxis(train_dp_gd(X, y, np.array([sigma, 0.0]), 1.0, 10, _rng(19)),
                                      -2, 0)
    assert accuracy(noiseless, X_test, y_test).mean() > 0.7
    assert accuracy(private, X_test, y_test).mean() < 0.6


def test_a_real_record_makes_a_weak_canary():
    # Why the audit injects its canary as a gradient: a real record x = −100·e₁ with y = 1 has
    # gradient (σ(w·x) − 1)·x, full length only while the model has not fitted it. At
    # w = (−0.1, 0) it is 100·σ(−10) ≈ 0.0045 long, far inside the clip ball.
    x, y = np.array([[-100.0, 0.0]]), np.array([1.0])
    assert np.linalg.norm(clipped_gradient_sum(np.zeros(2), x, y, 1.0)) == pytest.approx(1.0)
    assert np.linalg.norm(clipped_gradient_sum(np.array([-0.1, 0.0]), x, y, 1.0)) < 0.005


@pytest.mark.parametrize("clip", [0.1, 1.0, 5.0])
def test_the_canary_adds_exactly_plus_or_minus_c_e1_at_every_step(clip):
    # Same noise (same seed) on D and D′: after t steps the weights differ by exactly the
    # canary's two gradients, (−2ηCt/n, 0), at every t, whatever the noise made of w. So the
    # clipped sums differ by 2C·e₁ at every step, and the ordinary records never touch w[0].
    assert np.array_equal(canary_gradient(True, clip), [clip, 0.0])
    assert np.array_equal(canary_gradient(False, clip), [-clip, 0.0])
    sigma = dp_gd_sigma(1.0, 1e-5, clip, 10)
    for t in range(1, 11):
        w_d = canary_models(True, sigma, clip, t, _rng(20), 50)
        w_d_prime = canary_models(False, sigma, clip, t, _rng(20), 50)
        gap = w_d - w_d_prime
        assert np.allclose(gap[:, 0], -2 * LEARNING_RATE * clip * t / CANARY_N, rtol=0, atol=1e-9)
        assert np.allclose(gap[:, 1], 0, atol=1e-12)
    # Without noise, w_T[0] is the canary's pull alone: −ηCT/n.
    assert canary_models(True, 0.0, clip, 7, _rng(20), 1)[0, 0] == pytest.approx(
        -LEARNING_RATE * clip * 7 / CANARY_N)


def test_train_dp_gd_refuses_a_canary_longer_than_the_clip_norm():
    X, y = synthetic_data(5, 2, _rng(20))
    with pytest.raises(ValueError, match="canary"):
        train_dp_gd(X, y, 1.0, 1.0, 2, _rng(20), canary=[1.0, 0.5])


def test_the_canary_weight_is_the_gaussian_the_theory_says():
    # w_T[0] ~ N(∓ηCT/n, (ησ√T/n)²) on D and D′. Over 200,000 runs the sample mean has SE
    # sd/√200,000 and the sample sd a relative SE of 1/√400,000; 5 SEs bound both checks.
    clip, steps, samples = 1.0, 10, 200_000
    sigma = dp_gd_sigma(1.0, 1e-5, clip, steps)
    sd = LEARNING_RATE * sigma * math.sqrt(steps) / CANARY_N
    for in_d, sign in ((True, -1), (False, 1)):
        w0 = canary_models(in_d, sigma, clip, steps, _rng(22), samples)[:, 0]
        assert abs(w0.mean() - sign * LEARNING_RATE * clip * steps / CANARY_N) < 5 * sd / math.sqrt(samples)
        assert w0.std() == pytest.approx(sd, rel=5 / math.sqrt(2 * samples))
    # and the event's exact probabilities are those of that Gaussian: Φ(−2 ± μ/2)
    p_d, p_d_prime = canary_event_probabilities(sigma, clip, steps)
    mu = dp_gd_mu(sigma, steps, clip)
    assert (p_d, p_d_prime) == pytest.approx((ndtr(-2 + mu / 2), ndtr(-2 - mu / 2)), rel=1e-12)


def _certified_range(p, p_prime, samples, alpha=0.05, z=5.0) -> tuple[float, float]:
    """The ε̂ that `audit_epsilon` gives when the two hit counts sit z binomial sds away from
    their means, against each other: the lowest and the highest it can plausibly certify."""
    def epsilon_hat(hits, hits_prime):
        low = clopper_pearson_lower(int(hits), samples, alpha / 2)
        high = clopper_pearson_upper(int(hits_prime), samples, alpha / 2)
        return max(0.0, math.log(low / high)) if low > 0 else 0.0

    sd, sd_prime = (math.sqrt(samples * q * (1 - q)) for q in (p, p_prime))
    return (epsilon_hat(math.floor(samples * p - z * sd), math.ceil(samples * p_prime + z * sd_prime)),
            epsilon_hat(math.ceil(samples * p + z * sd), math.floor(samples * p_prime - z * sd_prime)))


@pytest.mark.parametrize("eps,steps", [(1.0, 10), (1.0, 3), (5.0, 1), (0.5, 10)])
def test_audit_of_dp_gd_certifies_what_the_theory_predicts(eps, steps):
    # The worst-case pair (the injected canary) and the event fixed before sampling
    # (canary_event). With 200,000 models per side, the certified ε̂ lands in the range that
    # the exact event probabilities allow (hit counts within 5 binomial sds), and never above
    # the promise. The old canary, a real record x = ∓100·e₁, fell below this range at T > 1
    # (ε̂ = 0.30 at ε = 1, T = 10, where the range starts at 0.43): it stopped pulling once fitted.
    clip, samples = 1.0, 200_000
    sigma = dp_gd_sigma(eps, 1e-5, clip, steps)
    w_d = canary_models(True, sigma, clip, steps, _rng(20), samples)
    w_d_prime = canary_models(False, sigma, clip, steps, _rng(21), samples)
    assert w_d.shape == (samples, 2)
    certified = audit_epsilon(w_d, w_d_prime, lambda w: canary_event(w, sigma, steps))
    p_d, p_d_prime = canary_event_probabilities(sigma, clip, steps)
    low, high = _certified_range(p_d, p_d_prime, samples)
    assert low <= certified <= high
    assert certified <= eps
    assert low > 0  # so the audit must certify something: the pair really is told apart


def test_the_canary_event_never_claims_more_than_the_promise():
    # ln(Pr[S | D]/Pr[S | D′]) ≤ ε + δ/Pr[S | D] for an (ε, δ)-DP run; Pr[S | D] ≥ Φ(−2) makes
    # the slack below 5·10⁻⁴. Over every ε, C and T the page offers.
    for eps in [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]:
        for steps in [1, 2, 5, 10, 20, 50]:
            for clip in [0.1, 1.0, 10.0]:
                p_d, p_d_prime = canary_event_probabilities(dp_gd_sigma(eps, 1e-5, clip, steps),
                                                            clip, steps)
                assert math.log(p_d / p_d_prime) <= eps + 1e-5 / p_d


# --- membership inference ---------------------------------------------------------------------


def test_tpr_at_fpr_is_the_best_threshold_within_the_budget():
    fpr, tpr = np.array([0.0, 0.02, 0.05, 0.05, 0.3, 1.0]), np.array([0.0, 0.1, 0.2, 0.25, 0.6, 1.0])
    assert tpr_at_fpr(fpr, tpr, 0.05) == 0.25  # a tie at FPR 5% counts its higher TPR
    assert tpr_at_fpr(fpr, tpr, 0.01) == 0.0 and tpr_at_fpr(fpr, tpr, 1.0) == 1.0


def test_membership_roc_endpoints_monotone_and_auc():
    rng = _rng(22)
    members, others = rng.normal(1, 1, 300), rng.normal(0, 1, 400)
    fpr, tpr = membership_roc(members, others)
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0, 0, 1, 1)
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    # The area under the ROC is the Mann–Whitney statistic Pr[member score > other score].
    mann_whitney = np.mean(members[:, None] > others[None, :])
    assert np.trapezoid(tpr, fpr) == pytest.approx(mann_whitney, abs=1e-12)


def test_membership_roc_merges_ties():
    fpr, tpr = membership_roc([1.0, 1.0, 0.0], [1.0, 0.0])
    assert fpr.tolist() == [0, 0.5, 1] and tpr.tolist() == [0, 2 / 3, 1]


def test_best_threshold_maximises_the_advantage():
    rng = _rng(23)
    members, others = rng.normal(1, 1, 500), rng.normal(0, 1, 500)
    tau = best_threshold(members, others)
    tpr, fpr = attack_rates(members, others, tau)
    fprs, tprs = membership_roc(members, others)
    assert tpr - fpr == pytest.approx(np.max(tprs - fprs))
    assert attack_rates(members, others, np.inf) == (0.0, 0.0)


def test_shadow_attack_on_indistinguishable_scores_finds_nothing():
    # Members and non-members from one distribution: the advantage is 0 in expectation; with 20
    # target models of 100 each the estimate has SE ≈ √(2·¼/100)/√20 ≈ 0.016.
    rng = _rng(24)
    result = shadow_attack(rng.normal(size=(40, 100)), rng.normal(size=(40, 100)))
    assert abs(result["advantage"]) < 5 * 0.016
    assert result["advantage_se"] == pytest.approx(0.016, rel=0.5)


def test_shadow_attack_on_separated_scores_finds_everyone():
    rng = _rng(25)
    result = shadow_attack(rng.uniform(2, 3, (8, 50)), rng.uniform(0, 1, (8, 50)))
    assert result["advantage"] == 1.0 and result["tpr"] == 1.0 and result["fpr"] == 0.0
    assert result["roc_fpr"][0] == 0 and result["roc_tpr"][-1] == 1


def test_overfit_model_leaks_and_dp_model_stays_under_its_cap():
    # n = 25 records and d = 20 weights: the non-private model overfits and the attack's
    # advantage is large (observed ≈ 0.45). DP-GD at ε = 1 must stay under the cap 0.46 and,
    # in this average case, far below it: 40 target models give SE ≈ 0.02.
    X, y = synthetic_data(50, 20, _rng(26), batch=80)
    members = (X[:, :25], y[:, :25])
    others = (X[:, 25:], y[:, 25:])
    w = train_logistic(*members)
    leak = shadow_attack(membership_scores(w, *members), membership_scores(w, *others))
    assert leak["advantage"] > 0.3
    w_dp = train_dp_gd(*members, dp_gd_sigma(1.0, 1e-5, 1.0, 10), 1.0, 10, _rng(27))
    private = shadow_attack(membership_scores(w_dp, *members), membership_scores(w_dp, *others))
    assert private["advantage"] < 0.15 < advantage_bound(1.0, 1e-5)


@pytest.mark.parametrize("eps", [0.1, 0.3, 1.0])
@pytest.mark.parametrize("n,d", [(25, 50), (50, 20)])
def test_attacks_on_dp_gd_respect_the_tradeoff_bound(eps, n, d):
    # The bound TPR ≤ e^ε·FPR + δ holds for the expected rates (members and fresh records are
    # exchangeable, so a member swapped for a fresh record is a replace-one neighbour). Our
    # estimate at the shadow threshold may exceed it only by sampling error: allow 4 SE.
    X, y = synthetic_data(2 * n, d, _rng(40 + n), batch=max(8, 2000 // n))
    members, others = (X[:, :n], y[:, :n]), (X[:, n:], y[:, n:])
    w = train_dp_gd(*members, dp_gd_sigma(eps, 1e-5, 1.0, 10), 1.0, 10, _rng(41))
    attack = shadow_attack(membership_scores(w, *members), membership_scores(w, *others))
    bound = max_true_positive_rate(attack["fpr"], eps, 1e-5)
    assert attack["tpr"] <= bound + 4 * attack["advantage_se"]
    assert attack["advantage"] <= advantage_bound(eps, 1e-5) + 4 * attack["advantage_se"]


def test_mean_and_se():
    mean, se = mean_and_se(np.array([[1.0, 2.0], [3.0, 6.0]]))
    assert mean.tolist() == [2.0, 4.0]
    assert se.tolist() == pytest.approx([1.0, 2.0])  # sd/√2 with ddof = 1


# --- federated averaging ----------------------------------------------------------------------


def test_fedsgd_with_one_client_is_clipped_gradient_descent():
    X, y = synthetic_data(20, 3, _rng(28))
    history = fedavg(X[None], y[None], rounds=4, local_epochs=1, update_clip=0.05, sigma=0.0,
                     noise="none", rng=_rng(29))
    w = np.zeros(3)
    for r in range(4):
        step = -per_example_gradients(w, X, y).mean(axis=0)
        w = w + step * min(1.0, 0.05 / np.linalg.norm(step))
        assert np.allclose(history[r + 1], w)
    assert history.shape == (5, 3)


def test_fedavg_without_noise_learns():
    X, y = synthetic_data(20, 10, _rng(30), batch=100)
    X_test, y_test = synthetic_data(20_000, 10, _rng(31))
    history = fedavg(X, y, rounds=10, local_epochs=5, update_clip=1.0, sigma=0.0, noise="none",
                     rng=_rng(32))
    # 2000 records in all: close to Bayes (0.839); test SE ≈ 0.0026.
    assert accuracy(history[-1], X_test, y_test) > bayes_accuracy(3.0) - 0.03


@pytest.mark.parametrize("place,factor", [("central", 1.0), ("local", None)])
def test_fedavg_noise_left_in_the_average(place, factor):
    # All-zero features: updates are 0, so after one round w = noise/K. Central: N(0, σ²/K²);
    # local: N(0, σ²/K). 2000 repeats × 4 coordinates: relative SE of the variance √(2/8000).
    k, sigma = 25, 3.0
    X, y = np.zeros((2000, k, 5, 4)), np.ones((2000, k, 5))
    history = fedavg(X, y, rounds=1, local_epochs=1, update_clip=1.0, sigma=sigma, noise=place,
                     rng=_rng(33))
    expected = sigma**2 / k**2 if place == "central" else sigma**2 / k
    assert history[:, -1].var() == pytest.approx(expected, rel=5 * math.sqrt(2 / 8000))


def test_fedavg_local_noise_costs_accuracy():
    X, y = synthetic_data(20, 10, _rng(34), batch=(4, 100))
    X_test, y_test = synthetic_data(5000, 10, _rng(35), batch=4)
    sigma = dp_gd_sigma(1.0, 1e-5, 1.0, 10)
    final = {place: accuracy(fedavg(X, y, 10, 2, 1.0, sigma, place, _rng(36))[:, -1],
                             X_test, y_test).mean()
             for place in ("central", "local")}
    assert final["central"] > final["local"] + 0.05


# --- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize("call,message", [
    (lambda: synthetic_data(0, 3, _rng()), "n must be an integer"),
    (lambda: synthetic_data(5, 3, "seed"), "rng must be a numpy.random.Generator"),
    (lambda: true_weights(0), "d must be an integer"),
    (lambda: clip_rows([[1.0, 2.0]], 0.0), "clip_norm must be > 0"),
    (lambda: clip_rows([[np.nan]], 1.0), "gradients must contain only finite"),
    (lambda: dp_gd_sigma(0.0, 1e-5, 1.0, 10), "epsilon must be > 0"),
    (lambda: dp_gd_sigma(1.0, 1.0, 1.0, 10), "delta must be in (0, 1)"),
    (lambda: dp_gd_sigma(1.0, 1e-5, 1.0, 0), "steps must be an integer"),
    (lambda: dp_gd_mu(0.0, 1, 1.0), "sigma must be > 0"),
    (lambda: train_dp_gd(np.ones((2, 1)), [1, 2], 1.0, 1.0, 1, _rng()), "y must contain only 0s"),
    (lambda: train_dp_gd(np.ones((2, 1)), [1, 0], -1.0, 1.0, 1, _rng()), "sigma must be"),
    (lambda: train_logistic(np.ones((2, 1)), [1, 0], 0.0), "l2 must be > 0"),
    (lambda: advantage_bound(1.0, 1.0), "delta must be in [0, 1)"),
    (lambda: gaussian_tradeoff(1.5, 1.0), "false_positive_rate must be in [0, 1]"),
    (lambda: shadow_attack(np.ones((2, 3)), np.ones((2, 3))), "R ≥ 4"),
    (lambda: shadow_attack(np.ones((4, 3)), np.ones((5, 3))), "same R"),
    (lambda: mean_and_se([1.0]), "at least 2 repeats"),
    (lambda: fedavg(np.ones((2, 3, 1)), np.ones((2, 3)), 1, 1, 1.0, 1.0, "server", _rng()),
     "noise must be one of"),
    (lambda: fedavg(np.ones((3, 1)), np.ones(3), 1, 1, 1.0, 1.0, "none", _rng()),
     "X must have shape"),
])
def test_bad_input_names_the_parameter(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
