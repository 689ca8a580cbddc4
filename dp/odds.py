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
"""

from __future__ import annotations

import math

import numpy as np

from dp import _checks as check
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
