"""The Composition page: the compared bounds and their crossover, the Gaussian mode at its
extremes, group privacy, the post-processing ledger, links; and the page's chart builders."""

from __future__ import annotations

import base64
import json
import math

import numpy as np
import pytest

from tests.conftest import app_test, assert_clean, lesson, page_text
from ui.charts import composition as charts

LESSON = lesson("composition")
GAUSS = "Gaussian queries (σ)"


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _chart(at, key_suffix: str) -> dict:
    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key_suffix))
    return json.loads(chart.proto.spec)


@pytest.fixture(scope="module")
def session():
    """One AppTest session for the tests that only read the default view (slow to start)."""
    at = app_test(LESSON)
    assert_clean(at)
    return at


def test_defaults_show_advanced_worse_than_basic_and_the_crossover(session):
    text = page_text(session)
    # ε = 0.1, k = 10, δ′ = 1e-6: basic 1, advanced 1.767, optimal 0.9994, Laplace 0.999;
    # k* = 2 ln(1e6)/(2 − e^0.1)² ≈ 34.5.
    assert "**1.767**" in text and "**1**" in text and "**0.9994**" in text
    assert "k\\* ≈ 34.5" in text and "*worse*" in text
    spec = _chart(session, "comp_chart")
    names = [trace.get("name") for trace in spec["data"]]
    assert names[:4] == ["basic: kε", "advanced (DRV)", "optimal (KOV)", "exact Laplace"]
    crossings = [s for s in spec["layout"]["shapes"] if s["type"] == "rect"]
    assert len(crossings) == 1 and crossings[0]["x1"] == pytest.approx(34.508, abs=1e-3)
    assert spec["layout"]["xaxis"]["type"] == "log" and spec["layout"]["yaxis"]["type"] == "log"


def test_defaults_of_group_privacy_and_post_processing(session):
    # g = 4 at ε = 0.5: gε = 2, δ: 4·e^{1.5}·1e-6 ≈ 1.8e-05, belief ≤ 1/(1 + e^−2) = 88.1%.
    assert _metric(session, "ε for the group") == "2"
    assert _metric(session, "δ for the group") == "1.8 × 10⁻⁵"  # never e-notation (ui.numbers)
    assert "88.1%" in page_text(session)
    assert _metric(session, "Budget spent") == "ε = 0.5"
    ledger = _chart(session, "comp_pp_chart")
    assert ledger["data"][0]["text"] == ["ε = 0.5", "free (post-processing)", "free (post-processing)"]


def test_links_to_reconstruction_and_budget_pages(session):
    pages = [link.proto.page for link in session.get("page_link")]
    assert pages == ["anonymisation", "budget"]


def _array(values) -> list:
    """A plotly array from the chart spec (Plotly 7 sends numeric arrays base64-encoded)."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).tolist()
    return list(values)


def test_past_the_crossover_and_without_one():
    at = app_test(LESSON, {"comp_k": "5000"})
    assert_clean(at)
    assert "we are past the crossover" in page_text(at)
    # k = 5000 is off the sparse Laplace grid: it is computed as your k and drawn on the curve.
    laplace = next(t for t in _chart(at, "comp_chart")["data"] if t.get("name") == "exact Laplace")
    assert 5000 in _array(laplace["x"]) and 10_000 in _array(laplace["x"])
    at = app_test(LESSON, {"comp_eps": "1"})  # ε ≥ ln 2: advanced never wins
    assert_clean(at)
    assert "never beats basic" in page_text(at)
    assert not [s for s in _chart(at, "comp_chart")["layout"]["shapes"] if s["type"] == "rect"]


def test_gaussian_mode():
    at = app_test(LESSON, {"comp_mode": GAUSS})
    assert_clean(at)
    assert at.radio(key="comp_mode").value == GAUSS
    text = page_text(at)
    # σ = 10, δ′ = 1e-6, k = 10: exact 1.368, zCDP 1.712 (dp.composition_curves tests).
    assert "**1.368**" in text and "**1.712**" in text
    names = [trace.get("name") for trace in _chart(at, "comp_chart_gauss")["data"]]
    assert "exact Gaussian" in names and "zCDP, converted" in names


@pytest.mark.parametrize("sigma, delta, k", [("0.5", "1e-12", "1"), ("200", "0.1", "10000"),
                                             ("0.5", "0.1", "10000"), ("200", "1e-12", "1")])
def test_gaussian_mode_at_its_extremes(sigma, delta, k):
    # The generic extremes test only sees the default (ε-DP) mode's sliders.
    at = app_test(LESSON, {"comp_mode": GAUSS, "comp_sigma": sigma, "comp_delta": delta, "comp_k": k})
    assert_clean(at)
    assert not [c.value for c in at.caption if "is not a valid" in c.value]


def test_gaussian_mode_when_delta_covers_everything():
    # σ = 200, δ′ = 0.1, k = 1: one release is already (0, 0.1)-DP.
    at = app_test(LESSON, {"comp_mode": GAUSS, "comp_sigma": "200", "comp_delta": "0.1", "comp_k": "1"})
    assert_clean(at)
    assert "**0**: the noise is so wide" in page_text(at).replace("\n", " ")


def test_bad_mode_in_link_falls_back_with_a_note():
    at = app_test(LESSON, {"comp_mode": "bogus"})
    assert_clean(at)
    assert at.radio(key="comp_mode").value == "ε-DP queries (Laplace)"
    assert any("comp_mode='bogus'" in c.value for c in at.caption)


def test_asking_again_spends_budget_but_post_processing_does_not():
    at = app_test(LESSON)
    at.slider(key="comp_pp_asks").set_value(3).run()
    assert_clean(at)
    assert _metric(at, "Budget spent") == "ε = 2"  # 4 answers × 0.5
    at.button_group(key="comp_pp_steps").set_value(["round", "clamp", "percent"]).run()
    assert_clean(at)
    assert _metric(at, "Budget spent") == "ε = 2"
    assert _metric(at, "Published value").endswith("%")
    spent = _array(_chart(at, "comp_pp_chart")["data"][0]["x"])
    assert spent == [0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0]
    at.button_group(key="comp_pp_steps").set_value([]).run()
    before = _metric(at, "Published value")
    at.button(key="comp_pp_resample").click().run()
    assert_clean(at)
    assert _metric(at, "Budget spent") == "ε = 2"
    # New noise: the unrounded average of 4 Laplace draws (seeded, so this is deterministic).
    assert _metric(at, "Published value") != before


# --- chart builders ----------------------------------------------------------------------------


def _curves(ks, values):
    return [charts.Curve("basic", ks, values[0], charts.BASIC),
            charts.Curve("advanced", ks, values[1], charts.ADVANCED),
            charts.Curve("exact", ks, values[2], charts.EXACT, markers=True)]


def test_composition_chart_marks_your_k_and_the_crossover():
    ks = np.array([1, 10, 100])
    fig = charts.composition_chart(_curves(ks, [ks * 0.1, ks * 0.2, ks * 0.05]), 10, "t", 34.5)
    marks = fig.data[-1]
    assert list(marks.x) == [10, 10, 10] and list(marks.y) == pytest.approx([1.0, 2.0, 0.5])
    kinds = [shape.type for shape in fig.layout.shapes]
    assert kinds == ["line", "rect", "line"] and fig.layout.shapes[1].x1 == 34.5
    assert fig.data[2].mode == "lines+markers" and fig.data[0].mode == "lines"
    no_cross = charts.composition_chart(_curves(ks, [ks * 0.1, ks * 0.2, ks * 0.05]), 10, "t", None)
    assert [shape.type for shape in no_cross.layout.shapes] == ["line"]


def test_composition_chart_leaves_gaps_for_zeros_and_caps_runaway_curves():
    ks = np.array([1, 10, 100])
    fig = charts.composition_chart(_curves(ks, [ks * 1.0, ks * 1e6, np.array([0.0, 5.0, 50.0])]),
                                   1, "t")
    assert math.isnan(fig.data[2].y[0])  # ε = 0 cannot sit on a log axis
    low, high = fig.layout.yaxis.range
    # floor 1 (basic at k = 1); top capped at HEADROOM × 100 (the largest non-advanced value)
    assert low == pytest.approx(-0.2) and high == pytest.approx(math.log10(charts.HEADROOM * 100) + 0.3)


def test_group_chart_band_and_your_group():
    sizes = np.arange(1, 6)
    lower, upper = 1 / (1 + np.exp(sizes * 0.5)), 1 / (1 + np.exp(-sizes * 0.5))
    fig = charts.group_chart(sizes, lower, upper, 4, 0.5, 0.5)
    assert fig.data[1].fill == "tonexty"
    assert list(fig.data[2].y) == pytest.approx([100 * lower[3], 100 * upper[3]])
    assert "88.1%" in fig.layout.annotations[1].text


def test_ledger_chart_charges_only_the_data():
    fig = charts.ledger_chart(["answer", "round"], [0.5, 0.0], [True, False])
    assert list(fig.data[0].text) == ["ε = 0.5", "free (post-processing)"]
    assert "total ε = 0.5" in fig.layout.title.text


# --- issue 13: every live sentence true at every setting -----------------------------------


def _flat(at) -> str:
    return " ".join(page_text(at).split())


def test_growth_past_the_crossover_states_its_conditions():
    # ε = 0.1, δ′ = 1e-6: the second term k·ε(e^ε − 1) takes over past
    # 2 ln(1e6)/(e^0.1 − 1)² ≈ 2,498. At k = 100 the √k term is the larger; at 10,000 it is not.
    sqrt_regime = _flat(app_test(LESSON, {"comp_k": "100"}))
    assert "grows like √k, times the factor" in sqrt_regime and "= 5.3" in sqrt_regime
    assert "Past k ≈ 2,498" in sqrt_regime and "widens like √k" not in sqrt_regime
    linear = _flat(app_test(LESSON, {"comp_k": "10000"}))
    assert "its second term" in linear and "= 105.2, is the larger one" in linear
    assert "slope ε(e^ε − 1) = 0.0105 per query" in linear


def test_below_the_crossover_names_both_terms_and_the_root_factor(session):
    text = _flat(session)
    # 0.1·√(20 ln 1e6) = 1.662 and 10·0.1·(e^0.1 − 1) = 0.1052
    assert "= 1.662, which grows like √k but carries the factor" in text and "= 0.1052" in text
    assert "a little better still (0.999)" in text


def test_one_query_is_not_called_a_little_better_or_plural():
    text = _flat(app_test(LESSON, {"comp_k": "1"}))
    assert "At k = 1 query of" in text and "1 queries" not in text
    assert "a little better still" not in text and "matches it (0.1)" in text


def test_never_crossing_does_not_claim_a_saving_that_is_not_there():
    # optimal = Laplace = basic = 100 to four digits (KOV is a hair below: δ′ > 0 buys a little)
    same = _flat(app_test(LESSON, {"comp_eps": "10"}))
    assert "still come in under" not in same and "buys next to nothing" in same
    assert "buys nothing" not in same
    mixed = _flat(app_test(LESSON, {"comp_eps": "10", "comp_k": "10000", "comp_delta": "0.1"}))
    assert "the optimal bound (100,000) matches basic's 100,000 to the digits shown" in mixed
    assert "its exact value comes in lower (90,238)" in mixed


def test_gaussian_notice_states_when_growth_is_like_root_k():
    small = _flat(app_test(LESSON, {"comp_mode": GAUSS}))
    # σ = 10, k = 10: ρ = 0.05, 4 ln(1e6) = 55; zCDP 1.712 is 25% above exact 1.368
    assert "1.712, 25% above it" in small and "here ρ = 0.05 against 55, so they do." in small
    assert "run parallel" not in small
    wide = _flat(app_test(LESSON, {"comp_mode": GAUSS, "comp_delta": "0.1"}))
    assert "11.7 times as much" in wide
    large = _flat(app_test(LESSON, {"comp_mode": GAUSS, "comp_sigma": "0.5", "comp_k": "100"}))
    # ρ = 100/(2·0.25) = 200 > 55
    assert "the ρ term is the larger one, and both grow like k" in large


def test_group_of_one_and_extreme_beliefs():
    one = _flat(app_test(LESSON, {"comp_grp_g": "1"}))
    assert "A \"family\" of g = 1 is one person" in one and "becomes **1e-06**" not in one
    extreme = _flat(app_test(LESSON, {"comp_grp_eps": "10", "comp_grp_delta": "0.1"}))
    assert "100.0%" not in extreme and "more than 99.9%" in extreme
    assert "0.1 per person becomes **1** for the family, and a δ of 1 promises nothing" in extreme
    assert "sets no ceiling at all" in extreme
