"""Private medians three ways, and a coin's bias two ways.

    synthetic_data                   seeded demo data: values in [0, 1] or education levels 1..16
    rank_error                       how far an output's rank is from n/2, in people
    median_sensitivity               global sensitivity of the median on [lower, upper]
    laplace_median                   median + Lap(Δ/ε), clipped (and rounded for levels)
    laplace_median_clipped_share     how much of that output clipping moves onto the range's ends
    histogram_edges, histogram_median   noisy histogram, then where its running total passes n/2
    level_median_probabilities       the exponential mechanism over the levels lower..upper
    expected_rank_errors             mean rank error of all three, for many ε at once
    coin_exponential_parameters      the exponential mechanism's truncated Beta for a coin's bias
    truncated_beta_moments           mean and variance of that truncated Beta
    coin_exponential_density, coin_exponential_estimate, coin_laplace_estimate, coin_variances

Neighbours for the median are replace-one (n is public), as in dp.private_median;
for the coin they are add/remove one flip, as in the ML lecture.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats
from scipy.special import betainc, softmax

from dp import _checks as check
from dp.selection import exponential_probabilities

# Synthetic education levels 1..16, loosely shaped like the PUMS variable used in CS208
# (most people finish high school at level 9; a bachelor's degree is level 13).
EDUCATION_LEVELS = np.arange(1, 17)
EDUCATION_WEIGHTS = np.array([1, 1, 1, 1.5, 1.5, 2, 2, 3, 29, 10, 14, 8, 16, 7, 2, 1]) / 100
DATA_KINDS = ("continuous", "education")


def synthetic_data(kind: str, n, rng) -> np.ndarray:
    """n seeded draws: "continuous" ~ Beta(2, 5) on [0, 1]; "education" ~ levels 1..16."""
    n = check.count("n", n)
    rng = check.generator(rng)
    if kind == "continuous":
        return rng.beta(2.0, 5.0, n)
    if kind == "education":
        return rng.choice(EDUCATION_LEVELS, size=n, p=EDUCATION_WEIGHTS).astype(float)
    raise ValueError(f"kind must be one of {DATA_KINDS}, got {kind!r}")


def rank_error(data, outputs) -> np.ndarray:
    """Distance from n/2 to the rank of each output y, in people:

        max(0, #{x < y} − n/2, n/2 − #{x ≤ y}),

    which is 0 exactly when y is a median of the data (ties count either way). The
    exponential mechanism's score for the median is −rank_error (CS208, "Beyond noise
    addition"); changing one person moves it by at most 1.
    """
    ordered = np.sort(check.finite_array("data", data).ravel())
    return _rank_error_sorted(ordered, check.finite_array("outputs", outputs))


def _rank_error_sorted(ordered, outputs) -> np.ndarray:
    half = ordered.size / 2
    below = np.searchsorted(ordered, outputs, side="left")
    at_or_below = np.searchsorted(ordered, outputs, side="right")
    return np.maximum(0.0, np.maximum(below - half, half - at_or_below))


def median_sensitivity(lower, upper, n) -> float:
    """Global sensitivity of the median of n values clipped to [lower, upper], replace-one.

    Changing one value moves each order statistic at most to its neighbour, so for odd n
    the middle value can jump across the whole range: Δ = upper − lower. For even n the
    median averages the two middle values and Δ = (upper − lower)/2, the notes' "at
    least half the range".
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    n = check.count("n", n)
    return (upper - lower) / (2 if n % 2 == 0 else 1)


def _clipped_median(data, lower, upper) -> float:
    return float(np.median(np.clip(check.finite_array("data", data), lower, upper)))


def _laplace_median_outputs(median, scale, z, lower, upper, discrete) -> np.ndarray:
    outputs = np.clip(median + scale * z, lower, upper)
    return np.round(outputs) if discrete else outputs


def laplace_median(data, lower, upper, epsilon, rng, size=None, discrete=False) -> np.ndarray:
    """median(clip(x)) + Lap(Δ/ε) with Δ = median_sensitivity, then clipped to [lower, upper]
    (and rounded to a whole level when `discrete`). ε-DP, and nearly useless: the noise
    is on the scale of the whole range (CS208, "DP medians")."""
    lower, upper = check.interval("lower", lower, "upper", upper)
    epsilon = check.positive("epsilon", epsilon)
    rng = check.generator(rng)
    data = check.finite_array("data", data)
    scale = median_sensitivity(lower, upper, data.size) / epsilon
    z = rng.laplace(0.0, 1.0, size)
    return _laplace_median_outputs(_clipped_median(data, lower, upper), scale, z, lower, upper, discrete)


def laplace_median_clipped_share(data, lower, upper, epsilon) -> float:
    """Pr[median + Lap(b) lands outside [lower, upper]], b = Δ/ε: the share of `laplace_median`'s
    outputs that clipping moves onto an end of the range. With m the clipped median,

        ½·e^{−(m − lower)/b} + ½·e^{−(upper − m)/b},

    the two Laplace tails beyond the ends (Pr[Lap(b) > s] = ½e^{−s/b} for s ≥ 0).
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    epsilon = check.positive("epsilon", epsilon)
    data = check.finite_array("data", data)
    scale = median_sensitivity(lower, upper, data.size) / epsilon
    median = _clipped_median(data, lower, upper)
    return 0.5 * math.exp(-(median - lower) / scale) + 0.5 * math.exp(-(upper - median) / scale)


def histogram_edges(lower, upper, discrete=False, width=0.05) -> np.ndarray:
    """Bin edges over [lower, upper]: one bin per whole level (lower − ½ … upper + ½) when
    `discrete`, otherwise bins of about `width` each. Widening the range adds bins."""
    lower, upper = check.interval("lower", lower, "upper", upper)
    if discrete:
        if not (float(lower).is_integer() and float(upper).is_integer()):
            raise ValueError("lower and upper must be whole levels when discrete")
        return np.arange(lower - 0.5, upper + 1.0, 1.0)
    width = check.positive("width", width)
    bins = max(1, int(round((upper - lower) / width)))
    return np.linspace(lower, upper, bins + 1)


def _histogram_counts(data, edges) -> np.ndarray:
    clipped = np.clip(check.finite_array("data", data), edges[0], edges[-1])
    return np.histogram(clipped, bins=edges)[0].astype(float)


def _histogram_median_outputs(counts, edges, n, scale, z) -> np.ndarray:
    running = np.cumsum(counts + scale * z, axis=-1)
    passed = running >= n / 2
    index = np.where(passed.any(axis=-1), np.argmax(passed, axis=-1), counts.size - 1)
    return (edges[index] + edges[index + 1]) / 2


def histogram_median(data, edges, epsilon, rng, size=None) -> np.ndarray:
    """Release every bin count + Lap(2/ε) (a histogram has Δ₁ = 2 under replace-one), then
    output the middle of the first bin where the noisy running total reaches n/2.

    The running total at the median adds up to |Y| noises, so its error grows like
    √|Y|/ε with the number of bins |Y| (CS208: O(√|Y|)/ε against O(log|Y|)/ε for the
    exponential mechanism).
    """
    edges = check.finite_array("edges", edges)
    if edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("edges must be at least two increasing numbers")
    epsilon = check.positive("epsilon", epsilon)
    rng = check.generator(rng)
    data = check.finite_array("data", data)
    counts = _histogram_counts(data, edges)
    shape = counts.shape if size is None else (size, counts.size)
    return _histogram_median_outputs(counts, edges, data.size, 2.0 / epsilon,
                                     rng.laplace(0.0, 1.0, shape))


def level_median_probabilities(data, lower, upper, epsilon) -> tuple[np.ndarray, np.ndarray]:
    """The exponential mechanism over whole levels lower..upper with u(y) = −rank_error(y),
    Δu = 1: Pr[y] ∝ exp(−ε·rank_error(y)/2). Returns (levels, probabilities)."""
    lower, upper = check.interval("lower", lower, "upper", upper)
    if not (float(lower).is_integer() and float(upper).is_integer()):
        raise ValueError("lower and upper must be whole levels")
    levels = np.arange(lower, upper + 1.0)
    clipped = np.clip(check.finite_array("data", data), lower, upper)
    return levels, exponential_probabilities(-rank_error(clipped, levels), epsilon, 1.0)


def expected_rank_errors(data, lower, upper, epsilons, rng, trials: int = 400,
                         discrete=False) -> dict[str, np.ndarray]:
    """Mean rank error of the three private medians, one value per ε in `epsilons`.

    "exponential" is exact: Σ Pr[y]·rank_error(y) over dp.private_median's intervals (an
    interval with i points below has rank error |i − n/2|) or over the levels.
    "laplace" and "histogram" are Monte Carlo over `trials` draws, reusing the same
    standard Laplace draws for every ε so the curves are smooth.
    """
    lower, upper = check.interval("lower", lower, "upper", upper)
    data = check.finite_array("data", data).ravel()
    epsilons = check.finite_array("epsilons", epsilons).ravel()
    if np.any(epsilons <= 0):
        raise ValueError("epsilons must all be > 0")
    rng = check.generator(rng)
    trials = check.count("trials", trials)
    n = data.size
    ordered = np.sort(data)
    edges = histogram_edges(lower, upper, discrete)
    counts = _histogram_counts(data, edges)
    median = _clipped_median(data, lower, upper)
    z_laplace = rng.laplace(0.0, 1.0, trials)
    z_histogram = rng.laplace(0.0, 1.0, (trials, counts.size))
    result = {name: np.empty(epsilons.size) for name in ("exponential", "laplace", "histogram")}
    if discrete:  # the mechanism scores the clipped data; the error is against the real data
        levels = np.arange(lower, upper + 1.0)
        scores = -_rank_error_sorted(np.clip(ordered, lower, upper), levels)
        errors = _rank_error_sorted(ordered, levels)
        log_lengths = np.zeros(levels.size)
    else:  # dp.private_median_probabilities, with the ε-free parts computed once
        edges_data = np.concatenate(([lower], np.clip(ordered, lower, upper), [upper]))
        with np.errstate(divide="ignore"):
            log_lengths = np.log(np.diff(edges_data))
        errors = np.abs(np.arange(n + 1) - n / 2)
        scores = -errors
    for j, epsilon in enumerate(epsilons):
        result["exponential"][j] = np.sum(softmax(log_lengths + epsilon * scores / 2) * errors)
        scale = median_sensitivity(lower, upper, n) / epsilon
        outputs = _laplace_median_outputs(median, scale, z_laplace, lower, upper, discrete)
        result["laplace"][j] = _rank_error_sorted(ordered, outputs).mean()
        outputs = _histogram_median_outputs(counts, edges, n, 2.0 / epsilon, z_histogram)
        result["histogram"][j] = _rank_error_sorted(ordered, outputs).mean()
    return result


# --- A coin's bias (the ML lecture's example) -------------------------------------------

COIN_BOUNDS = (0.1, 0.9)


def coin_exponential_parameters(heads, tails, epsilon, bounds=COIN_BOUNDS) -> tuple[float, float, float]:
    """The exponential mechanism for a coin's bias θ with loss = negative log-likelihood.

    With θ restricted to (lo, hi), adding or removing one flip changes the loss by at most
    ΔL = −ln(min(lo, 1 − hi)) (= ln 10 ≈ 2.3 for (0.1, 0.9)). Then
    Pr[θ] ∝ exp(−ε·L(θ)/(2ΔL)) = θ^{c·heads}(1 − θ)^{c·tails} with c = ε/(2ΔL), a Beta(1 + c·heads,
    1 + c·tails) truncated to (lo, hi). Returns (a, b, c). (ML lecture, "Exponential
    mechanism example": c ≈ 0.022 at ε = 0.1.)
    """
    heads = check.count("heads", heads, minimum=0)
    tails = check.count("tails", tails, minimum=0)
    epsilon = check.positive("epsilon", epsilon)
    lo, hi = check.interval("bounds[0]", bounds[0], "bounds[1]", bounds[1])
    if not 0 < lo < hi < 1:
        raise ValueError(f"bounds must satisfy 0 < lo < hi < 1, got {bounds!r}")
    loss_sensitivity = -math.log(min(lo, 1 - hi))
    c = epsilon / (2 * loss_sensitivity)
    return 1 + c * heads, 1 + c * tails, c


def truncated_beta_moments(a, b, lo, hi) -> tuple[float, float]:
    """Mean and variance of Beta(a, b) restricted to (lo, hi), from regularised incomplete betas:

        E[θ^k] = [B(a + k, b)/B(a, b)] · (I_hi(a + k, b) − I_lo(a + k, b)) / (I_hi(a, b) − I_lo(a, b)).
    """
    a, b = check.positive("a", a), check.positive("b", b)
    lo, hi = check.interval("lo", lo, "hi", hi)

    def mass(shift):
        return betainc(a + shift, b, hi) - betainc(a + shift, b, lo)

    z = mass(0)
    if not z > 0:
        raise ValueError("the Beta distribution has no mass in (lo, hi) at this precision")
    mean = a / (a + b) * mass(1) / z
    second = a * (a + 1) / ((a + b) * (a + b + 1)) * mass(2) / z
    return float(mean), float(max(second - mean**2, 0.0))


def coin_exponential_density(heads, tails, epsilon, grid, bounds=COIN_BOUNDS) -> np.ndarray:
    """Density of the exponential mechanism's θ̂ at each point of `grid` (0 outside the bounds)."""
    a, b, _ = coin_exponential_parameters(heads, tails, epsilon, bounds)
    grid = check.finite_array("grid", grid)
    mass = betainc(a, b, bounds[1]) - betainc(a, b, bounds[0])
    inside = (grid > bounds[0]) & (grid < bounds[1])
    return np.where(inside, stats.beta.pdf(grid, a, b) / mass, 0.0)


def coin_exponential_estimate(heads, tails, epsilon, rng, size=None, bounds=COIN_BOUNDS) -> np.ndarray:
    """Draw θ̂ from the truncated Beta of coin_exponential_parameters (inverse CDF). ε-DP."""
    a, b, _ = coin_exponential_parameters(heads, tails, epsilon, bounds)
    rng = check.generator(rng)
    dist = stats.beta(a, b)
    low, high = dist.cdf(bounds[0]), dist.cdf(bounds[1])
    return np.clip(dist.ppf(rng.uniform(low, high, size)), bounds[0], bounds[1])


def _coin_laplace_outputs(heads, tails, scale, z_heads, z_tails):
    noisy_heads = np.maximum(heads + scale * z_heads, 0.0)
    noisy_tails = np.maximum(tails + scale * z_tails, 0.0)
    total = noisy_heads + noisy_tails
    return np.where(total > 0, noisy_heads / np.where(total > 0, total, 1.0), 0.5)


def coin_laplace_estimate(heads, tails, epsilon, rng, size=None) -> np.ndarray:
    """θ̂ = N̂_H / (N̂_H + N̂_T) from the counts + Lap(1/ε) each, negative counts set to 0.

    Adding or removing one flip changes one of the two counts by 1, so Δ₁ = 1 and b = 1/ε.
    The noise in θ̂ has variance O(1/(εN)²), against O(1/(εN)) for the exponential
    mechanism (ML lecture, "Comparison of Laplace and exponential mechanisms").
    """
    heads = check.count("heads", heads, minimum=0)
    tails = check.count("tails", tails, minimum=0)
    epsilon = check.positive("epsilon", epsilon)
    rng = check.generator(rng)
    z = rng.laplace(0.0, 1.0, (2,) if size is None else (2, size))
    return _coin_laplace_outputs(heads, tails, 1.0 / epsilon, z[0], z[1])


def coin_variances(theta, flips, epsilon, rng, trials: int = 20_000,
                   bounds=COIN_BOUNDS) -> dict[str, np.ndarray]:
    """Var(θ̂ | data) against the number of flips N, for a typical dataset with round(θN) heads.

    "exponential" is exact (truncated_beta_moments); "laplace" is Monte Carlo with the same
    standard Laplace draws for every N; "sampling" is θ(1 − θ)/N, the statistical error
    that the data have anyway.
    """
    theta = check.unit("theta", theta)
    flips = np.asarray([check.count("flips", f) for f in np.ravel(flips)])
    epsilon = check.positive("epsilon", epsilon)
    rng = check.generator(rng)
    trials = check.count("trials", trials, minimum=2)
    z = rng.laplace(0.0, 1.0, (2, trials))
    exponential, laplace = np.empty(flips.size), np.empty(flips.size)
    for j, n in enumerate(flips):
        heads = int(round(theta * n))
        a, b, _ = coin_exponential_parameters(heads, n - heads, epsilon, bounds)
        exponential[j] = truncated_beta_moments(a, b, *bounds)[1]
        laplace[j] = np.var(_coin_laplace_outputs(heads, n - heads, 1.0 / epsilon, z[0], z[1]), ddof=1)
    return {"exponential": exponential, "laplace": laplace, "sampling": theta * (1 - theta) / flips}
