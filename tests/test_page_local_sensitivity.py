"""The "Local sensitivity and its traps" page: every branch of its three demos, the audit on each
mechanism, radios and buttons, quizzes, and its chart builders.

The generic tests in test_pages.py cover the sliders at their extremes and bad slider links.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dp import local_sensitivity as ls
from tests.conftest import app_test, assert_clean, chart_by_title, chart_titles, lesson, page_text
from ui.charts import local_sensitivity as charts

LESSON = lesson("local-sensitivity")


@pytest.fixture(scope="module")
def default_run():
    return app_test(LESSON)


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_defaults_show_every_section(default_run):
    at = default_run
    assert_clean(at)
    assert at.title[0].value == "Local sensitivity and its traps"
    assert len(chart_titles(at)) == 6 + 1, chart_titles(at)  # + the odds panel's icon array
    assert any("replace-one" in info.value for info in at.info)  # the neighbouring relation
    # Spread-out class, the median student re-marked to 90: the median moves by LS = 8
    assert (_metric(at, "Median of D"), _metric(at, "Median of D′")) == ("58", "66")
    assert (_metric(at, "Local LS(D)"), _metric(at, "Global Δ")) == ("8", "100")
    assert "12.5 times smaller" in page_text(at)
    # the trap is caught by the audit at its defaults (s = 1, ε = 1)
    certified = float(_metric(at, "Certified ε̂ (lower bound)"))
    assert certified > 3, certified
    assert at.error and "breaks its promise" in at.error[0].value
    assert "Caught." in page_text(at)


def test_bunched_class_has_zero_local_sensitivity():
    at = app_test(LESSON, {"ls_data": "Bunched at the pass mark", "ls_person": "7", "ls_new": "90"})
    assert_clean(at)
    assert _metric(at, "Local LS(D)") == "0"
    assert _metric(at, "Median of D′") == "60"
    assert "LS(D) = 0" in page_text(at)


def test_two_camps_and_every_person():
    at = app_test(LESSON, {"ls_data": "Two camps"})
    assert_clean(at)
    assert _metric(at, "Local LS(D)") == "54"
    for person in (1, 11):
        at.slider(key="ls_person").set_value(person).run()
        assert_clean(at)
    ramp = chart_by_title(at, "The median as")["data"][0]
    assert len(ramp["x"]) == 201 or "bdata" in json.dumps(ramp["x"])


def test_zero_spread_shows_the_spike_and_no_loss_chart():
    at = app_test(LESSON, {"ls_trap_s": "0"})
    assert_clean(at)
    assert "Privacy loss of each output" not in chart_titles(at)
    assert "adds **no noise**" in page_text(at)
    spike = chart_by_title(at, "Noise ∝ LS")["data"][0]
    assert spike["name"].startswith("D: b = 0")
    assert float(_metric(at, "Certified ε̂ (lower bound)")) > 5  # exact 60s against none


@pytest.mark.parametrize("mechanism", ["smooth sensitivity with Cauchy noise", "propose-test-release",
                                       "exponential mechanism"])
def test_the_safe_mechanisms_pass_the_same_audit(mechanism):
    at = app_test(LESSON, {"ls_aud_mech": mechanism})
    assert_clean(at)
    assert float(_metric(at, "Certified ε̂ (lower bound)")) <= 1.0
    assert not at.error
    assert at.success
    assert not [c.value for c in at.caption if "is not a valid" in c.value]  # the link was valid
    assert "Consistent with the promise" in page_text(at)


def test_ptr_refuses_on_a_small_class_and_answers_on_a_large_one(default_run):
    assert "So PTR answers with probability" in page_text(default_run)
    at = app_test(LESSON, {"ls_n": "51"})
    assert_clean(at)
    assert "make it answer, raise Δ̂" in page_text(at)
    accuracy = chart_by_title(at, "Typical error")
    assert any("mostly says ⊥" in note["text"] for note in accuracy["layout"]["annotations"])


def test_large_epsilon_can_crown_smooth_sensitivity():
    at = app_test(LESSON, {"ls_eps": "10"})
    assert_clean(at)
    text = page_text(at)
    assert "Here smooth sensitivity wins" in text or "Here the exponential mechanism wins" in text


def test_bad_radio_links_fall_back_with_a_note():
    at = app_test(LESSON, {"ls_data": "everyone", "ls_aud_mech": "magic"})
    assert_clean(at)
    notes = " ".join(c.value for c in at.caption)
    assert "ls_data='everyone'" in notes and "ls_aud_mech='magic'" in notes


def test_resample_buttons_redraw_their_demo(default_run):
    at = app_test(LESSON)
    rug = chart_by_title(at, "Noise ∝ LS")["data"][2]
    at.button(key="ls_trap_resample").click().run()
    assert_clean(at)
    assert chart_by_title(at, "Noise ∝ LS")["data"][2] != rug
    certified = _metric(at, "Certified ε̂ (lower bound)")
    at.button(key="ls_audit_resample").click().run()
    assert_clean(at)
    assert _metric(at, "Certified ε̂ (lower bound)") != certified  # fresh samples, a new bound
    before = _metric(at, "True median")
    at.button(key="ls_safe_resample").click().run()
    assert_clean(at)
    assert _metric(at, "True median") != before


def test_seed_reproduces_the_same_page(default_run):
    assert [m.value for m in app_test(LESSON).metric] == [m.value for m in default_run.metric]


QUIZ_ANSWERS = {"zero-noise": 1, "ptr-small": 2, "which-wins": 0}


def test_quizzes_reveal_after_a_guess():
    at = app_test(LESSON)
    for quiz_id, answer in QUIZ_ANSWERS.items():
        at.radio(key=f"local-sensitivity_quiz_{quiz_id}").set_value(answer)
    at.run()
    for quiz_id in QUIZ_ANSWERS:
        at.toggle(key=f"local-sensitivity_quiz_{quiz_id}_reveal").set_value(True)
    at.run()
    assert_clean(at)
    assert page_text(at).count("✅ Right.") == len(QUIZ_ANSWERS)


def test_quiz_numbers_match_dp():
    # "ptr-small": spread class, Δ̂ = 10, ε = 1, δ = 1e-6 answers less than once in a million
    data = ls.EXAMPLE_SCORES["spread"]
    distance = ls.distance_to_instability(data, 0, 100, 10)
    assert distance == 1
    assert ls.ptr_pass_probability(distance, 1.0, 1e-6) < 1e-6
    # "which-wins": at n = 1,001 and ε = 1 the exponential mechanism beats the other two
    sweep = ls.accuracy_sweep(ls.synthetic_scores(1001, np.random.default_rng(7)), 0, 100, [1.0], 1e-6, 2.0)
    assert sweep["exponential"][0] < sweep["smooth"][0] < sweep["ptr"][0]


# --- chart builders ---------------------------------------------------------------------------

def test_charts_send_little_data_and_label_their_axes():
    data = np.array(ls.EXAMPLE_SCORES["spread"])
    changed = data.copy()
    changed[5] = 90
    values = np.linspace(0, 100, 201)
    x = np.linspace(0, 100, 801)
    d = ls.synthetic_scores(1001, np.random.default_rng(1))
    reach = ls.median_sensitivity_at_distance(d, 0, 100)
    epsilons = np.geomspace(0.01, 10, 31)
    sweep = ls.accuracy_sweep(d, 0, 100, epsilons, 1e-6, 2.0)
    figures = [
        charts.strip_chart(data, changed, 5, 0, 100, 58, 66, (52, 66)),
        charts.replacement_chart(values, ls.median_after_replacing(data, 5, values, 0, 100), 90, 66, 58,
                                 (52, 66), 0, 100),
        charts.trap_chart(x, np.exp(-np.abs(x - 60)) / 2, np.exp(-np.abs(x - 60) / 28) / 56, 60, 1, 28,
                          np.full(20, 60.0), np.linspace(20, 90, 20), 8),
        charts.trap_loss_chart(x, -np.abs(x - 60) + np.abs(x - 60) / 28 + math.log(28), 1.0),
        charts.distance_chart(reach, 1 / 6, ls.median_smooth_sensitivity(d, 0, 100, 1 / 6), 2.0,
                              ls.distance_to_instability(d, 0, 100, 2.0), ls.ptr_threshold(1.0, 1e-6)),
        charts.accuracy_chart(epsilons, sweep, 1.0),
    ]
    for fig in figures:
        assert fig.layout.title.text
        assert fig.layout.xaxis.title.text
        assert sum(len(trace.x) for trace in fig.data if trace.x is not None) <= 5000


def test_distance_chart_crops_to_the_interesting_k():
    d = ls.synthetic_scores(2001, np.random.default_rng(1))
    reach = ls.median_sensitivity_at_distance(d, 0, 100)
    threshold = ls.ptr_threshold(1.0, 1e-6)
    distance = ls.distance_to_instability(d, 0, 100, 2.0)
    fig = charts.distance_chart(reach, 1 / 6, 0.1, 2.0, distance, threshold)
    shown = len(fig.data[0].x)
    assert max(1.5 * threshold, 1.5 * distance, 18) <= shown <= 2002
    assert shown < 400  # not all 2,002 distances


def test_accuracy_chart_hides_ptr_where_it_mostly_refuses():
    epsilons = np.array([0.1, 1.0, 10.0])
    sweep = {"exponential": [1, 0.1, 0.01], "smooth": [5, 0.5, 0.005], "ptr": [20, 2, 0.2],
             "ptr_answers": [0.0, 0.3, 1.0], "global": [40, 40, 7], "local": [0.5, 0.05, 0.005]}
    fig = charts.accuracy_chart(epsilons, sweep, 1.0)
    ptr = next(trace for trace in fig.data if trace.name.startswith("propose"))
    assert np.isnan(ptr.y[0]) and np.isnan(ptr.y[1]) and ptr.y[2] == pytest.approx(0.2)


def test_trap_chart_draws_a_spike_when_there_is_no_noise():
    x = np.linspace(0, 100, 11)
    fig = charts.trap_chart(x, None, np.full(11, 0.01), 60, 0.0, 28, np.full(20, 60.0), np.full(20, 50.0), 0.0)
    assert list(fig.data[0].x) == [60, 60]
    assert fig.data[0].name.startswith("D: b = 0")


# --- live sentences at the settings that broke them (issue 13) ---------------------------------

TRAP_SPREADS = [0, 0.5, 1, 2, 5, 10]
TRAP_EPSILONS = [0.1, 0.2, 0.5, 1.0, 2.0, 3.0]


def _flat(at) -> str:
    return " ".join(page_text(at).split())


def test_trap_controls_offer_the_settings_enumerated_below(default_run):
    assert [float(v) for v in default_run.select_slider(key="ls_trap_s").options] == TRAP_SPREADS
    assert [float(v) for v in default_run.select_slider(key="ls_trap_eps").options] == TRAP_EPSILONS


def test_the_trap_always_leaves_the_band_somewhere_on_the_chart():
    # trap-guess-hard says the chart shows outputs whose loss leaves ±ε: at every s > 0 and ε
    # the page offers, either the loss at 60, ln(28/s), or the loss at the lower edge is outside.
    for spread in TRAP_SPREADS[1:]:
        for epsilon in TRAP_EPSILONS:
            at_centre = math.log(28 / spread)
            at_edge = at_centre - 60 * epsilon * (1 / spread - 1 / 28)
            assert at_centre > epsilon or at_edge < -epsilon, (spread, epsilon)


def test_default_trap_one_release_usually_tells_the_classes_apart(default_run):
    text = _flat(default_run)
    assert "is right **93%** of the time, so one release is usually enough to say which class" in text
    assert "where ε-DP allows at most ε = 1" in text and "it is -54.5 at the edge of the range, and **-57.9**, past −ε" in text
    assert "That is eight of D's noise scales either side of 60." in text
    assert "The true privacy loss of this pair is 57.9" in text


def test_wide_spread_trap_one_release_is_not_enough():
    # s = 10: LS(D) = 10 against 28; the best single guess is right only 68% of the time.
    at = app_test(LESSON, {"ls_trap_s": "10"})
    assert_clean(at)
    text = _flat(at)
    assert "usually enough" not in text
    assert "is right **68%** of the time: better than a coin flip, but one release alone" in text
    assert f"is right **{ls.best_single_guess(60, 10, 28, 0, 100):.0%}**" in text
    assert "S stops 35 either side of 60" in text  # 8 scales of 10 would pass the range


def test_wide_spread_small_epsilon_loss_passes_minus_epsilon_only_at_the_atom():
    # s = 10, ε = 0.1: scales 100 and 280; the density's loss only falls to 0.644 at the edge,
    # but the outputs clipped to 0 (an atom) have loss −60·(1/100 − 1/280) = −0.386 < −ε.
    at = app_test(LESSON, {"ls_trap_s": "10", "ls_trap_eps": "0.1"})
    assert_clean(at)
    text = _flat(at)
    assert "runs off" not in text
    assert "it is 0.644 at the edge of the range, and **-0.386**, past −ε" in text
    assert "is right **61%** of the time" in text


def test_wide_spread_large_epsilon_loss_at_60_is_within_epsilon():
    # s = 10, ε = 3: ln 2.8 = 1.03 < 3 at the centre; the leak is in the tails.
    at = app_test(LESSON, {"ls_trap_s": "10", "ls_trap_eps": "3"})
    assert_clean(at)
    text = _flat(at)
    assert "where ε-DP allows at most" not in text
    assert "within ε = 3 there, so the leak is further out" in text and "past −ε" in text


def test_zero_spread_loss_is_infinite_and_the_event_is_a_point():
    at = app_test(LESSON, {"ls_trap_s": "0"})
    assert_clean(at)
    text = _flat(at)
    assert "With s = 0, D has no noise, so S is the single point 60." in text
    assert "The true privacy loss of this pair is infinite" in text


def test_small_class_ptr_distance_zero_and_a_trap_that_is_not_even_accurate():
    # n = 51, ε = 0.01, Δ̂ = 0.1: LS already exceeds Δ̂; the trap's typical error (43) is
    # worse than the exponential mechanism's (24).
    at = app_test(LESSON, {"ls_n": "51", "ls_eps": "0.01", "ls_bound": "0.1"})
    assert_clean(at)
    text = _flat(at)
    assert "after only 0 changes" not in text
    assert "LS already exceeds PTR's bound Δ̂ = 0.1, with no change at all" in text
    assert "here not even more accurate than the exponential mechanism" in text
    assert "tempting, and not private" not in text


def test_smooth_audit_states_both_smooth_sensitivities():
    at = app_test(LESSON, {"ls_aud_mech": "smooth sensitivity with Cauchy noise", "ls_trap_eps": "3"})
    assert_clean(at)
    text = _flat(at)
    d, d_prime = ls.trap_pair(1)
    s_d, s_d_prime = (ls.median_smooth_sensitivity(x, 0, 100, 0.5) for x in (d, d_prime))
    assert s_d_prime / s_d <= math.exp(0.5) + 1e-12
    assert f"S = {s_d:.3g} for D and {s_d_prime:.3g} for D′" in text
    assert "nearly the same" not in text
