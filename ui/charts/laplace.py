"""Charts for "The Laplace mechanism": neighbouring densities, noisy histograms, tail and union
bounds, the census example, post-processing, clipping, accuracy and the blue-eyes example.

Numbers in, plotly Figure out; the curves come from dp.laplace_accuracy.

Speed: each figure is built in one go.Figure(data=..., layout=...) call from plain dicts, in
the shared "dplab" template (the same look as ui.theme.figure), with plotly's property
validation switched off (`_validate=False`, the switch plotly's own figure factories use).
Validation costs ~5 ms a figure, add_vline ~20 ms; this page draws nine figures per full rerun.
tests/test_page_laplace.py re-validates every figure, so a misspelt property still fails a test.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from dp.laplace_accuracy import max_error_probability
from dp.privacy_loss import laplace_density
from ui.plain_figure import PlainFigure
from ui.theme import FONT_SIZE, GREY, PALETTE, series_style

GRID = 401
OUTLINE = "#444444"
TEMPLATE = pio.templates["dplab"].to_plotly_json()  # registered by ui.theme


def _fmt(value: float) -> str:
    return f"{value:,.3g}" if abs(value) < 1e4 else f"{value:,.0f}"


def _colour(i: int) -> str:
    return series_style(i)["line"]["color"]


def _line(x, y, name: str, style: int, **extra) -> dict:
    return {"type": "scatter", "x": x, "y": y, "name": name, "mode": "lines",
            "line": series_style(style)["line"], **extra}


def _markers(x, y, name: str, style: int, size: int = 12, **extra) -> dict:
    return {"type": "scatter", "x": x, "y": y, "name": name, "mode": "markers",
            "marker": {**series_style(style)["marker"], "size": size,
                       "line": {"color": "white", "width": 1}}, **extra}


def _vline(x: float, colour: str = GREY, dash: str = "dot") -> dict:
    """A vertical line across the plot (a layout shape: much cheaper than fig.add_vline)."""
    return {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "xref": "x", "yref": "paper",
            "line": {"color": colour, "dash": dash, "width": 1.5}}


def _figure(title: str, x_title: str, y_title: str, traces: list[dict], *,
            legend_y: float = -0.22, xaxis: dict | None = None, yaxis: dict | None = None,
            **layout) -> go.Figure:
    """One figure in the shared template, legend under the plot (never on the title)."""
    return PlainFigure(traces, {
        "template": TEMPLATE,
        "title": {"text": title},
        "xaxis": {"title": {"text": x_title}, **(xaxis or {})},
        "yaxis": {"title": {"text": y_title}, **(yaxis or {})},
        "legend": {"orientation": "h", "yanchor": "top", "y": legend_y, "x": 0, "xanchor": "left"},
        **layout,
    })


def neighbours_figure(f_d: float, f_d_prime: float, scale: float, x_title: str) -> go.Figure:
    """The output densities of M(D) and M(D′) for one coordinate: Lap(f(D), b) and Lap(f(D′), b)."""
    lo, hi = min(f_d, f_d_prime) - 6 * scale, max(f_d, f_d_prime) + 6 * scale
    x = np.linspace(lo, hi, GRID)
    traces = [
        _line(x, laplace_density(x, f_d, scale), f"M(D), centred at f(D) = {_fmt(f_d)}", 0),
        _line(x, laplace_density(x, f_d_prime, scale), f"M(D′), centred at f(D′) = {_fmt(f_d_prime)}", 1),
    ]
    shapes = [_vline(centre, _colour(i)) for i, centre in enumerate((f_d, f_d_prime))]
    return _figure(f"Output densities, b = {_fmt(scale)}", x_title, "density", traces,
                   yaxis={"rangemode": "tozero"}, shapes=shapes)


def histogram_figure(labels: list[str], true_counts, noisy_counts, half_width: float,
                     bar_label: str) -> go.Figure:
    """True counts against noisy counts, each noisy bar with ± half_width error bars."""
    traces = [
        {"type": "bar", "x": labels, "y": np.asarray(true_counts), "name": "true count",
         "marker": {"color": _colour(0)}},
        {"type": "bar", "x": labels, "y": np.asarray(noisy_counts),
         "name": f"noisy count ± {bar_label}",
         "marker": {"color": _colour(1), "line": {"color": OUTLINE, "width": 1}},
         "error_y": {"type": "constant", "value": half_width, "color": OUTLINE, "thickness": 1.5,
                     "width": 3}},
    ]
    zero = {"type": "line", "x0": 0, "x1": 1, "xref": "paper", "y0": 0, "y1": 0, "yref": "y",
            "line": {"color": GREY, "width": 1}}
    return _figure("True and noisy counts per age bucket", "age bucket (years)", "people", traces,
                   legend_y=-0.3, barmode="group", bargap=0.15, shapes=[zero])


def tail_figure(k: int, observed_t: float | None = None, t_union: float = 10.0) -> go.Figure:
    """Pr[some bucket is off by more than t·b] for k buckets: one bucket, union bound, exact."""
    t_star = t_union + math.log(k)
    t = np.linspace(0, t_star + 4, GRID)
    traces = [
        _line(t, max_error_probability(k, t, "single"), "one bucket: e^(−t)", 0),
        _line(t, max_error_probability(k, t, "union"), f"union bound, any of {k:,}: min(1, k·e^(−t))", 1),
        _line(t, max_error_probability(k, t, "exact"), "exact, any of k: 1 − (1 − e^(−t))^k", 2),
    ]
    small = {"size": FONT_SIZE - 3}
    shapes = [_vline(t_star)]
    annotations = [{"x": t_star, "y": 0.97, "yref": "paper", "xanchor": "right", "yanchor": "top",
                    "text": f"t = 10 + ln k = {t_star:.1f}: every bucket<br>"
                            "is within t·b except with chance ≤ e^(−10) ",
                    "showarrow": False, "bgcolor": "rgba(255,255,255,0.8)", "font": small}]
    if observed_t is not None:
        shapes.append(_vline(observed_t, PALETTE["vermillion"], "dash"))
        annotations.append({"x": observed_t, "y": 0.02, "yref": "paper", "yanchor": "bottom",
                            "xanchor": "left", "showarrow": False, "font": small,
                            "bgcolor": "rgba(255,255,255,0.8)",
                            "text": f" this draw: worst bucket<br> off by {observed_t:.2f}·b"})
    return _figure(f"How far can {k:,} noisy buckets stray?", "t (error in units of b)",
                   "probability (log scale)", traces, legend_y=-0.25,
                   yaxis={"type": "log", "range": [-6, 0.1], "exponentformat": "power"},
                   shapes=shapes, annotations=annotations)


def census_figure(populations, bound: float, max_errors, top_counts) -> go.Figure:
    """Error of a noisy 10,000-name histogram against the population size, log–log."""
    populations = np.asarray(populations, dtype=float)
    traces = [
        _line(populations, np.full(populations.shape, bound),
              f"bound on the worst bucket: {_fmt(bound)}", 0),
        _markers(populations, np.asarray(max_errors), "worst bucket error, one seeded run", 1),
        _line(populations, np.asarray(top_counts), "count of the most common name", 2,
              mode="lines+markers", marker=series_style(2)["marker"]),
    ]
    log = {"type": "log", "exponentformat": "power"}
    return _figure("Error stays put while the counts grow", "n (people, log scale)",
                   "people (log scale)", traces, legend_y=-0.3, xaxis=log, yaxis=log)


def postprocessing_figure(errors: dict, epsilon: float) -> go.Figure:
    """Per recipe: mean |error| per bucket and mean |error| of the total, at one fixed ε.

    Bars lie horizontally: five recipe names side by side do not fit under a phone's plot.
    """
    labels = [name.replace(", ", ",<br>") for name in errors]
    traces = []
    for i, (label, index) in enumerate((("per bucket", 0), ("of the total count", 1))):
        values = [pair[index] for pair in errors.values()]
        traces.append({"type": "bar", "y": labels, "x": values, "orientation": "h",
                       "name": f"mean |error| {label}",
                       "marker": {"color": _colour(i),
                                  "line": {"color": OUTLINE, "width": 0 if i == 0 else 1}},
                       "text": [f"{v:.1f}" for v in values], "textposition": "outside",
                       "cliponaxis": False})
    top = max(max(pair) for pair in errors.values()) if errors else 1.0
    return _figure(f"Same ε = {epsilon:g} for every recipe; only the error moves",
                   "mean |error| (people)", "release recipe", traces, barmode="group", bargap=0.25,
                   height=460, xaxis={"range": [0, 1.25 * top]},
                   yaxis={"autorange": "reversed"})


def clipping_figure(uppers, bias, noise_sd, rmse, chosen_upper: float, chosen_rmse: float,
                    x_title: str) -> go.Figure:
    """Error decomposition of the clipped mean against the upper clipping bound U."""
    uppers, rmse = np.asarray(uppers), np.asarray(rmse)
    abs_bias = np.abs(np.asarray(bias))
    best = int(np.argmin(rmse))
    traces = [
        _line(uppers, np.where(abs_bias > 0, abs_bias, np.nan), "|bias| from clipping", 0),
        _line(uppers, np.broadcast_to(noise_sd, uppers.shape), "noise: sd = √2·b", 1),
        _line(uppers, rmse, "total: √(bias² + 2b²)", 2),
        _markers([uppers[best]], [rmse[best]], "best U", 3, size=13),
        _markers([chosen_upper], [chosen_rmse], "your U", 4, size=15),
    ]
    positive = np.concatenate([abs_bias[abs_bias > 0], np.atleast_1d(noise_sd)])
    floor = max(float(positive.min()) / 2, float(rmse.min()) / 100)
    return _figure("Clipping bias against noise", x_title, "error of the mean (thousands, log)",
                   traces, legend_y=-0.3,
                   xaxis={"type": "log", "tickformat": ",",
                          "tickvals": [20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000]},
                   yaxis={"type": "log", "dtick": 1, "tickformat": "~g",
                          "range": [math.log10(floor), math.log10(float(rmse.max()) * 2)]})


def accuracy_figure(errors, sensitivity: float, curves: dict, chosen_error: float,
                    chosen_epsilon: float, confidence: float) -> go.Figure:
    """ε needed against the error you can tolerate, one line per confidence level, log–log."""
    def pct(c: float) -> str:
        return f"{c:.1%}".replace(".0%", "%")

    traces = [_line(errors, eps, f"{pct(level)} of the time", i)
              for i, (level, eps) in enumerate(curves.items())]
    traces.append(_markers([chosen_error], [chosen_epsilon],
                           f"your choice: ε = {chosen_epsilon:.3g} at {pct(confidence)}", 3, size=14))
    log = {"type": "log", "dtick": 1, "tickformat": "~g"}
    return _figure(f"The ε you need for a given accuracy (Δ = {sensitivity:g})",
                   "error you can tolerate (log scale)", "ε needed (log scale)", traces,
                   legend_y=-0.3, xaxis=log, yaxis=log)


def interval_figure(scale: float, half_width: float, confidence: float,
                    draws: dict[str, np.ndarray]) -> go.Figure:
    """The Lap(b) error density with its central interval shaded and drawn errors marked."""
    x = np.linspace(-6 * scale, 6 * scale, GRID)
    y = laplace_density(x, 0.0, scale)
    inside = np.abs(x) <= half_width
    traces = [
        {"type": "scatter", "x": x[inside], "y": y[inside], "fill": "tozeroy", "mode": "none",
         "fillcolor": "rgba(86,180,233,0.35)",
         "name": f"{confidence:.0%} of errors: within ±{_fmt(half_width)}"},
        _line(x, y, "density of the error", 0),
    ]
    for i, (name, values) in enumerate(draws.items()):
        values = np.asarray(values)
        traces.append(_markers(values, laplace_density(values, 0.0, scale), name, 3 + i, size=13))
    return _figure(f"Error of each count: Lap(b = {_fmt(scale)})", "error (people)", "density",
                   traces, yaxis={"rangemode": "tozero"})
