"""The "What are the chances?" panel: dp.odds against the posterior-bound formula, the panel's
outward rounding, and its verdict and δ sentences at every ε and δ a page can reach."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from dp.odds import (
    BAND_EPSILONS,
    BANDS,
    delta_per_person,
    event_probability_bound,
    gaussian_release,
    max_posterior,
    min_posterior,
    odds_multiplier,
    protection_band,
    pure_release,
)
from ui import lessons
from ui.charts.odds import icon_array, icon_counts
from ui.odds import (
    PRIORS,
    approx,
    approx_exp,
    delta_numbers,
    odds_numbers,
    percent_at_least,
    percent_at_most,
    verdict_section,
)
from ui.params import DELTAS, EPSILONS

FINE_EPSILONS = np.geomspace(0.01, 10, 601)
PLACEHOLDER = re.compile(r"\{\{")


def closed_form_upper(p, eps):
    """Bayes with likelihood ratio e^ε: p·e^ε/(p·e^ε + 1 − p)."""
    return p * math.exp(eps) / (p * math.exp(eps) + 1 - p)


def closed_form_lower(p, eps):
    return p / (p + math.exp(eps) * (1 - p))


def percent_value(text: str) -> float:
    return float(text.rstrip("%")) / 100


@pytest.mark.parametrize("prior", [0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.9, 0.999, 1.0])
def test_posteriors_match_the_formula(prior):
    for eps in FINE_EPSILONS[::20]:
        assert max_posterior(prior, eps) == pytest.approx(closed_form_upper(prior, eps), rel=1e-12, abs=1e-15)
        assert min_posterior(prior, eps) == pytest.approx(closed_form_lower(prior, eps), rel=1e-12, abs=1e-15)


def test_odds_multiply_by_exactly_e_to_the_epsilon():
    for prior in (0.01, 0.1, 0.5):
        for eps in (0.01, 0.5, 3.0, 10.0):
            high = max_posterior(prior, eps)
            ratio = (high / (1 - high)) / (prior / (1 - prior))
            assert ratio == pytest.approx(odds_multiplier(eps), rel=1e-9)


def test_bands_are_defined_by_the_coin_toss_guess():
    assert BAND_EPSILONS == pytest.approx((math.log(11 / 9), math.log(3), math.log(19)))
    order = [BANDS.index(protection_band(eps)) for eps in FINE_EPSILONS]
    assert order == sorted(order) and set(order) == {0, 1, 2, 3}
    for eps in FINE_EPSILONS:
        even = closed_form_upper(0.5, eps)
        band = protection_band(eps)
        assert (band == "strong") == (even <= 0.55 + 1e-12)
        assert (band == "little") == (even > 0.95 + 1e-12)
    assert protection_band(math.log(3)) == "moderate"  # fair-coin randomized response


def test_event_bound_and_delta():
    assert event_probability_bound(0.0, 1.0, 1e-5) == pytest.approx(1e-5)
    assert event_probability_bound(0.1, 1.0) == pytest.approx(0.1 * math.e)
    assert event_probability_bound(0.5, 10.0, 0.1) == 1.0
    assert delta_per_person(1e-3, 10_000) == pytest.approx(10)
    with pytest.raises(ValueError, match="probability"):
        event_probability_bound(1.5, 1.0)
    with pytest.raises(ValueError, match="delta"):
        event_probability_bound(0.5, 1.0, 1.0)


@pytest.mark.parametrize("p", [1e-9, 4.6e-7, 0.001, 0.0100995, 0.1, 0.2339, 0.5, 0.5025,
                               0.731, 0.95, 0.999, 0.9999546, 0.99999999, 1 - 1e-12])
def test_percentages_round_outwards_and_never_reach_certainty(p):
    high, low = percent_at_most(p), percent_at_least(p)
    assert percent_value(high) >= p * (1 - 1e-11)
    assert percent_value(low) <= p * (1 + 1e-11)
    assert percent_value(high) < 1 and percent_value(low) > 0
    # and not much looser than the truth: three significant digits
    assert percent_value(high) - p <= 0.01 * p + 1e-12
    assert p - percent_value(low) <= 0.01 * p


def test_percentage_examples():
    assert percent_at_most(0.5) == "50%"
    assert percent_at_most(0.23399) == "23.4%"
    assert percent_at_most(0.9999546) == "99.996%"
    assert percent_at_least(0.0386) == "3.86%"
    assert approx(math.e) == "≈ 2.72"
    assert approx(3.0) == "= 3"
    assert approx(math.exp(10)) == "≈ 22,026"


@pytest.mark.parametrize("eps", [*EPSILONS, math.log(3), *FINE_EPSILONS[::7]])
def test_panel_numbers_are_outward_bounds_of_the_formula(eps):
    numbers = odds_numbers(pure_release(eps))
    for name, prior in PRIORS.items():
        assert percent_value(numbers[f"{name}_hi"]) >= closed_form_upper(prior, eps) * (1 - 1e-11)
        assert percent_value(numbers[f"{name}_lo"]) <= closed_form_lower(prior, eps) * (1 + 1e-11)
        assert 0 < percent_value(numbers[f"{name}_lo"]) and percent_value(numbers[f"{name}_hi"]) < 1
    before, added = icon_counts(0.1, closed_form_upper(0.1, eps))
    assert before == 10 and numbers["after_count"] == before + added
    assert abs(numbers["after_count"] - 100 * closed_form_upper(0.1, eps)) <= 0.5


@pytest.mark.parametrize("eps", FINE_EPSILONS[::3])
def test_every_sentence_is_filled_and_true_at_every_epsilon(eps):
    numbers = odds_numbers(pure_release(eps))
    band = protection_band(eps)
    text = lessons.section_text("odds", verdict_section(pure_release(eps)), **numbers)
    text += lessons.section_text("odds", "odds-person", **numbers)
    text += lessons.section_text("odds", "odds-table", **numbers)
    text += lessons.section_text("odds", "icons", **numbers)
    text += lessons.section_text("odds", "label", **numbers)
    assert not PLACEHOLDER.search(text)
    even = closed_form_upper(0.5, eps)
    if band == "strong":  # "at most X sure", "no suspicion's odds grow more than e^ε-fold"
        assert even <= 0.55
    if band == "weak":  # "rules out being more than 95% sure"
        assert 0.75 < even <= 0.95
    if band == "little":
        assert even > 0.95
    if "no orange" in numbers["colours"]:
        assert numbers["after_count"] == 10


@pytest.mark.parametrize("delta", DELTAS + [0.05, 0.2])
@pytest.mark.parametrize("n", [None, 10, 1000, 1_000_000, 10**9])
def test_delta_sentences_compare_delta_with_one_over_n(delta, n):
    section, values = delta_numbers(gaussian_release(1.0, delta, 1.0, units=n))
    text = lessons.section_text("odds", "delta", **values) + lessons.section_text("odds", section, **values)
    assert not PLACEHOLDER.search(text)
    assert "probability that privacy fails" in text  # named as the misconception it is
    if n is None:
        assert section == "delta-no-n"
    elif delta * n >= 1:
        assert section == "delta-over"
        assert float(values["leaks"].replace(",", "")) == pytest.approx(n * delta, rel=5e-3)
    else:
        ratio = 1 / (n * Fraction(repr(delta)))  # the δ the slider shows, exactly: 10⁻¹⁰, not its float
        assert section == ("delta-far" if ratio >= 100 else "delta-near")
        assert Fraction(values["ratio"].replace(",", "")) <= ratio < Fraction(values["ratio"].replace(",", "")) * 1.1


def test_icon_array_is_a_valid_figure():
    for eps in (0.01, 1.0, 10.0):
        figure = icon_array(0.1, closed_form_upper(0.1, eps))
        go.Figure(figure.to_dict())  # validates every property
        points = sum(len(trace.x) for trace in figure.data)
        assert points == 100


def _panel_app(epsilon: float, delta: float | None, n: int | None, present: bool) -> AppTest:
    def script():
        import streamlit as st

        from dp.odds import gaussian_release, pure_release
        from ui.odds import odds_panel

        args = st.session_state["args"]
        st.session_state["present"] = args["present"]
        release = (gaussian_release(args["epsilon"], args["delta"], 1.0, units=args["n"]) if args["delta"]
                   else pure_release(args["epsilon"]))
        odds_panel(release, key="t")

    at = AppTest.from_function(script)
    at.session_state["args"] = {"epsilon": epsilon, "delta": delta, "n": n, "present": present}
    return at


@pytest.mark.parametrize("epsilon,delta,n,present", [
    (0.01, None, None, False), (1.0, 1e-5, 1000, False), (10.0, 0.2, 10, True),
])
def test_panel_renders_folded_and_in_presenter_mode(epsilon, delta, n, present):
    at = _panel_app(epsilon, delta, n, present).run()
    assert not at.exception
    assert len(at.expander) == 1
    text = " ".join(block.value for block in at.markdown)
    if present:  # the bound and the verdict outside the expander, on screen
        assert "What are the chances" in text and "protection" in at.markdown[0].value
        assert at.expander[0].label == "The table and the 100-person picture"
    else:
        assert "What are the chances" in at.expander[0].label
    assert ("And δ" in text) == bool(delta)


def test_huge_epsilon_from_the_planner_does_not_overflow():
    assert approx_exp(1.0) == "≈ 2.72"
    assert approx_exp(300.0) == "≈ 1.9 × 10¹³⁰"
    numbers = odds_numbers(pure_release(5000.0))
    # never "100%" or "0%": a finite ε never allows certainty (e^−5000 = 10^−2171.5)
    assert numbers["even_hi"] == "1 − 10⁻²¹⁷²" and numbers["even_lo"] == "10⁻²¹⁷²"
    assert numbers["one_lo"] == "10⁻²¹⁷⁴"  # 0.01·e^−5000/0.99 = 10^−2173.5
    assert lessons.section_text("odds", verdict_section(pure_release(5000.0)), **numbers)


def test_delta_ratio_has_no_float_floor():
    """δ = 10⁻¹², n = 1,000: 1/(nδ) is 999,999,999.9999999 in floats; the panel says 10⁹."""
    _, values = delta_numbers(gaussian_release(1.0, 1e-12, 1.0, units=1000))
    assert values["ratio"] == "1,000,000,000"


def test_release_rejects_what_it_cannot_describe():
    from dp.odds import Release, bad_event_release, laplace_sum_release

    with pytest.raises(ValueError, match="delta must be 0"):
        Release(1.0, 1e-5)  # a bounded loss is pure ε-DP
    with pytest.raises(ValueError, match="loss"):
        Release(1.0, 1e-5, "cauchy")
    with pytest.raises(ValueError, match="unit"):
        pure_release(1.0, unit="household")
    with pytest.raises(ValueError, match="mu"):
        gaussian_release(1.0, 1e-5, 0.0)
    with pytest.raises(ValueError, match="bad_event"):
        bad_event_release(1.0, 1e-5, 1.5)
    # one Laplace answer read at δ (ε₀ − 2δ): no ε′ below ε₀ has rare exceptions, so it is the pure release
    assert laplace_sum_release(0.01 - 2e-12, 1e-12, 0.01, 1) == pure_release(0.01)
    assert laplace_sum_release(0.1 - 2e-6, 1e-6, 0.1, 1) == pure_release(0.1)
    assert laplace_sum_release(0.06137, 0.1, 0.1, 10).loss == "laplace-sum"


def test_laplace_sum_chances_against_one_query_in_closed_form():
    """One Laplace release (a = ε): L = +a w.p. 1/2, density ¼e^{(L−a)/2} on (−a, a):
    Pr[L > t] = 1 − ½e^{(t − a)/2} for |t| < a."""
    from dp.accounting import laplace_composition_loss_exceeds

    for a in (0.1, 1.0, 3.0):
        for t in np.linspace(-0.9 * a, 0.9 * a, 7):
            assert laplace_composition_loss_exceeds(1 / a, 1, t) == pytest.approx(1 - 0.5 * math.exp((t - a) / 2), abs=2e-4)
        assert laplace_composition_loss_exceeds(1 / a, 1, a) == 0.0
