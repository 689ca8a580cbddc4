"""Charts for "what ε means in practice": an icon array of 100 people, real deployments on a
log ε axis, and the Gaussian planner's ε-against-δ trade-off.

Numbers in, plotly Figure out; no Streamlit calls. Built in one go.Figure call without
validation (tests validate every figure).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.numbers import number
from ui.plain_figure import PlainFigure
from ui.theme import GREY, PALETTE, TEMPLATE, series_style

ICON_COLUMNS = 10
BEFORE = PALETTE["blue"]
ADDED = PALETTE["orange"]


def icon_counts(prior: float, posterior: float, people: int = 100) -> tuple[int, int]:
    """(dots for the prior, dots the release can add), rounded to whole people."""
    before = round(prior * people)
    after = max(before, round(posterior * people))
    return before, after - before


def icon_array(prior: float, posterior: float, *, people: int = 100) -> go.Figure:
    """`people` dots in rows of ten: the prior's share blue circles, what the release can add
    at most orange diamonds, the rest open grey circles (shape and colour both differ)."""
    before, added = icon_counts(prior, posterior, people)
    index = np.arange(people)
    x, y = index % ICON_COLUMNS, -(index // ICON_COLUMNS)
    groups = [
        (slice(0, before), f"before: {before} in {people}",
         {"color": BEFORE, "symbol": "circle", "size": 15}),
        (slice(before, before + added), f"the most the release adds: {added}",
         {"color": ADDED, "symbol": "diamond", "size": 15}),
        (slice(before + added, people), "the rest",
         {"color": GREY, "symbol": "circle-open", "size": 13, "line": {"width": 1.5}}),
    ]
    traces = [{"type": "scatter", "x": x[part].tolist(), "y": y[part].tolist(), "mode": "markers",
               "name": name, "marker": marker, "hoverinfo": "skip"}
              for part, name, marker in groups if part.stop > part.start]
    hidden = {"visible": False, "range": None, "fixedrange": True}
    rows = math.ceil(people / ICON_COLUMNS)
    return PlainFigure(traces, {  # plain data: ui.plain_figure
        "template": TEMPLATE,
        "title": {"text": f"100 people she suspects at {prior:.0%}: how sure she can become"},
        "xaxis": {**hidden, "range": [-0.6, ICON_COLUMNS - 0.4]},
        "yaxis": {**hidden, "range": [-rows + 0.4, 0.6], "scaleanchor": "x"},
        "height": 380, "showlegend": True, "dragmode": False,
    })


def deployments_figure(rows: Sequence[dict], epsilon: float | None = None,
                       epsilon_label: str = "this page's ε") -> go.Figure:
    """Each deployment a marker on a log ε axis, one row per deployment; the marker's shape
    says how often its ε renews (once, per day, per month, per event, …)."""
    kinds = list(dict.fromkeys(row["renews"] for row in rows))
    labels = [row["short"] for row in rows]
    traces = []
    for i, kind in enumerate(kinds):
        mine = [row for row in rows if row["renews"] == kind]
        traces.append({
            "type": "scatter", "mode": "markers", "name": kind,
            "x": [row["epsilon"] for row in mine], "y": [row["short"] for row in mine],
            "marker": {**series_style(i)["marker"], "size": 13},
            "customdata": [[row["unit"]] for row in mine],
            "hovertemplate": "%{y}: ε = %{x}<br>%{customdata[0]}<extra></extra>",
        })
    values = [row["epsilon"] for row in rows] + ([epsilon] if epsilon else [])
    low, high = math.log10(min(values)), math.log10(max(values))
    shapes, annotations = [], []
    if epsilon:
        shapes.append({"type": "line", "xref": "x", "x0": epsilon, "x1": epsilon, "yref": "paper",
                       "y0": 0, "y1": 1, "line": {"color": GREY, "dash": "dash", "width": 2}})
        annotations.append({"x": math.log10(epsilon), "xref": "x", "y": 1, "yref": "paper",
                            "yanchor": "bottom", "showarrow": False, "font": {"color": GREY},
                            "text": f"{epsilon_label}: {epsilon:g}"})
    return PlainFigure(traces, {  # plain data: ui.plain_figure
        "template": TEMPLATE,
        "title": {"text": "Published ε of some real deployments (units differ)"},
        "xaxis": {"title": {"text": "ε (log scale)"}, "type": "log",
                  "range": [low - 0.25, high + 0.25]},
        # every row labelled (Plotly skips category labels it thinks are crowded on a phone)
        "yaxis": {"title": {"text": "release"}, "type": "category", "categoryorder": "array",
                  "categoryarray": labels[::-1], "tickmode": "array", "tickvals": labels,
                  "automargin": True},
        "legend": {"title": {"text": "ε spent"}},
        "shapes": shapes, "annotations": annotations,
        "height": 220 + 36 * len(rows), "hovermode": "closest",
    })


def tradeoff_figure(deltas: np.ndarray, epsilons: np.ndarray, delta: float, epsilon: float,
                    sigma: float) -> go.Figure:
    """The Gaussian planner: the ε that σ gives, at every δ (log axis), the chosen δ marked."""
    return PlainFigure([  # plain data: ui.plain_figure
        {"type": "scatter", "x": deltas.tolist(), "y": epsilons.tolist(), "mode": "lines",
         "name": f"σ = {number(sigma, ',.3g')}", "line": series_style(0)["line"]},
        {"type": "scatter", "x": [delta], "y": [epsilon], "mode": "markers",
         "name": "your δ", "marker": {**series_style(1)["marker"], "size": 13}},
    ], {
        "template": TEMPLATE,
        "title": {"text": "The same noise, read at different δ"},
        "xaxis": {"title": {"text": "δ (log scale)"}, "type": "log", "exponentformat": "power"},
        "yaxis": {"title": {"text": "ε that σ delivers"}, "rangemode": "tozero"},
        "height": 360,
    })
