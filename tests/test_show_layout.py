"""ui.show.fit_layout as plain data: the rules the browser test (tests/test_layout.py) relies on."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.charts.poll import estimate_figure
from ui.show import (
    PRESENTER_ANNOTATION_SIZE,
    PRESENTER_FONT_SIZE,
    TITLE_CHARS,
    fit_layout,
    for_screens,
    visible_length,
    wrap,
)


def test_wrap_breaks_at_spaces_and_keeps_breaks_and_long_words():
    assert wrap("one two three four", 9) == "one two<br>three<br>four"
    assert wrap("a<br>b c", 3) == "a<br>b c"
    assert wrap("unbreakable-word here", 5) == "unbreakable-word<br>here"
    assert visible_length("10<sup>−6</sup>") == 4


def test_the_legend_goes_under_the_axis_title_whatever_the_chart_asked():
    layout = fit_layout({"title": {"text": "T"}, "height": 420,
                         "legend": {"orientation": "h", "yanchor": "top", "y": -0.22}},
                        [{"name": "a"}, {"name": "b"}])
    assert layout["legend"]["yref"] == "container" and layout["legend"]["y"] == 0
    assert layout["legend"]["yanchor"] == "bottom"


def test_a_long_title_wraps_and_the_top_margin_makes_room_for_every_line():
    short = fit_layout({"title": {"text": "Short"}, "height": 420})
    long = fit_layout({"title": {"text": "A title much longer than a phone is wide, by far"},
                       "height": 420})
    lines = long["title"]["text"].split("<br>")
    assert len(lines) == 2 and all(visible_length(line) <= TITLE_CHARS for line in lines)
    assert long["margin"]["t"] > short["margin"]["t"] + 20


def test_a_vertical_axis_title_longer_than_the_plot_wraps():
    layout = fit_layout({"height": 300, "yaxis": {"title": {"text": "a rather long title for "
                                                                    "the vertical axis here"}}})
    assert "<br>" in layout["yaxis"]["title"]["text"]


def test_log_ticks_thin_out_when_labels_would_touch():
    y = np.geomspace(1e-9, 1, 20)
    layout = fit_layout({"height": 320, "yaxis": {"type": "log", "dtick": 1,
                                                   "exponentformat": "power"}},
                        [{"type": "scatter", "x": np.arange(20), "y": y}])
    assert layout["yaxis"]["dtick"] >= 2


def test_a_long_legend_grows_the_figure_instead_of_squashing_the_plot():
    names = [f"a fairly long legend entry number {i}" for i in range(6)]
    layout = fit_layout({"height": 420}, [{"name": name} for name in names])
    assert layout["height"] > 420


def test_the_projector_enlarges_type_but_caps_annotations():
    figure = go.Figure({"data": [{"type": "scatter", "x": [0, 1], "y": [0, 1]}],
                        "layout": {"title": {"text": "T"},
                                   "annotations": [{"text": "note", "font": {"size": 30}}]}})
    big = for_screens(figure, presenter=True).to_dict()["layout"]
    assert big["font"]["size"] == PRESENTER_FONT_SIZE
    assert big["annotations"][0]["font"]["size"] == PRESENTER_ANNOTATION_SIZE


def test_the_live_poll_chart_keeps_its_whole_title_on_the_projector():
    size = 30
    running = {"n": np.arange(1, size + 1)} | {
        key: np.linspace(0.1, 0.5, size) for key in ("estimate", "lower", "upper", "reported_share")}
    figure = estimate_figure(running, "ε = ln 3")
    layout = for_screens(figure, presenter=True).to_dict()["layout"]
    lines = layout["title"]["text"].count("<br>") + 1
    title_size = layout["title"]["font"]["size"]
    assert layout["margin"]["t"] >= lines * 1.3 * title_size  # every line above the plot
    assert layout["title"]["yanchor"] == "bottom" and layout["title"]["yref"] == "container"
