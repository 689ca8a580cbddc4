"""The deployments table: every row complete and sourced, units stated, and the panel's
sentences true wherever the page's ε sits."""

from __future__ import annotations

import math
import re

import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from ui.charts.odds import deployments_figure
from ui.deployments import FIELDS, RENEWS, deployments, position_text, table, year_total
from ui.params import EPSILONS

ROWS = deployments()
REGISTRY = re.compile(r"^opendp/deployments-registry-data: deployments/[\w-]+\.yaml @ [0-9a-f]{40}$")


def test_there_are_rows_from_several_organisations():
    assert len(ROWS) >= 8
    assert len({row["organisation"] for row in ROWS}) >= 6


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["short"])
def test_every_row_has_every_field_and_a_source(row):
    missing = [field for field in FIELDS if field not in row or row[field] in ("", None)]
    assert not missing, missing
    assert REGISTRY.match(row["registry"]), row["registry"]
    assert row["document"].startswith("https://")
    assert isinstance(row["epsilon"], float) and 0 < row["epsilon"] < 100
    assert isinstance(row["delta"], str) or 0 <= row["delta"] < 1e-3
    assert row["renews"] in RENEWS  # the unit of time is always stated
    assert row["model"] in ("central", "local")
    assert isinstance(row["per_year"], int) and row["per_year"] >= 0
    # a yearly count exactly where the ε renews on a calendar
    calendar = {"per day": 365, "per month": 12, "per 6-hour round": 4 * 365}
    assert row["per_year"] == calendar.get(row["renews"], 0)
    if "rho" in row:
        assert "ρ" in row["note"]


def test_year_totals_are_basic_composition():
    google = next(row for row in ROWS if row["organisation"] == "Google")
    assert year_total(google) == pytest.approx(365 * 2.64)
    census = next(row for row in ROWS if row["organisation"] == "U.S. Census Bureau")
    assert year_total(census) is None


def test_table_has_one_entry_per_row_in_every_column():
    columns = table(ROWS)
    assert {len(values) for values in columns.values()} == {len(ROWS)}
    assert "0 (pure DP)" in columns["δ"]


@pytest.mark.parametrize("eps", [0.001, 0.01, 1.0, 2.0, 4.0, 17.14, 100.0, *EPSILONS])
def test_position_counts_add_up(eps):
    text = position_text(eps, ROWS)
    values = [row["epsilon"] for row in ROWS]
    below = sum(v < eps for v in values)
    if below == 0 and eps not in values:
        assert text.startswith("below all")
    elif below == len(values):
        assert text.startswith("above all")
    else:
        numbers = [int(n) for n in re.findall(r"(?:above|equal to|below) (\d+)", text)]
        assert sum(numbers) == len(values)


@pytest.mark.parametrize("eps", [None, 0.01, 1.0, 10.0])
def test_chart_is_valid_and_spans_every_point(eps):
    figure = deployments_figure(ROWS, eps)
    go.Figure(figure.to_dict())
    low, high = figure.layout.xaxis.range
    values = [row["epsilon"] for row in ROWS] + ([eps] if eps else [])
    assert low < math.log10(min(values)) and math.log10(max(values)) < high
    assert sum(len(trace.x) for trace in figure.data) == len(ROWS)


def test_panel_renders():
    def script():
        from ui.deployments import deployments_panel

        deployments_panel(1.0, key="t")

    at = AppTest.from_function(script).run()
    assert not at.exception
    assert "not advice" in at.expander[0].label
    assert not at.dataframe and not at.get("plotly_chart"), "folded, the panel builds nothing (ui.show.fold)"
    at.session_state["t_deployments_fold"] = True  # a reader opens it
    at.run()
    assert not at.exception
    assert len(at.dataframe) == 1 and len(at.get("plotly_chart")) == 1
