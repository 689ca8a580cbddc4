"""Charts for "Laplace vs Gaussian": densities, tails, privacy loss, δ and many dimensions.

Numbers in, plotly Figure out; the curves come from dp (dp.tails, dp.noise).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dp import laplace_tail
from dp.tails import (
    delta_integrand,
    gaussian_loss,
    gaussian_loss_density,
    gaussian_loss_mean,
    gaussian_noise_density,
    gaussian_tail,
    laplace_loss,
    laplace_noise_density,
    noise_std_in_d_dimensions,
)
from ui.theme import GREY, PALETTE, figure, series_style

LAPLACE, GAUSSIAN, CLASSIC = 0, 1, 2  # series_style indices: the same look on every chart
GRID = 601


def _line(x, y, name: str, style: int, **kwargs) -> go.Scatter:
    return go.Scatter(x=x, y=y, name=name, mode="lines", line=series_style(style)["line"], **kwargs)


def _fmt(value: float) -> str:
    return f"{value:.3g}"


def _legend_below(fig: go.Figure) -> go.Figure:
    """Legend under the plot, so that it never sits on the title (and reads on a phone)."""
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0,
                              "xanchor": "left"},
                      margin={"b": 40})
    return fig


def density_chart(scale: float, sigma: float, sigma_classic: float | None = None,
                  log_y: bool = False) -> go.Figure:
    """Laplace and Gaussian noise densities, centred on the true answer, overlaid."""
    widths = [8 * scale, 4 * sigma] + ([4 * sigma_classic] if sigma_classic else [])
    x = np.linspace(-max(widths), max(widths), GRID)
    fig = figure("Noise added to the true answer",
                 "noise (units of the query)",
                 "density (log scale)" if log_y else "density")
    fig.add_trace(_line(x, laplace_noise_density(x, scale), f"Laplace, b = {_fmt(scale)}", LAPLACE))
    fig.add_trace(_line(x, gaussian_noise_density(x, sigma),
                        f"Gaussian (analytic), σ = {_fmt(sigma)}", GAUSSIAN))
    if sigma_classic:
        fig.add_trace(_line(x, gaussian_noise_density(x, sigma_classic),
                            f"Gaussian (classic), σ = {_fmt(sigma_classic)}", CLASSIC))
    if log_y:
        fig.update_yaxes(type="log", exponentformat="power")
    return _legend_below(fig)


def tails_chart(scale: float, sigma: float, crossover: float,
                sigma_classic: float | None = None) -> go.Figure:
    """Pr[|noise| > t] on a log scale, with the point where the two tails cross."""
    t_max = max(1.25 * crossover, 10 * scale, 5 * sigma)
    t = np.linspace(0, t_max, 400)
    fig = figure("Tails: how often the noise is larger than t",
                 "t (distance from the true answer)", "Pr[|noise| > t] (log scale)")
    fig.add_trace(_line(t, laplace_tail(scale, t), "Laplace: e^(−t/b)", LAPLACE))
    fig.add_trace(_line(t, gaussian_tail(sigma, t), "Gaussian (analytic)", GAUSSIAN))
    if sigma_classic:
        fig.add_trace(_line(t, gaussian_tail(sigma_classic, t), "Gaussian (classic)", CLASSIC))
    if crossover > 0:
        fig.add_vline(x=crossover, line={"color": GREY, "dash": "dot"})
        fig.add_annotation(x=crossover, y=1, yref="paper", xanchor="right", yanchor="top",
                           showarrow=False, text=f"tails cross at t ≈ {_fmt(crossover)}",
                           bgcolor="rgba(255,255,255,0.8)")
    fig.update_yaxes(type="log", exponentformat="power")
    return _legend_below(fig)


def loss_chart(scale: float, sigma: float, sensitivity: float, epsilon: float,
               threshold: float) -> go.Figure:
    """Privacy loss L(y) = ln(p_D(y)/p_D′(y)) against the output y, both mechanisms.

    Shades the outputs y < y* where the Gaussian's loss exceeds ε.
    """
    spread = max(sigma, 0.25 * abs(threshold))
    lo = min(threshold - spread, -3 * sigma, -3 * scale)
    hi = sensitivity - lo  # L is antisymmetric about Δ/2: keep the view symmetric too
    y = np.union1d(np.linspace(lo, hi, GRID), [0.0, sensitivity])
    fig = figure("Privacy loss of each output", "output y (f(D) = 0, f(D′) = Δ)",
                 "privacy loss L(y)")
    fig.add_vrect(x0=lo, x1=threshold, fillcolor=PALETTE["orange"], opacity=0.15, line_width=0)
    fig.add_annotation(x=lo, y=0, xanchor="left", yanchor="bottom", showarrow=False,
                       text=f"Gaussian L > ε<br>for y < {_fmt(threshold)}",
                       bgcolor="rgba(255,255,255,0.8)")
    fig.add_trace(_line(y, laplace_loss(y, scale, sensitivity), "Laplace", LAPLACE))
    fig.add_trace(_line(y, gaussian_loss(y, sigma, sensitivity), "Gaussian (analytic)", GAUSSIAN))
    for level, label in ((epsilon, "+ε"), (-epsilon, "−ε")):
        fig.add_hline(y=level, line={"color": GREY, "dash": "dot"})
        fig.add_annotation(x=hi, y=level, xanchor="right", yanchor="bottom", showarrow=False,
                           text=label)
    return _legend_below(fig)


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
    fig = figure("Where δ is spent: the loss beyond ε",
                 "privacy loss L (y drawn from M(D))", "density of L")
    fig.add_trace(_line(grid, gaussian_loss_density(grid, sigma, sensitivity),
                        "density of L", GAUSSIAN))
    fig.add_trace(go.Scatter(x=tail, y=gaussian_loss_density(tail, sigma, sensitivity),
                             mode="lines", line={"width": 0}, fill="tozeroy",
                             fillcolor="rgba(230,159,0,0.35)",
                             name=f"area Pr[L > ε] = {prob_exceeds:.2g}"))
    fig.add_trace(go.Scatter(x=tail, y=delta_integrand(tail, sigma, epsilon, sensitivity),
                             mode="lines", line={"color": PALETTE["vermillion"], "width": 2,
                                                 "dash": "dash"},
                             fill="tozeroy", fillpattern={"shape": "/", "fgcolor": PALETTE["vermillion"]},
                             fillcolor="rgba(213,94,0,0.25)",
                             name=f"area δ(ε) = E[(1 − e^(ε−L))₊] = {delta:.2g}"))
    fig.add_vline(x=epsilon, line={"color": GREY, "dash": "dot"})
    fig.add_annotation(x=epsilon, y=1, yref="paper", xanchor="left", yanchor="top",
                       showarrow=False, text=" L = ε")
    return _legend_below(fig)


def leak_chart(n: int, delta: float, delta_range: tuple[float, float]) -> go.Figure:
    """Expected number of whole records published by the "keep each record with
    probability δ" mechanism, against δ, for n people."""
    deltas = np.logspace(math.log10(delta_range[0]), math.log10(delta_range[1]), 200)
    fig = figure(f"Records published whole, n = {n:,}", "δ (log scale)",
                 "records published (log)")
    if delta_range[0] < 1 / n < delta_range[1]:
        fig.add_vrect(x0=1 / n, x1=delta_range[1], fillcolor=PALETTE["vermillion"],
                      opacity=0.12, line_width=0)
        fig.add_annotation(x=math.log10(1 / n), y=0.02, yref="paper", xanchor="left",
                           yanchor="bottom", showarrow=False, text=" δ ≥ 1/n")
    fig.add_hline(y=1, line={"color": GREY, "dash": "dot"})
    fig.add_trace(_line(deltas, n * deltas, "n·δ", LAPLACE))
    style = series_style(GAUSSIAN)
    fig.add_trace(go.Scatter(x=[delta], y=[n * delta], mode="markers+text",
                             marker={**style["marker"], "size": 14}, name="your δ",
                             text=[f"  {n * delta:.3g}"], textposition="middle right"))
    fig.update_xaxes(type="log", exponentformat="power")
    fig.update_yaxes(type="log", exponentformat="power")
    return _legend_below(fig)


def dimensions_chart(epsilon: float, delta: float, d: int, crossover: float,
                     d_max: int = 10_000) -> go.Figure:
    """Per-count noise standard deviation for d counts: Laplace (Δ₁ = d) against
    Gaussian (Δ₂ = √d) at matched (ε, δ)."""
    grid = np.unique(np.round(np.logspace(0, math.log10(d_max), 200)))
    lap, gauss = noise_std_in_d_dimensions(grid, epsilon, delta)
    lap_d, gauss_d = noise_std_in_d_dimensions(float(d), epsilon, delta)
    fig = figure("Noise per count when d counts are released",
                 "d (number of counts, log scale)", "noise std per count (log scale)")
    fig.add_trace(_line(grid, lap, "Laplace: √2·d/ε", LAPLACE))
    fig.add_trace(_line(grid, gauss, "Gaussian: √d·σ₁", GAUSSIAN))
    for value, style, label in ((lap_d, LAPLACE, "Laplace at your d"),
                                (gauss_d, GAUSSIAN, "Gaussian at your d")):
        fig.add_trace(go.Scatter(x=[d], y=[value], mode="markers", name=label,
                                 marker={**series_style(style)["marker"], "size": 12},
                                 showlegend=False, hovertemplate=f"{label}: %{{y:.3g}}<extra></extra>"))
    if 1 <= crossover <= d_max:
        fig.add_vline(x=crossover, line={"color": GREY, "dash": "dot"})
        fig.add_annotation(x=math.log10(crossover), y=1, yref="paper", xanchor="left",
                           yanchor="top", showarrow=False,
                           text=f" Gaussian wins for d > {_fmt(crossover)}")
    fig.update_xaxes(type="log", exponentformat="power", dtick=1)
    fig.update_yaxes(type="log", exponentformat="power", dtick=1)
    return _legend_below(fig)


def audit_chart(p: tuple[float, float, float], p_prime: tuple[float, float, float],
                epsilon: float, delta: float) -> go.Figure:
    """The DP inequality on one event S, from samples: Pr[S | D] against e^ε·Pr[S | D′]
    with and without + δ. Each probability is (estimate, lower, upper)."""
    scale = math.exp(epsilon)
    values = [p[0], scale * p_prime[0], scale * p_prime[0] + delta]
    lows = [p[1], scale * p_prime[1], scale * p_prime[1] + delta]
    highs = [p[2], scale * p_prime[2], scale * p_prime[2] + delta]
    labels = [f"Pr[S | D] = {values[0]:.2g}", f"e^ε · Pr[S | D′] = {values[1]:.2g}",
              f"e^ε · Pr[S | D′] + δ = {values[2]:.2g}"]
    colours = [PALETTE["blue"], PALETTE["orange"], PALETTE["green"]]
    fig = figure("Does the event S break the inequality?", "probability (log scale)", "")
    fig.add_trace(go.Bar(
        y=labels, x=values, orientation="h",
        marker={"color": colours, "pattern": {"shape": ["", "/", "."]}},
        error_x={"type": "data", "symmetric": False,
                 "array": [h - v for h, v in zip(highs, values, strict=True)],
                 "arrayminus": [v - lo for v, lo in zip(values, lows, strict=True)],
                 "color": GREY, "thickness": 2, "width": 8},
        showlegend=False, hovertemplate="%{y}<extra></extra>"))
    positive = [v for v in [*lows, *values] if v > 0]
    floor = min(positive) / 3 if positive else 1e-6
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(type="log", exponentformat="power",
                     range=[math.log10(floor), math.log10(max(1.5 * max(highs), 1.5 * floor))])
    fig.update_layout(height=300, margin={"l": 10})
    return fig
