"""What ε means for one person: odds, the most an attacker can become sure, and what δ adds.

ε-DP bounds the likelihood ratio of every output between neighbouring datasets by e^ε.
By Bayes' rule an attacker's odds that you are in the data (or that your record holds one
value rather than another) are then multiplied by at most e^ε, whatever she believed before
and whatever the release shows (dp.attacks.posterior_bounds). This module turns that into
the numbers the "What are the chances?" panel shows, following the odds-based explanations
that Nanayakkara et al. ("What Are the Chances?", USENIX Security 2022) found people
understand best.

With δ > 0 the definition reads Pr[M(D) ∈ S] ≤ e^ε·Pr[M(D′) ∈ S] + δ: every probability may
grow by the factor e^ε *plus* δ. δ is that additive slack, not "the probability that privacy
fails"; what it means is that events of probability about δ or less are not protected at all
(`event_probability_bound`).

A `Release` says what a page publishes, so that the panel can say how rare the outputs are
on which the e^ε bound fails: never for a pure ε-DP mechanism; Pr[L > ε] in closed form for a
Gaussian release; from the privacy-loss distribution for k Laplace releases; at most the
chance of a known bad event for mechanisms built that way (propose-test-release, a noisy
bound shifted up by ln(1/δ)/ε).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, logit, ndtr, ndtri

from dp import _checks as check
from dp.accounting import laplace_composition_loss_exceeds
from dp.attacks import posterior_bounds

# The verdict bands, defined by what the bound lets a release do to an attacker who starts
# at even odds (a 50% prior, "a coin toss"): her belief can end at most at expit(ε).
#   ≤ 55%: the coin toss stays a coin toss      ε ≤ ln(55/45) = ln(11/9) ≈ 0.20
#   ≤ 75%: a tilt, not a verdict (3 to 1)        ε ≤ ln 3 ≈ 1.10 (randomized response with fair coins)
#   ≤ 95%: a strong tilt, short of certainty     ε ≤ ln 19 ≈ 2.94 (19 to 1, the usual "95% sure")
#   > 95%: the bound allows near-certainty       ε > ln 19
EVEN_ODDS_CEILINGS = (0.55, 0.75, 0.95)
BAND_EPSILONS = tuple(math.log(c / (1 - c)) for c in EVEN_ODDS_CEILINGS)
BANDS = ("strong", "moderate", "weak", "little")


def odds_multiplier(epsilon) -> float:
    """e^ε: the most one ε-DP release can multiply anyone's odds by (and 1/e^ε the least)."""
    epsilon = check.positive("epsilon", epsilon)
    return math.exp(epsilon)


def max_posterior(prior, epsilon):
    """The most sure an attacker can become after one ε-DP release, from a prior p:

        p·e^ε / (p·e^ε + 1 − p)  =  expit(logit(p) + ε)   (dp.attacks.posterior_bounds).

    Scalar or array prior in [0, 1].
    """
    return posterior_bounds(prior, epsilon)[1]


def min_posterior(prior, epsilon):
    """The least sure she can become: expit(logit(p) − ε) (dp.attacks.posterior_bounds)."""
    return posterior_bounds(prior, epsilon)[0]


def protection_band(epsilon) -> str:
    """Which of BANDS the release falls in, by the most a 50% prior can become (see above).

    "strong" for ε ≤ ln(11/9), "moderate" for ε ≤ ln 3, "weak" for ε ≤ ln 19, else "little".
    """
    epsilon = check.positive("epsilon", epsilon)
    even = max_posterior(0.5, epsilon)
    for band, ceiling in zip(BANDS, EVEN_ODDS_CEILINGS, strict=False):
        if even <= ceiling:
            return band
    return BANDS[-1]


def event_probability_bound(probability, epsilon, delta=0.0):
    """The most likely an event can become once you are in the data, if its probability
    without you is `probability`:  min(1, e^ε·probability + δ)  ((ε, δ)-DP, Dwork & Roth
    2014, Def. 2.4). With δ > 0 an event of probability 0 without you may have probability
    δ with you: events rarer than about δ are not protected.
    """
    p = check.finite_array("probability", probability)
    if np.any((p < 0) | (p > 1)):
        raise ValueError("probability must be in [0, 1]")
    epsilon = check.positive("epsilon", epsilon)
    delta = check.delta_or_zero("delta", delta)
    with np.errstate(over="ignore"):
        bound = np.minimum(1.0, np.exp(epsilon) * p + delta)
    return bound if bound.ndim else float(bound)


def delta_per_person(delta, n) -> float:
    """n·δ: the records a mechanism could publish outright, in expectation, and still be
    (ε, δ)-DP (release each record with probability δ). Below 1 only when δ < 1/n, which is
    why δ must be far below 1/n (Dwork & Roth 2014, §2.3)."""
    delta = check.delta_or_zero("delta", delta)
    n = check.count("n", n)
    return n * delta


# Outputs on which the e^ε bound fails are called rare when their chance is at most this
# (one release in a thousand); above it the panel gives no protection verdict for the ε part.
RARE_CHANCE = 1e-3
UNITS = ("person", "tie")  # whose presence the guarantee hides: a person (a record) or a tie of a graph
LOSSES = ("bounded", "gaussian", "laplace-sum", "bad-event")


@dataclass(frozen=True)
class Release:
    """What one page publishes, as far as the odds panel needs to know it.

    epsilon, delta: the guarantee the panel explains. `loss` says how the privacy loss
    L = ln(P(y)/Q(y)) of an output behaves (P: the data with you, Q: without):

    - "bounded": |L| ≤ ε on every output (pure ε-DP: Laplace, randomized response, …);
    - "gaussian": L ~ N(μ²/2, μ²) with μ = Δ/σ (Balle & Wang 2018, Lemma 3), for one
      Gaussian release or several composed (μ = √k·Δ/σ); no ceiling at all;
    - "laplace-sum": the sum of `queries` Laplace losses of range ±`per_query` (= Δ/b) each;
      never above queries·per_query (basic composition);
    - "bad-event": |L| ≤ ε except on an event whose chance is at most `bad_event`, whichever
      neighbour holds (propose-test-release; a degree bound shifted up by ln(1/δ)/ε).

    `unit` is what a neighbouring dataset changes ("person", or "tie" under edge privacy) and
    `units` how many there are (n people, m ties), the count δ is compared with.
    `degree` (ties only): the most ties one person has, for the group-privacy sentence.
    """

    epsilon: float
    delta: float = 0.0
    loss: str = "bounded"
    mu: float = 0.0
    per_query: float = 0.0
    queries: int = 1
    bad_event: float = 0.0
    unit: str = "person"
    units: int | None = None
    degree: int | None = None

    def __post_init__(self):
        check.positive("epsilon", self.epsilon)
        check.delta_or_zero("delta", self.delta)
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {self.loss!r}")
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, got {self.unit!r}")
        if (self.loss == "bounded") != (self.delta == 0):
            raise ValueError("delta must be 0 exactly for a bounded (pure ε-DP) loss")
        if self.loss == "gaussian":
            check.positive("mu", self.mu)
        if self.loss == "laplace-sum":
            check.positive("per_query", self.per_query)
            check.count("queries", self.queries)
        if self.loss == "bad-event":
            check.unit("bad_event", self.bad_event)
        if self.units is not None:
            check.count("units", self.units)

    @property
    def ceiling(self) -> float:
        """The ε that holds on every output: ε, k·(Δ/b) for k Laplace releases, else ∞."""
        return {"bounded": self.epsilon,
                "laplace-sum": self.queries * self.per_query}.get(self.loss, math.inf)

    @property
    def exact(self) -> bool:
        """Whether `loss_exceeds` is the exact chance (in the worst case) rather than a bound."""
        return self.loss == "gaussian"

    def loss_exceeds(self, t) -> float | None:
        """Pr[L > t] with you in the data: exact for "gaussian", an upper bound otherwise,
        None where this release does not determine it (t below ε for "bounded"/"bad-event")."""
        t = float(t)
        if t >= self.ceiling:
            return 0.0
        if self.loss == "gaussian":  # Pr[N(μ²/2, μ²) > t]
            return float(ndtr((self.mu**2 / 2 - t) / self.mu))
        if self.loss == "laplace-sum":
            return laplace_composition_loss_exceeds(1 / self.per_query, self.queries, t)
        if self.loss == "bad-event" and t >= self.epsilon:
            return self.bad_event
        return None

    def log10_loss_exceeds(self, t) -> float | None:
        """log10 Pr[L > t], for chances too small for a float (a Gaussian far in its tail)."""
        if self.loss == "gaussian" and t < self.ceiling:
            return float(log_ndtr((self.mu**2 / 2 - float(t)) / self.mu)) / math.log(10)
        chance = self.loss_exceeds(t)
        return None if chance is None else (math.log10(chance) if chance > 0 else -math.inf)

    def rare_epsilon(self) -> float | None:
        """The smallest ε′ ≥ ε with Pr[L > ε′] ≤ RARE_CHANCE: the odds bound e^ε′ holds on all
        but one output in a thousand. None where the release does not fix it (a bad event
        likelier than RARE_CHANCE, beyond which nothing is known)."""
        if self.rare_chance() <= RARE_CHANCE:
            return self.epsilon
        if self.loss == "gaussian":  # the (1 − RARE_CHANCE) quantile of N(μ²/2, μ²)
            return max(self.epsilon, self.mu**2 / 2 + self.mu * float(ndtri(1 - RARE_CHANCE)))
        if self.loss == "laplace-sum":  # Pr[L > t] falls with t, to 0 at the ceiling: bisect
            low, high = self.epsilon, self.ceiling
            for _ in range(60):
                middle = (low + high) / 2
                low, high = (middle, high) if self.loss_exceeds(middle) > RARE_CHANCE else (low, middle)
            return high
        return None

    def rare_chance(self) -> float:
        """Pr[L > ε]: how often an output is more telling than e^ε allows (0 for pure ε-DP)."""
        return self.loss_exceeds(self.epsilon)

    def chance_above(self, prior, posterior) -> float | None:
        """How often an attacker with belief `prior` ends above `posterior`, with you in the
        data: Pr[logit(prior) + L > logit(posterior)] = Pr[L > logit(posterior) − logit(prior)]."""
        prior = check.open_unit("prior", prior)
        posterior = check.open_unit("posterior", posterior)
        return self.loss_exceeds(float(logit(posterior) - logit(prior)))


def pure_release(epsilon, **unit) -> Release:
    """A pure ε-DP release: the odds bound holds on every output."""
    return Release(epsilon, **unit)


def gaussian_release(epsilon, delta, mu, **unit) -> Release:
    """A Gaussian release (or k composed, μ = √k·Δ/σ) that is (ε, δ)-DP."""
    return Release(epsilon, delta, "gaussian", mu=mu, **unit)


def laplace_sum_release(epsilon, delta, per_query, queries, **unit) -> Release:
    """k Laplace releases of ε₀ = Δ/b each, read by an accountant as (ε, δ)-DP.

    Where no ε′ below the basic k·ε₀ has rare exceptions (one query: the accountant's ε is
    ε₀ − 2δ, and the loss exceeds it on the atom at +ε₀, half the outputs), δ buys nothing:
    the release is then the pure k·ε₀-DP one it is.
    """
    release = Release(epsilon, delta, "laplace-sum", per_query=per_query, queries=queries, **unit)
    if release.rare_epsilon() >= release.ceiling * (1 - 1e-9):
        return Release(release.ceiling, **unit)
    return release


def bad_event_release(epsilon, delta, bad_event, **unit) -> Release:
    """An (ε, δ)-DP release whose loss exceeds ε only on an event of chance ≤ `bad_event`."""
    return Release(epsilon, delta, "bad-event", bad_event=bad_event, **unit)
