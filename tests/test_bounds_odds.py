"""Bounds are tests: every bound the odds panel states, checked without the code that renders it.

For each release a page can show (pure ε on eight pages and the planners, Gaussian, k Laplace or Gaussian
queries on the composition page, the graph count and PTR with their bad event), the panel is
rendered by ui.odds.panel_parts, its numbers are read back out of the words (tests.bounds), and
each one is compared with

- the exact posterior bound expit(logit p ± ε) in 50-digit arithmetic (mpmath),
- a seeded simulation of the page's own release: outputs drawn on the neighbour with you in,
  their privacy loss L = ln p(y)/q(y) computed from the two output densities, and the
  attacker's belief expit(logit p + L) (Bayes' rule), so the panel's "at most", "all but",
  "above 75% in …" are frequencies of that simulation, within binomial slack;
- for the Gaussian, numerical integration of the output density where L > t.

tests.bounds.Ledger then fails if any sentence with a bound word went unchecked. The settings
are every value of the panel's controls for the closed forms, and the sweep's settings (each
control's ends, the defaults, the issue's cases) for the simulations.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import optimize, stats

from dp.accounting import gaussian_composition_epsilon, laplace_composition_epsilon
from dp.noise import gaussian_sigma
from dp.odds import (
    RARE_CHANCE,
    Release,
    bad_event_release,
    gaussian_release,
    laplace_sum_release,
    pure_release,
)
from tests.bounds import Ledger, binomial_slack, reading, rng_for
from ui.odds import panel_parts
from ui.params import DELTAS, EPSILONS

SAMPLES = 60_000  # outputs per simulated release; the slack below is derived from it


def exact_posterior(prior, loss) -> mpmath.mpf:
    """Bayes with likelihood ratio e^L, in 50 digits: p·e^L / (p·e^L + 1 − p)."""
    p, lr = mpmath.mpf(prior), mpmath.exp(mpmath.mpf(loss))
    return p * lr / (p * lr + 1 - p)


def complement(text: str) -> mpmath.mpf:
    """1 − the printed value, exact for "1 − 10⁻ᵏ" (which 50 digits cannot hold as 1 − x)."""
    return reading(text[len("1 − "):]) if text.startswith("1 − 10") else 1 - reading(text)


def assert_ceiling(text: str, prior, epsilon):
    """A printed "at most" for expit(logit p + ε): never below the truth, at most 1% above
    (relative), and below certainty."""
    truth = exact_posterior(prior, epsilon)
    miss = 1 - truth if truth < 1 - mpmath.mpf(10) ** -40 else mpmath.exp(-mpmath.mpf(epsilon)) * (1 - prior) / prior
    assert 0 < complement(text) <= miss * (1 + mpmath.mpf(10) ** -12), (text, truth)
    assert reading(text) <= truth * mpmath.mpf(1.01) or complement(text) >= miss / 10, (text, truth)


def assert_floor(text: str, prior, epsilon):
    truth = exact_posterior(prior, -epsilon)
    assert 0 < reading(text) <= truth * (1 + mpmath.mpf(10) ** -12), (text, truth)
    assert reading(text) >= truth * mpmath.mpf(0.99) or reading(text) >= truth / 10, (text, truth)


def assert_approx_exp(text: str, epsilon):
    """'≈ 2.72', '= 3', '≈ 22,026', '≈ 1.9 × 10¹³⁰': e^ε to the digits shown."""
    op, value = text[0], text[2:]
    if "×" in value:
        mantissa, power = value.split(" × 10")
        log10_shown = math.log10(float(mantissa)) + int(power.translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")))
        assert abs(log10_shown - epsilon / math.log(10)) <= math.log10(1.06), text
        return
    shown, truth = float(value.replace(",", "")), mpmath.exp(epsilon)
    if op == "=":
        assert shown == truth
    else:
        assert abs(shown - truth) <= 0.5 * 10 ** (math.floor(math.log10(shown)) - 2) + 0.5, text


# ── What each page releases, simulated: the privacy loss of SAMPLES outputs, you in ───────────


def laplace_losses(rng, epsilon, copies=1, samples=SAMPLES):
    """copies independent Laplace counts at ε each (Δ = 1, b = 1/ε): y ~ Lap(0, b) with you,
    Lap(1, b) without; L = ln p(y) − ln q(y) from scipy's densities."""
    y = rng.laplace(0.0, 1 / epsilon, size=(samples, copies))
    losses = stats.laplace.logpdf(y, 0, 1 / epsilon) - stats.laplace.logpdf(y, 1, 1 / epsilon)
    return losses.sum(axis=1)


def rr_losses(rng, epsilon, samples=SAMPLES):
    """Randomized response: you answer truthfully with probability e^ε/(1 + e^ε)."""
    keep = math.exp(epsilon) / (1 + math.exp(epsilon)) if epsilon < 700 else 1.0
    truthful = rng.random(samples) < keep
    return np.where(truthful, 1, -1) * math.log(keep / (1 - keep)) if keep < 1 else np.full(samples, epsilon)


def exponential_losses(rng, epsilon, samples=SAMPLES):
    """Exponential mechanism on 5 candidates (Δu = 1), your record moving every score by 1 the
    worst way: probabilities ∝ exp(ε·u/2) with and without you."""
    u = np.array([0.0, 1.0, 2.0, 3.0, 5.0])
    u_prime = u + np.array([1.0, -1.0, 1.0, -1.0, -1.0])
    p = np.exp(epsilon * (u - u.max()) / 2)
    q = np.exp(epsilon * (u_prime - u_prime.max()) / 2)
    p, q = p / p.sum(), q / q.sum()
    return np.log(p / q)[rng.choice(u.size, size=samples, p=p)]


def gaussian_losses(rng, sigma, samples=SAMPLES):
    y = rng.normal(0.0, sigma, size=samples)
    return stats.norm.logpdf(y, 0, sigma) - stats.norm.logpdf(y, 1, sigma)


def gaussian_exceeds_by_integration(sigma, t) -> mpmath.mpf:
    """The N(0, σ²) probability of {y : ln p(y)/q(y) > t}: its boundary found by root-finding
    on scipy's log densities, the mass beyond it by mpmath (no underflow at 10⁻⁴⁰⁰)."""
    def loss(y):
        return stats.norm.logpdf(y, 0, sigma) - stats.norm.logpdf(y, 1, sigma) - t
    edge = optimize.brentq(loss, -1e6 * sigma - 1e6, 1e6 * sigma + 1e6, xtol=1e-13)
    return mpmath.ncdf(edge, 0, sigma)  # L decreases in y: L > t left of the edge


def triangle_losses(rng, epsilon, delta, samples=SAMPLES, bound=7.0, common=7.0):
    """The graph page's two steps on neighbours G (with the tie) and G′ (without): d̂ = B + shift +
    Lap(1/ε), then T + Lap(d̂/ε) with T(G) − T(G′) = the tie's common friends ≤ B, B(G′) = B − 1."""
    shift = math.log(1 / delta) / epsilon
    d_hat = bound + shift + rng.laplace(0.0, 1 / epsilon, samples)
    scale = np.maximum(d_hat, 1e-300) / epsilon
    release = common + rng.laplace(0.0, 1.0, samples) * scale
    step1 = (stats.laplace.logpdf(d_hat, bound + shift, 1 / epsilon)
             - stats.laplace.logpdf(d_hat, bound - 1 + shift, 1 / epsilon))
    step2 = stats.laplace.logpdf(release, common, scale) - stats.laplace.logpdf(release, 0.0, scale)
    return step1 + step2


def ptr_losses(rng, epsilon, delta, samples=SAMPLES, bound=2.0, gap=5.0):
    """PTR on two neighbours whose distance to instability is 0 (medians `gap` > Δ̂ apart): the
    test passes with d + Lap(2/ε) > ln(1/δ)/(ε/2); then median + Lap(2Δ̂/ε). ⊥ has loss 0."""
    threshold = math.log(1 / delta) / (epsilon / 2)
    passed = rng.laplace(0.0, 2 / epsilon, samples) > threshold
    y = rng.laplace(0.0, 2 * bound / epsilon, samples)
    answer = (stats.laplace.logpdf(y, 0, 2 * bound / epsilon)
              - stats.laplace.logpdf(y, gap, 2 * bound / epsilon))
    return np.where(passed, answer, 0.0)


# ── The checks ─────────────────────────────────────────────────────────────────────────────


def check_panel(release: Release, losses: np.ndarray | None, *, exact_exceeds=None, what="this release",
                estimate=False):
    """Render the panel for `release` and check every bound sentence (see `check_text`)."""
    text = "\n\n".join(panel_parts(release, what).values())
    return check_text(text, release, losses, exact_exceeds=exact_exceeds, estimate=estimate)


def check_text(text: str, release: Release, losses: np.ndarray | None, *, exact_exceeds=None, estimate=False):
    """Check every bound sentence of a panel's text against the truth: closed forms, `losses`
    (the simulated privacy loss with you in, or None where the mechanism is not simulated) and
    `exact_exceeds(t)` (an independent Pr[L > t]). `release` gives only the settings (ε, δ, the
    mechanism's parameters), never the numbers the text prints."""
    eps = release.epsilon
    ledger = Ledger(text)
    n = None if losses is None else losses.size

    def frequency_above(t):
        return float(np.mean(losses > t + 1e-12 * max(1.0, abs(t))))  # float noise only

    def check_chance(printed: str, t: float, how: str, figure: bool = True):
        """A printed chance of L > t: not below the truth (rounded up), and (a figure rather
        than a bound) not far above it."""
        value = reading(printed)
        if exact_exceeds is not None:
            truth = mpmath.mpf(exact_exceeds(t))
            assert value >= truth * (1 - mpmath.mpf(1e-9)), (how, printed, truth)
            # 3 digits rounded up; "1 in N" with N to 2 digits; "1 in 10ᵏ" within a factor 10
            assert not figure or value <= truth * (1.011 if value >= 1e-3 else 1.1 if value >= 1e-9 else 10), (
                how, printed, truth)
        value = float(value)
        if losses is not None:
            seen = frequency_above(t)
            slack = binomial_slack(value, n) + (binomial_slack(seen, n) if estimate else 0)
            assert seen <= value + slack, (how, printed, seen)
            if figure and (estimate or exact_exceeds is not None):  # a figure: close to the truth
                assert seen >= value - binomial_slack(value, n) - 0.011 * value, (how, printed, seen)

    rare_text = None
    for m in ledger.matches(r"[Oo]n all but (?P<p>{P}) (?:of )?outputs|come up in (?:about )?(?P<q>{P}) (?:of )?releases"
                            r"|in at most (?P<r>{P}) (?:of )?releases \(δ/2\)", "rare outputs"):
        printed = m["p"] or m["q"] or m["r"]
        rare_text = rare_text or printed
        assert printed == rare_text, "one release, one rare chance"
        check_chance(printed, eps, "rare")
        if m["r"]:  # the bad event: δ/2, from scipy's Laplace tail (the check's noise)
            assert float(reading(printed)) >= stats.laplace.sf(math.log(1 / release.delta), scale=1) * (1 - 1e-9)
    assert (rare_text is not None) == (release.delta > 0 and release.rare_chance() > 0)
    rare = 0.0 if rare_text is None else float(reading(rare_text))

    for m in ledger.matches(r"(?:at most|more than) (?:\$e\^\\varepsilon\$|e\^ε) (?P<x>[≈=] [\d,.]+(?: × 10[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?)"
                            r"|divides them by at most as much", "odds multiplier"):
        if m["x"]:
            assert_approx_exp(m["x"], eps)
        if losses is not None:  # the odds multiplier is e^L: past e^±ε, each way, only on the rare outputs
            for beyond in (np.mean(losses > eps * (1 + 1e-9) + 1e-12), np.mean(losses < -eps * (1 + 1e-9) - 1e-12)):
                assert beyond <= rare + binomial_slack(rare, n), (beyond, rare)

    rows = ledger.matches(r"^\| (?P<prior>\d+)% \| (?P<hi>{P}) \| (?P<lo>{P}) \|$", "table")
    ledger.matches(r"^\| She suspected \| After the release: at most \| at least \|$", "table header")
    assert len(rows) == 3
    for m in rows:
        prior = int(m["prior"]) / 100
        assert_ceiling(m["hi"], prior, eps)
        assert_floor(m["lo"], prior, eps)
        if losses is not None:  # Bayes on the simulated outputs stays inside, but for the rare ones
            belief = stats.logistic.cdf(math.log(prior / (1 - prior)) + losses)
            hi, lo = float(reading(m["hi"])), float(reading(m["lo"]))  # float noise aside (ε = ln 3: 25% exactly)
            for outside in (np.mean(belief > hi * (1 + 1e-12)), np.mean(belief < lo * (1 - 1e-12))):
                assert outside <= rare + binomial_slack(rare, n), (m[0], outside, rare)  # each column

    for m in ledger.matches(r"more than \$e\^\\varepsilon\$ (?P<x>[≈=] [\d,.]+)-fold on (?P<p>{P}) (?:of )?outputs, too many to call rare"
                            r", but more than \$e\^\{\\varepsilon'\}\$ (?P<y>[≈=] [\d,.]+(?: × 10[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?)-fold"
                            r" \(ε′ = (?P<e>[\d,.]+)\) on at most (?P<q>{P}) (?:of )?outputs: on all others a coin toss \(50%\)"
                            r" ends at most (?P<h>{P})", "wide verdict"):
        wide = float(m["e"].replace(",", ""))
        assert m["p"] == rare_text and rare > RARE_CHANCE and float(reading(m["q"])) <= RARE_CHANCE
        assert wide >= eps
        assert_approx_exp(m["x"], eps)
        assert_approx_exp(m["y"], wide)
        check_chance(m["q"], wide, "ε′ exceptions", figure=False)  # Pr[L > ε′] ≤ 1 in 1,000, by integration or simulation
        assert complement(m["h"]) <= 1 - exact_posterior(0.5, wide)
        ceiling = exact_posterior(0.5, wide)
        title = ledger.sentences[[i for i, x in enumerate(ledger.sentences) if m[0] in x][0]]
        band = ("Strong" if ceiling <= 0.55 else "Moderate" if ceiling <= 0.75 else "Weak" if ceiling <= 0.95
                else "Little")
        assert title.startswith(f"**{band} protection"), (title, ceiling)
    for m in ledger.matches(r"(?<!all others a )coin toss \(50%\) (?:can end up at most|can become at most|ends at most|"
                            r"can become as much as|become as much as) (?P<p>{P})"
                            r"|coin-toss guess \(50%\) can become as much as (?P<q>{P})", "coin toss"):
        assert_ceiling(m["p"] or m["q"], 0.5, eps)
    for m in ledger.matches(r"a 1% suspicion (?P<p>{P})", "1% suspicion"):
        assert_ceiling(m["p"], 0.01, eps)
    for _ in ledger.matches(r"rules out being more than 95% sure|short of 95%", "95% ceiling"):
        assert exact_posterior(0.5, eps) <= 0.95
    for m in ledger.matches(r"could then reach (?P<twin>{P}), not only (?P<one>{P})", "twin"):
        assert_ceiling(m["twin"], 0.4, 2 * eps)  # a group of two: 2ε (the definition page's twin)
        assert_ceiling(m["one"], 0.4, eps)
    for m in ledger.matches(r"can become at most (?P<p>{P}) sure about each", "icons"):
        assert_ceiling(m["p"], 0.1, eps)
    for m in ledger.matches(r"has (?P<d>[\d,]+) ties, .* (?P=d) × (?P<e>[\d.,]+) = (?P<g>[\d.,]+), "
                            r"which lets a coin toss about them become as much as (?P<p>{P})", "group"):
        degree, group = int(m["d"].replace(",", "")), float(m["g"].replace(",", ""))
        assert float(m["e"]) == pytest.approx(eps, rel=5e-4) and group == pytest.approx(degree * eps, rel=5e-4)
        assert_ceiling(m["p"], 0.5, degree * eps)
    for _ in ledger.matches(r"no longer rules out a confident guess", "confident guess allowed"):
        assert exact_posterior(0.5, eps) > 0.95  # the band "little": past 95% for a coin toss
    for _ in ledger.matches(r"are not rare here", "not rare"):
        assert rare > RARE_CHANCE
    for m in ledger.matches(r"except on rare outputs\.\*\* (?P<next>\S+)", "rare verdict"):
        assert 0 < rare <= RARE_CHANCE or m["next"] == "The"  # "The odds can grow …": the wide verdict above
    for _ in ledger.matches(r"the guarantee sets no ceiling at all|Gaussian noise has no ceiling", "no ceiling"):
        assert release.delta > 0 and math.isinf(release.ceiling)
        if release.loss == "gaussian":  # L(y) = ln p(y)/q(y) grows without bound as y → −∞
            far = -1e6 / release.mu
            assert stats.norm.logpdf(far, 0, 1 / release.mu) - stats.norm.logpdf(far, 1, 1 / release.mu) > eps + 30
    for m in ledger.matches(r"cannot grow the odds more than \$e\^\{k\\varepsilon_0\}\$ (?P<x>[≈=] [\d,.]+(?: × 10[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?)-fold"
                            r" \(basic composition\): a coin toss ends at most (?P<p>{P})", "basic ceiling"):
        hard = release.queries * release.per_query
        assert_approx_exp(m["x"], hard)
        assert_ceiling(m["p"], 0.5, hard)
        if losses is not None:
            assert losses.max() <= hard * (1 + 1e-9)
    for m in ledger.matches(r"ends above 75% in (?P<a>{P}) (?:of )?releases and above 90% in (?P<b>{P}) (?:of )?releases", "coin toss chances"):
        for printed, level in ((m["a"], 0.75), (m["b"], 0.9)):
            t = math.log(level / (1 - level))
            if printed == "none of the":
                assert release.ceiling <= t
                if losses is not None:
                    assert stats.logistic.cdf(losses.max()) <= level
            else:
                check_chance(printed, t, f"above {level}")
    for _ in ledger.matches(r"may have probability up to \$e\^\\varepsilon p \+ \\delta\$", "(ε, δ) definition"):
        if losses is not None:  # the event S = {L > ε}: P(S) ≤ e^ε·Q(S) + δ, Q(S) = E_P[e^−L; S]
            in_s = losses > eps
            p_s, q_s = in_s.mean(), np.mean(np.where(in_s, np.exp(-np.minimum(losses, 700)), 0.0))
            assert p_s - math.exp(eps) * q_s <= release.delta + binomial_slack(release.delta, n)
    for m in ledger.matches(r"happen with probability δ \(1 in (?P<n>[\d,.]+)\)", "δ as 1 in N"):
        assert Fraction(m["n"].replace(",", "")) == pytest.approx(1 / Fraction(repr(release.delta)), rel=5e-3)
    for m in ledger.matches(r"δ is (?P<r>[\d,.]+) times smaller than 1/(?P<l>[nm]) = 1/(?P<n>[\d,]+)"
                            r"|only (?P<r2>[\d,.]+) times", "δ against 1/n"):
        exact = 1 / (release.units * Fraction(repr(release.delta)))  # δ as the slider shows it
        assert 1 <= Fraction((m["r"] or m["r2"]).replace(",", "")) <= exact
    for _ in ledger.matches(r"δ is at least 1/[nm]", "δ over 1/n"):
        assert release.units * Fraction(repr(release.delta)) >= 1
    for _ in ledger.matches(r"Keep δ far below 1 divided by|below 1/[nm] = 1/[\d,]+ \([nm]: the", "δ advice"):
        pass  # advice about δ, stated with its rule; the "only … times" part is checked above
    for _ in ledger.matches(r"δ is not that chance", "δ is not that chance"):
        assert float(reading(rare_text)) != pytest.approx(release.delta, rel=0.2)
    ledger.assert_all_checked()
    return " ".join(text.split())


# ── Pure ε: eight pages and the planners, every ε their controls reach ─────────────────────────────────────

PURE_PAGES = {  # page: (ε values its control reaches, simulated mechanism)
    "definition": (EPSILONS, laplace_losses), "laplace": (EPSILONS, laplace_losses),
    "budget": (EPSILONS, laplace_losses), "exponential": (EPSILONS, exponential_losses),
    "randomized-response": (EPSILONS, rr_losses), "poll-instructor": (EPSILONS, rr_losses),
    "anonymisation": ([2 * e for e in EPSILONS], lambda rng, e: laplace_losses(rng, e / 2, copies=2)),
    # the planners (Laplace, RR, the poll) can ask for any ε: the smallest and the largest
    "planner": ((1e-4, 0.003, math.log(3), 37.0, 700.0, 5000.0), laplace_losses),
}


@pytest.mark.parametrize("page", PURE_PAGES)
def test_pure_panel_bounds_hold_on_every_simulated_output(page):
    epsilons, simulate = PURE_PAGES[page]
    for eps in epsilons:
        losses = simulate(rng_for("pure", page, eps), eps) if eps < 700 else None
        check_panel(pure_release(eps), losses)


def test_planner_at_huge_epsilon_never_says_certainty():
    text = check_panel(pure_release(5000.0), None)
    assert "100%" not in text and "| 0% |" not in text


# ── (ε, δ): Gaussian, compositions, the graph count, PTR ─────────────────────────────────────

GAUSSIAN_SWEEP = [(1.0, 1e-5), (0.01, 1e-12), (0.01, 0.1), (10.0, 1e-12), (10.0, 0.1), (1.0, 0.1), (0.3, 1e-3)]


@pytest.mark.parametrize("eps,delta", [(e, d) for e in EPSILONS for d in DELTAS])
def test_gaussian_panel_closed_forms_at_every_setting(eps, delta):
    sigma = gaussian_sigma(1.0, eps, delta)
    check_panel(gaussian_release(eps, delta, 1 / sigma, units=1000), None,
                exact_exceeds=lambda t: gaussian_exceeds_by_integration(sigma, t))


@pytest.mark.parametrize("eps,delta", GAUSSIAN_SWEEP)
def test_gaussian_panel_against_simulated_releases(eps, delta):
    sigma = gaussian_sigma(1.0, eps, delta)
    check_panel(gaussian_release(eps, delta, 1 / sigma), gaussian_losses(rng_for("gauss", eps, delta), sigma),
                exact_exceeds=lambda t: gaussian_exceeds_by_integration(sigma, t))


def test_gaussian_numbers_from_the_issue():
    """gd_eps=1, gd_delta=0.1 (σ = 1.086): 50% ends above 75% in 23.2%, above 90% in 2.7%;
    defaults: Pr[L > ε] = 1.6·10⁻⁴."""
    text = check_panel(gaussian_release(1.0, 0.1, 1 / gaussian_sigma(1.0, 1.0, 0.1)), None)
    assert "above 75% in 23.2% of releases and above 90% in 2.71% of releases" in text
    assert "Strong protection" not in text
    text = check_panel(gaussian_release(0.01, 0.1, 1 / gaussian_sigma(1.0, 0.01, 0.1)), None)
    assert "Strong protection" not in text and "too many to call rare" in text
    text = check_panel(gaussian_release(1.0, 1e-5, 1 / gaussian_sigma(1.0, 1.0, 1e-5)), None)
    assert "on all but 1 in 6,200 outputs" in text  # Pr[L > 1] = 1.612·10⁻⁴ ≤ 1/6,200


@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0, 50.0])
@pytest.mark.parametrize("n", [25, 1000])
def test_machine_learning_panel(eps, n):
    """DP-GD is one Gaussian release of μ = 2C√T/σ (calibrated to (ε, 10⁻⁵))."""
    sigma = gaussian_sigma(1.0, eps, 1e-5)
    check_panel(gaussian_release(eps, 1e-5, 1 / sigma, units=n), gaussian_losses(rng_for("ml", eps), sigma),
                exact_exceeds=lambda t: gaussian_exceeds_by_integration(sigma, t))


COMPOSITION_SWEEP = [(0.1, 10, 1e-6), (0.1, 10, 0.1), (0.01, 1, 1e-12), (10.0, 1, 0.1), (1.0, 100, 1e-6),
                     (0.01, 1000, 0.1), (0.5, 30, 1e-3)]


@pytest.mark.parametrize("eps0,k,delta", COMPOSITION_SWEEP)
def test_composition_laplace_panel_against_simulated_queries(eps0, k, delta):
    total = laplace_composition_epsilon(1 / eps0, k, delta)
    if total <= 0:
        pytest.skip("δ alone covers it: the page shows no panel")
    samples = min(SAMPLES, 4_000_000 // k)
    losses = laplace_losses(rng_for("comp", eps0, k, delta), eps0, copies=k, samples=samples)
    check_panel(laplace_sum_release(total, delta, eps0, k), losses, estimate=True,
                what=f"all {k:,} queries together")


def test_composition_numbers_from_the_issue():
    """comp_delta=0.1, 10 queries at 0.1: total 0.06137; with you in, the belief passes 51.5%
    with probability 0.46 and 62% with 0.07 (the issue's figures, from dp-accounting's PLD)."""
    release = laplace_sum_release(laplace_composition_epsilon(10.0, 10, 0.1), 0.1, 0.1, 10)
    assert release.epsilon == pytest.approx(0.06137, abs=1e-5)
    assert release.chance_above(0.5, 0.515) == pytest.approx(0.46, abs=0.01)
    assert release.chance_above(0.5, 0.62) == pytest.approx(0.07, abs=0.01)
    text = check_panel(release, laplace_losses(rng_for("issue"), 0.1, copies=10), estimate=True)
    assert "Strong protection" not in text and "too many to call rare" in text


@pytest.mark.parametrize("sigma,k,delta", [(10.0, 10, 0.1), (10.0, 10, 1e-6), (0.5, 1, 1e-12), (200.0, 10_000, 0.1),
                                           (3.0, 500, 1e-6)])
def test_composition_gaussian_panel(sigma, k, delta):
    """k Gaussian queries are one Gaussian release of σ/√k; at comp_delta=0.1 (σ = 10, k = 10)
    the issue finds 50% passing 60% with probability about 0.13."""
    total = gaussian_composition_epsilon(sigma, k, delta)
    if total <= 0:
        pytest.skip("δ alone covers it: the page shows no panel")
    release = gaussian_release(total, delta, math.sqrt(k) / sigma)
    single = sigma / math.sqrt(k)
    check_panel(release, gaussian_losses(rng_for("compg", sigma, k, delta), single),
                exact_exceeds=lambda t: gaussian_exceeds_by_integration(single, t))
    if (sigma, k, delta) == (10.0, 10, 0.1):
        assert release.chance_above(0.5, 0.6) == pytest.approx(0.13, abs=0.01)


@pytest.mark.parametrize("eps", [0.05, 1.0, 5.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 0.1])
def test_graph_panel_protects_a_tie_and_counts_ties(eps, delta):
    """The (2ε, δ) triangle count: e^2ε per tie except when d̂ falls below B (chance δ/2);
    δ against 1/m ties; a person with d ties gets d·2ε."""
    from dp.graphs import bound_failure_probability

    release = bad_event_release(2 * eps, delta, bound_failure_probability(eps, delta), unit="tie",
                                units=594, degree=32)
    losses = triangle_losses(rng_for("graph", eps, delta), eps, delta)
    text = check_panel(release, losses, what="the whole release (both steps, 2ε)")
    assert "1/m = 1/594" in text and "32 ties" in text and "you are in the data" not in text


@pytest.mark.parametrize("eps", [0.01, 1.0, 10.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-2])
@pytest.mark.parametrize("n", [51, 2001])
def test_local_sensitivity_panel_ptr_bad_event(eps, delta, n):
    from dp.local_sensitivity import ptr_pass_probability

    release = bad_event_release(eps, delta, ptr_pass_probability(0, eps, delta), units=n)
    check_panel(release, ptr_losses(rng_for("ptr", eps, delta), eps, delta),
                what="each release (the δ exception: PTR only)")


def test_the_ledger_notices_an_unchecked_bound():
    """The coverage check can fail: a new bound sentence without a check is reported."""
    ledger = Ledger("The release is fine. It never reveals more than 60% about you.")
    ledger.matches(r"is fine", "nothing")
    assert ledger.unchecked() == ["It never reveals more than 60% about you."]
    with pytest.raises(AssertionError, match="no test checks"):
        ledger.assert_all_checked()


# ── On the pages themselves: the panel each page renders, at the issue's settings ─────────────


def _panel_text(slug: str, query: dict) -> str:
    """The odds panel as the page renders it (AppTest): its label, then every text inside."""
    from tests.conftest import app_test, lesson

    at = app_test(lesson(slug), query)
    assert not at.exception, [e.value for e in at.exception]
    panels = [e for e in at.expander if e.label.startswith("🎲 What are the chances")]
    assert panels, [e.label for e in at.expander]  # the first: the main demo's (a planner's comes later)
    inside = [m.value for m in panels[0].markdown] + [c.value.removeprefix("Chart: ") for c in panels[0].caption]
    return "\n\n".join([panels[0].label, *inside])


@pytest.mark.parametrize("slug,query", [
    ("gaussian", {"gd_eps": "1", "gd_delta": "0.1"}),
    ("composition", {"comp_delta": "0.1"}),
    ("composition", {"comp_delta": "0.1", "comp_mode": "Gaussian queries (σ)"}),
    ("graphs", {}),
])
def test_pages_pass_their_release_to_the_panel(slug, query):
    """The wiring: what each page shows is true of the page's own release at the issue's settings."""
    rng = rng_for("page", slug, sorted(query.items()))
    if slug == "gaussian":
        sigma = gaussian_sigma(1.0, 1.0, 0.1)
        release, losses = gaussian_release(1.0, 0.1, 1 / sigma), gaussian_losses(rng, sigma)
        exact = lambda t: gaussian_exceeds_by_integration(sigma, t)  # noqa: E731
    elif slug == "composition" and "comp_mode" not in query:  # 10 Laplace queries at ε = 0.1
        release = laplace_sum_release(laplace_composition_epsilon(10.0, 10, 0.1), 0.1, 0.1, 10)
        losses, exact = laplace_losses(rng, 0.1, copies=10), None
    elif slug == "composition":  # 10 Gaussian queries with σ = 10
        single = 10.0 / math.sqrt(10)
        release = gaussian_release(gaussian_composition_epsilon(10.0, 10, 0.1), 0.1, 1 / single)
        losses = gaussian_losses(rng, single)
        exact = lambda t: gaussian_exceeds_by_integration(single, t)  # noqa: E731
    else:  # defaults: ε = 1 per step, δ = 10⁻⁶, 594 ties
        from dp.graphs import bound_failure_probability

        text = _panel_text(slug, query)
        degree = int(re.search(r"has (\d+) ties", " ".join(text.split()))[1])
        release = bad_event_release(2.0, 1e-6, bound_failure_probability(1.0, 1e-6), unit="tie", units=594,
                                    degree=degree)
        checked = check_text(text, release, triangle_losses(rng, 1.0, 1e-6))
        assert "1/m = 1/594" in checked and f"{degree} × 2 = {2 * degree}" in checked
        return
    text = check_text(_panel_text(slug, query), release, losses, exact_exceeds=exact,
                      estimate=release.loss == "laplace-sum")
    assert "Strong protection" not in text
