"""Charts for "Averaging attacks and the budget": the averaging attack (the blog's Fig. 5) and
what splitting a privacy budget does to the accuracy of each answer.

Numbers in, plotly Figure out; the numbers come from dp.budget.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.numbers import number
from ui.theme import GREY, INK, PALETTE, figure, series_style

MAX_POINTS = 1000  # a long attack is thinned to this many points before it is sent


# Legend under the plot: never on the title, and it wraps on a phone.
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.25, "x": 0, "xanchor": "left"}


def thin(size: int, keep: tuple[int, ...] = (), max_points: int = MAX_POINTS) -> np.ndarray:
    """At most ~max_points indices spread evenly over range(size), always with those in `keep`."""
    if size <= max_points:
        return np.arange(size)
    picked = np.linspace(0, size - 1, max_points).round().astype(int)
    extra = [i for i in keep if 0 <= i < size]
    return np.unique(np.concatenate([picked, np.asarray(extra, dtype=int)]))


def attack_figure(means, half_widths, truth: float, epsilon: float, m_star: int,
                  disclosed_at: int, corridor: float = 0.5, y_span: float | None = None
                  ) -> go.Figure:
    """The running mean of m noisy answers with its 95% band, the truth ± corridor, and markers.

    `m_star` is the formula's first query with a band narrower than the corridor
    (dp.averaging_attack_queries); `disclosed_at` is this run's first query with the whole band
    inside it (0 if never in the window).
    """
    means, half_widths = np.asarray(means, float), np.asarray(half_widths, float)
    size = means.size
    idx = thin(size, keep=(m_star - 1, disclosed_at - 1))
    m = idx + 1
    fig = figure(f"Averaging attack at ε = {epsilon:g}",
                 "m (number of noisy answers averaged)", "running mean (patients)")
    upper, lower = means[idx] + half_widths[idx], means[idx] - half_widths[idx]
    low, high = truth - corridor, truth + corridor
    traces = [
        dict(type="scatter", x=np.concatenate([m, m[::-1]]), y=np.concatenate([upper, lower[::-1]]),
                   mode="lines", line={"width": 0, "color": PALETTE["sky"]}, fill="toself",
                   fillcolor="rgba(86, 180, 233, 0.3)", name="95% band of the mean",
                   hoverinfo="skip"),
        dict(type="scatter", x=m, y=means[idx], mode="lines", name="running mean",
                   line=series_style(0)["line"],
                   hovertemplate="m = %{x}<br>mean = %{y:.2f}<extra></extra>"),
        dict(type="scatter", x=[1, size, None, 1, size], y=[low, low, None, high, high], mode="lines",
                   line={"color": INK, "dash": "dash", "width": 1.5},
                   name=f"true count {truth:g} ± {corridor:g}", hoverinfo="skip"),
        dict(type="scatter", x=[m_star], y=[low], mode="markers",
                   marker={"symbol": "triangle-up", "size": 12, "color": PALETTE["vermillion"]},
                   name=f"formula: band narrower than corridor at m = {m_star:,}",
                   hovertemplate="m* = %{x}<extra></extra>"),
    ]
    if disclosed_at:
        traces.append(dict(type="scatter", x=[disclosed_at], y=[means[disclosed_at - 1]], mode="markers",
                                 marker={"symbol": "star", "size": 16, "color": PALETTE["orange"],
                                         "line": {"color": INK, "width": 1}},
                                 name=f"this run: band inside corridor at m = {disclosed_at:,}",
                                 hovertemplate="disclosed at m = %{x}<extra></extra>"))
    fig.add_traces(traces)
    span = y_span if y_span is not None else 3 * corridor
    fig.update_layout(  # one update: each plotly update call validates the layout again
        shapes=[{"type": "line", "x0": m_star, "x1": m_star, "y0": 0, "y1": 1, "yref": "paper",
                 "line": {"color": PALETTE["vermillion"], "dash": "dot", "width": 2}}],
        yaxis={"range": [truth - span, truth + span]}, xaxis={"range": [0, size + 1]},
        legend=LEGEND_BELOW)
    return fig


def split_figure(ks, each_basic, each_advanced, average_basic, total: float,
                 delta_prime: float, corridor: float = 0.5, asked: int = 0) -> go.Figure:
    """95% error of one count when a budget ε_T is split over k queries, against k (log–log).

    each_basic / each_advanced: the half-width of one answer at the per-query ε allowed by
    basic / advanced composition; average_basic: the half-width of the mean of k answers to
    the same count (the averaging attack under the budget).
    """
    ks = np.asarray(ks, float)
    fig = figure(f"Splitting ε_T = {total:g} over k queries", "k (queries sharing the budget)",
                 "95% error of a count (± patients)")
    series = [
        (each_basic, "each answer, basic composition (ε = ε_T/k)"),
        (each_advanced, f"each answer, advanced composition (δ′ = {number(delta_prime, 'g')})"),
        (average_basic, "average of k repeats of one count (basic)"),
    ]
    fig.add_traces([dict(type="scatter", x=ks, y=np.asarray(y, float), mode="lines", name=name,
                               line=series_style(i)["line"],
                               hovertemplate="k = %{x:,.0f}<br>± %{y:.3g}<extra></extra>")
                    for i, (y, name) in enumerate(series)])
    shapes = [{"type": "line", "x0": 0, "x1": 1, "xref": "paper", "y0": corridor, "y1": corridor,
               "line": {"color": INK, "dash": "dash", "width": 1.5}}]
    notes = [{"x": 0.02, "xref": "paper", "y": np.log10(corridor), "yref": "y",
              "yanchor": "bottom", "xanchor": "left", "showarrow": False, "font": {"color": INK},
              "text": f"± {corridor:g}: rounding would reveal the count"}]
    if asked:
        shapes.append({"type": "line", "x0": asked, "x1": asked, "y0": 0, "y1": 1, "yref": "paper",
                       "line": {"color": GREY, "dash": "dot", "width": 1.5}})
        notes.append({"x": np.log10(asked), "y": 1, "yref": "paper", "yanchor": "bottom",
                      "showarrow": False, "text": f"you: {asked}", "font": {"color": GREY}})
    # One layout update (each plotly update call validates the layout again): log axes with
    # one tick per decade, readable on a phone, and the legend under the plot.
    fig.update_layout(shapes=shapes, annotations=notes,
                      xaxis={"type": "log", "dtick": 1}, yaxis={"type": "log", "dtick": 1},
                      legend=LEGEND_BELOW)
    return fig
