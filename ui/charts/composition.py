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


def _fmt(value: float) -> str:
    return f"{value:,.3g}" if value < 1e4 else f"{value:,.0f}"


def _legend_below(fig: go.Figure, y: float = -0.2) -> go.Figure:
    """Legend under the plot, so that it never sits on the title (and reads on a phone)."""
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": y, "x": 0,
                              "xanchor": "left"}, margin={"b": 40})
    return fig


def _positive(values: np.ndarray) -> np.ndarray:
    """Zeros (a δ that covers everything) cannot sit on a log axis: leave a gap."""
    values = np.asarray(values, dtype=float)
    return np.where(values > 0, values, np.nan)


def composition_chart(curves: list[Curve], your_k: int, title: str,
                      crossover: float | None = None, k_max: int = 10_000) -> go.Figure:
    """Total ε against the number of queries k, log–log, one line per bound.

    Marks your k (dotted line, a marker on each curve) and, when given, the crossover k*
    below which advanced composition is worse than basic (shaded).
    """
    fig = figure(title, "k (number of queries, log scale)", "total ε (log scale)")
    floor, top = math.inf, 0.0
    for curve in curves:
        ys = _positive(curve.values)
        style = series_style(curve.style)
        fig.add_trace(go.Scatter(
            x=curve.ks, y=ys, name=curve.label, mode="lines+markers" if curve.markers else "lines",
            line=style["line"], marker={**style["marker"], "size": 7},
            hovertemplate=f"{curve.label}<br>k = %{{x:,}}<br>total ε = %{{y:.3g}}<extra></extra>"))
        at_k = ys[np.asarray(curve.ks) == your_k]
        if at_k.size and np.isfinite(at_k[0]):
            fig.add_trace(go.Scatter(
                x=[your_k], y=[at_k[0]], mode="markers", showlegend=False,
                marker={**style["marker"], "size": 13, "line": {"color": "white", "width": 1.5}},
                hovertemplate=f"{curve.label} at your k = {your_k:,}: %{{y:.3g}}<extra></extra>"))
        if np.any(np.isfinite(ys)):
            floor = min(floor, float(np.nanmin(ys)))
        if curve.style in (BASIC, EXACT, OPTIMAL, ZCDP) and np.any(np.isfinite(ys)):
            top = max(top, float(np.nanmax(ys)))
    if not math.isfinite(floor):
        floor, top = 1e-2, 1.0
    top = max(top, floor) * HEADROOM
    fig.update_yaxes(type="log", exponentformat="power",
                     range=[math.log10(floor) - 0.15, math.log10(top)])
    fig.update_xaxes(type="log", exponentformat="power", range=[-0.05, math.log10(k_max) + 0.05])
    fig.add_vline(x=your_k, line={"color": GREY, "dash": "dot"})
    fig.add_annotation(x=math.log10(your_k), y=1, yref="paper", xanchor="left", yanchor="top",
                       showarrow=False, text=f" your k = {your_k:,}",
                       bgcolor="rgba(255,255,255,0.8)")
    if crossover is not None and 1 < crossover < k_max:
        fig.add_vrect(x0=1, x1=crossover, fillcolor=PALETTE["orange"], opacity=0.12, line_width=0)
        fig.add_vline(x=crossover, line={"color": PALETTE["orange"], "dash": "dash", "width": 2})
        fig.add_annotation(x=math.log10(crossover), y=0, yref="paper", xanchor="right",
                           yanchor="bottom", showarrow=False,
                           text=f"advanced worse than basic<br>for k < k* ≈ {crossover:,.1f} ",
                           align="right", bgcolor="rgba(255,255,255,0.8)")
    fig.update_layout(height=520)
    return _legend_below(fig, y=-0.16)


def group_chart(group_sizes: np.ndarray, lower: np.ndarray, upper: np.ndarray, your_g: int,
                epsilon: float, prior: float) -> go.Figure:
    """How far an attacker's belief that a whole group is in the data can move, against
    the group size g: the band between the lowest and highest posterior allowed by gε."""
    fig = figure(f"What one release can reveal about a group (each person ε = {epsilon:g})",
                 "g (people in the group)", "attacker's belief the group is in (%)")
    style = series_style(BASIC)
    fig.add_trace(go.Scatter(x=group_sizes, y=100 * np.asarray(lower), mode="lines",
                             line={**style["line"], "width": 1}, showlegend=False,
                             hoverinfo="skip"))
    fig.add_trace(go.Scatter(
        x=group_sizes, y=100 * np.asarray(upper), mode="lines+markers", fill="tonexty",
        fillcolor="rgba(0,114,178,0.15)", line=style["line"], marker=style["marker"],
        name="possible beliefs after seeing the output (gε)",
        hovertemplate="g = %{x}: belief between %{customdata:.1f}% and %{y:.1f}%<extra></extra>",
        customdata=100 * np.asarray(lower)))
    fig.add_hline(y=100 * prior, line={"color": GREY, "dash": "dot"})
    fig.add_annotation(x=group_sizes[-1], y=100 * prior, xanchor="right", yanchor="bottom",
                       showarrow=False, text=f"belief before: {100 * prior:g}%")
    i = int(np.nonzero(np.asarray(group_sizes) == your_g)[0][0])
    for value in (lower[i], upper[i]):
        fig.add_trace(go.Scatter(
            x=[your_g], y=[100 * value], mode="markers", showlegend=False, hoverinfo="skip",
            marker={**series_style(ADVANCED)["marker"], "size": 13}))
    fig.add_annotation(x=your_g, y=100 * upper[i], text=f"g = {your_g}: up to {100 * upper[i]:.1f}%",
                       showarrow=True, arrowhead=2, ax=40, ay=30, xanchor="left",
                       bgcolor="rgba(255,255,255,0.8)")
    fig.update_yaxes(range=[-2, 102])
    fig.update_xaxes(range=[0.5, group_sizes[-1] + 0.5], dtick=1 if len(group_sizes) <= 12 else 2)
    return _legend_below(fig)


def ledger_chart(actions: list[str], spent: list[float], touches_data: list[bool]) -> go.Figure:
    """One bar per action: the ε it spends. Post-processing steps spend nothing."""
    colours = [PALETTE["vermillion"] if data else PALETTE["green"] for data in touches_data]
    total = sum(spent)
    fig = figure(f"Budget spent, action by action (total ε = {total:.3g})", "ε spent", "")
    fig.add_trace(go.Bar(
        y=actions, x=spent, orientation="h", showlegend=False, cliponaxis=False,
        marker={"color": colours, "pattern": {"shape": ["/" if d else "" for d in touches_data]}},
        text=[f"ε = {s:.3g}" if d else "free (post-processing)"
              for s, d in zip(spent, touches_data, strict=True)],
        textposition="outside",
        hovertemplate="%{y}: ε = %{x:.3g}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(range=[0, 1.8 * max(spent)])
    fig.update_layout(height=max(240, 70 + 40 * len(actions)), margin={"l": 20})
    return fig
