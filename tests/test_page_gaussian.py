"""The "Laplace vs Gaussian" page: its branches, toggles, buttons and quizzes, and its charts."""

from __future__ import annotations

import json
import math

import pytest

from tests.conftest import app_test, assert_clean, chart_by_title, lesson, page_text
from ui.charts import gaussian as charts
from ui.params import DELTAS, EPSILONS, POPULATIONS

LESSON = lesson("gaussian")


@pytest.fixture(scope="module")
def default_run():
    return app_test(LESSON)


def test_defaults_show_every_section(default_run):
    page = default_run
    assert_clean(page)
    assert page.title[0].value == "Laplace vs Gaussian"
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in page.get("plotly_chart")]
    # the page's 7, plus the odds panels' icon arrays (2) and the planner's ε-against-δ curve
    assert len(titles) == 7 + 3, titles
    assert "add/remove" in page_text(page)  # the neighbouring relation is stated
    # ε = 1 by default: the classic bound is out of its range, and the page says what to change
    assert any("Move ε below 1" in info.value for info in page.info)
    assert [t["name"] for t in chart_by_title(page, "Noise added")["data"]] == [
        "Laplace, b = 1", "Gaussian (analytic), σ = 3.73"]
    # the audit at defaults: pure ε broken, (ε, δ) kept
    assert page.warning and "Pure ε is broken" in page.warning[0].value
    assert page.success and "With δ the promise holds" in page.success[0].value


def test_classic_curve_appears_below_epsilon_one():
    at = app_test(LESSON, {"gd_eps": "0.5"})
    assert_clean(at)
    assert not any("Move ε below 1" in info.value for info in at.info)
    names = [t["name"] for t in chart_by_title(at, "Noise added")["data"]]
    assert names[-1].startswith("Gaussian (classic), σ = 9.69")  # Δ√(2 ln(1.25/δ))/ε at δ = 1e-5
    assert "Gaussian, classic" in page_text(at)


def test_log_toggle_switches_the_density_axis():
    at = app_test(LESSON)
    assert chart_by_title(at, "Noise added")["layout"]["yaxis"].get("type") != "log"
    at.toggle(key="gd_logy").set_value(True).run()
    assert_clean(at)
    assert chart_by_title(at, "Noise added")["layout"]["yaxis"]["type"] == "log"


def test_bad_toggle_link_value_is_harmless():
    assert_clean(app_test(LESSON, {"gd_logy": "maybe"}))


# Raw option values: AppTest cannot set a select_slider to its formatted label.
SECTIONS = [  # the page's demos; each one's sliders only act on that demo
    {"gd_eps": (EPSILONS[0], EPSILONS[-1]), "gd_delta": (DELTAS[0], DELTAS[-1]),
     "gd_sens": (0.1, 10.0)},
    {"gd_leak_n": (POPULATIONS[0], POPULATIONS[-1]), "gd_leak_delta": (DELTAS[0], DELTAS[-1])},
    {"gd_dim_d": (1, 10000), "gd_dim_eps": (EPSILONS[0], EPSILONS[-1]),
     "gd_dim_delta": (DELTAS[0], DELTAS[-1])},
    {"gd_aud_eps": (0.1, 3.0), "gd_aud_delta": (1e-4, 0.1), "gd_aud_z": (1.0, 4.0)},
    # the accuracy planner (its confidence stays at the default: 100% is tests/test_planner_ui.py's)
    {"gd_plan_err": (0.1, 10.0), "gd_plan_n": (10, 100_000_000), "gd_plan_delta": (DELTAS[0], DELTAS[-1])},
]


def test_every_corner_of_every_demo_runs_cleanly():
    # Run i puts each demo at corner i of its own box (bit j of i picks the low or high end
    # of its j-th slider), so 8 runs visit all 2³ corners of every demo, extremes included.
    at = app_test(LESSON)
    assert {w.key for w in at.select_slider} == {key for section in SECTIONS for key in section} | {"gd_plan_conf"}
    for corner in range(8):
        for section in SECTIONS:
            for bit, (key, ends) in enumerate(section.items()):
                at.select_slider(key=key).set_value(ends[(corner >> bit) & 1])
        at.toggle(key="gd_logy").set_value(corner % 2 == 1)
        at.run()
        assert_clean(at)


def test_small_epsilon_large_delta_flips_the_one_count_verdict():
    # ε = 0.01, δ = 0.1: σ ≈ 3.8 against a Laplace std of 141, so the Gaussian is narrower and
    # its tail is lighter everywhere (σ ≤ √(2/π)·b).
    at = app_test(LESSON, {"gd_eps": "0.01", "gd_delta": "0.1"})
    assert_clean(at)
    text = page_text(at)
    assert "Gaussian is the narrower one" in text
    assert "lighter everywhere" in text


def test_delta_text_follows_n_and_delta():
    at = app_test(LESSON)
    assert "10 whole records on average" in page_text(at)  # n = 1e6, δ = 1e-5
    at.select_slider(key="gd_leak_delta").set_value(1e-12).run()
    assert_clean(at)
    assert "Raise δ towards" in page_text(at)


def test_resample_buttons_redraw_only_their_demo():
    at = app_test(LESSON)
    leaks = [m.value for m in at.metric if m.label == "This run leaked"]
    audit = [m.value for m in at.metric if m.label.startswith("ε̂")]
    for _ in range(3):  # Binomial(10⁶, 10⁻⁵) repeats a value now and then; 3 draws rarely all do
        at.button(key="gd_leak_resample").click().run()
        assert_clean(at)
        if [m.value for m in at.metric if m.label == "This run leaked"] != leaks:
            break
    else:
        pytest.fail("resampling never changed the leak count")
    assert [m.value for m in at.metric if m.label.startswith("ε̂")] == audit
    at.button(key="gd_audit_resample").click().run()
    assert_clean(at)


def test_seed_reproduces_the_same_draw(default_run):
    assert [m.value for m in app_test(LESSON).metric] == [m.value for m in default_run.metric]


def test_audit_without_a_breach_says_what_to_try():
    # z = 1: S is common (p ≈ 0.16) and p/p′ is modest, so pure ε is not broken.
    at = app_test(LESSON, {"gd_aud_z": "1"})
    assert_clean(at)
    assert any("No breach of pure ε" in info.value for info in at.info)


QUIZ_ANSWERS = {"one-count": 1, "delta-vs-exceed": 1, "census-leak": 2, "hundred-counts": 1}


def test_quizzes_reveal_after_a_guess():
    at = app_test(LESSON)
    for quiz_id, answer in QUIZ_ANSWERS.items():
        at.radio(key=f"gaussian_quiz_{quiz_id}").set_value(answer)
    at.run()
    for quiz_id in QUIZ_ANSWERS:
        at.toggle(key=f"gaussian_quiz_{quiz_id}_reveal").set_value(True)
    at.run()
    assert_clean(at)
    assert page_text(at).count("✅ Right.") == len(QUIZ_ANSWERS)


# --- chart builders ---------------------------------------------------------------------------

def test_charts_send_little_data_and_label_their_axes():
    figures = [
        charts.density_chart(1.0, 3.7, 4.5, log_y=True),
        charts.tails_chart(1.0, 3.7, 25.5, 4.5),
        charts.loss_chart(1.0, 3.7, 1.0, 1.0, -13.4),
        charts.loss_tail_chart(3.7, 1.0, 1.0, 1.6e-4, 1e-5),
        charts.leak_chart(10**6, 1e-5, (1e-12, 0.1)),
        charts.dimensions_chart(1.0, 1e-5, 100, 6.96),
        charts.audit_chart((0.0013, 0.0012, 0.0015), (0.0002, 0.00015, 0.00025), 1.0, 0.01),
    ]
    for fig in figures:
        assert fig.layout.title.text
        assert fig.layout.xaxis.title.text
        assert sum(len(trace.x) for trace in fig.data if trace.x is not None) <= 5000


def test_loss_tail_chart_areas_match_their_labels():
    # the shaded areas are Pr[L > ε] and δ(ε): integrate the traces with the trapezoid rule
    from dp import gaussian_delta, gaussian_sigma
    from dp.tails import gaussian_loss_exceeds

    sigma = gaussian_sigma(1.0, 1.0, 1e-5)
    exceeds = gaussian_loss_exceeds(sigma, 1.0)
    fig = charts.loss_tail_chart(sigma, 1.0, 1.0, exceeds, gaussian_delta(sigma, 1.0))
    _, tail, excess = fig.data
    trapezoid = sum((x1 - x0) * (y0 + y1) / 2 for x0, x1, y0, y1 in
                    zip(tail.x[:-1], tail.x[1:], tail.y[:-1], tail.y[1:], strict=True))
    # the zoom keeps ≥ 5 e-folds of the tail: the area left out is below e^−5 ≈ 0.7% of it
    assert trapezoid == pytest.approx(exceeds, rel=0.01)
    excess_area = sum((x1 - x0) * (y0 + y1) / 2 for x0, x1, y0, y1 in
                      zip(excess.x[:-1], excess.x[1:], excess.y[:-1], excess.y[1:], strict=True))
    assert excess_area == pytest.approx(1e-5, rel=0.05)
    assert excess_area < trapezoid


def test_dimensions_chart_marks_the_crossover():
    fig = charts.dimensions_chart(1.0, 1e-5, 100, 6.96)
    assert any("6.96" in a.text for a in fig.layout.annotations)
    assert math.isclose(fig.layout.shapes[0].x0, 6.96)


# --- issue 13/14: every live sentence true at every setting ----------------------------------


def _flat(at) -> str:
    texts = [m.value for m in at.markdown] + [e.value for kind in ("info", "success", "warning", "error")
                                              for e in getattr(at, kind)]
    return " ".join(" ".join(texts).split())


def test_delta_sliders_do_not_call_delta_a_failure_probability(default_run):
    labels = [s.label for s in default_run.select_slider if s.key and "delta" in s.key]
    assert labels and all(label == "δ (the slack in the guarantee)" for label in labels)
    assert "failure probability" not in _flat(default_run)


def test_composition_row_states_when_growth_is_like_root_k(default_run):
    text = _flat(default_run)
    assert "ε grows like $\\sqrt{k}$ |" not in text
    assert "while $k\\Delta^2/(2\\sigma^2) \\ll 4\\ln(1/\\delta)$, then like k" in text


def test_n_slider_reads_like_other_pages_and_opens_old_links():
    at = app_test(LESSON, {"gd_leak_n": "1e+07"})
    assert_clean(at)
    assert at.select_slider(key="gd_leak_n").value == 10_000_000
    assert at.select_slider(key="gd_leak_n").format_func(10_000_000) == "10,000,000"
    assert not [c.value for c in at.caption if "is not a valid" in c.value]


def test_tails_sentence_at_a_large_delta():
    text = _flat(app_test(LESSON, {"gd_delta": "0.1"}))
    assert "close enough in to matter" in text and "at least one in 100" in text
    assert "lighter tails far out are not why" not in text
    assert "lighter tails far out are not why" in _flat(app_test(LESSON))


def test_leak_demo_never_prints_a_chance_of_zero_or_one_records():
    huge = _flat(app_test(LESSON, {"gd_leak_delta": "0.1"}))
    assert "100,000 whole records on average" in huge and "e^(−100,000), essentially zero" in huge
    assert "only 0." not in huge
    one = _flat(app_test(LESSON, {"gd_leak_n": "100", "gd_leak_delta": "0.01"}))
    assert "**1 whole record on average**" in one


def test_audit_advice_follows_why_nothing_was_found():
    rare = _flat(app_test(LESSON, {"gd_aud_z": "4"}))  # Φ(−4)·200,000 ≈ 6 samples
    assert "too few for the confidence intervals" in rare and "try a smaller z" in rare
    inside = _flat(app_test(LESSON, {"gd_aud_z": "1"}))  # y* is at −1.61σ, beyond −1σ
    assert "further out than this event's −1 σ" in inside and "try a larger z, or a larger δ" in inside
    top = _flat(app_test(LESSON, {"gd_aud_z": "1", "gd_aud_delta": "0.1"}))
    assert "a larger δ" not in top
    assert "inf×" not in _flat(app_test(LESSON, {"gd_aud_eps": "3"}))


def test_loss_share_keeps_two_digits_at_small_epsilon():
    text = _flat(app_test(LESSON, {"gd_eps": "0.01"}))
    assert "is only 0% of it" not in text and "is only 0.13% of it" in text  # 1e-5 / 0.0074
