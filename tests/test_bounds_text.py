"""Bounds are tests: every sentence that states a bound about a live value ("at most", "at
least", "never", "within", "more than", "better") is checked here against a computation that
does not go through the code that renders it: a closed form written out again, or a seeded
simulation of the page's own mechanism with a tolerance derived from its sample size.

Each test renders the page at the settings an audit named and at the ends of its controls
(tests/render_variants.py lists the variants), then recomputes the claim.
"""

from __future__ import annotations

import math
import re

import pytest

from tests.conftest import app_test, assert_clean, lesson


def _flat(at) -> str:
    """All markdown of a run, with whitespace collapsed (sections wrap their lines)."""
    return " ".join(" ".join(m.value for m in at.markdown).split())


def _run(slug: str, params: dict | None = None) -> str:
    at = app_test(lesson(slug), params)
    assert_clean(at)
    return _flat(at)


def _percent(text: str) -> float:
    """'62.3%' → 0.623."""
    return float(text.rstrip("%").replace(",", "")) / 100


# ── Randomized response: local versus central ─────────────────────────────────────────────────

def _rr_errors(n: int, epsilon: float) -> tuple[float, float]:
    """RMSE of the debiased RR estimate (Warner) and of (count + Lap(1/ε))/n, written out."""
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    local = math.sqrt(keep * (1 - keep) / n) / (2 * keep - 1)
    central = math.sqrt(2) / (epsilon * n)
    return local, central


@pytest.mark.parametrize(("epsilon", "n"), [("10", 10), ("5", 10), ("10", 500), ("ln 3", 10),
                                            ("0.01", 100_000_000)])
def test_rr_says_which_release_is_more_accurate(epsilon, n):
    text = _run("randomized-response", {"rr_eps": epsilon, "rr_lc_n": f"{n:,}"})
    assert f"At n = {n:,} and ε = " in text  # the link's setting, not a fallback
    local, central = _rr_errors(n, math.log(3) if epsilon == "ln 3" else float(epsilon))
    local_wins = "here the *local* estimate is the better one" in text
    assert local_wins == (local < central)
    if local_wins:
        times = float(re.search(r"\*\*([\d.]+) times\*\* more accurate", text).group(1))
        assert times == pytest.approx(central / local, rel=0.05)  # two digits
        overtake = int(re.search(r"from about n = ([\d,]+) people on", text).group(1)
                       .replace(",", ""))
        # the central release is the better one from there on, and not one person before
        assert _rr_errors(overtake, float(epsilon))[1] <= _rr_errors(overtake, float(epsilon))[0]
        assert _rr_errors(overtake - 1, float(epsilon))[1] > _rr_errors(overtake - 1, float(epsilon))[0]
    else:
        assert "would need about 0 people" not in text


# ── Outward rounding: a printed "at most" is never below the bound, "at least" never above ──

def _decimals(text: str) -> int:
    number = text.rstrip("%")
    return len(number.split(".")[1]) if "." in number else 0


def assert_at_most(text: str, bound: float) -> None:
    """'62.3%' states a ceiling: it is not below the true one, and is its rounding up."""
    shown, step = _percent(text), 10.0 ** -_decimals(text) / 100
    assert shown >= bound * (1 - 1e-12), (text, bound)
    assert shown - bound < step * (1 + 1e-9), (text, bound)


def assert_at_least(text: str, bound: float) -> None:
    """'11.9%' states a floor: it is not above the true one, and is its rounding down."""
    shown, step = _percent(text), 10.0 ** -_decimals(text) / 100
    assert shown <= bound * (1 + 1e-12), (text, bound)
    assert bound - shown < step * (1 + 1e-9), (text, bound)


def _expit(x: float) -> float:
    """The belief after odds 1:1 are multiplied by e^x (Bayes with a 50% prior)."""
    return 1 / (1 + math.exp(-x))


# ── Composition: group privacy ────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("params", [
    {}, {"comp_grp_delta": "0.1"}, {"comp_grp_eps": "10", "comp_grp_delta": "0.1"},
    {"comp_grp_g": "1"}, {"comp_grp_g": "20", "comp_grp_eps": "0.01", "comp_grp_delta": "1e-12"},
    {"comp_grp_g": "20", "comp_grp_eps": "0.2", "comp_grp_delta": "1e-07"},
    {"comp_grp_g": "2", "comp_grp_eps": "0.01", "comp_grp_delta": "0.1"},
])
def test_group_privacy_ceilings_and_delta(params):
    text = _run("composition", params)
    epsilon = float(params.get("comp_grp_eps", 0.5))
    g = int(params.get("comp_grp_g", 4))
    delta = float(params.get("comp_grp_delta", 1e-6))
    single = re.search(r"a given person is in the data to at most ([\d.]+%)", text).group(1)
    assert_at_most(single, _expit(epsilon))
    # δ of the group along a chain of g neighbours: δ(1 + e^ε + … + e^{(g−1)ε}) ≤ g e^{(g−1)ε} δ
    group_delta = min(1.0, g * math.exp((g - 1) * epsilon) * delta)
    if g == 1:
        assert "publish one person's record outright with probability δ" in text
        return
    ceiling = re.search(r"whole family is in rise to \*\*(.+?)\*\* \(or fall to (.+?)\)", text)
    upper, lower = ceiling.groups()
    if _expit(g * epsilon) <= 0.999:
        assert upper.startswith("at most ")
        assert_at_most(upper.removeprefix("at most "), _expit(g * epsilon))
        assert_at_least(lower.removeprefix("no less than "), _expit(-g * epsilon))
    else:
        assert upper.startswith("more than 99.9%") and lower == "less than 0.1%"
    no_ceiling = "sets no ceiling at all" in text
    assert no_ceiling == (group_delta >= 1)
    assert ("These ceilings leave out the outputs δ covers" in text) == (not no_ceiling)
