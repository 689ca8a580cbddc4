"""The randomized-response page: coin stepping, the missing-2 text, Tammy, the audit switch,
resampling and quizzes (AppTest), and its chart builders (called directly)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dp import posterior_bounds, rr_simulate
from dp.local_dp import rr_estimate_step, rr_rmse
from tests.conftest import app_test, assert_clean, lesson
from ui.charts import randomized_response as charts

LESSON = lesson("randomized-response")
LN3 = math.log(3)


def _cards(at) -> list[str]:
    """The big values of the three coin cards: first coin, second coin, report."""
    # Each card is one markdown: its bold title, then its face as a level-2 heading.
    return [m.value.partition("\n\n## ")[2] for m in at.markdown if "\n\n## " in m.value]


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture(scope="module")
def rr_page():
    return app_test(LESSON)


def test_defaults_show_fair_coins_and_tammy(rr_page):
    assert_clean(rr_page)
    text = " ".join(m.value for m in rr_page.markdown)
    assert "everyone tells the truth" in text  # the missing-2 note at ε = ln 3
    assert _metric(rr_page, "After a Yes") == "0.058"  # Tammy: 0.02 → 3/52
    assert _cards(rr_page) == ["?", "?", "…"]


def test_stepping_through_respondents_follows_the_coins():
    at = app_test(LESSON)
    seen = set()
    for _ in range(12):  # a fixed seed: the same respondents every run
        at.button(key="rr_coin_first").click().run()
        assert_clean(at)
        first = _cards(at)[0]
        if first == "Tails":
            assert not at.button(key="rr_coin_second").disabled
            at.button(key="rr_coin_second").click().run()
            first, second, report = _cards(at)
            assert report == ("Yes" if second == "Heads" else "No")
        else:
            assert at.button(key="rr_coin_second").disabled
            assert _cards(at) == ["Heads", "—", "Yes"]  # truth defaults to Yes
        seen.add(first)
        at.button(key="rr_coin_resample").click().run()  # next respondent: the cards reset
        assert _cards(at) == ["?", "?", "…"]
        if seen == {"Heads", "Tails"}:
            break
    assert seen == {"Heads", "Tails"}


def test_slide_alpha_is_caught_by_the_audit_and_refused_above_ln3():
    at = app_test(LESSON)
    at.radio(key="rr_audit_impl").set_value("slide").run()
    assert_clean(at)
    assert at.error, "the slide theorem's α at ln 3 (keep = 1) must fail the audit"
    assert float(_metric(at, "Certified ε̂ (lower bound)")) > LN3
    at.select_slider(key="rr_eps").set_value(3.0).run()
    assert_clean(at)
    assert any("not a probability" in w.value or "cannot run" in w.value for w in at.warning)
    # An ε move sends only what reads ε, and AppTest's tree is what the last run sent: a full
    # run brings the slider back, as the browser keeps it.
    at.run()
    at.select_slider(key="rr_eps").set_value(0.5).run()
    assert_clean(at)
    assert at.error, "at ε = 0.5 the slide's α is really ε ≈ 1.07: caught with 10⁵ samples"


def test_right_alpha_passes_the_audit(rr_page):
    assert rr_page.success and not rr_page.error


def test_resample_redraws_only_the_survey():
    at = app_test(LESSON)
    before = _metric(at, "Debiased π̂"), _metric(at, "After a Yes")
    at.button(key="rr_survey_resample").click().run()
    assert_clean(at)
    after = _metric(at, "Debiased π̂"), _metric(at, "After a Yes")
    assert after[0] != before[0] and after[1] == before[1]


def test_a_link_reproduces_the_view_at_the_largest_n():
    params = {"rr_n": "100,000,000", "rr_pi": "0.5", "rr_eps": "10", "rr_lc_n": "ln 3"}
    first, second = app_test(LESSON, params), app_test(LESSON, params)
    assert_clean(first)
    assert _metric(first, "Debiased π̂") == _metric(second, "Debiased π̂")
    assert first.select_slider(key="rr_n").value == 100_000_000
    assert first.select_slider(key="rr_eps").value == 10.0
    notes = " ".join(c.value for c in first.caption)
    assert "rr_lc_n='ln 3'" in notes  # a wrong value falls back with a note


def test_the_default_epsilon_is_ln3_in_the_link():
    at = app_test(LESSON, {"rr_eps": "ln 3"})
    assert_clean(at)
    assert at.select_slider(key="rr_eps").value == pytest.approx(LN3)
    assert not at.caption or all("rr_eps" not in c.value for c in at.caption)


def test_quiz_reveals_after_a_prediction(rr_page):
    key = "randomized-response_quiz_missing-two"
    rr_page.radio(key=key).set_value(1).run()
    rr_page.toggle(key=f"{key}_reveal").set_value(True).run()
    assert_clean(rr_page)
    assert any(m.value.startswith("✅ Right.") for m in rr_page.markdown)


# ── chart builders ─────────────────────────────────────────────────────────────────────────


def test_keep_chart_marks_the_right_and_the_slide_keep_probability():
    fig = charts.keep_probability_chart(LN3)
    marker = next(t for t in fig.data if t.name.startswith("your ε"))
    assert list(marker.y) == pytest.approx([0.75, 1.0])
    assert fig.layout.title.text and fig.layout.xaxis.title.text and fig.layout.yaxis.title.text


@pytest.mark.parametrize("n,epsilon", [(1000, LN3), (10, 10.0), (10**8, 0.01), (50, 0.3)])
def test_histogram_counts_every_survey_without_a_comb(n, epsilon):
    estimates = rr_simulate(n, 0.3, epsilon, np.random.default_rng(1), trials=2000)
    fig = charts.sampling_histogram(estimates, 0.3, estimates[0], rr_rmse(n, epsilon),
                                    step=rr_estimate_step(n, epsilon))
    bars = fig.data[0]
    assert bars.y.sum() == 2000
    assert len(bars.x) <= 80  # summarised, not raw samples
    # Each bin holds the same number of possible estimates, so no bin between the first and
    # the last occupied one is empty by construction (2000 draws over ≤ ~20 central bins).
    occupied = np.flatnonzero(bars.y)
    central = bars.y[occupied[0]:occupied[-1] + 1]
    assert np.count_nonzero(central == 0) <= len(central) // 4
    names = [t.name for t in fig.data]
    assert ("normal approximation" in names) == (rr_estimate_step(n, epsilon) < rr_rmse(n, epsilon))


def test_error_chart_skips_a_zero_error_on_a_log_axis():
    n = np.array([10, 100])
    fig = charts.error_vs_n_chart(n, np.array([0.3, 0.1]), n, np.array([0.3, 0.1]), 10, 0.0)
    assert len(fig.data) == 2 and fig.layout.yaxis.type == "log"


def test_posterior_chart_sits_on_the_dp_bound():
    fig = charts.posterior_chart(LN3, 0.02)
    yes = next(t for t in fig.data if t.name == "RR, after a Yes")
    _, upper = posterior_bounds(np.asarray(yes.x), LN3)
    assert np.allclose(yes.y, upper)
    marker = next(t for t in fig.data if (t.name or "").startswith("prior"))
    assert marker.y[0] == pytest.approx(3 / 52)


def test_local_central_chart_has_both_models():
    n = np.array([10.0, 1e4, 1e8])
    fig = charts.local_central_chart(n, n**-0.5, 1 / n, 0.5 * n**-0.5, n, n**-0.5, 1 / n, 1000)
    names = " ".join(t.name for t in fig.data)
    assert "local" in names and "central" in names and "n = 1,000" in names


# --- issue 13/14: every live sentence true at every setting ----------------------------------


def _flat(at) -> str:
    return " ".join(" ".join(m.value for m in at.markdown).split())


def test_local_lower_bound_is_stated_for_moderate_epsilon_only():
    large = _flat(app_test(LESSON, {"rr_eps": "10"}))
    assert "a factor of **4.8**" in large  # n = 10,000: far from √n = 100
    assert "for moderate ε (up to about 1)" in large
    assert "Above that the bound no longer applies" in large and "That factor ≈ √n" not in large
    assert "the coins change less than 0.1% of the" in large  # 1 − q = 4.5e-5 at ε = 10
    fair = _flat(app_test(LESSON))
    assert "Above that the bound no longer applies" not in fair and "a factor of **67**" in fair


def test_grey_line_comparison_follows_n_and_epsilon():
    small = _flat(app_test(LESSON, {"rr_eps": "0.01", "rr_lc_n": "10"}))
    assert "central noise is far above it" in small  # √2/(0.01·10) = 14 against 0.5/√10 = 0.16
    assert "central noise is far below it" in _flat(app_test(LESSON))
    assert "the coins add 200 times the sampling error" in small


def test_no_resample_button_that_changes_nothing():
    at = app_test(LESSON)
    assert not [b for b in at.button if b.key and b.key.startswith("rr_lc")]
    assert "each the RMSE of 300 surveys" in _flat(at)


def test_nothing_printed_as_certain_at_large_epsilon():
    text = _flat(app_test(LESSON, {"rr_eps": "10", "rr_prior": "0.99"}))
    assert "| 1.0000 |" not in text and "| 0.99995 |" in text
    assert "probability 0.99995 when the truth is *Yes*" in text
    assert "100.0%" not in text and "more than 99.9% sure" in text


def test_survey_notice_at_half_and_at_zero():
    half = _flat(app_test(LESSON, {"rr_pi": "0.5"}))
    assert "happens to be unbiased" in half and "is biased" not in half
    zero = _flat(app_test(LESSON, {"rr_pi": "0"}))
    assert "fall outside [0, 1], which happens when π is near 0 or 1" in zero
    assert "None of the repeated estimates falls outside" in _flat(app_test(LESSON))


def test_audit_rates_with_no_yes_from_the_no_group():
    broken = app_test(LESSON)
    broken.radio(key="rr_audit_impl").set_value("slide").run()
    assert_clean(broken)
    text = _flat(broken)
    assert "ratio ≈ inf" not in text and "not ε-DP for any ε" in text
