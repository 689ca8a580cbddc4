"""The privacy budget: the averaging attack it stops, and an accountant that enforces it.

- The averaging attack: ask the same Laplace-noised count again and again and average. The
  mean of m answers at scale b has standard deviation √2·b/√m, so its 95% band shrinks like
  1/√m until rounding the mean gives the exact count away ("Introduction to Differential
  Privacy" blog post, Fig. 5: count 4, ε = 0.5, "about 130 queries").
- The budget: an analyst gets a total ε_T. Every answer costs its ε, spends add up by basic
  composition (Dwork & Roth 2014, Thm 3.16), and the accountant refuses any query that would
  take the total past ε_T. Splitting ε_T over k answers makes each answer k times noisier.
- A small game: a hidden, seeded clinic dataset that the analyst may query (counts, clipped
  means, histograms) through the accountant.

Neighbouring datasets in the game are replace-one (n is public), so a count has Δ = 1, a
histogram Δ = 2 and a mean of values clipped to [L, U] has Δ = (U − L)/n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtri

from dp import _checks as check
from dp.accounting import advanced_composition, basic_composition
from dp.noise import laplace_mechanism, laplace_scale

# Spends are floats: ten queries at ε = 0.1 must fit a budget of 1 despite round-off.
TOLERANCE = 1e-9


def z_value(confidence=0.95) -> float:
    """The two-sided normal quantile z = Φ⁻¹((1 + confidence)/2): 1.96 for 95%."""
    return float(ndtri((1 + check.open_unit("confidence", confidence)) / 2))


def laplace_half_width(scale, confidence=0.95) -> float:
    """Half-width t of the interval that holds one Lap(b) draw with the given probability.

    Pr[|Y| > t] = e^{−t/b} (Dwork & Roth 2014, Fact 3.7), so t = b·ln(1/(1 − confidence)):
    b·ln 20 ≈ 3·b at 95%.
    """
    b = check.positive("scale", scale)
    confidence = check.open_unit("confidence", confidence)
    return b * math.log(1 / (1 - confidence))


def average_sd(epsilon, k, sensitivity=1.0) -> float:
    """Standard deviation of the mean of k independent Lap(Δ/ε) answers: √2·(Δ/ε)/√k.

    Var Lap(b) = 2b², and averaging k independent draws divides the variance by k.
    """
    b = laplace_scale(sensitivity, epsilon)
    k = check.count("k", k)
    return math.sqrt(2 / k) * b


def combine_answers(answers, scales, confidence=0.95) -> tuple[float | np.ndarray, float]:
    """Pool independent Laplace answers to one query: the inverse-variance weighted mean.

    Answer i has noise Lap(b_i), variance 2b_i²; weights w_i = 1/(2b_i²) give the unbiased
    combination with the smallest variance, 1/Σw_i, and the normal-approximation band
    ± z/√(Σ w_i). With equal scales this is the plain mean ± z·√2·b/√k. `answers` has one row
    per answer (a histogram answer is a row of buckets).
    """
    answers = check.finite_array("answers", answers)
    scales = check.finite_array("scales", scales)
    if np.any(scales <= 0) or scales.ndim != 1 or scales.size != answers.shape[0]:
        raise ValueError("scales must hold one number > 0 per answer")
    weights = 1 / (2 * scales**2)
    estimate = np.tensordot(weights, answers, axes=1) / weights.sum()
    half_width = z_value(confidence) / math.sqrt(weights.sum())
    return (estimate if estimate.ndim else float(estimate)), half_width


# --- the averaging attack ------------------------------------------------------------------


def attack_threshold(epsilon, sensitivity=1.0, half_width=0.5, confidence=0.95) -> float:
    """(z·√2·b/h)²: the averaging attack's band is narrower than ± h once m exceeds this.

    `dp.averaging_attack_queries` returns the next integer, ⌊·⌋ + 1.
    """
    b = laplace_scale(sensitivity, epsilon)
    half_width = check.positive("half_width", half_width)
    return (z_value(confidence) * math.sqrt(2) * b / half_width) ** 2


def running_mean_band(answers, scale, confidence=0.95) -> tuple[np.ndarray, np.ndarray]:
    """The running mean of the answers and the half-width of its normal-approximation band.

    After m answers with Lap(b) noise, the mean has standard deviation √2·b/√m, so

        mean_m ± z·√2·b/√m,   z = Φ⁻¹((1 + confidence)/2),

    is an approximate confidence interval for the true value (the blog's shaded band). The
    half-width is the one `dp.averaging_attack_queries` compares with the corridor. Works
    along the last axis, so `answers` may hold many runs, one per row.
    """
    answers = check.finite_array("answers", answers)
    b = check.positive("scale", scale)
    m = np.arange(1, answers.shape[-1] + 1)
    means = np.cumsum(answers, axis=-1) / m
    return means, z_value(confidence) * math.sqrt(2) * b / np.sqrt(m)


def first_inside(means, half_widths, truth, corridor=0.5):
    """The first m (1-based) at which the whole band mean_m ± h_m lies inside truth ± corridor.

    That is the query at which an attacker is ~95% sure of the rounded count: the band can
    only fit once h_m < corridor, i.e. never before `dp.averaging_attack_queries`, and later
    the further the running mean sits from the truth. Returns 0 where it never happens in the
    window; an int for one run, an int array for many (rows).
    """
    means = check.finite_array("means", means)
    half_widths = check.finite_array("half_widths", half_widths)
    truth = float(check.finite_array("truth", truth))
    corridor = check.positive("corridor", corridor)
    inside = np.abs(means - truth) + half_widths <= corridor
    first = np.where(inside.any(axis=-1), inside.argmax(axis=-1) + 1, 0)
    return int(first) if first.ndim == 0 else first


def settled_from(means, truth, corridor=0.5) -> int:
    """The first m from which the running mean stays within truth ± corridor to the end.

    From there on, rounding the mean gives the true count every time, though the attacker,
    who does not know the truth, cannot yet tell. Returns 0 if the last mean is outside.
    """
    means = check.finite_array("means", means)
    truth = float(check.finite_array("truth", truth))
    corridor = check.positive("corridor", corridor)
    outside = np.nonzero(np.abs(means - truth) >= corridor)[0]
    if outside.size == 0:
        return 1
    last = int(outside[-1]) + 1  # 1-based index of the last query outside
    return 0 if last == means.size else last + 1


def simulate_averaging_attack(rng, epsilon, queries, runs, sensitivity=1.0, corridor=0.5,
                              confidence=0.95) -> np.ndarray:
    """`first_inside` for `runs` independent attacks of `queries` answers each, at ε per answer.

    Only the noise matters (the mean minus the truth is the mean of the noise), so the true
    count is 0 here. Returns one int per run, 0 for runs where the band never fits.
    """
    rng = check.generator(rng)
    queries = check.count("queries", queries)
    runs = check.count("runs", runs)
    noise = laplace_mechanism(np.zeros((runs, queries)), sensitivity, epsilon, rng)
    means, half_widths = running_mean_band(noise, laplace_scale(sensitivity, epsilon),
                                           confidence)
    return first_inside(means, half_widths, 0.0, corridor)


def averaged_laplace_samples(rng, n, value, epsilon, k, sensitivity=1.0) -> np.ndarray:
    """n draws of the mean of k Laplace answers to the same query, f(D) = value, ε each.

    Sampled as an aggregate: Lap(b) = E₁ − E₂ with E_i ~ Exp(b), so the sum of k answers' noise
    is G₁ − G₂ with G_i ~ Gamma(k, b), and the mean is value + (G₁ − G₂)/k. The k answers
    together are kε-DP by basic composition, and so is their mean (post-processing).
    """
    rng = check.generator(rng)
    n = check.count("n", n)
    k = check.count("k", k)
    value = float(check.finite_array("value", value))
    b = laplace_scale(sensitivity, epsilon)
    return value + (rng.gamma(k, b, n) - rng.gamma(k, b, n)) / k


def at_least(outputs, threshold) -> np.ndarray:
    """The event S = {output ≥ threshold}, for auditing."""
    return np.asarray(outputs) >= threshold


# --- the budget ------------------------------------------------------------------------------


def disclosure_budget(sensitivity=1.0, half_width=0.5, confidence=0.95) -> float:
    """The smallest total ε_T with which Laplace answers can pin a value to ± half_width.

    Spend ε_T on k answers of ε_T/k each (basic composition). Their mean has band
    z·√2·(kΔ/ε_T)/√k = z·√(2k)·Δ/ε_T, which is narrowest at k = 1, so the band is narrower
    than h only if ε_T > z·√2·Δ/h: about 5.5 for a count at 95% and h = ½. Splitting the
    budget never helps the attacker; a budget below this stops the averaging attack.
    """
    sensitivity = check.positive("sensitivity", sensitivity)
    half_width = check.positive("half_width", half_width)
    return z_value(confidence) * math.sqrt(2) * sensitivity / half_width


def laplace_disclosure_budget(sensitivity=1.0, half_width=0.5, confidence=0.95) -> float:
    """The smallest total ε_T with which one Laplace answer lies within ± half_width at 95%.

    One answer at ε_T has scale b = Δ/ε_T and Pr[|Y| > t] = e^{−t/b}, so its exact interval
    is ± b·ln(1/(1 − confidence)) (`laplace_half_width`), inside ± h once
    ε_T > Δ·ln(1/(1 − confidence))/h: ln 20/0.5 ≈ 5.99 for a count at 95% and h = ½.
    Spending ε_T on one answer is the best split for averaging: k answers of ε_i (Σε_i = ε_T)
    pool to a standard deviation `pooling_penalty` times larger. `disclosure_budget` is
    the normal-approximation version, z·√2·Δ/h ≈ 5.54, which is optimistic for one answer.
    """
    sensitivity = check.positive("sensitivity", sensitivity)
    half_width = check.positive("half_width", half_width)
    return laplace_half_width(sensitivity, confidence) / half_width


def pooling_penalty(epsilons) -> float:
    """How many times wider the pooled answers are than one answer bought with their total ε.

    k Laplace answers to one query at ε_1 … ε_k (scales Δ/ε_i, variances 2Δ²/ε_i²) pool,
    weighted by precision, to variance 2Δ²/Σε_i²; one answer at Σε_i has variance
    2Δ²/(Σε_i)². The ratio of standard deviations is

        Σε_i / √(Σε_i²) ≥ 1   (Cauchy–Schwarz),

    exactly √k when all ε_i are equal, and close to 1 when one answer holds almost all of ε.
    """
    epsilons = check.finite_array("epsilons", epsilons)
    if epsilons.ndim != 1 or epsilons.size == 0 or np.any(epsilons <= 0):
        raise ValueError("epsilons must hold one number > 0 per answer")
    return float(epsilons.sum() / np.sqrt(np.sum(epsilons**2)))


def advanced_split_crossover(total, delta_prime, k_max=1000) -> int | None:
    """The smallest k ≤ k_max at which advanced composition lets each of k queries spend more.

    Compares `per_query_epsilon(total, k, δ′)` with basic composition's ε_T/k, for every
    k = 1, 2, … in turn (no grid skips a k). For small per-query ε advanced composition costs
    about ε·√(2k·ln(1/δ′)), less than kε once k > 2·ln(1/δ′) (about 28 at δ′ = 10⁻⁶); its
    second term kε(e^ε − 1) pushes the crossover later for large budgets. None if advanced
    composition never wins up to k_max.
    """
    total = check.positive("total", total)
    delta_prime = check.open_unit("delta_prime", delta_prime)
    k_max = check.count("k_max", k_max)
    for k in range(1, k_max + 1):
        if per_query_epsilon(total, k, delta_prime) > total / k:
            return k
    return None


def per_query_epsilon(total, k, delta_prime=None) -> float:
    """The ε each of k queries may use so that all k together stay within the budget.

    - Basic composition (delta_prime None): ε = ε_T/k (Dwork & Roth 2014, Thm 3.16).
    - Advanced composition at δ′: the largest ε with √(2k ln(1/δ′))·ε + kε(e^ε − 1) ≤ ε_T, so
      that the k queries are (ε_T, δ′)-DP (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014,
      Thm 3.20), found by root finding. For small k this is *smaller* than ε_T/k.
    """
    total = check.positive("total", total)
    k = check.count("k", k)
    if delta_prime is None:
        return total / k
    delta_prime = check.open_unit("delta_prime", delta_prime)

    def excess(eps: float) -> float:
        return advanced_composition(eps, 0.0, k, delta_prime)[0] - total

    hi = total
    while excess(hi) < 0:  # only when 2k·ln(1/δ′) < 1: the bound is then below kε
        hi *= 2
    eps = brentq(lambda e: excess(e) if e > 0 else -total, 0.0, hi, xtol=1e-12 * total,
                 rtol=1e-12)
    while excess(eps) > 0:  # the root is only found to ~1e-12: step below it
        eps *= 1 - 1e-12
    return float(eps)


class BudgetExceeded(ValueError):
    """A query the accountant refuses: its message says why and what is left."""


@dataclass
class PrivacyAccountant:
    """Tracks the ε spent on one dataset and refuses queries past the total budget ε_T.

    Refusal is by basic composition, Σ ε_i ≤ ε_T, which stays valid when the analyst picks
    each ε_i after seeing earlier answers (a "privacy filter", Rogers, Roth, Ullman & Vadhan
    2016). `advanced` reports the advanced-composition bound for comparison.
    """

    total: float
    spends: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.total = check.positive("total", self.total)

    @property
    def spent(self) -> float:
        return basic_composition(self.spends)[0] if self.spends else 0.0

    @property
    def remaining(self) -> float:
        left = self.total - self.spent
        return left if left > self.total * TOLERANCE else 0.0  # round-off is not budget

    def can_afford(self, epsilon) -> bool:
        epsilon = check.positive("epsilon", epsilon)
        return self.spent + epsilon <= self.total * (1 + TOLERANCE)

    def affordable(self, epsilon) -> int:
        """How many more queries at this ε the budget allows."""
        epsilon = check.positive("epsilon", epsilon)
        return math.floor(self.remaining / epsilon + TOLERANCE)

    def charge(self, epsilon) -> None:
        """Record a spend of ε, or raise BudgetExceeded and record nothing."""
        epsilon = check.positive("epsilon", epsilon)
        if self.can_afford(epsilon):
            self.spends.append(epsilon)
            return
        if self.remaining == 0:
            raise BudgetExceeded(
                f"Refused: the whole budget ε_T = {self.total:g} is spent. The accountant will "
                "not answer any more questions about this dataset, at any ε."
            )
        raise BudgetExceeded(
            f"Refused: this query costs ε = {epsilon:g}, but only {self.remaining:.4g} of the "
            f"budget ε_T = {self.total:g} is left ({self.spent:.4g} spent). Ask at "
            f"ε ≤ {self.remaining:.4g}, or stop here."
        )

    def advanced(self, delta_prime) -> tuple[float, float] | None:
        """(ε′, δ′) from advanced composition of the spends so far, each counted at the largest ε.

        Every ε_i-DP answer is also max ε_i-DP, so k answers are (ε′, δ′)-DP with ε′ from
        `dp.advanced_composition(max ε_i, 0, k, δ′)`. This holds when the ε's and k are fixed in
        advance; with ε's chosen on the fly a filter needs slightly larger constants (Rogers et
        al. 2016), which is one reason the accountant refuses by the basic total. None before
        any spend.
        """
        if not self.spends:
            return None
        return advanced_composition(max(self.spends), 0.0, len(self.spends), delta_prime)


# --- the game: a hidden clinic dataset --------------------------------------------------------

GAME_N = 100  # patients; public under replace-one neighbours
REGIONS = ("North", "East", "South", "West")
AGE_GROUPS = ("18–34", "35–49", "50–64", "65+")
AGE_EDGES = (35, 50, 65)
AGE_RANGE = (18, 90)  # years; ages are drawn inside it, so clipping never bites
BP_RANGE = (90, 200)  # systolic blood pressure, mmHg


@dataclass(frozen=True)
class Question:
    kind: str  # "count", "mean" or "histogram"
    label: str
    short: str  # for a narrow log table
    bounds: tuple[float, float] | None = None  # clipping range of a mean
    categories: tuple[str, ...] | None = None  # buckets of a histogram


QUESTIONS = {
    "heart_attack": Question("count", "Count: patients with a heart attack this year",
                             "# heart attacks"),
    "smokers": Question("count", "Count: patients who smoke", "# smokers"),
    "over_65": Question("count", "Count: patients aged 65 or over", "# aged 65+"),
    "high_bp": Question("count", "Count: patients with blood pressure ≥ 140 mmHg",
                        "# BP ≥ 140"),
    "mean_age": Question("mean", "Mean: age in years, clipped to [18, 90]", "mean age",
                         AGE_RANGE),
    "mean_bp": Question("mean", "Mean: blood pressure in mmHg, clipped to [90, 200]",
                        "mean BP", BP_RANGE),
    "regions": Question("histogram", "Histogram: patients per region", "per region",
                        categories=REGIONS),
    "age_groups": Question("histogram", "Histogram: patients per age group", "per age group",
                           categories=AGE_GROUPS),
}


def _question(key: str) -> Question:
    if key not in QUESTIONS:
        raise ValueError(f"question must be one of {tuple(QUESTIONS)}, got {key!r}")
    return QUESTIONS[key]


def clinic_data(rng, n=GAME_N) -> dict[str, np.ndarray]:
    """A made-up clinic: n patients with age, region, smoking, blood pressure, heart attack.

    Heart attacks are rare (a few per hundred, more for older smokers), like the blog's
    secret count of 4.
    """
    rng = check.generator(rng)
    n = check.count("n", n)
    age = np.clip(np.rint(rng.normal(50, 17, n)), *AGE_RANGE).astype(int)
    smoker = rng.random(n) < 0.22
    bp = np.clip(np.rint(rng.normal(100 + 0.5 * age + 6 * smoker, 14)), *BP_RANGE).astype(int)
    region = rng.choice(len(REGIONS), size=n, p=[0.3, 0.2, 0.3, 0.2])
    risk = 0.01 + 0.04 * (age >= 65) + 0.04 * smoker
    heart_attack = rng.random(n) < risk
    return {"age": age, "region": region, "smoker": smoker, "blood_pressure": bp,
            "heart_attack": heart_attack}


def true_answer(data, key):
    """The exact answer to a question: a float (count, mean) or an array (histogram)."""
    q = _question(key)
    age = data["age"]
    if key == "heart_attack":
        return float(data["heart_attack"].sum())
    if key == "smokers":
        return float(data["smoker"].sum())
    if key == "over_65":
        return float((age >= 65).sum())
    if key == "high_bp":
        return float((data["blood_pressure"] >= 140).sum())
    if q.kind == "mean":
        column = age if key == "mean_age" else data["blood_pressure"]
        return float(np.clip(column, *q.bounds).mean())
    groups = data["region"] if key == "regions" else np.digitize(age, AGE_EDGES)
    return np.bincount(groups, minlength=len(q.categories)).astype(float)


def question_sensitivity(key, n=GAME_N) -> float:
    """Δ under replace-one neighbours: 1 for a count, 2 for a histogram, (U − L)/n for a mean.

    Dwork & Roth 2014, §3.3: replacing one record moves a count by at most 1, moves one
    person between two buckets, and moves a clipped sum by at most U − L.
    """
    q = _question(key)
    n = check.count("n", n)
    if q.kind == "count":
        return 1.0
    if q.kind == "histogram":
        return 2.0
    lower, upper = q.bounds
    return (upper - lower) / n


@dataclass(frozen=True)
class LogEntry:
    number: int
    question: str
    epsilon: float
    answer: float | np.ndarray  # the noisy release
    half_width: float  # 95% of releases fall within ± this of the truth (per bucket)
    spent: float  # total spent after this query (basic composition)


class GameOver(ValueError):
    """A query after the data has been revealed."""


class BudgetGame:
    """One analyst against one hidden dataset, with an accountant in between.

    The dataset and every answer's noise come from one generator `rng`, so the same seed and
    the same questions give the same game. A refused query never touches the data.
    """

    def __init__(self, total, rng, n=GAME_N):
        self.rng = check.generator(rng)
        self.n = check.count("n", n)
        self.data = clinic_data(self.rng, self.n)
        self.accountant = PrivacyAccountant(total)
        self.log: list[LogEntry] = []
        self.revealed = False

    @property
    def total(self) -> float:
        return self.accountant.total

    def ask(self, key, epsilon) -> LogEntry:
        """Answer one question with Laplace noise at ε, after the accountant agrees."""
        _question(key)
        if self.revealed:
            raise GameOver("The data has been revealed, so this game is over: start a new game "
                           "to query a fresh dataset.")
        self.accountant.charge(epsilon)
        sensitivity = question_sensitivity(key, self.n)
        answer = laplace_mechanism(true_answer(self.data, key), sensitivity, epsilon, self.rng)
        entry = LogEntry(len(self.log) + 1, key, float(epsilon), answer,
                         laplace_half_width(laplace_scale(sensitivity, epsilon)),
                         self.accountant.spent)
        self.log.append(entry)
        return entry

    def ask_until_refused(self, key, epsilon, limit=2000) -> list[LogEntry]:
        """The averaging attack against the accountant: ask again and again until refused."""
        limit = check.count("limit", limit)
        times = min(limit, self.accountant.affordable(epsilon))
        return [self.ask(key, epsilon) for _ in range(times)]

    def answers_to(self, key) -> list[LogEntry]:
        return [entry for entry in self.log if entry.question == key]

    def reveal(self) -> None:
        """End the game: from now on the true answers may be shown, and no query is answered."""
        self.revealed = True
