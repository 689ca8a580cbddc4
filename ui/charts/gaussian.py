"""Charts for "Laplace vs Gaussian": densities, tails, privacy loss, δ and many dimensions.

Numbers in, plotly Figure out; the curves come from dp (dp.tails, dp.noise).

Speed: plotly validates every property each time a figure is changed, and the incremental
API (add_trace, add_vline, update_layout, …) costs 15–35 ms of CPU per chart. Each chart
here is built in one go.Figure(data, layout) call instead, on top of the shared theme
captured once from ui.theme.figure (about 3 ms per chart).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dp import laplace_tail
from dp.privacy_loss import laplace_density, laplace_privacy_loss
from dp.tails import (
    delta_integrand,
    gaussian_loss,
    gaussian_loss_density,
    gaussian_loss_mean,
    gaussian_noise_density,
    gaussian_tail,
    noise_std_in_d_dimensions,
)
from ui.numbers import number
from ui.plain_figure import PlainFigure
from ui.theme import GREY, PALETTE, figure, series_style

LAPLACE, GAUSSIAN, CLASSIC = 0, 1, 2  # series_style indices: the same look on every chart
GRID = 601
_THEME = figure("", "", "").to_dict()["layout"]  # template, fonts and axes of ui.theme
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0, "xanchor": "left"}
LOG_AXIS = {"type": "log", "exponentformat": "power"}
LABEL_BOX = "rgba(255,255,255,0.8)"


def _figure(title: str, x_title: str, y_title: str, traces: list[dict], *,
            xaxis: dict | None = None, yaxis: dict | None = None, shapes=(), annotations=(),
            legend_below: bool = True, **layout) -> go.Figure:
    """One figure in the DP Lab theme, built (and validated) in a single call."""
    spec = dict(_THEME)  # shallow: every key changed below is rebuilt, never mutated
    spec["title"] = {**spec.get("title", {}), "text": title}
    spec["xaxis"] = {**spec.get("xaxis", {}), "title": {"text": x_title}, **(xaxis or {})}
    spec["yaxis"] = {**spec.get("yaxis", {}), "title": {"text": y_title}, **(yaxis or {})}
    spec["shapes"] = list(shapes)
    spec["annotations"] = list(annotations)
    if legend_below:  # under the plot: never on the title, and it reads on a phone
        spec["legend"] = LEGEND_BELOW
        spec["margin"] = {"b": 40}
    spec.update(layout)
    return PlainFigure(traces, spec)  # validated in tests/test_pages.py


def _line(x, y, name: str, style: int, **kwargs) -> dict:
    return {"type": "scatter", "x": x, "y": y, "name": name, "mode": "lines",
            "line": series_style(style)["line"], **kwargs}


def _vline(x: float) -> dict:
    return {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "yref": "paper",
            "line": {"color": GREY, "dash": "dot"}}


def _hline(y: float) -> dict:
    return {"type": "line", "x0": 0, "x1": 1, "xref": "paper", "y0": y, "y1": y,
            "line": {"color": GREY, "dash": "dot"}}


def _band(x0: float, x1: float, colour: str, opacity: float) -> dict:
    return {"type": "rect", "x0": x0, "x1": x1, "y0": 0, "y1": 1, "yref": "paper",
            "fillcolor": colour, "opacity": opacity, "line": {"width": 0}, "layer": "below"}


def _label(x, y, text: str, **kwargs) -> dict:
    return {"x": x, "y": y, "text": text, "showarrow": False, "bgcolor": LABEL_BOX, **kwargs}


def _fmt(value: float) -> str:
    return f"{value:.3g}"


def density_chart(scale: float, sigma: float, sigma_classic: float | None = None,
                  log_y: bool = False) -> go.Figure:
    """Laplace and Gaussian noise densities, centred on the true answer, overlaid."""
    widths = [8 * scale, 4 * sigma] + ([4 * sigma_classic] if sigma_classic else [])
    x = np.linspace(-max(widths), max(widths), GRID)
    traces = [
        _line(x, laplace_density(x, 0.0, scale), f"Laplace, b = {_fmt(scale)}", LAPLACE),
        _line(x, gaussian_noise_density(x, sigma), f"Gaussian (analytic), σ = {_fmt(sigma)}",
              GAUSSIAN),
    ]
    if sigma_classic:
        traces.append(_line(x, gaussian_noise_density(x, sigma_classic),
                            f"Gaussian (classic), σ = {_fmt(sigma_classic)}", CLASSIC))
    return _figure("Noise added to the true answer", "noise (units of the query)",
                   "density (log scale)" if log_y else "density", traces,
                   yaxis=LOG_AXIS if log_y else None)


def tails_chart(scale: float, sigma: float, crossover: float,
                sigma_classic: float | None = None) -> go.Figure:
    """Pr[|noise| > t] on a log scale, with the point where the two tails cross."""
    t_max = max(1.25 * crossover, 10 * scale, 5 * sigma)
    t = np.linspace(0, t_max, 400)
    traces = [_line(t, laplace_tail(scale, t), "Laplace: e^(−t/b)", LAPLACE),
              _line(t, gaussian_tail(sigma, t), "Gaussian (analytic)", GAUSSIAN)]
    if sigma_classic:
        traces.append(_line(t, gaussian_tail(sigma_classic, t), "Gaussian (classic)", CLASSIC))
    shapes, notes = [], []
    if crossover > 0:
        shapes.append(_vline(crossover))
        notes.append(_label(crossover, 1, f"tails cross at t ≈ {_fmt(crossover)}", yref="paper",
                            xanchor="right", yanchor="top"))
    return _figure("Tails: how often the noise is larger than t",
                   "t (distance from the true answer)", "Pr[|noise| > t] (log scale)", traces,
                   yaxis=LOG_AXIS, shapes=shapes, annotations=notes)


def loss_chart(scale: float, sigma: float, sensitivity: float, epsilon: float,
               threshold: float) -> go.Figure:
    """Privacy loss L(y) = ln(p_D(y)/p_D′(y)) against the output y, both mechanisms.

    Shades the outputs y < y* where the Gaussian's loss exceeds ε.
    """
    spread = max(sigma, 0.25 * abs(threshold))
    lo = min(threshold - spread, -3 * sigma, -3 * scale)
    hi = sensitivity - lo  # L is antisymmetric about Δ/2: keep the view symmetric too
    y = np.union1d(np.linspace(lo, hi, GRID), [0.0, sensitivity])
    traces = [_line(y, laplace_privacy_loss(y, 0.0, sensitivity, scale), "Laplace", LAPLACE),
              _line(y, gaussian_loss(y, sigma, sensitivity), "Gaussian (analytic)", GAUSSIAN)]
    shapes = [_band(lo, threshold, PALETTE["orange"], 0.15), _hline(epsilon), _hline(-epsilon)]
    notes = [_label(lo, 0, f"Gaussian L > ε<br>for y < {_fmt(threshold)}", xanchor="left",
                    yanchor="bottom"),
             _label(hi, epsilon, "+ε", xanchor="right", yanchor="bottom"),
             _label(hi, -epsilon, "−ε", xanchor="right", yanchor="bottom")]
    return _figure("Privacy loss of each output", "output y (f(D) = 0, f(D′) = Δ)",
                   "privacy loss L(y)", traces, shapes=shapes, annotations=notes)


def loss_tail_chart(sigma: float, sensitivity: float, epsilon: float,
                    prob_exceeds: float, delta: float) -> go.Figure:
    """The Gaussian privacy-loss density beyond ε: the area Pr[L > ε] and the smaller
    area δ(ε) = E[(1 − e^{ε−L})₊] that pays for it."""
    mu = gaussian_loss_mean(sigma, sensitivity)
    s = math.sqrt(2 * mu)
    z = (epsilon - mu) / s  # how far out ε sits, in standard deviations of L
    if z >= 1:  # zoom on the tail: beyond ε the density falls e-fold every ≈ s/z
        fold = s / z
        lo, hi = epsilon - 0.3 * fold, epsilon + 5 * fold
    else:
        lo, hi = mu - 4 * s, max(epsilon, mu) + 4 * s
    grid = np.linspace(lo, hi, GRID)
    tail = np.linspace(epsilon, hi, GRID)
    traces = [
        _line(grid, gaussian_loss_density(grid, sigma, sensitivity), "density of L", GAUSSIAN),
        {"type": "scatter", "x": tail, "y": gaussian_loss_density(tail, sigma, sensitivity),
         "mode": "lines", "line": {"width": 0}, "fill": "tozeroy",
         "fillcolor": "rgba(230,159,0,0.35)", "name": f"area Pr[L > ε] = {number(prob_exceeds, '.2g')}"},
        {"type": "scatter", "x": tail, "y": delta_integrand(tail, sigma, epsilon, sensitivity),
         "mode": "lines", "line": {"color": PALETTE["vermillion"], "width": 2, "dash": "dash"},
         "fill": "tozeroy", "fillcolor": "rgba(213,94,0,0.25)",
         "fillpattern": {"shape": "/", "fgcolor": PALETTE["vermillion"]},
         "name": f"area δ(ε) = E[(1 − e^(ε−L))₊] = {number(delta, '.2g')}"},
    ]
    notes = [_label(epsilon, 1, " L = ε", yref="paper", xanchor="left", yanchor="top")]
    # Log scale: near ε each output pays only a sliver (1 − e^{ε−L} ≈ L − ε) of its
    # probability, far out nearly all of it, and the two curves meet.
    density = traces[0]["y"]
    y_range = [math.log10(density.min()) - 0.3, math.log10(density.max()) + 0.2]
    return _figure("Where δ is spent: the loss beyond ε", "privacy loss L (y drawn from M(D))",
                   "density of L (log scale)", traces, shapes=[_vline(epsilon)],
                   annotations=notes, yaxis={**LOG_AXIS, "range": y_range, "dtick": 1})


def leak_chart(n: int, delta: float, delta_range: tuple[float, float]) -> go.Figure:
    """Expected number of whole records published by the "keep each record with
    probability δ" mechanism, against δ, for n people."""
    deltas = np.logspace(math.log10(delta_range[0]), math.log10(delta_range[1]), 200)
    shapes, notes = [_hline(1.0)], []
    if delta_range[0] < 1 / n < delta_range[1]:
        shapes.append(_band(1 / n, delta_range[1], PALETTE["vermillion"], 0.12))
        notes.append(_label(math.log10(1 / n), 0.02, " δ ≥ 1/n", yref="paper", xanchor="left",
                            yanchor="bottom"))
    style = series_style(GAUSSIAN)
    traces = [_line(deltas, n * deltas, "n·δ", LAPLACE),
              {"type": "scatter", "x": [delta], "y": [n * delta], "mode": "markers+text",
               "marker": {**style["marker"], "size": 14}, "name": "your δ",
               "text": [f"  {number(n * delta, ',.3g')}"], "textposition": "middle right"}]
    return _figure(f"Records published whole, n = {n:,}", "δ (log scale)",
                   "records published (log)", traces, xaxis=LOG_AXIS, yaxis=LOG_AXIS,
                   shapes=shapes, annotations=notes)


def dimensions_chart(epsilon: float, delta: float, d: int, crossover: float,
                     d_max: int = 10_000) -> go.Figure:
    """Per-count noise standard deviation for d counts: Laplace (Δ₁ = d) against
    Gaussian (Δ₂ = √d) at matched (ε, δ)."""
    grid = np.unique(np.round(np.logspace(0, math.log10(d_max), 200)))
    lap, gauss = noise_std_in_d_dimensions(grid, epsilon, delta)
    lap_d, gauss_d = noise_std_in_d_dimensions(float(d), epsilon, delta)
    traces = [_line(grid, lap, "Laplace: √2·d/ε", LAPLACE),
              _line(grid, gauss, "Gaussian: √d·σ₁", GAUSSIAN)]
    for value, style, label in ((lap_d, LAPLACE, "Laplace at your d"),
                                (gauss_d, GAUSSIAN, "Gaussian at your d")):
        traces.append({"type": "scatter", "x": [d], "y": [value], "mode": "markers",
                       "name": label, "showlegend": False,
                       "marker": {**series_style(style)["marker"], "size": 12},
                       "hovertemplate": f"{label}: %{{y:.3g}}<extra></extra>"})
    shapes, notes = [], []
    if 1 <= crossover <= d_max:
        shapes.append(_vline(crossover))
        notes.append(_label(math.log10(crossover), 1, f" Gaussian wins for d > {_fmt(crossover)}",
                            yref="paper", xanchor="left", yanchor="top"))
    return _figure("Noise per count when d counts are released",
                   "d (number of counts, log scale)", "noise std per count (log scale)", traces,
                   xaxis={**LOG_AXIS, "dtick": 1}, yaxis={**LOG_AXIS, "dtick": 1},
                   shapes=shapes, annotations=notes)


def audit_chart(p: tuple[float, float, float], p_prime: tuple[float, float, float],
                epsilon: float, delta: float) -> go.Figure:
    """The DP inequality on one event S, from samples: Pr[S | D] against e^ε·Pr[S | D′]
    with and without + δ. Each probability is (estimate, lower, upper)."""
    scale = math.exp(epsilon)
    values = [p[0], scale * p_prime[0], scale * p_prime[0] + delta]
    lows = [p[1], scale * p_prime[1], scale * p_prime[1] + delta]
    highs = [p[2], scale * p_prime[2], scale * p_prime[2] + delta]
    # Two lines each, so that on a phone the labels leave the bars some width.
    labels = [f"Pr[S | D]<br>= {number(values[0], '.2g')}",
              f"e^ε · Pr[S | D′]<br>= {number(values[1], '.2g')}",
              f"e^ε · Pr[S | D′] + δ<br>= {number(values[2], '.2g')}"]
    bars = {
        "type": "bar", "y": labels, "x": values, "orientation": "h", "showlegend": False,
        "marker": {"color": [PALETTE["blue"], PALETTE["orange"], PALETTE["green"]],
                   "pattern": {"shape": ["", "/", "."]}},
        "error_x": {"type": "data", "symmetric": False,
                    "array": [h - v for h, v in zip(highs, values, strict=True)],
                    "arrayminus": [v - lo for v, lo in zip(values, lows, strict=True)],
                    "color": GREY, "thickness": 2, "width": 8},
        "hovertemplate": "%{y}<extra></extra>",
    }
    positive = [v for v in [*lows, *values] if v > 0]
    floor = min(positive) / 3 if positive else 1e-6
    x_range = [math.log10(floor), math.log10(max(1.5 * max(highs), 1.5 * floor))]
    return _figure("Does the event S break the inequality?", "probability (log scale)",
                   "side of the inequality",
                   [bars], xaxis={**LOG_AXIS, "range": x_range, "dtick": 1},
                   yaxis={"autorange": "reversed"}, legend_below=False, height=300,
                   margin={"l": 10})
