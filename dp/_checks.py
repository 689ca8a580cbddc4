"""Parameter checks shared by every `dp` function.

Each check raises ``ValueError`` naming the parameter and its valid range, so a
page can show the message to a student as it is.
"""

from __future__ import annotations

import math

import numpy as np


def _finite_number(name: str, value) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def positive(name: str, value) -> float:
    """A finite number > 0 (ε, a scale, σ)."""
    x = _finite_number(name, value)
    if x <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return x


def non_negative(name: str, value) -> float:
    """A finite number ≥ 0 (a sensitivity, a noise bound)."""
    x = _finite_number(name, value)
    if x < 0:
        raise ValueError(f"{name} must be ≥ 0, got {value!r}")
    return x


def open_unit(name: str, value) -> float:
    """A probability strictly inside (0, 1) (δ, a prior)."""
    x = _finite_number(name, value)
    if not 0 < x < 1:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return x


def unit(name: str, value) -> float:
    """A probability in [0, 1]."""
    x = _finite_number(name, value)
    if not 0 <= x <= 1:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return x


def delta_or_zero(name: str, value) -> float:
    """δ in [0, 1): pure DP is allowed where the formula makes sense at δ = 0."""
    x = _finite_number(name, value)
    if not 0 <= x < 1:
        raise ValueError(f"{name} must be in [0, 1), got {value!r}")
    return x


def count(name: str, value, minimum: int = 1) -> int:
    """An integer ≥ minimum (n, k, a group size)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return int(value)


def finite_array(name: str, values, allow_empty: bool = False) -> np.ndarray:
    """A float array with no NaN or inf."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric, got {values!r}") from None
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    return arr


def bits(name: str, values) -> np.ndarray:
    """A non-empty array of 0/1 values."""
    arr = finite_array(name, values)
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must contain only 0s and 1s")
    return arr.astype(np.int64)


def interval(lower_name: str, lower, upper_name: str, upper) -> tuple[float, float]:
    """Finite bounds with lower < upper."""
    lo = _finite_number(lower_name, lower)
    hi = _finite_number(upper_name, upper)
    if not lo < hi:
        raise ValueError(f"{lower_name} must be < {upper_name}, got {lower!r} ≥ {upper!r}")
    return lo, hi


def generator(rng) -> np.random.Generator:
    """Randomness always comes in explicitly, never from global state."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            "rng must be a numpy.random.Generator, e.g. numpy.random.default_rng(seed)"
        )
    return rng
