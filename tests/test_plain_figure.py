"""ui.plain_figure: figures as plain data, sent without validation or copies."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import plotly.tools
import pytest
from streamlit.testing.v1 import AppTest

from ui.plain_figure import PlainFigure, decode_array, spec_mismatches
from ui.theme import TEMPLATE, figure


def _traces():
    return [{"type": "scatter", "x": np.linspace(0, 1, 5), "y": np.arange(5), "name": "a",
             "line": {"color": "#0072B2", "width": 2}, "marker": {"size": 6}},
            {"type": "bar", "x": ["p", "q"], "y": [1.5, 2.5], "name": "b"}]


def _layout():
    return {"template": TEMPLATE, "title": {"text": "A title"},
            "xaxis": {"title": {"text": "x (units)"}, "type": "log"},
            "yaxis": {"title": {"text": "y (units)"}},
            "annotations": [{"x": 1, "y": 1, "text": "a note that is long enough to wrap"}]}


def test_streamlit_takes_the_spec_itself_and_sends_what_plotly_would():
    plain = PlainFigure(_traces(), _layout())
    # st.plotly_chart's first step: a BaseFigure is not validated, and to_dict() is no copy
    assert plotly.tools.return_figure_from_figure_or_data(plain, validate_figure=True) is plain.spec
    # the JSON is what plotly sends for the same figure built its own (validated) way
    reference = go.Figure(data=_traces(), layout=_layout())
    assert json.loads(pio.to_json(plain.spec, validate=False)) == json.loads(pio.to_json(reference))


def test_arrays_are_encoded_once_as_typed_arrays():
    plain = PlainFigure(_traces(), _layout())
    x, y = plain.spec["data"][0]["x"], plain.spec["data"][0]["y"]
    assert x["dtype"] == "f8" and y["dtype"] == "i1"  # int64 shrunk, as plotly does
    assert np.array_equal(decode_array(x), np.linspace(0, 1, 5))
    assert plain.spec["data"][1]["y"] == [1.5, 2.5]  # lists stay lists
    assert plain.to_dict() is plain.to_dict()


def test_tests_can_still_read_it_as_a_figure():
    plain = PlainFigure(_traces(), _layout())
    assert plain.layout.title.text == "A title"
    assert list(plain.data[0].x) == pytest.approx(np.linspace(0, 1, 5))
    assert [trace.name for trace in plain.data] == ["a", "b"]
    assert isinstance(plain, go.Figure)


def test_pickles_and_copies_to_an_equal_figure():
    plain = PlainFigure(_traces(), _layout())
    for other in (pickle.loads(pickle.dumps(plain)), copy.deepcopy(plain)):
        assert isinstance(other, PlainFigure) and other == plain


def test_validation_refuses_what_plotly_would_rewrite():
    PlainFigure(_traces(), _layout()).validated()
    with pytest.raises(ValueError, match="line_width"):
        PlainFigure([{"type": "scatter", "x": [1], "y": [1], "line_width": 3}]).validated()
    with pytest.raises(ValueError, match="expects an object"):
        PlainFigure([], {"xaxis": {"title": "bare"}}).validated()
    with pytest.raises(ValueError):  # a misspelt property, as plotly always refused
        PlainFigure([{"type": "scatter", "x": [1], "colour": "red"}]).validated()
    assert not spec_mismatches({"layout": {"annotations": []}}, {"layout": {}})


def test_builders_match_plotly():
    ours = figure("T", "x", "y")
    theirs = go.Figure(layout={"template": TEMPLATE, "title": {"text": "T"},
                               "xaxis": {"title": {"text": "x"}}, "yaxis": {"title": {"text": "y"}}})
    for fig in (ours, theirs):
        fig.add_trace({"type": "scatter", "x": np.arange(3.0), "y": [1, 2, 3], "name": "s"})
        fig.add_traces([go.Scatter(x=[1, 2], y=[3, 4], name="t")])
        fig.update_layout(legend={"x": 0.5}, height=300, title="New title")
        fig.update_layout(legend={"y": -0.2})
        fig.update_xaxes(type="log", exponentformat="none")
        fig.update_yaxes(range=[0, 5])
        fig.add_vrect(x0=0, x1=2, fillcolor="red", opacity=0.1, line_width=0)
    assert json.loads(pio.to_json(ours.spec, validate=False)) == json.loads(pio.to_json(theirs))
    ours.validated()


def _chart_script():
    import numpy as np
    import streamlit as st

    from ui.plain_figure import PlainFigure

    st.plotly_chart(PlainFigure([{"type": "scatter", "x": np.arange(3.0), "y": [1, 2, 4]}],
                                {"title": {"text": "t"}}), theme=None)


def test_st_plotly_chart_sends_it():
    at = AppTest.from_function(_chart_script).run()
    assert not at.exception
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["layout"]["title"]["text"] == "t"
    assert spec["data"][0]["x"]["dtype"] == "f8"
    go.Figure(spec)


@pytest.mark.parametrize("array", [
    np.linspace(0, 1, 7), np.arange(5), np.arange(5) * 1000, np.arange(5) * 10**6,
    np.arange(3) * 10**12, np.arange(4, dtype=np.uint64) * 300, np.array([1.0, np.nan]),
    np.ones((2, 3)), np.array([True, False]), np.array(["a", "b"]), np.array([], float),
    np.arange(6.0)[::2], np.float32([1, 2]), np.array([-200, 5]),
], ids=lambda a: f"{a.dtype}{a.shape}")
def test_typed_arrays_are_plotlys_own(array):
    from _plotly_utils.utils import to_typed_array_spec as plotlys

    from ui.plain_figure import to_typed_array_spec as ours

    def sent(value):
        return json.loads(pio.to_json({"x": value}, validate=False))

    assert sent(ours(array)) == sent(plotlys(array))
