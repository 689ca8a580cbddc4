"""Using the Laplace mechanism well: sensitivity of common queries, accuracy, histograms,
post-processing and clipped means.

Everything here builds on dp.noise (b = Δ/ε, Y ~ Lap(b)). Sources: Dwork & Roth 2014, §3.3
(sensitivity, Thm 3.6, Fact 3.7, Thm 3.8); the course notes on mechanisms (union bound, census
first names); Hay et al. 2010 and Duchi et al. 2008 for consistent counts.
"""

from __future__ import annotations

import math

import numpy as np

from dp import _checks as check
from dp.noise import laplace_mechanism, laplace_scale

QUERIES = ("count", "k counts", "histogram", "bounded mean")
RELATIONS = ("add/remove", "replace-one")


# --- sensitivity -------------------------------------------------------------------------

def query_sensitivity(query: str, relation: str, k=1, lower=0.0, upper=1.0, n=1) -> float:
    """L1 sensitivity Δ = max over neighbours D, D′ of ‖f(D) − f(D′)‖₁ for four queries.

    - "count": Δ = 1 under either relation (one person moves a count by at most 1).
    - "k counts": Δ ≤ k (each of k counting queries moves by at most 1), either relation.
    - "histogram" (disjoint buckets): Δ = 1 under add/remove (one bucket moves by 1),
      Δ = 2 under replace-one (one bucket loses a person, another gains one).
    - "bounded mean" of n values clipped to [lower, upper]: Δ = (upper − lower)/n. This needs
      n to be public, i.e. replace-one; under add/remove n itself is private and this raises.

    Dwork & Roth 2014, Def. 3.1 and §3.3; course notes on mechanisms.
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    if query == "count":
        return 1.0
    if query == "k counts":
        return float(check.count("k", k))
    if query == "histogram":
        return 1.0 if relation == "add/remove" else 2.0
    if query == "bounded mean":
        lower, upper = check.interval("lower", lower, "upper", upper)
        n = check.count("n", n)
        if relation == "add/remove":
            raise ValueError(
                "the bounded mean's Δ = (upper − lower)/n needs a public n (replace-one); "
                "under add/remove, release a noisy sum and a noisy count instead"
            )
        return (upper - lower) / n
    raise ValueError(f"query must be one of {QUERIES}, got {query!r}")


def per_coordinate_shift(query: str, sensitivity) -> float:
    """How far one output coordinate moves between worst-case neighbours.

    Counts move by 1 in each coordinate they touch (the L1 total is Δ); the mean moves by Δ.
    Each coordinate then contributes a density ratio of at most e^(shift/b).
    """
    sensitivity = check.positive("sensitivity", sensitivity)
    if query not in QUERIES:
        raise ValueError(f"query must be one of {QUERIES}, got {query!r}")
    return sensitivity if query in ("count", "bounded mean") else 1.0


# --- accuracy -----------------------------------------------------------------------------

def laplace_variance(scale) -> float:
    """Var[Y] = 2b² for Y ~ Lap(b) (Dwork & Roth 2014, §3.3)."""
    b = check.non_negative("scale", scale)
    return 2 * b * b


def laplace_quantile(scale, p):
    """The p-quantile of Lap(0, b): b·ln(2p) for p < ½ and −b·ln(2(1 − p)) for p ≥ ½."""
    b = check.positive("scale", scale)
    p = check.finite_array("p", p)
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError("p must be in (0, 1)")
    q = np.where(p < 0.5, b * np.log(2 * np.minimum(p, 0.5)), -b * np.log(2 * (1 - np.maximum(p, 0.5))))
    return q if q.ndim else float(q)


def laplace_interval(scale, confidence) -> float:
    """Half-width w of the central interval: Pr[|Y| ≤ w] = c for Y ~ Lap(b).

    From Pr[|Y| > w] = e^(−w/b) (Fact 3.7): w = b·ln(1/(1 − c)), the (1 + c)/2 quantile.
    At c = 95%, w = b·ln 20 ≈ 3.0·b.
    """
    b = check.non_negative("scale", scale)
    c = check.open_unit("confidence", confidence)
    return b * math.log(1 / (1 - c))


def epsilon_for_error(sensitivity, error, confidence) -> float:
    """The inverse: the smallest ε with Pr[|Y| ≤ error] ≥ c for Y ~ Lap(Δ/ε).

    error = (Δ/ε)·ln(1/(1 − c))  ⇔  ε = Δ·ln(1/(1 − c))/error.
    """
    sensitivity = check.positive("sensitivity", sensitivity)
    error = check.positive("error", error)
    c = check.open_unit("confidence", confidence)
    return sensitivity * math.log(1 / (1 - c)) / error


# --- many buckets at once ---------------------------------------------------------------------

def union_bound_error(scale, k, t=10.0) -> float:
    """With probability ≥ 1 − e^(−t), all k Lap(b) noises satisfy |Y_i| ≤ b·(t + ln k).

    Union bound over Pr[|Y_i| > s·b] = e^(−s) with s = t + ln k: k·e^(−t − ln k) = e^(−t).
    At k = 10,000, ε = 0.1, Δ = 1: 10·(10 + 9.21) ≈ 192, the notes' "≈ 200".
    """
    b = check.non_negative("scale", scale)
    k = check.count("k", k)
    t = check.non_negative("t", t)
    return b * (t + math.log(k))


def max_error_probability(k, t, method="exact"):
    """Pr[max_i |Y_i| > t·b] for k independent Lap(b) noises.

    - "exact": 1 − (1 − e^(−t))^k (the |Y_i|/b are independent Exp(1)).
    - "union": min(1, k·e^(−t)), the union bound; "single": e^(−t), one bucket.
    """
    k = check.count("k", k)
    t = check.finite_array("t", t)
    if np.any(t < 0):
        raise ValueError("t must be ≥ 0")
    if method == "exact":
        with np.errstate(divide="ignore"):  # t = 0: log1p(−1) = −inf, and the answer is 1
            out = -np.expm1(k * np.log1p(-np.exp(-t)))
    elif method == "union":
        out = np.minimum(1.0, k * np.exp(-t))
    elif method == "single":
        out = np.exp(-t)
    else:
        raise ValueError(f'method must be "exact", "union" or "single", got {method!r}')
    return out if out.ndim else float(out)


# --- synthetic data --------------------------------------------------------------------------

AGES = np.arange(100)  # single years 0..99


def age_distribution() -> np.ndarray:
    """A made-up, smooth population pyramid over ages 0..99 (a pmf, sums to 1).

    Roughly flat to 60, a bump near 30 and 60, thinning out after 75. Synthetic, for demos.
    """
    a = AGES.astype(float)
    weight = (1 + 0.25 * np.exp(-(((a - 32) / 12) ** 2)) + 0.2 * np.exp(-(((a - 60) / 8) ** 2)))
    weight /= 1 + np.exp((a - 76) / 6)
    return weight / weight.sum()


def synthetic_age_counts(rng, n) -> np.ndarray:
    """How many of n synthetic people have each age 0..99: a multinomial draw (no loop over people)."""
    rng = check.generator(rng)
    n = check.count("n", n)
    return rng.multinomial(n, age_distribution())


def bucket_counts(counts, k) -> np.ndarray:
    """Merge 100 single-year counts into k equal buckets (k must divide 100)."""
    counts = check.finite_array("counts", counts)
    k = check.count("k", k)
    if counts.ndim != 1 or len(counts) % k:
        raise ValueError(f"k must divide the number of counts ({len(counts)}), got {k}")
    return counts.reshape(k, -1).sum(axis=1)


def zipf_distribution(k, exponent=0.7) -> np.ndarray:
    """p_i ∝ i^(−s), i = 1..k: a made-up spread of k first names (the top one ≈ 2% at s = 0.7)."""
    k = check.count("k", k)
    s = check.positive("exponent", exponent)
    weight = np.arange(1, k + 1, dtype=float) ** -s
    return weight / weight.sum()


def histogram_errors(rng, populations, pmf, scale) -> tuple[np.ndarray, np.ndarray]:
    """For each n: draw a histogram of n people over pmf, release it with Lap(b) noise.

    Returns (largest |noisy − true| over all buckets, largest true count), one per n.
    The error column does not depend on n: the noise never looks at the data.
    """
    rng = check.generator(rng)
    pmf = check.finite_array("pmf", pmf)
    b = check.positive("scale", scale)
    max_errors, top_counts = [], []
    for n in populations:
        counts = rng.multinomial(check.count("n", n), pmf)
        noisy = laplace_mechanism(counts, b, 1.0, rng)  # Δ/ε = b
        max_errors.append(np.max(np.abs(noisy - counts)))
        top_counts.append(counts.max())
    return np.array(max_errors), np.array(top_counts)


def synthetic_incomes(rng, n) -> np.ndarray:
    """n made-up yearly incomes in thousands: log-normal, median 45, a long right tail."""
    rng = check.generator(rng)
    n = check.count("n", n)
    return np.exp(rng.normal(math.log(45.0), 0.9, size=n))


# --- post-processing ---------------------------------------------------------------------------

def project_to_simplex(values, total):
    """Euclidean projection of each row onto {x ≥ 0, Σx = total}: x = max(v − θ, 0).

    θ is found by sorting (Duchi et al. 2008, Fig. 1). Post-processing: costs no privacy
    as long as `total` is public or itself private.
    """
    v = np.atleast_2d(check.finite_array("values", values))
    total = np.broadcast_to(check.finite_array("total", total), (v.shape[0],)).astype(float)
    if np.any(total < 0):
        raise ValueError("total must be ≥ 0")
    u = -np.sort(-v, axis=1)
    excess = np.cumsum(u, axis=1) - total[:, None]
    index = np.arange(1, v.shape[1] + 1)
    rho = np.sum(u - excess / index > 0, axis=1)  # number of positive entries (≥ 1 if total > 0)
    rho = np.maximum(rho, 1)
    theta = excess[np.arange(v.shape[0]), rho - 1] / rho
    out = np.maximum(v - theta[:, None], 0.0)
    out[total == 0] = 0.0
    return out if np.ndim(values) > 1 else out[0]


def consistent_counts(values, total):
    """Non-negative integer counts that add up to `total` (an integer), close to `values`.

    Project onto {x ≥ 0, Σx = total}, then round down and hand the remaining units to the
    largest fractional parts (largest-remainder rounding), so the sum stays exact.
    """
    total_arr = check.finite_array("total", total)
    if np.any(total_arr != np.round(total_arr)):
        raise ValueError("total must be a whole number")
    x = np.atleast_2d(project_to_simplex(values, total_arr))
    floor = np.floor(x)
    missing = np.rint(np.broadcast_to(total_arr, (x.shape[0],)) - floor.sum(axis=1))
    rank = np.argsort(np.argsort(-(x - floor), axis=1, kind="stable"), axis=1)
    out = floor + (rank < missing[:, None])
    return out if np.ndim(values) > 1 else out[0]


POSTPROCESSING = ("noisy (raw)", "rounded", "negatives → 0", "rounded, negatives → 0", "consistent")


def postprocess(noisy, variant: str, total=None):
    """Apply one post-processing recipe to noisy counts (rows are independent releases).

    "consistent" needs `total`: a public n (replace-one) or one derived from the release.
    """
    noisy = check.finite_array("noisy", noisy)
    if variant == "noisy (raw)":
        return noisy
    if variant == "rounded":
        return np.rint(noisy)
    if variant == "negatives → 0":
        return np.maximum(noisy, 0.0)
    if variant == "rounded, negatives → 0":
        return np.maximum(np.rint(noisy), 0.0)
    if variant == "consistent":
        if total is None:
            raise ValueError("the consistent variant needs a total")
        return consistent_counts(noisy, total)
    raise ValueError(f"variant must be one of {POSTPROCESSING}, got {variant!r}")


def postprocessing_errors(rng, counts, scale, repeats=400, public_total=None) -> dict:
    """Mean |error| per bucket and mean |error| of the total, for each post-processing recipe.

    Each of `repeats` releases is counts + Lap(b) noise; every recipe is applied to the same
    releases, so differences between recipes are not sampling noise between them. The total
    for "consistent" is `public_total` if given (replace-one: n is public), otherwise the
    rounded, non-negative sum of the noisy counts (add/remove: derived from the release).
    """
    rng = check.generator(rng)
    counts = check.finite_array("counts", counts)
    b = check.positive("scale", scale)
    repeats = check.count("repeats", repeats)
    noisy = counts + rng.laplace(0.0, b, size=(repeats, counts.size))
    if public_total is None:
        total = np.maximum(np.rint(noisy.sum(axis=1)), 0.0)
    else:
        total = np.full(repeats, float(check.count("public_total", public_total, minimum=0)))
    errors = {}
    for variant in POSTPROCESSING:
        out = postprocess(noisy, variant, total)
        errors[variant] = (float(np.mean(np.abs(out - counts))),
                           float(np.mean(np.abs(out.sum(axis=1) - counts.sum()))))
    return errors


# --- bounded mean and clipping -----------------------------------------------------------------

def clipped_mean_decomposition(values, lower, upper, epsilon) -> dict:
    """Error of the private clipped mean  M = mean(clip(x, L, U)) + Lap((U − L)/(nε)).

    For fixed data, E[(M − mean(x))²] = bias² + 2b², with
      bias = mean(clip(x, L, U)) − mean(x)     (from clipping: shrinks as [L, U] widens)
      b    = (U − L)/(nε)                       (from noise: grows with the range).
    `upper` may be an array (one decomposition per U). Returns arrays bias, noise_sd
    (= √2·b), rmse. Replace-one neighbours (n public). Dwork & Roth 2014, §3.3; Near &
    Abuah, "Programming Differential Privacy", ch. on clipping.
    """
    x = check.finite_array("values", values)
    epsilon = check.positive("epsilon", epsilon)
    lower_arr = check.finite_array("lower", lower)
    if lower_arr.ndim:
        raise ValueError(f"lower must be a single number, got {lower!r}")
    lower = float(lower_arr)
    upper = check.finite_array("upper", upper)
    if np.any(upper <= lower):
        raise ValueError(f"upper must be > lower ({lower}), got {upper!r}")
    n = x.size
    xs = np.sort(x)
    prefix = np.concatenate([[0.0], np.cumsum(xs)])
    below = np.searchsorted(xs, lower, side="left")  # values < lower become lower
    above = np.searchsorted(xs, upper, side="right")  # values > upper become upper
    inside = prefix[np.maximum(above, below)] - prefix[below]
    clipped_sum = below * lower + inside + (n - np.maximum(above, below)) * upper
    bias = clipped_sum / n - prefix[-1] / n
    noise_sd = math.sqrt(2) * (upper - lower) / (n * epsilon)
    rmse = np.sqrt(bias**2 + noise_sd**2)
    return {"bias": bias, "noise_sd": noise_sd, "rmse": rmse}


def private_clipped_mean(values, lower, upper, epsilon, rng) -> float:
    """mean(clip(x, L, U)) + Lap((U − L)/(nε)); ε-DP under replace-one with L, U fixed in advance."""
    rng = check.generator(rng)
    x = check.finite_array("values", values)
    lower, upper = check.interval("lower", lower, "upper", upper)
    sensitivity = (upper - lower) / x.size
    return laplace_mechanism(float(np.clip(x, lower, upper).mean()), sensitivity, epsilon, rng)


# --- audit -------------------------------------------------------------------------------------

def laplace_samples(rng, size, value, sensitivity, epsilon) -> np.ndarray:
    """`size` independent releases of value + Lap(Δ/ε) (rows), for audits: shape (size, *value.shape)."""
    rng = check.generator(rng)
    size = check.count("size", size)
    value = check.finite_array("value", value)
    b = laplace_scale(sensitivity, epsilon)
    return value + rng.laplace(0.0, b, size=(size, *value.shape))


def both_move_event(outputs, first, second) -> np.ndarray:
    """S = {y₁ ≥ first and y₂ ≤ second}: the event that separates a replace-one move
    from bucket 1 to bucket 2. Pr_D[S]/Pr_D′[S] = e^(2/b) when D′ has one person moved."""
    outputs = np.asarray(outputs)
    return (outputs[:, 0] >= first) & (outputs[:, 1] <= second)
