"""Private selection at work: a digital-goods auction, and how often a selection finds the best.

    read_numbers, read_names   check a column typed into an editable table
    buyers, revenue            #{bids ≥ p} and revenue(p) = p · #{bids ≥ p}
    revenue_curve              the step-shaped graph of revenue(p)
    price_grid                 a public menu of prices, fixed before anyone bids
    price_probabilities        the exponential mechanism over prices (Δu = highest price)
    expected_revenue           E[revenue] of that mechanism, for many ε at once
    bidder_utilities           what one bidder gains by misreporting (approximate truthfulness)
    utility_threshold          the utility theorem's line OPT − (2Δu/ε)(ln|R| + t)
    probability_below          how much probability lands below that line
    top_choice_accuracy        Pr[pick the true top] for Laplace-on-all, noisy max, exp. mechanism
    epsilon_reaching           the smallest ε on a grid where such a curve reaches a level
    approval_scores            two neighbouring score vectors that move in opposite directions
    privacy_loss               max over outputs of |ln Pr[M(D) = r] / Pr[M(D′) = r]|

Every probability here uses the ε-DP form exp(ε·u/(2Δu)) of dp.exponential_probabilities.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import log_softmax, softmax

from dp import _checks as check
from dp.selection import exponential_probabilities


def read_numbers(name: str, values: Sequence, *, minimum: float, maximum: float,
                 max_count: int, min_count: int = 1) -> np.ndarray:
    """Check a column a student typed: min_count..max_count entries, each a finite number in range.

    Raises ValueError naming the first bad row (counted from 1) and what to change, so a
    page can show the message as it is. Empty cells arrive as None or NaN.
    """
    values = list(values)
    if len(values) > max_count:
        raise ValueError(f"{name}: {len(values)} rows is too many; keep at most {max_count}.")
    if len(values) < min_count:
        raise ValueError(f"{name}: the table has {len(values)} row(s); add at least {min_count}.")
    numbers = []
    for row, value in enumerate(values, start=1):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            raise ValueError(f"{name}: row {row} is empty; type a number or delete the row.")
        if isinstance(value, bool):
            raise ValueError(f"{name}: row {row} is {value!r}, not a number.")
        try:
            x = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{name}: row {row} is {str(value)[:20]!r}, not a number.") from None
        if not math.isfinite(x) or not minimum <= x <= maximum:
            raise ValueError(f"{name}: row {row} is {x:g}; keep every value between "
                             f"{minimum:g} and {maximum:g}.")
        numbers.append(x)
    return np.array(numbers, dtype=float)


def read_names(name: str, values: Sequence, *, max_count: int, max_length: int = 40) -> list[str]:
    """Check a column of labels: non-empty, at most max_length characters, no duplicates."""
    values = list(values)
    if len(values) > max_count:
        raise ValueError(f"{name}: {len(values)} rows is too many; keep at most {max_count}.")
    names = []
    for row, value in enumerate(values, start=1):
        label = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value).strip()
        if not label:
            raise ValueError(f"{name}: row {row} has no name; type one or delete the row.")
        if len(label) > max_length:
            raise ValueError(f"{name}: row {row} is longer than {max_length} characters.")
        if label in names:
            raise ValueError(f"{name}: {label!r} appears twice; names must differ.")
        names.append(label)
    return names


def _bids(bids) -> np.ndarray:
    bids = check.finite_array("bids", bids).ravel()
    if np.any(bids < 0):
        raise ValueError("bids must all be ≥ 0")
    return bids


def buyers(bids, prices) -> np.ndarray:
    """#{i : b_i ≥ p} for each price p: how many bidders would buy at that price."""
    ordered = np.sort(_bids(bids))
    prices = check.finite_array("prices", prices, allow_empty=True)
    if np.any(prices < 0):
        raise ValueError("prices must all be ≥ 0")
    return ordered.size - np.searchsorted(ordered, prices, side="left")


def revenue(bids, prices) -> np.ndarray:
    """revenue(p) = p · #{i : b_i ≥ p}: everyone who bid at least p buys one copy at price p.

    A digital good has unlimited copies, so the seller's only choice is one price
    (McSherry & Talwar 2007; the notes' example with bids 1, 1, 1, 3.01).
    """
    prices = check.finite_array("prices", prices, allow_empty=True)
    return prices * buyers(bids, prices)


def revenue_curve(bids, upper, max_segments: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """Points (x, y) tracing revenue(p) for 0 < p ≤ upper, with NaN breaks at every drop.

    Between two neighbouring distinct bids the number of buyers is fixed, so revenue
    rises linearly in p and then drops just above each bid. With more than
    `max_segments` distinct bids, the curve is sampled on a grid of 2·max_segments prices.
    """
    bids = _bids(bids)
    upper = check.positive("upper", upper)
    levels = np.unique(bids[bids > 0])
    if levels.size == 0:  # nobody bids above 0: revenue is 0 everywhere
        return np.array([0.0, upper]), np.array([0.0, 0.0])
    if levels.size > max_segments:
        x = np.linspace(upper / (2 * max_segments), upper, 2 * max_segments)
        return x, revenue(bids, x)
    starts = np.concatenate(([0.0], levels[:-1]))
    count = buyers(bids, levels)
    gaps = np.full(levels.size, np.nan)
    x = np.column_stack([starts, levels, gaps]).ravel()
    y = np.column_stack([starts * count, levels * count, gaps]).ravel()
    top = levels[-1] if levels.size else 0.0
    if upper > top:  # above the highest bid nobody buys
        x, y = np.concatenate((x, [top, upper])), np.concatenate((y, [0.0, 0.0]))
    return x, y


def price_grid(cap, max_prices: int = 1000) -> np.ndarray:
    """A public menu of prices: every cent from 0.01 to `cap`, or `max_prices` even steps if finer.

    The menu must be fixed before seeing the bids: a menu made of the bids themselves
    would let the chosen price reveal somebody's exact bid.
    """
    cap = check.positive("cap", cap)
    max_prices = check.count("max_prices", max_prices)
    step = max(0.01, cap / max_prices)
    count = max(1, int(round(cap / step)))
    return np.round(np.arange(1, count + 1) * (cap / count), 10)


def price_probabilities(bids, prices, epsilon, sensitivity=None) -> np.ndarray:
    """Pr[price p] ∝ exp(ε·revenue(p)/(2Δu)), with Δu = max(prices) unless given.

    Adding or removing one bidder changes revenue(p) by at most p, so Δu is the highest
    price on the menu (Dwork & Roth 2014, §3.4). ε-DP when the menu is public.
    """
    prices = check.finite_array("prices", prices)
    sensitivity = float(np.max(prices)) if sensitivity is None else sensitivity
    return exponential_probabilities(revenue(bids, prices), epsilon, sensitivity)


def expected_revenue(bids, prices, epsilons, sensitivity=None) -> np.ndarray:
    """E[revenue] = Σ_p Pr[p]·revenue(p) of the exponential mechanism, for each ε in `epsilons`."""
    prices = check.finite_array("prices", prices)
    sensitivity = check.positive("sensitivity", float(np.max(prices)) if sensitivity is None else sensitivity)
    epsilons = check.finite_array("epsilons", epsilons)
    if np.any(epsilons <= 0):
        raise ValueError("epsilons must all be > 0")
    rev = revenue(bids, prices)
    p = softmax(np.outer(epsilons, rev) / (2 * sensitivity), axis=1)
    return np.sum(p * rev, axis=1)  # not p @ rev: BLAS threads cost ms on tiny products


def bidder_utilities(bids, bidder, value, reports, prices, epsilon, sensitivity=None) -> np.ndarray:
    """A bidder's expected utility E[(value − p)·1{p ≤ report}] for each report they might make.

    The other bids stay fixed. With a public menu, changing one bid moves every
    revenue(p) by at most Δu, so Pr[p | lie] ≤ e^ε·Pr[p | truth] for every p, and since
    (value − p)·1{p ≤ report} ≤ (value − p)⁺ the lie earns at most e^ε times the truthful
    utility: the mechanism is approximately truthful (McSherry & Talwar 2007, Thm 6).
    """
    bids = _bids(bids)
    bidder = check.count("bidder", bidder, minimum=0)
    if bidder >= bids.size:
        raise ValueError(f"bidder must be < the number of bids ({bids.size}), got {bidder}")
    value = check.non_negative("value", value)
    reports = check.finite_array("reports", reports)
    prices = check.finite_array("prices", prices)
    epsilon = check.positive("epsilon", epsilon)
    sensitivity = check.positive("sensitivity", float(np.max(prices)) if sensitivity is None else sensitivity)
    others = np.sort(np.delete(bids, bidder))  # may be empty: a lone bidder
    others_buying = others.size - np.searchsorted(others, prices, side="left")
    buys = reports[:, None] >= prices[None, :]
    rev = prices[None, :] * (others_buying[None, :] + buys)
    p = softmax(epsilon * rev / (2 * sensitivity), axis=1)
    return np.sum(p * (value - prices[None, :]) * buys, axis=1)


def utility_threshold(opt, epsilon, sensitivity, n_candidates, t) -> float:
    """OPT − (2Δu/ε)(ln|R| + t): Pr[u(chosen) ≤ this] ≤ e^−t (Dwork & Roth 2014, Thm 3.11).

    The notes state it with Δu/ε for their exp(ε·u/Δu) form; with the ε-DP form used
    here, the gap doubles. With t = 1 the line also bounds E[u(chosen)] from below.
    """
    opt = check._finite_number("opt", opt)
    epsilon = check.positive("epsilon", epsilon)
    sensitivity = check.positive("sensitivity", sensitivity)
    n_candidates = check.count("n_candidates", n_candidates)
    t = check.non_negative("t", t)
    return opt - 2 * sensitivity / epsilon * (math.log(n_candidates) + t)


def probability_below(scores, probabilities, threshold) -> float:
    """Σ Pr[r] over candidates r with u(r) ≤ threshold."""
    scores = check.finite_array("scores", scores)
    probabilities = check.finite_array("probabilities", probabilities)
    if scores.shape != probabilities.shape:
        raise ValueError("scores and probabilities must have the same length")
    return float(np.sum(probabilities[scores <= threshold]))


def top_choice_accuracy(gap, k, epsilons, rng, trials: int = 200_000) -> dict[str, np.ndarray]:
    """Pr[the true top of k counts is chosen], for each ε, by three ε-DP selections.

    The top count leads by `gap`; the other k − 1 are tied just behind (the hardest
    case for that lead). Neighbours add or remove one person, who may have every one
    of the k diseases, so the count vector has Δ₁ = k and each count Δ = 1.

    - "laplace_all": release every count + Lap(k/ε), take the argmax (Monte Carlo).
    - "noisy_max": report-noisy-max, every count + Lap(1/ε) (Monte Carlo).
    - "exponential": Pr = e^{εg/2} / (e^{εg/2} + k − 1), exactly.

    Monte Carlo: the top is chosen iff g + b·Z₀ > b·M, with Z₀ ~ Lap(1) and M the
    maximum of k − 1 standard Laplace draws, sampled directly as F⁻¹(U^{1/(k−1)}).
    The same draws serve every ε (common random numbers), so the curves are smooth and
    monotone; each point's standard error is ≤ 0.5/√trials.
    """
    gap = check.non_negative("gap", gap)
    k = check.count("k", k, minimum=2)
    epsilons = check.finite_array("epsilons", epsilons)
    if np.any(epsilons <= 0):
        raise ValueError("epsilons must all be > 0")
    rng = check.generator(rng)
    trials = check.count("trials", trials)
    z0 = rng.laplace(0.0, 1.0, trials)
    u = rng.random(trials) ** (1.0 / (k - 1))
    top_of_rest = np.where(u < 0.5, np.log(2 * u), -np.log(2 * (1 - u)))  # Laplace(1) quantile
    margin = np.sort(z0 - top_of_rest)

    def share_above(thresholds):
        return 1 - np.searchsorted(margin, thresholds, side="right") / trials

    weight = np.exp(np.minimum(epsilons * gap / 2, 700))
    return {
        "laplace_all": share_above(-gap * epsilons / k),
        "noisy_max": share_above(-gap * epsilons),
        "exponential": weight / (weight + k - 1),
    }


def exponential_top_epsilon(gap, k, level) -> float:
    """The ε at which `top_choice_accuracy`'s exponential mechanism names the top with
    probability `level`: solving e^{εg/2}/(e^{εg/2} + k − 1) = level gives

        ε = (2/g)·ln(level·(k − 1)/(1 − level)).
    """
    gap = check.positive("gap", gap)
    k = check.count("k", k, minimum=2)
    level = check.open_unit("level", level)
    return max(0.0, 2 / gap * math.log(level * (k - 1) / (1 - level)))


def epsilon_reaching(epsilons, accuracy, level) -> float | None:
    """The smallest ε on the grid where an increasing accuracy curve reaches `level`, or None."""
    epsilons = check.finite_array("epsilons", epsilons)
    accuracy = check.finite_array("accuracy", accuracy)
    if epsilons.shape != accuracy.shape:
        raise ValueError("epsilons and accuracy must have the same length")
    level = check.unit("level", level)
    reached = np.flatnonzero(accuracy >= level)
    return float(epsilons[reached[0]]) if reached.size else None


def approval_scores(m, base: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """Approval scores of 1 + m options in neighbouring ballot boxes D and D′ (replace-one).

    In D one voter approves only option A; in D′ that voter approves every option but A.
    So u(A) drops by 1 while the other m scores rise by 1: every score moves by at most
    Δu = 1, but in opposite directions, which is what the proof's factor e^{ε/2}·e^{ε/2}
    needs. Returns (scores in D, scores in D′), with A first.
    """
    m = check.count("m", m)
    base = check._finite_number("base", base)
    d = np.full(m + 1, base)
    d[0] += 1
    d_prime = np.full(m + 1, base + 1)
    d_prime[0] = base
    return d, d_prime


def privacy_loss(scores_d, scores_d_prime, epsilon, sensitivity) -> float:
    """max over outputs r of |ln(Pr[M(D) = r] / Pr[M(D′) = r])| for the exponential mechanism."""
    scores_d = check.finite_array("scores_d", scores_d)
    scores_d_prime = check.finite_array("scores_d_prime", scores_d_prime)
    if scores_d.shape != scores_d_prime.shape:
        raise ValueError("scores_d and scores_d_prime must have the same length")
    epsilon = check.positive("epsilon", epsilon)
    sensitivity = check.positive("sensitivity", sensitivity)
    # Log-probabilities of dp.exponential_probabilities, kept in logs so tiny ones stay finite.
    log_p = log_softmax(epsilon * scores_d / (2 * sensitivity))
    log_q = log_softmax(epsilon * scores_d_prime / (2 * sensitivity))
    return float(np.max(np.abs(log_p - log_q)))
