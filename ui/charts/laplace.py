"""Charts for "The Laplace mechanism": neighbouring densities, noisy histograms, tail and union
bounds, the census example, post-processing, clipping, accuracy and the blue-eyes example.

Numbers in, plotly Figure out; the curves come from dp.laplace_accuracy.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dp.laplace_accuracy import laplace_density, max_error_probability
from ui.theme import GREY, PALETTE, figure, series_style

GRID = 401


def _fmt(value: float) -> str:
    return f"{value:,.3g}" if abs(value) < 1e4 else f"{value:,.0f}"


def _line(x, y, name: str, style: int, **kwargs) -> go.Scatter:
    s = series_style(style)
    return go.Scatter(x=x, y=y, name=name, line=s["line"], **{"mode": "lines", **kwargs})


def _legend_below(fig: go.Figure, y: float = -0.22) -> go.Figure:
    """Legend under the plot: never on the title, and it wraps on a phone."""
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": y, "x": 0,
                              "xanchor": "left"})
    return fig


def neighbours_figure(f_d: float, f_d_prime: float, scale: float, x_title: str) -> go.Figure:
    """The output densities of M(D) and M(D′) for one coordinate: Lap(f(D), b) and Lap(f(D′), b)."""
    lo, hi = min(f_d, f_d_prime) - 6 * scale, max(f_d, f_d_prime) + 6 * scale
    x = np.linspace(lo, hi, GRID)
    fig = figure(f"Output densities, b = {_fmt(scale)}", x_title, "density")
    fig.add_trace(_line(x, laplace_density(x, f_d, scale), f"M(D), centred at f(D) = {_fmt(f_d)}", 0))
    fig.add_trace(_line(x, laplace_density(x, f_d_prime, scale),
                        f"M(D′), centred at f(D′) = {_fmt(f_d_prime)}", 1))
    peak = 1 / (2 * scale)
    for i, centre in enumerate((f_d, f_d_prime)):
        fig.add_trace(go.Scatter(x=[centre, centre], y=[0, peak], mode="lines", showlegend=False,
                                 hoverinfo="skip",
                                 line={"color": series_style(i)["line"]["color"], "width": 1,
                                       "dash": "dot"}))
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(fig)


def histogram_figure(labels: list[str], true_counts, noisy_counts, half_width: float,
                     bar_label: str) -> go.Figure:
    """True counts against noisy counts, each noisy bar with ± half_width error bars."""
    fig = figure("True and noisy counts per age bucket", "age bucket (years)", "people")
    true_style, noisy_style = series_style(0), series_style(1)
    fig.add_trace(go.Bar(x=labels, y=np.asarray(true_counts), name="true count",
                         marker={"color": true_style["line"]["color"]}))
    fig.add_trace(go.Bar(x=labels, y=np.asarray(noisy_counts), name=f"noisy count ± {bar_label}",
                         marker={"color": noisy_style["line"]["color"],
                                 "line": {"color": "#444444", "width": 1}},
                         error_y={"type": "constant", "value": half_width, "color": "#444444",
                                  "thickness": 1.5, "width": 3}))
    fig.update_layout(barmode="group", bargap=0.15)
    fig.add_hline(y=0, line={"color": GREY, "width": 1})
    return _legend_below(fig, y=-0.3)


def tail_figure(k: int, observed_t: float | None = None, t_union: float = 10.0) -> go.Figure:
    """Pr[some bucket is off by more than t·b] for k buckets: one bucket, union bound, exact."""
    t_star = t_union + math.log(k)
    t = np.linspace(0, t_star + 4, GRID)
    fig = figure(f"How far can {k:,} noisy buckets stray?", "t (error in units of b)",
                 "probability (log scale)")
    fig.add_trace(_line(t, max_error_probability(k, t, "single"), "one bucket: e^(−t)", 0))
    fig.add_trace(_line(t, max_error_probability(k, t, "union"),
                        f"union bound, any of {k:,}: min(1, k·e^(−t))", 1))
    fig.add_trace(_line(t, max_error_probability(k, t, "exact"),
                        "exact, any of k: 1 − (1 − e^(−t))^k", 2))
    fig.add_vline(x=t_star, line={"color": GREY, "dash": "dot"})
    fig.add_annotation(x=t_star, y=0.97, yref="paper", xanchor="right", yanchor="top",
                       text=f"t = 10 + ln k = {t_star:.1f}: every bucket<br>"
                            f"is within t·b except with chance ≤ e^(−10) ",
                       showarrow=False, bgcolor="rgba(255,255,255,0.8)", font={"size": 13})
    if observed_t is not None:
        fig.add_vline(x=observed_t, line={"color": PALETTE["vermillion"], "dash": "dash"})
        fig.add_annotation(x=observed_t, y=0.02, yref="paper", yanchor="bottom", xanchor="left",
                           text=f" this draw: worst bucket<br> off by {observed_t:.2f}·b",
                           showarrow=False, bgcolor="rgba(255,255,255,0.8)", font={"size": 13})
    fig.update_yaxes(type="log", range=[-6, 0.1], exponentformat="power")
    return _legend_below(fig, y=-0.25)


def census_figure(populations, bound: float, max_errors, top_counts) -> go.Figure:
    """Error of a noisy 10,000-name histogram against the population size, log–log."""
    populations = np.asarray(populations, dtype=float)
    fig = figure("Error stays put while the counts grow", "n (people, log scale)",
                 "people (log scale)")
    fig.add_trace(_line(populations, np.full(populations.shape, bound),
                        f"bound on the worst bucket: {_fmt(bound)}", 0))
    s = series_style(1)
    fig.add_trace(go.Scatter(x=populations, y=np.asarray(max_errors), mode="markers",
                             name="worst bucket error, one seeded run", marker={**s["marker"], "size": 11}))
    fig.add_trace(_line(populations, np.asarray(top_counts), "count of the most common name", 2,
                        marker=series_style(2)["marker"], mode="lines+markers"))
    fig.update_xaxes(type="log", exponentformat="power")
    fig.update_yaxes(type="log", exponentformat="power")
    return _legend_below(fig, y=-0.3)


def _wrap(label: str) -> str:
    return label.replace(", ", ",<br>").replace(" (", "<br>(").replace("negatives", "negatives<br>")


def postprocessing_figure(errors: dict, epsilon: float) -> go.Figure:
    """Per recipe: mean |error| per bucket and mean |error| of the total, at one fixed ε."""
    names = list(errors)
    labels = [_wrap(name) for name in names]
    fig = figure(f"Same ε = {epsilon:g} for every recipe; only the error moves",
                 "", "mean |error| (people)")
    for i, (label, index) in enumerate((("per bucket", 0), ("of the total count", 1))):
        colour = series_style(i)["line"]["color"]
        values = [errors[name][index] for name in names]
        fig.add_trace(go.Bar(x=labels, y=values, name=f"mean |error| {label}",
                             marker={"color": colour,
                                     "line": {"color": "#444444", "width": 0 if i == 0 else 1}},
                             text=[f"{v:.1f}" for v in values], textposition="outside"))
    fig.update_layout(barmode="group", bargap=0.25)
    fig.update_xaxes(tickangle=0)
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(fig, y=-0.3)


def clipping_figure(uppers, bias, noise_sd, rmse, chosen_upper: float, chosen_rmse: float,
                    x_title: str) -> go.Figure:
    """Error decomposition of the clipped mean against the upper clipping bound U."""
    uppers = np.asarray(uppers)
    fig = figure("Clipping bias against noise", x_title, "error of the mean (thousands, log)")
    fig.add_trace(_line(uppers, np.abs(bias), "|bias| from clipping", 0))
    fig.add_trace(_line(uppers, np.broadcast_to(noise_sd, uppers.shape), "noise: sd = √2·b", 1))
    fig.add_trace(_line(uppers, rmse, "total: √(bias² + 2b²)", 2))
    best = int(np.argmin(rmse))
    fig.add_trace(go.Scatter(x=[uppers[best]], y=[rmse[best]], mode="markers", name="best U",
                             marker={**series_style(3)["marker"], "size": 13}))
    fig.add_trace(go.Scatter(x=[chosen_upper], y=[chosen_rmse], mode="markers", name="your U",
                             marker={**series_style(4)["marker"], "size": 14,
                                     "line": {"width": 2}}))
    fig.update_xaxes(type="log", tickvals=[20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000],
                     tickformat=",")
    positive = np.concatenate([np.abs(bias)[np.abs(bias) > 0], np.atleast_1d(noise_sd)])
    floor = max(float(positive.min()) / 2, float(rmse.min()) / 100)
    fig.update_yaxes(type="log", range=[math.log10(floor), math.log10(float(rmse.max()) * 2)],
                     dtick=1, tickformat="~g")
    return _legend_below(fig, y=-0.3)


def accuracy_figure(errors, sensitivity: float, curves: dict, chosen_error: float,
                    chosen_epsilon: float, confidence: float) -> go.Figure:
    """ε needed against the error you can tolerate, one line per confidence level, log–log."""
    fig = figure(f"The ε you need for a given accuracy (Δ = {sensitivity:g})",
                 "error you can tolerate (log scale)", "ε needed (log scale)")
    for i, (level, eps) in enumerate(curves.items()):
        fig.add_trace(_line(errors, eps, f"{level:.1%} of the time".replace(".0%", "%"), i))
    fig.add_trace(go.Scatter(x=[chosen_error], y=[chosen_epsilon], mode="markers",
                             name=f"your choice: ε = {chosen_epsilon:.3g} at {confidence:.1%}".replace(".0%", "%"),
                             marker={**series_style(3)["marker"], "size": 14}))
    fig.update_xaxes(type="log", dtick=1, tickformat="~g")
    fig.update_yaxes(type="log", dtick=1, tickformat="~g")
    return _legend_below(fig, y=-0.3)


def interval_figure(scale: float, half_width: float, confidence: float,
                    draws: dict[str, np.ndarray]) -> go.Figure:
    """The Lap(b) error density with its central interval shaded and drawn errors marked."""
    x = np.linspace(-6 * scale, 6 * scale, GRID)
    y = laplace_density(x, 0.0, scale)
    fig = figure(f"Error of each count: Lap(b = {_fmt(scale)})", "error (people)", "density")
    inside = np.abs(x) <= half_width
    fig.add_trace(go.Scatter(x=x[inside], y=y[inside], fill="tozeroy", mode="none",
                             fillcolor="rgba(86,180,233,0.35)",
                             name=f"{confidence:.0%} of errors: within ±{_fmt(half_width)}"))
    fig.add_trace(_line(x, y, "density of the error", 0))
    for i, (name, values) in enumerate(draws.items()):
        values = np.asarray(values)
        s = series_style(3 + i)
        fig.add_trace(go.Scatter(x=values, y=laplace_density(values, 0.0, scale), mode="markers",
                                 name=name, marker={**s["marker"], "size": 13,
                                                    "line": {"color": "white", "width": 1}}))
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(fig)
