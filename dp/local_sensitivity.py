"""Local sensitivity of the median, the mechanism it tempts you to build, and two safe fixes.

    clipped_median                     the median x₍ₘ₎, m = ⌈n/2⌉, of the data clipped to [lower, upper]
    reachable_medians                  the lowest and highest median one replaced person can cause
    median_local_sensitivity           LS(x): how far one replaced person can move the median
    median_after_replacing             the median when one person's value is set to each of `values`
    median_sensitivity_at_distance     A⁽ᵏ⁾(x): the largest LS over datasets k changes away, k = 0, 1, …
    median_smooth_sensitivity          S_β(x) = max_k e^(−kβ)·A⁽ᵏ⁾(x)
    distance_to_instability            how many people must change before LS exceeds a proposed bound
    local_sensitivity_median           median + Lap(LS(x)/ε): NOT differentially private
    smooth_sensitivity_median          median + (2·S_{ε/6}(x)/ε)·Cauchy: ε-DP
    ptr_threshold, ptr_pass_probability, ptr_median    propose-test-release: (ε, δ)-DP
    accuracy_sweep                     typical error of each mechanism over a grid of ε
    best_single_guess                  how often one clipped Laplace release tells two scales apart
    clipped_laplace_max_loss           the largest privacy loss between two such releases
    clipped_laplace_lowest_loss        their most negative loss: the atom at the farther end
    EXAMPLE_SCORES, trap_pair, synthetic_scores       the page's data

Neighbours are replace-one (n is public), as in dp.private_median: x ~ x′ when they differ
in one person's value. Values are clipped to [lower, upper] first, so a replaced value
moves anywhere in that range. With odd n the median is the middle value; with even n we
take the lower of the two middle values, so it is always one person's value.

Sources: CS208 "Beyond noise addition" (local sensitivity, and why noise proportional to
it is not DP); Nissim, Raskhodnikova & Smith 2007, "Smooth sensitivity and sampling in
private data analysis" (§2 smooth bounds and admissible noise, §3.1 the median);
Dwork & Lei 2009, "Differential privacy and robust statistics" (propose-test-release);
Dwork & Roth 2014, ch. 7 (PTR and distance to instability).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import softmax

from dp import _checks as check

# --- The page's data: exam scores out of 100 ----------------------------------------------

SCORE_RANGE = (0.0, 100.0)
# Eleven exam scores each; all three have n = 11, so the median is the 6th lowest.
EXAMPLE_SCORES = {
    "spread": (18.0, 27.0, 35.0, 44.0, 52.0, 58.0, 66.0, 71.0, 79.0, 86.0, 94.0),
    "bunched": (35.0, 42.0, 48.0, 52.0, 60.0, 60.0, 60.0, 88.0, 90.0, 93.0, 97.0),
    "camps": (12.0, 15.0, 18.0, 21.0, 24.0, 27.0, 81.0, 84.0, 87.0, 90.0, 93.0),
}
TRAP_CENTRE, TRAP_FAR = 60.0, 97.0  # the pass mark, and the re-marked student's new score


def trap_pair(spread) -> tuple[np.ndarray, np.ndarray]:
    """Neighbours D and D′ with the same median 60 and very different local sensitivity.

    D = 35 42 48 52 (60 − s) 60 (60 + s) 88 90 93 97 has LS(D) = s. In D′ the student who
    scored 60 + s is re-marked to 97, which leaves the median at 60 but opens the gap up
    to 88: LS(D′) = 28. Needs 0 ≤ s ≤ 20 so that D stays sorted with LS(D) = s.
    """
    s = check.non_negative("spread", spread)
    if s > 20:
        raise ValueError(f"spread must be in [0, 20], got {spread!r}")
    c = TRAP_CENTRE
    d = np.array([35.0, 42.0, 48.0, 52.0, c - s, c, c + s, 88.0, 90.0, 93.0, 97.0])
    d_prime = d.copy()
    d_prime[6] = TRAP_FAR
    return d, d_prime


def synthetic_scores(n, rng) -> np.ndarray:
    """n seeded exam scores: Normal(62, 14) clipped to [0, 100] (a class of n students)."""
    n = check.count("n", n)
    rng = check.generator(rng)
    return np.clip(rng.normal(62.0, 14.0, n), *SCORE_RANGE)


# --- Local sensitivity of the median ------------------------------------------------------


def _sorted_padded(data, lower, upper) -> tuple[np.ndarray, int]:
    """(y, m): y₀ = lower, y₁ … yₙ the sorted clipped data, yₙ₊₁ = upper; m = ⌈n/2⌉."""
    lower, upper = check.interval("lower", lower, "upper", upper)
    data = check.finite_array("data", data).ravel()
    y = np.concatenate(([lower], np.sort(np.clip(data, lower, upper)), [upper]))
    return y, (data.size + 1) // 2


def clipped_median(data, lower, upper) -> float:
    """x₍ₘ₎ with m = ⌈n/2⌉ of the data clipped to [lower, upper] (the middle value for odd n)."""
    y, m = _sorted_padded(data, lower, upper)
    return float(y[m])


def reachable_medians(data, lower, upper) -> tuple[float, float]:
    """(x₍ₘ₋₁₎, x₍ₘ₊₁₎), with x₍₀₎ = lower and x₍ₙ₊₁₎ = upper.

    Replacing one person moves every order statistic by at most one place, so the median of
    a neighbour is always in this interval, and both ends are reached (move a person from
    below the median to the top, or from above it to the bottom).
    """
    y, m = _sorted_padded(data, lower, upper)
    return float(y[m - 1]), float(y[m + 1])


def median_local_sensitivity(data, lower, upper) -> float:
    """LS(x) = max over neighbours x′ of |med(x′) − med(x)| = max(x₍ₘ₊₁₎ − x₍ₘ₎, x₍ₘ₎ − x₍ₘ₋₁₎).

    CS208 "Local sensitivity"; Nissim, Raskhodnikova & Smith 2007, §3.1. The global
    sensitivity is the worst case over all datasets, upper − lower: for example 0 0 … 100 100
    with the median at a 0 next to a 100.
    """
    low, high = reachable_medians(data, lower, upper)
    median = clipped_median(data, lower, upper)
    return max(high - median, median - low)


def median_after_replacing(data, index, values, lower, upper) -> np.ndarray:
    """The median after person `index` (a position in `data`) is given each value in `values`.

    Removing the person leaves n − 1 values r₁ ≤ … ≤ rₙ₋₁; the new median is
    clip(v, rₘ₋₁, rₘ): flat, then a ramp of slope 1, then flat again.
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    data = check.finite_array("data", data).ravel()
    index = check.count("index", index, minimum=0)
    if index >= data.size:
        raise ValueError(f"index must be < n = {data.size}, got {index}")
    values = np.clip(check.finite_array("values", values), lower, upper)
    rest = np.concatenate(([lower], np.sort(np.clip(np.delete(data, index), lower, upper)), [upper]))
    m = (data.size + 1) // 2
    return np.clip(values, rest[m - 1], rest[m])


def median_sensitivity_at_distance(data, lower, upper, max_distance=None) -> np.ndarray:
    """A⁽ᵏ⁾(x) for k = 0 … max_distance (default n): the largest local sensitivity of any
    dataset that differs from x in at most k people.

        A⁽ᵏ⁾(x) = max over t = 0 … k+1 of  x₍ₘ₊ₜ₎ − x₍ₘ₊ₜ₋ₖ₋₁₎,

    with x₍ᵢ₎ = lower for i ≤ 0 and upper for i > n (Nissim, Raskhodnikova & Smith 2007,
    §3.1). Changing k people can pull k + 1 consecutive order statistics around the median
    apart into a single gap. A⁽⁰⁾ = LS(x); A⁽ᵏ⁾ grows with k and reaches upper − lower by k = n.

    Computed as a max-plus convolution: with Rₜ = x₍ₘ₊ₜ₎ − x₍ₘ₎ and Lᵢ = x₍ₘ₎ − x₍ₘ₋ᵢ₎ (both
    growing), A⁽ᵏ⁾ = max over t + i = k + 1 of Rₜ + Lᵢ, one vectorised pass of size about n²/2.
    """
    y, m = _sorted_padded(data, lower, upper)
    n = y.size - 2
    top = n if max_distance is None else min(check.count("max_distance", max_distance, minimum=0), n)
    right = y[m:] - y[m]  # R_t, t = 0 … n + 1 − m (constant beyond: the upper end)
    left = y[m] - y[m::-1]  # L_i, i = 0 … m (constant beyond: the lower end)
    # Beyond these ranges a term is never larger than one inside them, so padding with −∞
    # (no term) is exact: windows[s][j] = L_{s−(T−1−j)}, paired with R reversed.
    width = right.size
    padded = np.concatenate((np.full(width - 1, -np.inf), left, np.full(width - 1, -np.inf)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, width)[1:top + 2]
    return np.max(windows + right[::-1], axis=1)


def median_smooth_sensitivity(data, lower, upper, beta):
    """S_β(x) = max over k ≥ 0 of e^(−kβ)·A⁽ᵏ⁾(x), the smallest β-smooth upper bound on LS.

    β-smooth: LS(x) ≤ S_β(x) and S_β(x′) ≤ e^β·S_β(x) for neighbours (Nissim, Raskhodnikova &
    Smith 2007, Def. 2.1, Lemma 2.3, §3.1). `beta` may be an array: one S per β.
    """
    beta_array = check.finite_array("beta", beta)
    if np.any(beta_array <= 0):
        raise ValueError(f"beta must be > 0, got {beta!r}")
    reach = median_sensitivity_at_distance(data, lower, upper)
    k = np.arange(reach.size)
    smooth = np.max(np.exp(-np.multiply.outer(beta_array, k)) * reach, axis=-1)
    return smooth if np.ndim(beta) else float(smooth)


def distance_to_instability(data, lower, upper, bound) -> float:
    """The fewest people that must change before LS exceeds `bound`: min{k : A⁽ᵏ⁾(x) > bound}.

    0 when LS(x) > bound already; math.inf when bound ≥ upper − lower (never exceeded).
    Neighbours' distances differ by at most 1, so this count has sensitivity 1 (Dwork & Roth
    2014, ch. 7).
    """
    bound = check.non_negative("bound", bound)
    reach = median_sensitivity_at_distance(data, lower, upper)
    above = np.flatnonzero(reach > bound)
    return float(above[0]) if above.size else math.inf


# --- Mechanisms ---------------------------------------------------------------------------


def local_sensitivity_median(data, lower, upper, epsilon, rng, size=None) -> np.ndarray:
    """median + Lap(LS(x)/ε), clipped to [lower, upper]. NOT differentially private.

    The noise scale is itself a function of the data. When LS(x) = 0 the output is the exact
    median; on a neighbour with a large LS it is spread out, so one output can tell the two
    apart (CS208: "adding noise proportional to local sensitivity is not DP"). Kept here as
    the cautionary example that the audits catch.
    """
    epsilon = check.positive("epsilon", epsilon)
    rng = check.generator(rng)
    scale = median_local_sensitivity(data, lower, upper) / epsilon
    median = clipped_median(data, lower, upper)
    return np.clip(median + scale * rng.laplace(0.0, 1.0, size), lower, upper)


def smooth_cauchy_scale(data, lower, upper, epsilon) -> float:
    """The noise scale 2·S_β(x)/ε with β = ε/6 used by smooth_sensitivity_median."""
    epsilon = check.positive("epsilon", epsilon)
    return 2.0 * median_smooth_sensitivity(data, lower, upper, epsilon / 6) / epsilon


def smooth_sensitivity_median(data, lower, upper, epsilon, rng, size=None) -> np.ndarray:
    """median + (2·S_β(x)/ε)·Z with Z standard Cauchy and β = ε/6, clipped. ε-DP.

    Why (Nissim, Raskhodnikova & Smith 2007, §2: sliding and dilation). Write the output
    density as p_x(y) = h(u)/c with u = (y − med(x))/c, c = 2S/ε and φ(z) = ln(1 + z²) =
    −ln h(z) + const. For neighbours, c′ = e^λ·c with |λ| ≤ β (S is β-smooth) and the
    medians differ by at most LS(x) ≤ S, which is a shift of at most ε/2 in u. Then

        |ln p_x(y) − ln p_x′(y)| ≤ |λ|  (the 1/c factor)
                                  + 2|λ| (φ(e^(−λ)z) − φ(z), since 1 + e^(−2λ)z² is within e^(±2|λ|) of 1 + z²)
                                  + ε/2  (a shift of ε/2, and |φ′(z)| = 2|z|/(1 + z²) ≤ 1)
                                  ≤ 3β + ε/2 = ε.

    Clipping to [lower, upper] is post-processing. Cauchy tails are heavy: the typical error
    is c, but the mean error is infinite before clipping.
    """
    scale = smooth_cauchy_scale(data, lower, upper, epsilon)
    rng = check.generator(rng)
    median = clipped_median(data, lower, upper)
    return np.clip(median + scale * rng.standard_cauchy(size), lower, upper)


def ptr_threshold(epsilon, delta) -> float:
    """ln(1/δ)/ε₁ with ε₁ = ε/2: PTR answers only when the noisy distance passes this."""
    epsilon = check.positive("epsilon", epsilon)
    delta = check.open_unit("delta", delta)
    return math.log(1 / delta) / (epsilon / 2)


def ptr_pass_probability(distance, epsilon, delta):
    """Pr[distance + Lap(2/ε) > ln(1/δ)/(ε/2)]: the chance that PTR answers.

    With T the threshold and ε₁ = ε/2: 1 − ½e^(−ε₁(d − T)) when d ≥ T, else ½e^(−ε₁(T − d)).
    When LS(x) already exceeds the bound (d = 0) this is ½e^(−ln(1/δ)) = δ/2 ≤ δ.
    """
    epsilon = check.positive("epsilon", epsilon)
    threshold = ptr_threshold(epsilon, delta)
    d = np.asarray(distance, dtype=float)
    if np.any(np.isnan(d)) or np.any(d < 0):
        raise ValueError(f"distance must be ≥ 0, got {distance!r}")
    gap = (epsilon / 2) * (d - threshold)
    with np.errstate(over="ignore", invalid="ignore"):
        probability = np.where(gap >= 0, 1 - 0.5 * np.exp(-np.where(gap >= 0, gap, 0)),
                               0.5 * np.exp(np.minimum(gap, 0)))
    return probability if np.ndim(distance) else float(probability)


def ptr_median(data, lower, upper, epsilon, delta, bound, rng, size=None) -> np.ndarray:
    """Propose-test-release for the median, (ε, δ)-DP. NaN stands for ⊥ ("no answer").

    1. Propose a bound Δ̂ on the local sensitivity (`bound`, chosen without looking at the data).
    2. Test, with ε₁ = ε/2: d = distance_to_instability(x, Δ̂) has sensitivity 1; if
       d + Lap(1/ε₁) ≤ ln(1/δ)/ε₁, output ⊥.
    3. Release, with ε₂ = ε/2: median + Lap(Δ̂/ε₂), clipped to [lower, upper].

    If d ≥ 1 then LS(x) ≤ Δ̂, so every neighbour's median is within Δ̂ and steps 2-3 are
    (ε₁ + ε₂)-DP; if d = 0 the test passes with probability δ/2 ≤ δ (Dwork & Lei 2009;
    Dwork & Roth 2014, ch. 7).
    """
    bound = check.positive("bound", bound)
    epsilon = check.positive("epsilon", epsilon)
    threshold = ptr_threshold(epsilon, delta)
    rng = check.generator(rng)
    distance = distance_to_instability(data, lower, upper, bound)
    passed = distance + rng.laplace(0.0, 2.0 / epsilon, size) > threshold
    release = clipped_median(data, lower, upper) + rng.laplace(0.0, 2.0 * bound / epsilon, size)
    return np.where(passed, np.clip(release, lower, upper), np.nan)


# --- Accuracy against the exponential mechanism ------------------------------------------

MECHANISMS = ("exponential", "smooth", "ptr", "local", "global")


def exponential_typical_error(data, lower, upper, epsilons) -> np.ndarray:
    """The exact median of |y − median(x)| for y drawn from dp.private_median, one per ε.

    dp.private_median picks interval i (between consecutive sorted points) with probability
    pᵢ ∝ lengthᵢ·exp(−ε|i − n/2|/2), then y uniformly inside it. So y has a piecewise-uniform
    density, its CDF G is piecewise linear through the cumulative pᵢ at the edges, and
    H(r) = Pr[|y − med| ≤ r] = G(med + r) − G(med − r) is linear between the distances from
    med to the edges. The answer is where H crosses ½.
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    epsilons = check.finite_array("epsilons", epsilons).ravel()
    if np.any(epsilons <= 0):
        raise ValueError("epsilons must all be > 0")
    points = np.sort(np.clip(check.finite_array("data", data).ravel(), lower, upper))
    n = points.size
    edges = np.concatenate(([lower], points, [upper]))
    lengths = np.diff(edges)
    with np.errstate(divide="ignore"):  # as dp.private_median_probabilities, for every ε at once
        log_weights = np.log(lengths) + np.multiply.outer(epsilons / 2, -np.abs(np.arange(n + 1) - n / 2))
    p = softmax(log_weights, axis=1)
    cumulative = np.concatenate((np.zeros((epsilons.size, 1)), np.cumsum(p, axis=1)), axis=1)
    median = float(points[(n + 1) // 2 - 1])
    radii = np.unique(np.abs(edges - median))

    def cdf(at):  # G(at) for every ε, at fixed points: the interpolation weights do not depend on ε
        at = np.clip(at, lower, upper)
        i = np.clip(np.searchsorted(edges, at, side="right") - 1, 0, n)
        fraction = np.where(lengths[i] > 0, (at - edges[i]) / np.where(lengths[i] > 0, lengths[i], 1), 0)
        return cumulative[:, i] + p[:, i] * fraction

    inside = cdf(median + radii) - cdf(median - radii)  # H at each radius, (ε, radius)
    j = np.clip(np.argmax(inside >= 0.5, axis=1), 1, radii.size - 1)
    rows = np.arange(epsilons.size)
    h0, h1 = inside[rows, j - 1], inside[rows, j]
    step = np.where(h1 > h0, (0.5 - h0) / np.where(h1 > h0, h1 - h0, 1), 0)
    return radii[j - 1] + np.clip(step, 0, 1) * (radii[j] - radii[j - 1])


def _laplace_cdf(z):
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))


def _cauchy_cdf(z):
    return 0.5 + np.arctan(z) / np.pi


NOISE_CDFS = {"laplace": _laplace_cdf, "cauchy": _cauchy_cdf}


def typical_clipped_error(median, lower, upper, scales, noise) -> np.ndarray:
    """The median of |clip(median + s·Z, lower, upper) − median| for each scale s.

    Z is standard Laplace or Cauchy (`noise`: one name, or an array of names that broadcasts
    against `scales`), with CDF Φ. Clipping caps the error at the distance to each end, so
    Pr[error ≤ r] = Φ(r/s) − Φ(−r/s), except that the upper term is 1 once r reaches
    upper − median and the lower one 0 once r reaches median − lower. Bisection finds where
    that crosses ½, for every scale at once (for s = 0 the error is 0). Without clipping the
    answer is s·ln 2 for Laplace and s for Cauchy.
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    median = check._finite_number("median", median)
    if not lower <= median <= upper:
        raise ValueError(f"median must be in [lower, upper], got {median!r}")
    scales = check.finite_array("scales", scales)
    if np.any(scales < 0):
        raise ValueError("scales must all be ≥ 0")
    names = np.asarray(noise, dtype=object)
    unknown = {str(name) for name in names.ravel()} - set(NOISE_CDFS)
    if unknown:
        raise ValueError(f"noise must be one of {tuple(NOISE_CDFS)}, got {sorted(unknown)}")
    cauchy = np.broadcast_to(names == "cauchy", scales.shape)

    def cdf(z):
        return np.where(cauchy, _cauchy_cdf(z), _laplace_cdf(z))

    down, up = median - lower, upper - median
    positive = np.where(scales > 0, scales, 1.0)
    low, high = np.zeros(scales.shape), np.full(scales.shape, max(down, up))
    for _ in range(50):  # (upper − lower)·2⁻⁵⁰: far below anything shown
        r = (low + high) / 2
        below = (np.where(r >= up, 1.0, cdf(r / positive)) - np.where(r >= down, 0.0, cdf(-r / positive))) < 0.5
        low, high = np.where(below, r, low), np.where(below, high, r)
    return np.where(scales > 0, (low + high) / 2, 0.0)


def accuracy_sweep(data, lower, upper, epsilons, delta, bound) -> dict:
    """Typical error of each median mechanism, one value per ε in `epsilons`, exactly.

    "Typical error" is the median of |output − median(x)| (Cauchy noise has no mean).
    Keys: "exponential" (dp.private_median), "smooth" (smooth_sensitivity_median),
    "ptr" (PTR's error when it answers: its release noise does not depend on the test),
    "ptr_answers" (the probability that PTR answers), "local" (the broken
    local_sensitivity_median) and "global" (median + Lap((upper − lower)/ε): ε-DP, and
    useless). All outputs clipped to [lower, upper], as the mechanisms do.
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    epsilons = check.finite_array("epsilons", epsilons).ravel()
    if np.any(epsilons <= 0):
        raise ValueError("epsilons must all be > 0")
    bound = check.positive("bound", bound)
    median = clipped_median(data, lower, upper)
    smooth = median_smooth_sensitivity(data, lower, upper, epsilons / 6)
    distance = distance_to_instability(data, lower, upper, bound)
    local = median_local_sensitivity(data, lower, upper)

    # one bisection for all four noise-adding mechanisms, one row each
    scales = np.stack([2 * smooth, np.full(epsilons.size, 2 * bound), np.full(epsilons.size, local),
                       np.full(epsilons.size, upper - lower)]) / epsilons
    noise = np.array([["cauchy"], ["laplace"], ["laplace"], ["laplace"]], dtype=object)
    smooth_error, ptr_error, local_error, global_error = typical_clipped_error(
        median, lower, upper, scales, noise)
    return {
        "exponential": exponential_typical_error(data, lower, upper, epsilons),
        "smooth": smooth_error,
        "ptr": ptr_error,
        "ptr_answers": np.array([ptr_pass_probability(distance, e, delta) for e in epsilons]),
        "local": local_error,
        "global": global_error,
    }


# --- What one release of the broken mechanism gives away -----------------------------------


def best_single_guess(centre, scale, other_scale, lower, upper) -> float:
    """Pr[right] for the best guess, from one output, of which of two mechanisms produced it:
    centre + Lap(scale) or centre + Lap(other_scale), each clipped to [lower, upper], with
    even prior odds. (The trap pair: both medians are 60, the scales are LS(D)/ε and LS(D′)/ε.)

    The best guess is "the narrower one" where its density (or its atom at an end of the
    range) is the larger (Neyman–Pearson), and it is right with probability ½(1 + TV) where
    TV is the total-variation distance. With a < b the two densities (1/2a)e^(−|y−c|/a) and
    (1/2b)e^(−|y−c|/b) cross at |y − c| = t = ab·ln(b/a)/(b − a); the narrower one is larger
    inside, and its atoms at the ends, ½e^(−L/a) and ½e^(−U/a), are the smaller. So with
    L = c − lower, U = upper − c and P_s(t) = ½(1 − e^(−min(t, L)/s)) + ½(1 − e^(−min(t, U)/s)),

        TV = P_a(t) − P_b(t).

    A scale of 0 (no noise: the output is exactly c) is told apart with certainty.
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    centre = float(centre)
    if not lower < centre < upper:
        raise ValueError(f"centre must lie strictly inside ({lower:g}, {upper:g}), got {centre!r}")
    a, b = sorted((check.non_negative("scale", scale), check.non_negative("other_scale", other_scale)))
    if a == b:
        return 0.5
    if a == 0:
        return 1.0
    t = a * b * math.log(b / a) / (b - a)
    left, right = centre - lower, upper - centre

    def inside(s: float) -> float:
        return 0.5 * (1 - math.exp(-min(t, left) / s)) + 0.5 * (1 - math.exp(-min(t, right) / s))

    return 0.5 * (1 + inside(a) - inside(b))


def clipped_laplace_max_loss(centre, scale, other_scale, lower, upper) -> float:
    """max over outputs y of |ln p(y)/q(y)| for centre + Lap(scale) and centre + Lap(other_scale),
    both clipped to [lower, upper]: the true privacy loss of the trap pair.

    With a < b, inside the range ln p/q = ln(b/a) − |y − c|·(1/a − 1/b): ln(b/a) at the centre,
    falling linearly. The atoms at the ends, ½e^(−D/a) against ½e^(−D/b) at distance D, have
    loss −D·(1/a − 1/b), the most negative value. So the answer is
    max(ln(b/a), D_max·(1/a − 1/b)) with D_max the larger distance to an end; infinite when
    exactly one scale is 0 (one output is certain under one and impossible under the other).
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    centre = float(centre)
    if not lower < centre < upper:
        raise ValueError(f"centre must lie strictly inside ({lower:g}, {upper:g}), got {centre!r}")
    a, b = sorted((check.non_negative("scale", scale), check.non_negative("other_scale", other_scale)))
    if a == b:
        return 0.0
    if a == 0:
        return math.inf
    return max(math.log(b / a), max(centre - lower, upper - centre) * (1 / a - 1 / b))


def clipped_laplace_lowest_loss(centre, scale, other_scale, lower, upper) -> float:
    """min over outputs y of ln p(y)/q(y), p = centre + Lap(scale), q = centre + Lap(other_scale),
    both clipped to [lower, upper], for scale < other_scale (the trap pair's D against D′).

    Inside the range ln p/q = ln(b/a) − |y − c|·(1/a − 1/b) falls linearly; clipping piles the
    outputs beyond an end into an atom, ½e^(−D/a) against ½e^(−D/b) at distance D, whose loss
    −D·(1/a − 1/b) is lower still by ln(b/a). The lowest is the atom at the farther end.
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    a = check.positive("scale", scale)
    b = check.positive("other_scale", other_scale)
    if not a < b:
        raise ValueError(f"scale must be below other_scale, got {a!r} and {b!r}")
    centre = float(centre)
    if not lower < centre < upper:
        raise ValueError(f"centre must lie strictly inside ({lower:g}, {upper:g}), got {centre!r}")
    return -max(centre - lower, upper - centre) * (1 / a - 1 / b)
