"""Privacy in machine learning: logistic regression, membership inference, DP-GD and FedAvg.

The model is logistic regression without an intercept, p_w(y = 1 | x) = σ(w·x) with
σ(t) = 1/(1 + e^−t), trained on synthetic data whose classes are balanced by design.

- Membership inference (Shokri et al. 2017; Yeom et al. 2018): the attacker sees a record
  (x, y) and the model's confidence in its true label, and says "member" above a threshold.
- DP-GD: full-batch noisy gradient descent with per-example clipping (the full-batch version of
  Abadi et al. 2016's DP-SGD). Each step is one Gaussian mechanism, and the steps compose
  exactly (`dp_gd_epsilon`).
- FedAvg (McMahan et al. 2017) with central or local Gaussian noise on clipped client updates.

Neighbouring datasets (DP-GD): **replace-one example**, so n is public. One person's clipped
gradient g, of norm ≤ C, can become any other g′ of norm ≤ C, which moves the sum of clipped
gradients by ‖g − g′‖₂ ≤ 2C: the L2 sensitivity of the sum is Δ₂ = 2C (of the mean, 2C/n).
Replace-one is also the relation under which DP bounds the membership attack below: swapping
a member for a fresh record from the same population is a replace-one change.

Shapes: every function works on a stack of independent problems. X is (..., n, d), y is
(..., n) with entries 0/1, and weights w are (..., d); leading axes broadcast, so one call
trains many models (repeats, or a sweep over noise levels) at once.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate
from scipy.special import expit, log_expit, ndtr, ndtri

from dp import _checks as check
from dp.accounting import gaussian_composition_epsilon
from dp.noise import gaussian_sigma

LEARNING_RATE = 1.0  # DP-GD and the clients' local steps
NEWTON_ITERATIONS = 40
NEWTON_TOLERANCE = 1e-10
LINE_SEARCH = 0.5 ** np.arange(8)  # step sizes tried by every Newton iteration
# OpenBLAS runs a matrix product on one thread when m·n·k is at most this (SMP_THRESHOLD_MIN ×
# GEMM_MULTITHREAD_THRESHOLD); bigger products use every core, which on a busy machine can be
# 100× slower than one thread while the threads wait for each other. `_matmul` splits them.
ONE_THREAD_PRODUCT = 65_536 * 4


def _matmul(a, b) -> np.ndarray:
    """a @ b for stacks of matrices, in pieces small enough for single-threaded BLAS.

    Splits the rows of a when they are the largest dimension, otherwise the inner dimension
    (summing the partial products). The result equals a @ b up to rounding.
    """
    m, k = a.shape[-2:]
    n = b.shape[-1]
    if m * n * k <= ONE_THREAD_PRODUCT:
        return a @ b
    if m >= k:
        rows = max(1, ONE_THREAD_PRODUCT // (n * k))
        return np.concatenate([a[..., i:i + rows, :] @ b for i in range(0, m, rows)], axis=-2)
    inner = max(1, ONE_THREAD_PRODUCT // (m * n))
    return sum(a[..., :, i:i + inner] @ b[..., i:i + inner, :] for i in range(0, k, inner))


# --- data and model ---------------------------------------------------------------------------


def _dimension(d) -> int:
    return check.count("d", d)


def true_weights(d, signal=3.0) -> np.ndarray:
    """The population's weights w* = (signal/√d)·(1, …, 1), so that ‖w*‖ = signal."""
    d = _dimension(d)
    signal = check.non_negative("signal", signal)
    return np.full(d, signal / math.sqrt(d))


def synthetic_data(n, d, rng, signal=3.0, batch=()) -> tuple[np.ndarray, np.ndarray]:
    """n records per problem: x ~ N(0, I_d) and y ~ Bernoulli(σ(w*·x)), w* = `true_weights`.

    w*·x ~ N(0, signal²), so the best possible accuracy is the Bayes accuracy
    E[max(σ(t), 1 − σ(t))], t ~ N(0, signal²) (`bayes_accuracy`). The features need no
    bounds: DP-GD clips gradients instead. Returns X (*batch, n, d) and y (*batch, n).
    """
    rng = check.generator(rng)
    n = check.count("n", n)
    w_star = true_weights(d, signal)
    batch = tuple(check.count("batch", b) for b in np.atleast_1d(batch)) if np.size(batch) else ()
    X = rng.standard_normal((*batch, n, w_star.size))
    y = (rng.random((*batch, n)) < expit(X @ w_star)).astype(float)
    return X, y


def bayes_accuracy(signal=3.0) -> float:
    """E[max(σ(t), σ(−t))] = 2∫₀^∞ σ(signal·t)·φ(t) dt for t ~ N(0, 1): the accuracy of w*
    itself, the best any model can do on this population (adaptive quadrature)."""
    signal = check.non_negative("signal", signal)
    half, _ = integrate.quad(lambda t: expit(signal * t) * math.exp(-t * t / 2), 0, np.inf,
                             epsabs=1e-12)
    return 2 * half / math.sqrt(2 * math.pi)


def _logits(w, X) -> np.ndarray:
    return _matmul(X, np.asarray(w)[..., :, None])[..., 0]


def confidence(w, X, y) -> np.ndarray:
    """The model's probability for each record's true label: σ(w·x) if y = 1, else 1 − σ(w·x).

    This is all the simple membership attack looks at (DDA4210: membership is "often obvious
    from the confidence of the ML-predictions alone"). Shape (..., n).
    """
    return expit(np.where(np.asarray(y) == 1, 1.0, -1.0) * _logits(w, X))


def membership_scores(w, X, y) -> np.ndarray:
    """The attack's score: the margin s·(w·x), s = ±1 for y = 1/0, i.e. the log-odds of
    `confidence`. Thresholding it is thresholding the confidence, without the ties that
    σ(t) rounding to exactly 1.0 would create for very confident predictions."""
    return np.where(np.asarray(y) == 1, 1.0, -1.0) * _logits(w, X)


def accuracy(w, X, y) -> np.ndarray:
    """Share of records whose predicted label (σ(w·x) > ½) is the true one. Shape (...)."""
    return np.mean((_logits(w, X) > 0) == (np.asarray(y) == 1), axis=-1)


def logistic_loss(w, X, y, l2=0.0) -> np.ndarray:
    """Mean log-loss −[y ln σ(w·x) + (1 − y) ln σ(−w·x)] plus the ridge penalty (λ/2)‖w‖²."""
    signs = np.where(np.asarray(y) == 1, 1.0, -1.0)
    w = np.asarray(w)
    return -np.mean(log_expit(signs * _logits(w, X)), axis=-1) + 0.5 * l2 * np.sum(w * w, axis=-1)


def train_logistic(X, y, l2=1e-3) -> np.ndarray:
    """The non-private model: argmin_w logistic_loss(w) with ridge penalty λ = l2 > 0.

    Newton's method, ∇ = Xᵀ(σ(Xw) − y)/n + λw and ∇² = Xᵀ diag(p(1 − p)) X/n + λI, with a
    line search (the best of the step sizes in LINE_SEARCH) so that it also converges on
    separable data, where only the ridge keeps the minimum finite. Stops when every
    gradient entry is below NEWTON_TOLERANCE.
    """
    X = check.finite_array("X", X)
    y = check.bits("y", y).astype(float)
    l2 = check.positive("l2", l2)
    n, d = X.shape[-2:]
    w = np.zeros((*np.broadcast_shapes(X.shape[:-2], y.shape[:-1]), d))
    XT = np.swapaxes(X, -1, -2)
    steps = LINE_SEARCH.reshape(-1, *[1] * w.ndim)
    for _ in range(NEWTON_ITERATIONS):
        p = expit(_logits(w, X))
        grad = _matmul((p - y)[..., None, :], X)[..., 0, :] / n + l2 * w
        if np.max(np.abs(grad)) < NEWTON_TOLERANCE:
            break
        hess = _matmul(XT * (p * (1 - p))[..., None, :], X) / n + l2 * np.eye(d)
        candidates = w - steps * np.linalg.solve(hess, grad[..., None])[..., 0]
        best = np.argmin(logistic_loss(candidates, X, y, l2), axis=0)
        w = np.take_along_axis(candidates, best[None, ..., None], axis=0)[0]
    return w


# --- DP-GD ------------------------------------------------------------------------------------


def per_example_gradients(w, X, y) -> np.ndarray:
    """∇_w of each record's log-loss: g_i = (σ(w·x_i) − y_i)·x_i. Shape (..., n, d)."""
    return (expit(_logits(w, X)) - y)[..., None] * X


def clip_rows(gradients, clip_norm) -> np.ndarray:
    """Per-example clipping: g_i ↦ g_i·min(1, C/‖g_i‖₂), so every row has L2 norm ≤ C.

    Abadi et al. 2016, Alg. 1. Rows already inside the ball are left alone.
    """
    gradients = check.finite_array("gradients", gradients)
    clip_norm = check.positive("clip_norm", clip_norm)
    norms = np.linalg.norm(gradients, axis=-1, keepdims=True)
    return gradients * (clip_norm / np.maximum(norms, clip_norm))  # = min(1, C/‖g‖), no 0/0


def _clipped_sum_columns(X, XT, row_norms, y, W, clip_norm) -> np.ndarray:
    """Σ_i clip_C(g_i) for each column of W (..., d, k): the closed form of
    `clipped_gradient_sum`, with XT = Xᵀ and ‖x_i‖ computed once. Returns (..., d, k)."""
    residuals = expit(_matmul(X, W)) - y[..., None]  # (..., n, k)
    norms = np.abs(residuals) * row_norms[..., None]
    scaled = residuals * (clip_norm / np.maximum(norms, clip_norm))
    return _matmul(XT, scaled)


def clipped_gradient_sum(w, X, y, clip_norm) -> np.ndarray:
    """Σ_i clip_rows(g_i, C), without building the n×d matrix of gradients.

    For a linear model g_i = r_i·x_i with r_i = σ(w·x_i) − y_i, so ‖g_i‖ = |r_i|·‖x_i‖ and
    clipping only rescales r_i: the sum is Xᵀ(r ⊙ min(1, C/(|r|·‖x‖))). Equal to
    clip_rows(per_example_gradients(w, X, y), C).sum(axis=-2) (tests check it).
    """
    X = check.finite_array("X", X)
    clip_norm = check.positive("clip_norm", clip_norm)
    y = np.asarray(y, dtype=float)
    XT = np.swapaxes(X, -1, -2)
    columns = np.asarray(w, dtype=float)[..., :, None]
    return _clipped_sum_columns(X, XT, np.linalg.norm(X, axis=-1), y, columns, clip_norm)[..., 0]


def dp_gd_sigma(epsilon, delta, clip_norm, steps) -> float:
    """Noise σ on the sum of clipped gradients so that `steps` DP-GD steps are (ε, δ)-DP.

    Each step releases Σ_i clip(g_i) + N(0, σ²I), a Gaussian mechanism with Δ₂ = 2C
    (replace-one). T such steps, each chosen after seeing the last (adaptive composition),
    have privacy loss N(Tm, 2Tm), m = Δ₂²/(2σ²): the same as ONE release with noise σ/√T
    (`dp.gaussian_composition_epsilon`). So σ = √T·σ₁, where σ₁ = gaussian_sigma(2C, ε, δ)
    is the analytic calibration of a single release (Balle & Wang 2018). Then
    dp_gd_epsilon(σ, T, δ, C) = ε exactly.
    """
    steps = check.count("steps", steps)
    clip_norm = check.positive("clip_norm", clip_norm)
    return math.sqrt(steps) * gaussian_sigma(2 * clip_norm, epsilon, delta)


def dp_gd_epsilon(sigma, steps, delta, clip_norm) -> float:
    """ε at δ of T DP-GD steps with noise N(0, σ²I) on the sum of C-clipped gradients:
    gaussian_composition_epsilon(σ, T, δ, Δ₂ = 2C), exact (no subsampling, no RDP slack)."""
    clip_norm = check.positive("clip_norm", clip_norm)
    return gaussian_composition_epsilon(sigma, steps, delta, sensitivity=2 * clip_norm)


def dp_gd_mu(sigma, steps, clip_norm) -> float:
    """T DP-GD steps are μ-GDP with μ = √T·Δ₂/σ = 2C√T/σ (Dong, Roth & Su 2022, Cor. 3.3).

    μ-GDP is the exact privacy of the composed Gaussian: no test for "x was in the data"
    beats `gaussian_tradeoff(·, μ)`, of which every (ε, δ) pair is a looser summary.
    """
    sigma = check.positive("sigma", sigma)
    steps = check.count("steps", steps)
    clip_norm = check.positive("clip_norm", clip_norm)
    return 2 * clip_norm * math.sqrt(steps) / sigma


def train_dp_gd(X, y, sigma, clip_norm, steps, rng, learning_rate=LEARNING_RATE,
                canary=None) -> np.ndarray:
    """Full-batch DP-GD for logistic regression, from w₀ = 0:

        w_{t+1} = w_t − η·(Σ_i clip_C(g_i(w_t)) + N(0, σ²I)) / n,   t = 0, …, T − 1.

    Every step uses every record once, so one step is one epoch. σ is the noise on the SUM
    (calibrate it with `dp_gd_sigma`); σ = 0 gives clipped, noiseless GD: the same algorithm
    without its privacy. `sigma` is one noise level, or a 1-D array of k levels trained side
    by side on the same data (a sweep). Returns w_T, of shape (*batch, d), or (*batch, k, d)
    for an array of levels. Releasing every iterate costs no more privacy than w_T alone.

    `canary` is for audits: a vector g_c of length ≤ C that one more record adds to the sum at
    every step, whatever w is (a "gradient canary", Nasr et al. 2021). The average then divides
    by n + 1. The guarantee covers it, because it holds for any clipped gradients of length ≤ C.
    """
    rng = check.generator(rng)
    X = check.finite_array("X", X)
    y = check.bits("y", y).astype(float)
    levels = check.finite_array("sigma", sigma)
    if levels.ndim > 1 or np.any(levels < 0):
        raise ValueError("sigma must be a number ≥ 0 or a 1-D array of them")
    clip_norm = check.positive("clip_norm", clip_norm)
    steps = check.count("steps", steps)
    learning_rate = check.positive("learning_rate", learning_rate)
    n, d = X.shape[-2:]
    injected = np.zeros((d, 1))  # the canary's gradient, as a column: added to every level
    if canary is not None:
        injected = check.finite_array("canary", canary).reshape(d, 1)
        if np.linalg.norm(injected) > clip_norm * (1 + 1e-12):
            raise ValueError(f"canary must have length ≤ clip_norm = {clip_norm}")
        n += 1
    batch = np.broadcast_shapes(X.shape[:-2], y.shape[:-1])
    X = np.broadcast_to(X, (*batch, X.shape[-2], d))
    XT = np.ascontiguousarray(np.swapaxes(X, -1, -2))
    row_norms = np.linalg.norm(X, axis=-1)
    W = np.zeros((*batch, d, levels.size))  # one column per noise level
    for _ in range(steps):
        noise = levels * rng.standard_normal(W.shape)
        total = _clipped_sum_columns(X, XT, row_norms, y, W, clip_norm) + injected + noise
        W = W - learning_rate * total / n
    W = np.swapaxes(W, -1, -2)
    return W if levels.ndim else W[..., 0, :]


# --- auditing DP-GD --------------------------------------------------------------------------

# The auditor's worst-case pair of neighbours (replace-one). D holds three ordinary records and a
# canary; D′ swaps the canary for another. A real record's clipped gradient changes with w: a
# huge x = −100·e₁ with y = 1 pulls with full force only until the model fits it, then its
# gradient (σ(w·x) − 1)·x fades away. So the canary is injected as a gradient instead (Nasr et
# al. 2021): +C·e₁ in D and −C·e₁ in D′, at every step, whatever w is. The ordinary records lie
# along e₂, so they never move w[0], and the two clipped sums differ by exactly Δ₂ = 2C at every
# step.
CANARY_RECORDS = np.array([[0.0, 0.3], [0.0, -0.4], [0.0, 0.2]])
CANARY_LABELS = np.array([1.0, 0.0, 1.0])
CANARY_N = CANARY_LABELS.size + 1  # n, counting the canary
CANARY_EVENT_SPREADS = 2.0  # S = {w_T[0] < −2 spreads}, fixed before sampling


def canary_gradient(in_d: bool, clip_norm) -> np.ndarray:
    """The canary's clipped gradient at every step: +C·e₁ in D (in_d=True), −C·e₁ in D′."""
    clip_norm = check.positive("clip_norm", clip_norm)
    return np.array([clip_norm if in_d else -clip_norm, 0.0])


def canary_models(in_d: bool, sigma, clip_norm, steps, rng, size) -> np.ndarray:
    """w_T of `size` independent DP-GD runs on D or D′, shape (size, 2).

    w_T[0] = −(η/n)·Σ_t (±C + σ·z_t): a Gaussian with mean ∓ηCT/n and sd ησ√T/n, so the
    two data sets are told apart exactly as well as μ-GDP allows, μ = 2C√T/σ: no pair of
    neighbours is harder to hide. The runs share one data set, so they are trained as
    columns of one weight matrix (`train_dp_gd` with `size` copies of σ).
    """
    size = check.count("size", size)
    sigmas = np.full(size, check.non_negative("sigma", sigma))
    return train_dp_gd(CANARY_RECORDS, CANARY_LABELS, sigmas, clip_norm, steps, rng,
                       canary=canary_gradient(in_d, clip_norm))


def _canary_spread(sigma, steps) -> float:
    """The sd of the noise summed into w_T[0]: ησ√T/n."""
    return LEARNING_RATE * sigma * math.sqrt(steps) / CANARY_N


def canary_event(weights, sigma, steps) -> np.ndarray:
    """S = {w_T : w_T[0] < −2·s}, s = ησ√T/n the spread of the noise summed into w_T[0]: the
    side that D's canary pushes towards, two spreads out. Fixed before sampling."""
    return np.asarray(weights)[:, 0] < -CANARY_EVENT_SPREADS * _canary_spread(sigma, steps)


def canary_event_probabilities(sigma, clip_norm, steps) -> tuple[float, float]:
    """(Pr[S | D], Pr[S | D′]) exactly: with μ = 2C√T/σ, w_T[0]/s is N(∓μ/2, 1), so

        Pr[S | D] = Φ(−2 + μ/2),   Pr[S | D′] = Φ(−2 − μ/2).

    ln of their ratio is the most an audit with this S can certify, however many samples.
    """
    sigma = check.positive("sigma", sigma)
    half_mu = dp_gd_mu(sigma, steps, clip_norm) / 2
    return float(ndtr(-CANARY_EVENT_SPREADS + half_mu)), float(ndtr(-CANARY_EVENT_SPREADS - half_mu))


# --- membership inference ---------------------------------------------------------------------


def membership_roc(member_scores, nonmember_scores) -> tuple[np.ndarray, np.ndarray]:
    """The attacker's ROC curve: "member" when score ≥ τ, for every threshold τ.

    TPR(τ) = share of members with score ≥ τ, FPR(τ) = share of non-members with score ≥ τ.
    Returns (FPR, TPR), both starting at 0 (τ = +∞) and ending at 1, one point per distinct
    score (ties move both rates at once).
    """
    members = check.finite_array("member_scores", member_scores).ravel()
    others = check.finite_array("nonmember_scores", nonmember_scores).ravel()
    scores = np.concatenate([members, others])
    order = np.argsort(-scores, kind="stable")
    is_member = np.concatenate([np.ones(members.size), np.zeros(others.size)])[order]
    last_of_tie = np.append(np.diff(scores[order]) != 0, True)
    tpr = np.concatenate([[0.0], np.cumsum(is_member)[last_of_tie] / members.size])
    fpr = np.concatenate([[0.0], np.cumsum(1 - is_member)[last_of_tie] / others.size])
    return fpr, tpr


def tpr_at_fpr(fpr, tpr, alpha) -> float:
    """The best TPR on an ROC curve among the thresholds whose FPR is at most α (0 if none)."""
    fpr, tpr = check.finite_array("fpr", fpr), check.finite_array("tpr", tpr)
    alpha = check.non_negative("alpha", alpha)
    allowed = fpr <= alpha
    return float(tpr[allowed].max()) if np.any(allowed) else 0.0


def best_threshold(member_scores, nonmember_scores) -> float:
    """The threshold τ that maximises TPR − FPR on these scores (the attacker calibrates it on
    shadow models it trained itself, then uses it on the target)."""
    members = check.finite_array("member_scores", member_scores).ravel()
    others = check.finite_array("nonmember_scores", nonmember_scores).ravel()
    fpr, tpr = membership_roc(members, others)
    thresholds = np.concatenate([[np.inf], np.unique(np.concatenate([members, others]))[::-1]])
    return float(thresholds[np.argmax(tpr - fpr)])


def attack_rates(member_scores, nonmember_scores, threshold) -> tuple[float, float]:
    """(TPR, FPR) of the rule "member when score ≥ threshold"."""
    members = check.finite_array("member_scores", member_scores)
    others = check.finite_array("nonmember_scores", nonmember_scores)
    return float(np.mean(members >= threshold)), float(np.mean(others >= threshold))


def mean_and_se(values, axis=0) -> tuple[np.ndarray, np.ndarray]:
    """Mean over independent repeats and its standard error sd/√R (sample sd, ddof = 1)."""
    values = check.finite_array("values", values)
    repeats = values.shape[axis]
    if repeats < 2:
        raise ValueError("values needs at least 2 repeats along axis")
    return values.mean(axis=axis), values.std(axis=axis, ddof=1) / math.sqrt(repeats)


def shadow_attack(member_scores, nonmember_scores) -> dict:
    """The membership attack end to end, on R independently trained models (rows).

    Shokri et al. 2017's shadow models, in their simplest form: the attacker trains the first
    ⌊R/2⌋ models itself, on data from the same population, where it knows who is a member,
    and picks the threshold τ with the best TPR − FPR there (`best_threshold`). It then
    attacks the other models with that fixed τ. Fixing τ before the attack keeps the measured
    rates unbiased: picking the best τ on the target itself would flatter the attacker.

    member_scores and nonmember_scores are (R, n), R ≥ 4. Returns the threshold, the target's
    TPR, FPR and advantage TPR − FPR (with its standard error over the target models), and
    the target's whole ROC curve (roc_fpr, roc_tpr) for plotting.
    """
    members = check.finite_array("member_scores", member_scores)
    others = check.finite_array("nonmember_scores", nonmember_scores)
    if members.ndim != 2 or others.ndim != 2 or members.shape[0] != others.shape[0]:
        raise ValueError("member_scores and nonmember_scores must be (R, n) arrays with the same R")
    if members.shape[0] < 4:
        raise ValueError("shadow_attack needs R ≥ 4 models: half shadow, half target")
    half = members.shape[0] // 2
    threshold = best_threshold(members[:half], others[:half])
    tpr_each = np.mean(members[half:] >= threshold, axis=1)
    fpr_each = np.mean(others[half:] >= threshold, axis=1)
    advantage, advantage_se = mean_and_se(tpr_each - fpr_each)
    roc_fpr, roc_tpr = membership_roc(members[half:], others[half:])
    return {"threshold": threshold, "tpr": float(tpr_each.mean()), "fpr": float(fpr_each.mean()),
            "advantage": float(advantage), "advantage_se": float(advantage_se),
            "roc_fpr": roc_fpr, "roc_tpr": roc_tpr}


def advantage_bound(epsilon, delta=0.0) -> float:
    """The largest TPR − FPR any membership test can reach against an (ε, δ)-DP model:

        max_α [min(e^ε α + δ, 1 − e^−ε(1 − δ − α)) − α] = (e^ε − 1 + 2δ)/(e^ε + 1),

    attained at FPR α = (1 − δ)/(e^ε + 1), where the two lines of
    `dp.max_true_positive_rate` cross. For δ = 0 this is tanh(ε/2) (Kairouz, Oh &
    Viswanath 2015; below Yeom et al. 2018's e^ε − 1).
    """
    epsilon = check.positive("epsilon", epsilon)
    delta = check.delta_or_zero("delta", delta)
    return float(min(1.0, (-math.expm1(-epsilon) + 2 * delta * math.exp(-epsilon))
                     / (1 + math.exp(-epsilon))))


def gaussian_tradeoff(false_positive_rate, mu):
    """The exact limit of a μ-GDP mechanism: TPR ≤ Φ(Φ⁻¹(FPR) + μ).

    The best test between N(0, 1) and N(μ, 1) (Neyman–Pearson), which is what T composed
    Gaussian steps reduce to (Dong, Roth & Su 2022, Def. 2.7 and Cor. 3.3).
    """
    alpha = check.finite_array("false_positive_rate", false_positive_rate)
    if np.any((alpha < 0) | (alpha > 1)):
        raise ValueError("false_positive_rate must be in [0, 1]")
    mu = check.non_negative("mu", mu)
    tpr = ndtr(ndtri(alpha) + mu)
    return tpr if tpr.ndim else float(tpr)


def gaussian_advantage_bound(mu) -> float:
    """max_α [Φ(Φ⁻¹(α) + μ) − α] = 2Φ(μ/2) − 1, attained at α = Φ(−μ/2)."""
    mu = check.non_negative("mu", mu)
    return float(2 * ndtr(mu / 2) - 1)


# --- federated averaging ----------------------------------------------------------------------

NOISE_PLACES = ("none", "central", "local")


def _clip_vectors(updates, bound) -> np.ndarray:
    norms = np.linalg.norm(updates, axis=-1, keepdims=True)
    return updates * (bound / np.maximum(norms, bound))


def fedavg(X, y, rounds, local_epochs, update_clip, sigma, noise, rng,
           learning_rate=LEARNING_RATE) -> np.ndarray:
    """Federated averaging (McMahan et al. 2017, Alg. 1 with all K clients in every round and
    full local batches, B = ∞; E = 1 is FedSGD), with clipped updates and Gaussian noise.

    X is (..., K, m, d): K clients with m records each. Every round:
      1. each client starts from the global w and takes E full-batch gradient steps on its own
         records: Δ_k = w_k − w;
      2. it clips its update: Δ_k ↦ Δ_k·min(1, S/‖Δ_k‖), S = update_clip;
      3. noise = "none":    w ← w + (1/K)·Σ_k Δ_k;
         noise = "central": w ← w + (1/K)·(Σ_k Δ_k + N(0, σ²I)), added by a trusted server;
         noise = "local":   w ← w + (1/K)·Σ_k (Δ_k + N(0, σ²I)), each client adds its own.
    Privacy unit: one client's whole dataset, replace-one, so each round is a Gaussian
    mechanism with Δ₂ = 2S, and `dp_gd_sigma(ε, δ, S, rounds)` calibrates σ for either
    place. The guarantees differ: central protects the released models, local also protects
    every message from the server. The noise left in the average differs too: σ/K central,
    σ/√K local. Returns the global weights after every round, shape (..., rounds + 1, d).
    """
    rng = check.generator(rng)
    X = check.finite_array("X", X)
    y = check.bits("y", y).astype(float)
    rounds = check.count("rounds", rounds)
    local_epochs = check.count("local_epochs", local_epochs)
    update_clip = check.positive("update_clip", update_clip)
    sigma = check.non_negative("sigma", sigma)
    learning_rate = check.positive("learning_rate", learning_rate)
    if noise not in NOISE_PLACES:
        raise ValueError(f"noise must be one of {NOISE_PLACES}, got {noise!r}")
    if X.ndim < 3:
        raise ValueError("X must have shape (..., K clients, m records, d features)")
    k, m, d = X.shape[-3:]
    w = np.zeros((*np.broadcast_shapes(X.shape[:-3], np.shape(y)[:-2]), d))
    history = [w]
    for _ in range(rounds):
        local = np.broadcast_to(w[..., None, :], (*w.shape[:-1], k, d))
        for _ in range(local_epochs):
            residuals = expit(np.einsum("...md,...d->...m", X, local)) - y
            local = local - learning_rate * np.einsum("...m,...md->...d", residuals, X) / m
        updates = _clip_vectors(local - w[..., None, :], update_clip)
        if noise == "local":
            updates = updates + sigma * rng.standard_normal(updates.shape)
        total = updates.sum(axis=-2)
        if noise == "central":
            total = total + sigma * rng.standard_normal(total.shape)
        w = w + total / k
        history.append(w)
    return np.stack(history, axis=-2)
