"""The "Laplace mechanism" page: relation toggle, query picker, histogram, post-processing,
clipping, accuracy, blue eyes and the audit; plus its chart builders."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from dp.laplace_accuracy import POSTPROCESSING
from tests.conftest import app_test, assert_clean, chart_by_title, chart_specs, lesson
from ui import lessons
from ui.charts import laplace as charts

LESSON = lesson("laplace")
CHART_TITLES = ["Output densities", "True and noisy counts", "How far can", "Error stays put",
                "Same ε", "Clipping bias", "The ε you need", "Error of each count"]


@pytest.fixture(scope="module")
def default_run():
    return app_test(LESSON)


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label))


def _text(at) -> str:
    """All markdown on the page, with line breaks and runs of spaces collapsed."""
    return " ".join(" ".join(m.value for m in at.markdown).split())


def test_defaults_show_every_section(default_run):
    at = default_run
    assert_clean(at)
    assert at.title[0].value == "The Laplace mechanism"
    titles = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    for expected in CHART_TITLES:
        assert any(t.startswith(expected) for t in titles), (expected, titles)
    text = _text(at)
    assert "{{" not in text  # every live number was filled in
    assert "add/remove" in text and "replace-one" in text  # the relation is stated
    assert "**192** people" in text  # census: b·(10 + ln 10,000) at b = 10
    assert _metric(at, "Δ") == "1" and _metric(at, "b = Δ/ε") == "1"
    assert at.success  # the audit of the correctly calibrated mechanism passes
    # every quiz on the page exists, and the first slider in the main area is the demo's ε
    assert {r.key for r in at.radio if r.key and "_quiz_" in r.key} == {
        f"laplace_quiz_{q}" for q in lessons.quizzes("laplace")}
    assert at.select_slider[0].key == "lap_eps"


def test_relation_toggle_changes_histogram_sensitivity_everywhere():
    at = app_test(LESSON, {"lap_relation": "replace-one"})
    assert_clean(at)
    assert _metric(at, "Δ") == "2" and _metric(at, "b = Δ/ε") == "2"
    text = _text(at)
    assert "**384** people" in text  # census doubles under replace-one
    assert "b = Δ/ε = **20**" in text  # blue eyes: the notes' scale 20 at ε = 0.1
    at.radio(key="lap_relation").set_value("add/remove").run()
    assert_clean(at)
    assert _metric(at, "Δ") == "1" and "b = Δ/ε = **10**" in _text(at)


def test_query_picker_branches():
    at = app_test(LESSON)
    at.radio(key="lap_query").set_value("k counts").run()
    assert_clean(at)
    at.select_slider(key="lap_k").set_value(100).run()
    assert _metric(at, "Δ") == "100"
    at.radio(key="lap_query").set_value("count").run()
    assert _metric(at, "Δ") == "1"
    # the mean under add/remove: the page says why it uses replace-one, and Δ = (U − L)/n
    at.radio(key="lap_query").set_value("bounded mean").run()
    assert_clean(at)
    assert any("everyone to know n" in info.value for info in at.info)
    assert _metric(at, "Δ") == "1"  # (100 − 0)/100
    at.slider(key="lap_upper").set_value(150).run()
    at.slider(key="lap_lower").set_value(50).run()
    at.select_slider(key="lap_n").set_value(10).run()
    assert_clean(at)
    assert _metric(at, "Δ") == "10"  # (150 − 50)/10
    for key in ("lap_upper", "lap_lower"):
        for extreme in (at.slider(key=key).min, at.slider(key=key).max):
            at.slider(key=key).set_value(extreme).run()
            assert_clean(at)
    at.radio(key="lap_relation").set_value("replace-one").run()
    assert_clean(at)
    assert not any("everyone to know n" in info.value for info in at.info)


def _option_value(widget, label: str):
    """The option whose label is `label` (AppTest hands select_slider labels, not values)."""
    if label.endswith("%"):
        return float(label[:-1]) / 100
    value = float(label.replace(",", ""))  # n sliders read 1,000,000
    return int(value) if value.is_integer() and "." not in label else value


def test_every_select_slider_at_its_extremes():
    # Like tests/test_pages.py, but with values rather than labels: in Streamlit 1.67 AppTest
    # passes select_slider labels to format_func, which ui.params.number_label cannot format.
    at = app_test(LESSON)
    keys = [w.key for w in at.select_slider if w.key]
    assert len(keys) >= 12
    for key in keys:
        widget = at.select_slider(key=key)
        for label in (widget.options[0], widget.options[-1]):
            at.select_slider(key=key).set_value(_option_value(widget, label)).run()
            assert_clean(at)
            assert "{{" not in _text(at)


def test_moving_epsilon_redraws_the_density_and_histogram():
    at = app_test(LESSON)
    before = chart_by_title(at, "Output densities")["layout"]["title"]["text"]
    at.select_slider(key="lap_eps").set_value(0.1).run()
    assert chart_by_title(at, "Output densities")["layout"]["title"]["text"] == "Output densities, b = 10"
    assert before == "Output densities, b = 1"
    bars = chart_by_title(at, "True and noisy counts")["data"][1]["error_y"]["value"]
    at.select_slider(key="lap_hist_eps").set_value(1.0).run()
    assert chart_by_title(at, "True and noisy counts")["data"][1]["error_y"]["value"] == pytest.approx(bars / 10)


def test_error_bar_choice_and_resample():
    at = app_test(LESSON)
    per_bucket = chart_by_title(at, "True and noisy counts")["data"][1]["error_y"]["value"]
    at.radio(key="lap_hist_bars").set_value("every bucket at once").run()
    assert_clean(at)
    union = chart_by_title(at, "True and noisy counts")["data"][1]["error_y"]["value"]
    assert per_bucket == pytest.approx(10 * np.log(20))
    assert union == pytest.approx(10 * (10 + np.log(10)))
    before = chart_by_title(at, "True and noisy counts")["data"][1]["y"]
    at.button(key="lap_hist_resample").click().run()
    assert_clean(at)
    assert chart_by_title(at, "True and noisy counts")["data"][1]["y"] != before
    for demo in ("lap_census", "lap_pp", "lap_clip", "lap_blue", "lap_audit"):
        at.button(key=f"{demo}_resample").click().run()
        assert_clean(at)


def test_audit_catches_the_wrong_sensitivity():
    at = app_test(LESSON)
    at.radio(key="lap_audit_calib").set_value(at.radio(key="lap_audit_calib").options[1]).run()
    assert_clean(at)
    assert at.error and "breaks its promise" in at.error[0].value
    assert "really gets 2-DP" in _text(at)


def test_bad_radio_links_fall_back_with_a_note():
    at = app_test(LESSON, {"lap_relation": "swap", "lap_query": "median",
                           "lap_hist_bars": "none", "lap_audit_calib": "x"})
    assert_clean(at)
    notes = " ".join(c.value for c in at.caption)
    for key, bad in (("lap_relation", "swap"), ("lap_query", "median"),
                     ("lap_hist_bars", "none"), ("lap_audit_calib", "x")):
        assert f"{key}={bad!r}" in notes
    assert _metric(at, "Δ") == "1"


def test_quiz_reveals_after_a_prediction():
    at = app_test(LESSON)
    key = "laplace_quiz_histogram-sensitivity"
    at.radio(key=key).set_value(1).run()
    at.toggle(key=f"{key}_reveal").set_value(True).run()
    assert_clean(at)
    assert "✅ Right." in _text(at)


# --- chart builders -------------------------------------------------------------------------

def _figures() -> dict[str, go.Figure]:
    grid = np.geomspace(30, 20_000, 50)
    bias = -np.maximum(0, 500 - grid) / 20
    return {
        "neighbours": charts.neighbours_figure(100, 101, 2.0, "count"),
        "histogram": charts.histogram_figure(["0–49", "50–99"], [10, 5], [12.5, -1.0], 6.0, "x"),
        "tail": charts.tail_figure(100, 3.2),
        "census": charts.census_figure([1e4, 1e8], 192, [90, 95], [200, 2e6]),
        "postprocessing": charts.postprocessing_figure({v: (1.0, 2.0) for v in POSTPROCESSING}, 0.1),
        "clipping": charts.clipping_figure(grid, bias, 0.5, np.sqrt(bias**2 + 0.25), 200, 15.0, "U"),
        "accuracy": charts.accuracy_figure(np.geomspace(1, 1000, 5), 1, {0.95: np.ones(5)}, 10, 0.3, 0.95),
        "interval": charts.interval_figure(20, 59.9, 0.95, {"blue": [3.0, -10.0]}),
    }


@pytest.mark.parametrize("name", list(_figures()))
def test_chart_builders_make_valid_labelled_figures(name):
    fig = _figures()[name]
    # The builders skip plotly's validation for speed; validating here catches any typo.
    validated = go.Figure(fig.to_dict())
    layout = validated.layout
    assert layout.title.text and layout.yaxis.title.text
    assert layout.legend.y < 0  # legend under the plot, never on the title
    assert layout.template.layout.font.size  # the shared dplab template is applied
    assert len(validated.data) >= 2


def test_figures_are_small():
    # Plots send summarised data: a few thousand points at most.
    for fig in _figures().values():
        assert sum(len(np.atleast_1d(t.x)) for t in fig.data if t.x is not None) < 5000


# --- issue 13/14: every live sentence true at every setting ----------------------------------


def test_histogram_cost_names_the_relation(default_run):
    text = _text(default_run)
    assert "the same ε as a single count" not in text
    assert "under add/remove here, Δ = 1" in text
    replace = _text(app_test(LESSON, {"lap_relation": "replace-one"}))
    assert "under replace-one here, Δ = 2" in replace
    assert "That is the notes' scale of 20." in replace and "Switch the page to replace-one" not in replace


def test_blue_eyes_says_plus_minus_ten_undersells_b_20_by_far(default_run):
    text = _text(default_run)
    assert "undersells the noise a little" not in text
    assert "the average error is b = 20 itself" in text and "≈ 39% of releases" in text


def test_postprocessing_sentence_follows_what_clamping_does():
    # ε = 10: b = 0.1, almost nothing goes negative, so clamping cannot "cut" the error.
    idle = _text(app_test(LESSON, {"lap_pp_eps": "10"}))
    assert "Clamping changes little here" in idle and "total drifts" not in idle
    drifts = _text(app_test(LESSON))  # ε = 0.1, n = 200: the classic case
    assert "Clamping cuts the average bucket error from 9.9 to 7.9" in drifts
    assert "the total drifts: its error goes from 51 to 56" in drifts


def test_n_sliders_read_with_thousands_separators_and_old_links_still_open():
    at = app_test(LESSON, {"lap_hist_n": "1e+06"})  # a link written before the labels changed
    assert_clean(at)
    assert at.select_slider(key="lap_hist_n").value == 1_000_000
    assert at.select_slider(key="lap_hist_n").format_func(1_000_000) == "1,000,000"
    assert not [c.value for c in at.caption if "is not a valid" in c.value]
    at = app_test(LESSON, {"lap_hist_n": "100,000"})
    assert at.select_slider(key="lap_hist_n").value == 100_000


def test_next_lesson_is_a_link(default_run):
    pages = [link.proto.page for link in default_run.get("page_link")]
    assert "gaussian" in pages
    assert "Next in this course: **Laplace vs Gaussian**" not in _text(default_run)


def test_clipping_best_bound_at_the_edge_of_the_chart_says_so():
    text = _text(app_test(LESSON, {"lap_clip_eps": "0.01", "lap_clip_n": "100"}))
    assert "at most about 30, the lowest U on the chart" in text


def test_audit_notice_does_not_claim_the_bound_sits_below_when_it_does_not():
    at = app_test(LESSON, {"lap_audit_eps": "3"})
    at.radio(key="lap_audit_calib").set_value(at.radio(key="lap_audit_calib").options[1]).run()
    assert_clean(at)
    text = _text(at)
    certified = float(text.split("The certified ε̂ = ")[1].split(" ")[0])
    assert ("sits below the true value" in text) == (certified <= 6)
    assert ("lands just above the true value" in text) == (certified > 6)
