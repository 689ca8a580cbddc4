"""'Show this in OpenDP': the same release as a page's demo, as a short runnable snippet.

One function per kind of release. Each takes the page's current parameters and returns a
Snippet: the Python text (for OpenDP OPENDP_VERSION), one line on what differs from the page,
and what the page claims about privacy, which tests/test_opendp_snippets.py checks by running
the text against opendp and reading the measurement's privacy map.

No Streamlit here (ui.opendp_show puts a snippet on a page) and no opendp import: the app
only shows text; opendp is a test-only dependency. Numbers are written with repr(), so the
snippet uses exactly the page's values, and user-typed names only ever appear as Python
string literals.

Every snippet defines `meas` (an OpenDP Measurement) and `d_in` (the distance between
neighbouring inputs), and prints the privacy map and one release.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ui.numbers import number

OPENDP_VERSION = "0.16.0"
RELATIONS = ("add/remove", "replace-one")
MAX_LOOP_PEOPLE = 10_000  # randomized response is applied in a Python loop: keep it quick


@dataclass(frozen=True)
class Snippet:
    code: str
    differs: str
    claim: dict = field(default_factory=dict)  # what the page claims: see tests/test_opendp_snippets.py


def _header(title: str) -> str:
    return (f"# {title}\n# Runs with opendp=={OPENDP_VERSION}:  pip install opendp=={OPENDP_VERSION}\n"
            "import numpy as np\nimport opendp.prelude as dp\n\n"
            'dp.enable_features("contrib")  # OpenDP asks you to opt in to these constructors\n'
            "rng = np.random.default_rng(0)\n\n")


def _num(x: float) -> str:
    """A float literal that round-trips exactly."""
    return repr(float(x))


def _relation(relation: str, n: int) -> tuple[str, str, int]:
    """(size argument, comment, d_in) for a neighbouring relation."""
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    if relation == "add/remove":
        return "", "# Neighbours: add or remove one person = symmetric distance 1", 1
    return (f", size={n}", "# Neighbours: replace one person. With n known, that is symmetric distance 2",
            2)


_FOOTER = 'print("privacy map at d_in:", meas.map(d_in))\nprint("one release:", meas(data))\n'


def count(epsilon: float, relation: str = "add/remove", n: int = 1000) -> Snippet:
    """A count of people with a property: the sum of one 0/1 answer per person, + Lap(1/ε)."""
    size, comment, d_in = _relation(relation, n)
    code = (_header(f"A noisy count at ε = {epsilon:g} ({relation})")
            + f"data = rng.integers(0, 2, size={n}).tolist()  # made up: 1 if the person has the property\n"
            + f"epsilon = {_num(epsilon)}\n\n{comment}\n"
            + f"space = dp.vector_domain(dp.atom_domain(bounds=(0, 1)){size}), dp.symmetric_distance()\n"
            + f"d_in = {d_in}\n"
            + "meas = space >> dp.t.then_sum() >> dp.m.then_laplace(scale=1 / epsilon)  # b = Δ/ε, Δ = 1\n\n"
            + _FOOTER)
    return Snippet(code, "OpenDP adds discrete Laplace noise to an integer count, so releases are "
                   "whole numbers; the ε is the same.",
                   {"measure": "epsilon", "epsilon": epsilon})


def k_counts(epsilon: float, k: int, relation: str = "add/remove", n: int = 1000) -> Snippet:
    """k counting queries, each + Lap(k/ε), composed: ε in total."""
    size, comment, d_in = _relation(relation, n)
    thresholds = [round(100 * (j + 1) / (k + 1)) for j in range(k)]
    code = (_header(f"{k} noisy counts at ε = {epsilon:g} in total ({relation})")
            + f"data = rng.integers(0, 100, size={n}).tolist()  # made-up ages\n"
            + f"epsilon, k = {_num(epsilon)}, {k}\n"
            + f"thresholds = {thresholds}  # count j: people at least this old (one person can be in all k)\n\n"
            + f"{comment}\n"
            + f"space = dp.vector_domain(dp.atom_domain(T=int){size}), dp.symmetric_distance()\n"
            + f"d_in = {d_in}\n\n\n"
            + "def at_least(age):\n"
            + "    return (space >> dp.t.then_find_bin(edges=[age]) >> dp.t.then_cast_default(TOA=int)\n"
            + "            >> dp.t.then_clamp(bounds=(0, 1)) >> dp.t.then_sum()\n"
            + "            >> dp.m.then_laplace(scale=k / epsilon))  # each count: Lap(Δ/ε), Δ = k\n\n\n"
            + "meas = dp.c.make_composition([at_least(age) for age in thresholds])\n\n"
            + _FOOTER)
    return Snippet(code, "OpenDP composes k separate measurements, each with discrete Laplace noise of "
                   "scale k/ε; its privacy map adds their ε's back up to the page's total.",
                   {"measure": "epsilon", "epsilon": epsilon})


def histogram(epsilon: float, buckets: int, relation: str = "add/remove", n: int = 1000,
              categories: Sequence[str] | None = None, clamp: bool = False) -> Snippet:
    """A histogram of ages in `buckets` equal buckets (or of named `categories`), + Lap(Δ/ε)
    per bucket; `clamp` adds post-processing (negative counts to 0), which costs no ε."""
    size, comment, d_in = _relation(relation, n)
    sensitivity = 1 if relation == "add/remove" else 2
    if categories is not None:
        labels = [str(c)[:40] for c in categories]
        title = f"A noisy histogram, {len(labels)} categories, ε = {epsilon:g} ({relation})"
        data_lines = (f"labels = {labels!r}\n"
                      + f"data = rng.choice(labels, size={n}).tolist()  # made up: each person's category\n"
                      + f"epsilon = {_num(epsilon)}\n\n")
    else:
        width = 100 // buckets
        title = f"A noisy histogram of ages, {buckets} buckets, ε = {epsilon:g} ({relation})"
        data_lines = (f"ages = rng.integers(0, 100, size={n})  # made-up ages 0..99\n"
                      + f"epsilon, width = {_num(epsilon)}, {width}\n"
                      + "labels = [f\"{lo}-{lo + width - 1}\" if width > 1 else str(lo) for lo in range(0, 100, width)]\n"
                      + "data = [labels[age // width] for age in ages]  # each person's bucket (a per-person map)\n\n")
    footer = _FOOTER if not clamp else (
        'print("privacy map at d_in:", meas.map(d_in))\nrelease = meas(data)  # one release\n'
        'print("one release:", release)\n\n'
        "# Post-processing: uses only the released counts, never the data, so it costs no ε\n"
        "clamped = [max(0, c) for c in release]\n"
        'print("clamped at 0:", clamped, " total:", sum(clamped))\n')
    code = (_header(title)
            + data_lines
            + f"{comment}\n"
            + f"space = dp.vector_domain(dp.atom_domain(T=str){size}), dp.symmetric_distance()\n"
            + f"d_in = {d_in}\n"
            + "meas = (space >> dp.t.then_count_by_categories(categories=labels, null_category=False)\n"
            + f"        >> dp.m.then_laplace(scale={sensitivity} / epsilon))  # b = Δ/ε, Δ = {sensitivity}\n\n"
            + footer)
    differs = ("OpenDP's counts are integers with discrete Laplace noise; the L1 "
               f"sensitivity ({sensitivity} under {relation}) comes from its own proof.")
    if clamp:
        differs = ("OpenDP's counts are integers with discrete Laplace noise, so they come already "
                   "rounded; clamping (or any other post-processing) runs on the release and costs no ε.")
    return Snippet(code, differs, {"measure": "epsilon", "epsilon": epsilon})


def mean(epsilon: float, lower: float, upper: float, n: int, what: str = "incomes") -> Snippet:
    """A mean of n values clipped to [L, U], n public (replace-one), + Lap((U − L)/(nε))."""
    data_line = (f"data = (rng.lognormal(mean=3.8, sigma=0.7, size={n})).tolist()  # made up, thousands\n"
                 if what == "incomes" else
                 f"data = rng.uniform({_num(lower)}, {_num(upper)}, size={n}).tolist()  # made up\n")
    code = (_header(f"A clipped mean of {n:,} {what}, ε = {epsilon:g} (replace-one)")
            + data_line
            + f"epsilon, lower, upper, n = {_num(epsilon)}, {_num(lower)}, {_num(upper)}, {n}\n\n"
            + "# Neighbours: replace one person; n is public (that is what makes Δ = (U − L)/n)\n"
            + "space = dp.vector_domain(dp.atom_domain(T=float, nan=False), size=n), dp.symmetric_distance()\n"
            + "d_in = 2\n"
            + "meas = (space >> dp.t.then_clamp(bounds=(lower, upper)) >> dp.t.then_mean()\n"
            + "        >> dp.m.then_laplace(scale=(upper - lower) / (n * epsilon)))\n\n"
            + _FOOTER)
    return Snippet(code, "OpenDP also bounds the floating-point error of the sum, so its privacy map "
                   "reports a hair above ε (by about 10⁻¹²), and it adds Laplace noise on a fine grid.",
                   {"measure": "epsilon", "epsilon": epsilon, "slack": 1e-9})


def gaussian_sum(epsilon: float, delta: float, sensitivity: float, sigma: float, n: int = 1000) -> Snippet:
    """A sum of values in [0, Δ] (a count when Δ = 1) with N(0, σ²), σ from the page."""
    rho = sensitivity**2 / (2 * sigma**2)
    code = (_header(f"A Gaussian-noised sum, Δ = {sensitivity:g}, σ = {sigma:.4g} "
                    f"(the page's (ε = {epsilon:g}, δ = {delta:g}))")
            + f"sensitivity, sigma, delta = {_num(sensitivity)}, {_num(sigma)}, {_num(delta)}\n"
            + f"data = rng.uniform(0, sensitivity, size={n}).tolist()  # made up: each person adds at most Δ\n\n"
            + "# Neighbours: add or remove one person = symmetric distance 1\n"
            + "space = dp.vector_domain(dp.atom_domain(bounds=(0.0, sensitivity))), dp.symmetric_distance()\n"
            + "d_in = 1\n"
            + "meas = space >> dp.t.then_sum() >> dp.m.then_gaussian(scale=sigma)  # measured in zCDP\n"
            + "approx = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas), delta=delta)\n\n"
            + 'print("zCDP: rho =", meas.map(d_in))\nprint("(epsilon, delta) =", approx.map(d_in))\n'
            + 'print("one release:", meas(data))\n')
    return Snippet(code, f"OpenDP accounts for Gaussian noise in zCDP (ρ = Δ²/(2σ²) = {number(rho, '.4g')}); its "
                   "conversion to (ε, δ) is an upper bound, so it prints an ε above the page's exact "
                   f"ε = {epsilon:g} for this σ.",
                   {"measure": "zcdp", "rho": rho, "epsilon": epsilon, "delta": delta})


def randomized_response(epsilon: float, n: int, true_share: float = 0.2) -> Snippet:
    """Each person reports the truth with probability e^ε/(1 + e^ε); then debias."""
    people = min(n, MAX_LOOP_PEOPLE)
    shown = f"{people:,}" + ("" if people == n else f" here (the page's {n:,} would take a while in a loop)")
    code = (_header(f"Randomized response at ε = {epsilon:g}, n = {shown}")
            + f"epsilon = {_num(epsilon)}\n"
            + "keep = np.exp(epsilon) / (1 + np.exp(epsilon))  # report the truth with this probability\n"
            + "meas = dp.m.make_randomized_response_bool(prob=keep)\n"
            + "d_in = 1  # local DP: any two answers of one person\n\n"
            + f"truth = rng.random({people}) < {_num(true_share)}  # made up: who would say Yes\n"
            + "reports = np.array([meas(bool(answer)) for answer in truth])\n"
            + "estimate = (reports.mean() - (1 - keep)) / (2 * keep - 1)  # debiased share of Yes\n\n"
            + 'print("privacy map at d_in:", meas.map(d_in))\n'
            + 'print("reported Yes:", reports.mean(), " debiased estimate:", estimate)\n')
    return Snippet(code, "Identical mechanism; OpenDP can also run it in constant time "
                   "(constant_time=True), so that timing does not leak the answer.",
                   {"measure": "epsilon", "epsilon": epsilon})


def exponential_choice(names: Sequence[str], scores: Sequence[float], epsilon: float,
                       sensitivity: float) -> Snippet:
    """Pick a candidate privately from its score, at ε, for scores one person moves by ≤ Δu."""
    names = [str(name)[:40] for name in names]
    code = (_header(f"A private choice among {len(names)} candidates, ε = {epsilon:g}, Δu = {sensitivity:g}")
            + f"names = {names!r}\n"
            + f"scores = {[float(s) for s in scores]!r}\n"
            + f"epsilon, sensitivity = {_num(epsilon)}, {_num(sensitivity)}\n\n"
            + _CHOICE
            + 'print("chosen:", names[meas(scores)])\n')
    return Snippet(code, _CHOICE_DIFFERS + " You vouch for Δu.", {"measure": "epsilon", "epsilon": epsilon})


_CHOICE = ("# The input is the score vector; one person moves every score by at most Δu\n"
           "space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)\n"
           "d_in = sensitivity\n"
           "meas = space >> dp.m.then_noisy_max(dp.max_divergence(), scale=2 * sensitivity / epsilon)\n\n"
           'print("privacy map at d_in:", meas.map(d_in))\n')
_CHOICE_DIFFERS = ("OpenDP's pure-DP noisy max adds exponential noise (permute-and-flip), not "
                   "the Gumbel noise that gives the page's exp(εu/(2Δu)): same ε at the same scale, "
                   "and the best candidate is chosen at least as often.")


def most_common(epsilon: float, k: int, gap: int) -> Snippet:
    """Report-noisy-max over k counts (the top leads by `gap`, the rest tied), at ε.

    One person may have every disease, but adding them only raises counts: the counts are
    monotone, so noise of scale 1/ε (not 2/ε) gives ε."""
    code = (_header(f"The most common of {k:,} diseases, privately, ε = {epsilon:g}")
            + f"epsilon, k, gap = {_num(epsilon)}, {k}, {gap}\n"
            + "counts = [100 + gap] + [100] * (k - 1)  # made up: disease 0 leads by `gap` people\n\n"
            + "# Add or remove one person: every count moves by at most 1, all the same way (monotone)\n"
            + "space = dp.vector_domain(dp.atom_domain(T=int)), dp.linf_distance(T=int, monotonic=True)\n"
            + "d_in = 1\n"
            + "meas = space >> dp.m.then_noisy_max(dp.max_divergence(), scale=1 / epsilon)\n\n"
            + 'print("privacy map at d_in:", meas.map(d_in))\n'
            + 'print("chosen disease:", meas(counts), "(the true top is 0)")\n')
    return Snippet(code, "Like the page's report-noisy-max at scale 1/ε, but OpenDP adds exponential "
                   "noise, not Laplace (permute-and-flip), which picks the top at least as often; "
                   "the counts here are made up with the page's k and lead.",
                   {"measure": "epsilon", "epsilon": epsilon})


def price_choice(epsilon: float, menu: str, cap: float, bids: Sequence[float] | None = None,
                 n: int = 100, bid_top: float = 10.0, max_prices: int = 1000) -> Snippet:
    """The auction: a price chosen by the exponential mechanism with revenue as its score.

    `bids` (a short list, written out) or n random bids uniform in [0, bid_top]; the menu is
    the positive bids ("bids") or a public grid of prices up to `cap` ("grid")."""
    if menu not in ("bids", "grid"):
        raise ValueError(f"menu must be 'bids' or 'grid', got {menu!r}")
    bid_line = (f"bids = np.array({[float(b) for b in bids]!r})\n" if bids is not None else
                f"bids = np.round(rng.uniform(0, {_num(bid_top)}, size={n}), 2)  # made-up bidders\n")
    if menu == "bids":
        menu_line = "prices = np.unique(bids[bids > 0])  # the bids themselves (as in the notes)\n"
    else:
        step = max(0.01, cap / max_prices)
        count = max(1, int(round(cap / step)))
        menu_line = (f"prices = np.round(np.arange(1, {count + 1}) * ({_num(cap)} / {count}), 10)"
                     "  # a public menu, fixed before the bids\n")
    code = (_header(f"A private price for a digital good, ε = {epsilon:g}")
            + bid_line + menu_line
            + f"epsilon = {_num(epsilon)}\n"
            + "scores = (prices * (bids[:, None] >= prices).sum(axis=0)).tolist()  # revenue at each price\n"
            + "sensitivity = float(prices.max())  # one bidder moves a revenue by at most the price\n\n"
            + _CHOICE
            + 'print("chosen price:", prices[meas(scores)])\n')
    extra = (" A menu of the bids makes the candidates and Δu data, which no map sees."
             if menu == "bids" else "")
    return Snippet(code, _CHOICE_DIFFERS + extra, {"measure": "epsilon", "epsilon": epsilon})


def repeated_count(epsilon: float, times: int, truth: int) -> Snippet:
    """The same count asked `times` times, each + Lap(1/ε): composed, times·ε in total."""
    code = (_header(f"One count asked {times:,} times at ε = {epsilon:g} each")
            + f"epsilon, times = {_num(epsilon)}, {times}\n"
            + f"data = [1] * {truth} + [0] * 50  # made up: {truth} patients have the condition\n\n"
            + "# Neighbours: add or remove one person = symmetric distance 1\n"
            + "space = dp.vector_domain(dp.atom_domain(bounds=(0, 1))), dp.symmetric_distance()\n"
            + "d_in = 1\n"
            + "count = space >> dp.t.then_sum() >> dp.m.then_laplace(scale=1 / epsilon)  # each answer: ε\n"
            + "meas = dp.c.make_composition([count] * times)  # the same question, again and again\n\n"
            + 'print("privacy map at d_in:", meas.map(d_in), "= times × ε")\n'
            + 'print("average of the answers:", np.mean(meas(data)))\n')
    return Snippet(code, "OpenDP's answers are whole numbers (discrete Laplace), and its composition "
                   "adds the ε's up just as the page's budget does: the average gets sharper, the "
                   "map grows with every answer.",
                   {"measure": "epsilon", "epsilon": epsilon * times})


def game_question(kind: str, epsilon: float, n: int, *, what: str = "values",
                  bounds: tuple[float, float] | None = None,
                  categories: Sequence[str] | None = None) -> Snippet:
    """One answer of the budget game (replace-one, n public): a count, a clipped mean or a histogram."""
    if kind == "count":
        return count(epsilon, "replace-one", n)
    if kind == "mean":
        if bounds is None:
            raise ValueError("a mean needs its clipping bounds")
        return mean(epsilon, bounds[0], bounds[1], n, what)
    if kind == "histogram":
        if not categories:
            raise ValueError("a histogram needs its categories")
        return histogram(epsilon, len(categories), "replace-one", n, categories=categories)
    raise ValueError(f"kind must be count, mean or histogram, got {kind!r}")


def median(epsilon: float, lower: float, upper: float, n: int, discrete: bool = False) -> Snippet:
    """A private median over a grid of candidates in [lower, upper], replace-one, at ε."""
    if discrete:
        candidates = [float(level) for level in range(int(math.ceil(lower)), int(math.floor(upper)) + 1)]
        data_line = (f"data = rng.integers({int(math.ceil(lower))}, {int(math.floor(upper)) + 1}, "
                     f"size={n}).astype(float).tolist()  # made-up levels\n")
        grid = "every level in the range"
    else:  # every 0.05, or 200 steps over a wider range
        steps = min(200, max(1, round((upper - lower) / 0.05)))
        candidates = None
        data_line = (f"data = ({_num(lower)} + {_num(upper - lower)} * rng.beta(2, 3, size={n}))"
                     ".tolist()  # made-up values\n")
        grid = f"{steps + 1} evenly spaced points"
    candidates_line = (f"candidates = {candidates!r}\n\n" if candidates is not None else
                       f"lower, upper, steps = {_num(lower)}, {_num(upper)}, {steps}\n"
                       "candidates = [lower + (upper - lower) * i / steps for i in range(steps + 1)]\n\n")
    code = (_header(f"A private median of {n:,} values, ε = {epsilon:g} (replace-one)")
            + data_line
            + f"epsilon = {_num(epsilon)}\n"
            + candidates_line
            + "# Neighbours: replace one person (n known): symmetric distance 2\n"
            + f"space = dp.vector_domain(dp.atom_domain(T=float, nan=False), size={n}), dp.symmetric_distance()\n"
            + "d_in = 2\n\n\n"
            + "def make(scale):\n"
            + "    return dp.m.make_private_quantile(*space, dp.max_divergence(), candidates=candidates,\n"
            + "                                     alpha=0.5, scale=scale)\n\n\n"
            + "meas = make(dp.binary_search_param(make, d_in=d_in, d_out=epsilon))  # the scale for ε\n\n"
            + _FOOTER)
    return Snippet(code, f"OpenDP scores a fixed grid of candidates ({grid}) with its own score and "
                   "sensitivity proof, and finds the noise scale for ε by binary search; the page "
                   "draws from the continuous intervals between the data points.",
                   {"measure": "epsilon_at_most", "epsilon": epsilon})


def laplace_query(query: str, epsilon: float, relation: str, *, k: int = 1, lower: float = 0.0,
                  upper: float = 100.0, n: int = 1000) -> Snippet:
    """The Laplace page's four queries (dp.laplace_accuracy.QUERIES), one snippet each."""
    if query == "count":
        return count(epsilon, relation)
    if query == "k counts":
        return k_counts(epsilon, k, relation)
    if query == "histogram":
        return histogram(epsilon, 10, relation)
    if query == "bounded mean":  # n public: replace-one, whatever the page's relation
        return mean(epsilon, lower, upper, n)
    raise ValueError(f"query must be count, k counts, histogram or bounded mean, got {query!r}")


def no_constructor(what: str, nearest: str) -> Snippet:
    """For a release OpenDP has no constructor for: say so, rather than write one by hand."""
    code = (f"# {what}\n# OpenDP {OPENDP_VERSION} has no constructor for this release.\n"
            f"# Nearest in OpenDP: {nearest}\n")
    return Snippet(code, "No OpenDP equivalent: the page's mechanism is written out in dp/.", {})
