"""ui.show lays out plain figures once, and never changes a shared one."""

from __future__ import annotations

import copy
import json

import plotly.graph_objects as go
import plotly.io as pio

from tests.test_plain_figure import _layout, _traces
from ui.plain_figure import PlainFigure, plain_spec
from ui.show import describe, for_screens
from ui.theme import TEMPLATE


def test_laying_out_never_changes_a_shared_figure():
    plain = PlainFigure(_traces(), _layout())
    before = copy.deepcopy(plain.spec)
    normal, big = for_screens(plain), for_screens(plain, presenter=True)
    assert plain.spec == before
    assert normal is for_screens(plain) and big is for_screens(plain, presenter=True)  # made once
    assert big.spec["data"][0]["line"]["width"] > plain.spec["data"][0]["line"]["width"]
    assert normal.spec["layout"]["template"] is TEMPLATE  # shared, not copied
    assert describe(plain) == ("Chart: A title. Horizontal axis: x (units). "
                               "Vertical axis: y (units). Series: a; b.")
    # a plotly figure gets the same treatment, from a copy
    reference = go.Figure(data=_traces(), layout=_layout())
    assert describe(reference) == describe(plain)
    assert json.loads(pio.to_json(for_screens(reference).spec, validate=False)) == \
        json.loads(pio.to_json(normal.spec, validate=False))
    assert plain_spec(plain) is plain.spec
