"""Charts for "Composition": total ε against k, group privacy, and a budget ledger.

Numbers in, plotly Figure out; the numbers come from dp (dp.accounting via
dp.composition_curves, dp.group_privacy, dp.posterior_bounds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from ui.theme import GREY, PALETTE, figure, series_style

# series_style indices: one look per bound, on every chart of the page
BASIC, ADVANCED, OPTIMAL, EXACT, ZCDP = 0, 1, 2, 3, 4
# How far above basic composition the y-axis reaches: advanced composition at large ε
# runs many decades higher, and would squash every other curve against the floor.
HEADROOM = 30.0


@dataclass(frozen=True)
class Curve:
    label: str
    ks: np.ndarray
    values: np.ndarray
    style: int
    markers: bool = False  # show the points where the curve was evaluated


def _positive(values: np.ndarray) -> np.ndarray:
    """Zeros (a δ that covers everything) cannot sit on a log axis: leave a gap."""
    values = np.asarray(values, dtype=float)
    return np.where(values > 0, values, np.nan)


def _vline(x: float, colour: str, dash: str, width: float = 1.5) -> dict:
    """A full-height vertical line as a layout shape (much cheaper than fig.add_vline)."""
    return {"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
            "line": {"color": colour, "dash": dash, "width": width}}


def composition_chart(curves: list[Curve], your_k: int, title: str,
                      crossover: float | None = None, k_max: int = 10_000) -> go.Figure:
    """Total ε against the number of queries k, log–log, one line per bound.

    Marks your k (dotted line, a marker on each curve) and, when given, the crossover k*
    below which advanced composition is worse than basic (shaded).
    """
    fig = figure(title, "k (number of queries, log scale)", "total ε (log scale)")
    traces, marks = [], {"y": [], "color": [], "symbol": [], "text": []}
    floor, top, reference = math.inf, 0.0, 0.0
    for curve in curves:
        ys = _positive(curve.values)
        style = series_style(curve.style)
        traces.append(dict(type="scatter",
            x=curve.ks, y=ys, name=curve.label, mode="lines+markers" if curve.markers else "lines",
            line=style["line"], marker={**style["marker"], "size": 7},
            hovertemplate=f"{curve.label}<br>k = %{{x:,}}<br>total ε = %{{y:.4g}}<extra></extra>"))
        at_k = ys[np.asarray(curve.ks) == your_k]
        if at_k.size and np.isfinite(at_k[0]):
            marks["y"].append(at_k[0])
            marks["color"].append(style["marker"]["color"])
            marks["symbol"].append(style["marker"]["symbol"])
            marks["text"].append(curve.label)
        if np.any(np.isfinite(ys)):
            floor = min(floor, float(np.nanmin(ys)))
            top = max(top, float(np.nanmax(ys)))
            if curve.style != ADVANCED:
                reference = max(reference, float(np.nanmax(ys)))
    # every curve's value at your k, as one trace of big markers
    traces.append(dict(type="scatter",
        x=[your_k] * len(marks["y"]), y=marks["y"], text=marks["text"], mode="markers",
        showlegend=False,
        marker={"size": 13, "color": marks["color"], "symbol": marks["symbol"],
                "line": {"color": "white", "width": 1.5}},
        hovertemplate=f"%{{text}} at your k = {your_k:,}: %{{y:.4g}}<extra></extra>"))
    if crossover is not None and 1 < crossover < k_max:
        # Named in the legend, not on the plot: a label inside the plot box covered the
        # curves it sat on (on the projector, the exact-Laplace line vanished behind it).
        traces.insert(len(traces) - 1, dict(
            type="scatter", x=[None], y=[None], mode="markers", hoverinfo="skip",
            name=f"shaded: advanced worse than basic, k < k* ≈ {crossover:,.1f}",
            marker={"symbol": "square", "size": 14, "color": PALETTE["orange"], "opacity": 0.3}))
    fig.add_traces(traces)
    if not math.isfinite(floor):
        floor, top, reference = 1e-2, 1.0, 1.0
    top = min(top, HEADROOM * reference)
    shapes = [_vline(your_k, GREY, "dot")]
    annotations = [{"x": math.log10(your_k), "y": 1, "yref": "paper", "xanchor": "left",
                    "yanchor": "top", "showarrow": False, "text": f" your k = {your_k:,}",
                    "bgcolor": "rgba(255,255,255,0.8)"}]
    if crossover is not None and 1 < crossover < k_max:
        shapes += [{"type": "rect", "xref": "x", "yref": "paper", "x0": 1, "x1": crossover,
                    "y0": 0, "y1": 1, "fillcolor": PALETTE["orange"], "opacity": 0.12,
                    "line": {"width": 0}, "layer": "below"},
                   _vline(crossover, PALETTE["orange"], "dash", 2)]

    fig.update_layout(
        height=520, shapes=shapes, annotations=annotations,
        xaxis={"type": "log", "exponentformat": "power",
               "range": [-0.05, math.log10(k_max) + 0.05]},
        yaxis={"type": "log", "exponentformat": "power",
               "range": [math.log10(floor) - 0.2, math.log10(top) + 0.3]},
        legend={"orientation": "h", "yanchor": "top", "y": -0.16, "x": 0, "xanchor": "left"},
        margin={"b": 40, "r": 40})
    return fig


def group_chart(group_sizes: np.ndarray, lower: np.ndarray, upper: np.ndarray, your_g: int,
                epsilon: float, prior: float) -> go.Figure:
    """How far an attacker's belief that a whole group is in the data can move, against
    the group size g: the band between the lowest and highest posterior allowed by gε."""
    fig = figure(f"Group exposure, ε = {epsilon:g} per person",
                 "g (people in the group)", "attacker's belief the group is in (%)")
    style = series_style(BASIC)
    lower, upper = 100 * np.asarray(lower), 100 * np.asarray(upper)
    i = int(np.nonzero(np.asarray(group_sizes) == your_g)[0][0])
    fig.add_traces([
        dict(type="scatter", x=group_sizes, y=lower, mode="lines", line={**style["line"], "width": 1},
                   showlegend=False, hoverinfo="skip"),
        dict(type="scatter", x=group_sizes, y=upper, mode="lines+markers", fill="tonexty",
                   fillcolor="rgba(0,114,178,0.15)", line=style["line"], marker=style["marker"],
                   name="possible beliefs after seeing the output (gε)", customdata=lower,
                   hovertemplate="g = %{x}: belief between %{customdata:.1f}% and %{y:.1f}%"
                                 "<extra></extra>"),
        dict(type="scatter", x=[your_g, your_g], y=[lower[i], upper[i]], mode="markers", showlegend=False,
                   hoverinfo="skip", marker={**series_style(ADVANCED)["marker"], "size": 13}),
    ])
    fig.update_layout(
        shapes=[{"type": "line", "xref": "paper", "yref": "y", "x0": 0, "x1": 1,
                 "y0": 100 * prior, "y1": 100 * prior, "line": {"color": GREY, "dash": "dot"}}],
        annotations=[
            {"x": 1, "xref": "paper", "y": 100 * prior, "xanchor": "right", "yanchor": "bottom",
             "showarrow": False, "text": f"belief before: {100 * prior:g}%"},
            {"x": your_g, "y": upper[i], "text": f"g = {your_g}: up to {upper[i]:.1f}%",
             "showarrow": True, "arrowhead": 2, "ax": 40, "ay": 30, "xanchor": "left",
             "bgcolor": "rgba(255,255,255,0.8)"}],
        yaxis={"range": [-2, 102]},
        xaxis={"range": [0.5, group_sizes[-1] + 0.5], "dtick": 1 if len(group_sizes) <= 12 else 2},
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0, "xanchor": "left"},
        margin={"b": 40})
    return fig


def ledger_chart(actions: list[str], spent: list[float], touches_data: list[bool]) -> go.Figure:
    """One bar per action: the ε it spends. Post-processing steps spend nothing."""
    colours = [PALETTE["vermillion"] if data else PALETTE["green"] for data in touches_data]
    total = sum(spent)
    fig = figure(f"Budget spent: total ε = {total:.3g}", "ε spent", "step of the analysis")
    fig.add_trace(dict(type="bar",
        y=actions, x=spent, orientation="h", showlegend=False, cliponaxis=False,
        marker={"color": colours, "pattern": {"shape": ["/" if d else "" for d in touches_data]}},
        text=[f"ε = {s:.3g}" if d else "free (post-processing)"
              for s, d in zip(spent, touches_data, strict=True)],
        textposition="outside",
        hovertemplate="%{y}: ε = %{x:.3g}<extra></extra>"))
    fig.update_layout(yaxis={"autorange": "reversed"},
                      xaxis={"range": [0, 1.8 * max(spent)], "nticks": 4},  # what fits a phone
                      height=max(240, 70 + 40 * len(actions)), bargap=0.35)
    return fig
