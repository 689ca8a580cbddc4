"""Local DP for one yes/no question: randomized response in the notes' parametrisations,
its accuracy next to central counting, and what one answer tells a Bayesian attacker.

Three ways to name the same randomized-response mechanism (all vectorised):

- ε, the privacy-loss bound:              Pr[report = truth] = q = e^ε/(1 + e^ε);
- α, the CSE 312 notes' parameter:         q = ½ + α, so α = (e^ε − 1)/(2(e^ε + 1));
- h, the first coin of the two-coin protocol (DDA4210 slides; Dwork & Roth 2014, §3.2):
  answer truthfully on heads (probability h), otherwise answer with a fair second coin,
  so q = h + (1 − h)/2 = (1 + h)/2 and h = 2α.

The CSE 312 theorem states α = (e^ε − 1)/(e^ε + 1): that is h, not α (a factor 2 is lost).

Neighbouring relation: replace-one. Locally, D and D′ are one person's two possible answers;
centrally, two datasets of n people that differ in one person's answer (n is public).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from dp import _checks as check
from dp.noise import laplace_mechanism
from dp.randomized_response import rr_simulate


def _scalar_or_array(values):
    values = np.asarray(values)
    return values if values.ndim else float(values)


def _epsilons(epsilon) -> np.ndarray:
    arr = check.finite_array("epsilon", epsilon)
    if np.any(arr <= 0):
        raise ValueError("epsilon must be > 0")
    return arr


def _unit_array(name: str, values) -> np.ndarray:
    arr = check.finite_array(name, values)
    if np.any((arr < 0) | (arr > 1)):
        raise ValueError(f"{name} must be in [0, 1]")
    return arr


def _counts(name: str, values) -> np.ndarray:
    arr = check.finite_array(name, values)
    if np.any(arr < 1) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must contain integers ≥ 1")
    return arr


def rr_alpha(epsilon):
    """The notes' α for ε-DP randomized response: α = q − ½ = (e^ε − 1)/(2(e^ε + 1)).

    Equal to tanh(ε/2)/2, computed as expit(ε) − ½ (no overflow at large ε). Fair coins
    (ε = ln 3) give α = ¼. (CSE 312 notes, with keep = ½ + α; Warner 1965.)
    """
    return _scalar_or_array(expit(_epsilons(epsilon)) - 0.5)


def lecture_theorem_alpha(epsilon):
    """The CSE 312 theorem's α = (e^ε − 1)/(e^ε + 1) = tanh(ε/2): twice the right α.

    It is the first coin's heads probability h, not α. Used as α it makes
    Pr[report = truth] = ½ + tanh(ε/2), which is 1 at ε = ln 3 (everyone answers
    truthfully: not DP for any ε) and above 1, not a probability, for ε > ln 3.
    """
    return _scalar_or_array(np.tanh(_epsilons(epsilon) / 2))


def alpha_epsilon(alpha):
    """The ε of randomized response with keep = ½ + α: ε = ln((1 + 2α)/(1 − 2α)).

    α in (0, ½]; α = ½ means every answer is the truth, which is ε-DP for no finite ε
    (returns inf). CSE 312 notes, "Randomized Response".
    """
    arr = check.finite_array("alpha", alpha)
    if np.any((arr <= 0) | (arr > 0.5)):
        raise ValueError("alpha must be in (0, 0.5]")
    with np.errstate(divide="ignore"):
        return _scalar_or_array(np.log1p(2 * arr) - np.log1p(-2 * arr))


def coin_keep_probability(heads_probability):
    """The two-coin protocol: q = h + (1 − h)·½ = (1 + h)/2.

    Heads on the first coin (probability h): tell the truth. Tails: flip a fair second
    coin and say Yes on heads, No on tails, which matches the truth half the time.
    Fair coins (h = ½) give q = ¾ (DDA4210, "Privacy in Machine Learning").
    """
    return _scalar_or_array((1 + _unit_array("heads_probability", heads_probability)) / 2)


def coin_heads_probability(epsilon):
    """The first coin's heads probability for ε-DP: h = 2q − 1 = tanh(ε/2)."""
    return _scalar_or_array(np.tanh(_epsilons(epsilon) / 2))


def coin_report(truth: int, first_heads: bool, second_heads: bool) -> int:
    """One respondent's answer in the two-coin protocol (1 = Yes, 0 = No).

    Heads on the first coin: the truth. Otherwise the second coin decides: heads → Yes.
    """
    if truth not in (0, 1):
        raise ValueError(f"truth must be 0 or 1, got {truth!r}")
    return int(truth) if first_heads else int(bool(second_heads))


def randomized_response_alpha(bits, alpha, rng):
    """The notes' mechanism: y = x with probability ½ + α, y = 1 − x with ½ − α.

    α in [0, ½]. With α = rr_alpha(ε) it is ε-local-DP; with α = ½ it releases the truth.
    """
    rng = check.generator(rng)
    bits = check.bits("bits", bits)
    alpha = check.unit("alpha", alpha)
    if alpha > 0.5:
        raise ValueError(f"alpha must be in [0, 0.5], got {alpha!r}: ½ + α is a probability")
    flip = rng.random(bits.shape) >= 0.5 + alpha
    return np.where(flip, 1 - bits, bits)


def rr_yes_share(true_fraction, epsilon):
    """Share of Yes reports: (1 − q) + (2q − 1)·π, for q = e^ε/(1 + e^ε).

    With the true fraction π it is the expected share; with a debiased estimate π̂ it
    gives back the observed share, since the debiasing map is its inverse.
    """
    pi = check.finite_array("true_fraction", true_fraction)
    q = expit(_epsilons(epsilon))
    return _scalar_or_array((1 - q) + (2 * q - 1) * pi)


def rr_estimate_step(n, epsilon) -> float:
    """Spacing of the possible debiased estimates from n reports: 1/(n(2q − 1)).

    π̂ = (k/n − (1 − q))/(2q − 1) for k = 0 … n Yes reports, so one more Yes moves π̂ by this.
    """
    n = check.count("n", n)
    q = float(expit(check.positive("epsilon", epsilon)))
    return 1.0 / (n * (2 * q - 1))


def population_fraction(n, true_fraction):
    """The fraction actually holding a 1 among n people: round(n·π)/n (as in rr_simulate)."""
    n = check.count("n", n)
    return round(n * check.unit("true_fraction", true_fraction)) / n


def rr_rmse(n, epsilon):
    """Root-mean-square error of the debiased RR estimate of a fraction among n people:

        √(q(1 − q)/n) / (2q − 1),   q = e^ε/(1 + e^ε),

    the standard deviation of an unbiased estimator (Warner 1965). It does not depend on
    π because the n people are the whole population: all error comes from the coins.
    Behaves like 1/(ε√n) for small ε (q ≈ ½ + ε/4). Vectorised in n and ε.
    """
    n = _counts("n", n)
    q = expit(_epsilons(epsilon))
    return _scalar_or_array(np.sqrt(q * (1 - q) / n) / (2 * q - 1))


def central_rmse(n, epsilon):
    """RMSE of (count + Lap(1/ε))/n, the central-model estimate of the same fraction:

        √2·b/n with b = Δ/ε and Δ = 1 (replace-one changes the count by at most 1).

    Var Lap(b) = 2b² (Dwork & Roth 2014, Thm 3.6; DDA4210 "RR versus Laplace").
    """
    n = _counts("n", n)
    return _scalar_or_array(np.sqrt(2) / (_epsilons(epsilon) * n))


def local_central_ratio(n, epsilon):
    """rr_rmse / central_rmse = √n · ε·√(q(1 − q)) / (√2·(2q − 1)): the local model's
    error is a factor ≈ √n larger (≈ √(n/2) ≈ 0.71·√n for small ε; 0.67·√n at ε = ln 3)."""
    return _scalar_or_array(np.asarray(rr_rmse(n, epsilon)) / np.asarray(central_rmse(n, epsilon)))


def local_n_to_match_central(n, epsilon):
    """How many people a local RR survey needs to be as accurate as the central release
    for n people: the n′ with rr_rmse(n′) = central_rmse(n), i.e. n′ = n·ratio²,
    which grows like n² (ratio from local_central_ratio)."""
    return _scalar_or_array(np.asarray(n, dtype=float) * np.asarray(local_central_ratio(n, epsilon)) ** 2)


def sampling_rmse(n, true_fraction):
    """√(π(1 − π)/n): the error of the truthful sample mean when the n people are a
    random sample from a larger population (no privacy). DDA4210 compares RR with it:
    with fair coins (q = ¾) the RR estimate's variance is at least 4× this once sampling
    and coin noise are both counted (exactly 4× at π = ½)."""
    n = _counts("n", n)
    pi = check.unit("true_fraction", true_fraction)
    return _scalar_or_array(np.sqrt(pi * (1 - pi) / n))


def central_simulate(n, true_fraction, epsilon, rng, trials=1) -> np.ndarray:
    """`trials` central estimates (count + Lap(1/ε))/n of the fraction round(n·π)/n."""
    rng = check.generator(rng)
    n = check.count("n", n)
    trials = check.count("trials", trials)
    ones = round(n * check.unit("true_fraction", true_fraction))
    return np.asarray(laplace_mechanism(np.full(trials, float(ones)), 1.0, epsilon, rng)) / n


def simulated_rmse(n_values, true_fraction, epsilon, rng, trials=200, model="local") -> np.ndarray:
    """Monte-Carlo RMSE of the local (rr_simulate) or central estimate at each n.

    Each entry is √(mean((π̂ − round(nπ)/n)²)) over `trials` surveys; its relative
    standard error is about 1/√(2·trials) for the local (Gaussian-like) model.
    """
    if model not in ("local", "central"):
        raise ValueError(f"model must be 'local' or 'central', got {model!r}")
    simulate = rr_simulate if model == "local" else central_simulate
    out = []
    for n in n_values:
        n = check.count("n", n)
        errors = simulate(n, true_fraction, epsilon, rng, trials=trials) - population_fraction(n, true_fraction)
        out.append(float(np.sqrt(np.mean(errors**2))))
    return np.array(out)


def rr_posterior(prior, epsilon, report: int = 1):
    """Pr[truth = 1 | report] by Bayes' rule with the RR likelihoods q and 1 − q:

        after Yes:  p·q / (p·q + (1 − p)(1 − q)),
        after No:   p(1 − q) / (p(1 − q) + (1 − p)·q).

    The prior odds are multiplied by exactly e^ε (Yes) or e^−ε (No), the most ε-DP allows
    (compare dp.posterior_bounds). Tammy: p = 0.02, ε = ln 3, Yes → 0.015/0.26 ≈ 0.058
    (DDA4210, "Privacy in Machine Learning").
    """
    p = _unit_array("prior", prior)
    q = expit(_epsilons(epsilon))
    if report not in (0, 1):
        raise ValueError(f"report must be 0 (No) or 1 (Yes), got {report!r}")
    like_1, like_0 = (q, 1 - q) if report == 1 else (1 - q, q)
    return _scalar_or_array(p * like_1 / (p * like_1 + (1 - p) * like_0))


def yes_rates(reports_truth_yes, reports_truth_no) -> tuple[float, float, float]:
    """(Pr̂[Yes | truth Yes], Pr̂[Yes | truth No], their ratio) from two sets of reports.

    The ratio estimates e^ε; it is inf when no truth-No respondent said Yes (and nan
    when nobody in either group did).
    """
    yes = float(check.bits("reports_truth_yes", reports_truth_yes).mean())
    no = float(check.bits("reports_truth_no", reports_truth_no).mean())
    if no > 0:
        return yes, no, yes / no
    return yes, no, float("inf") if yes > 0 else float("nan")
