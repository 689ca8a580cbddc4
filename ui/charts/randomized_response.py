"""Charts for the randomized-response lesson: parametrisations, surveys, local vs central,
and Tammy's posterior. Numbers in, plotly Figure out; no Streamlit calls.

Each figure is built in ONE go.Figure(data=[...], layout={...}) call, with the same template,
title and axis titles as ui.theme.figure. Plotly validates every update_layout/add_trace call
separately; building it once is about 4× cheaper (≈ 9 ms instead of ≈ 40 ms a chart), which
keeps a full rerun of this five-chart page within the speed budget.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from dp import posterior_bounds
from dp.local_dp import lecture_theorem_alpha, rr_alpha, rr_posterior
from ui.numbers import number
from ui.plain_figure import PlainFigure
from ui.theme import GREY, HEIGHT, INK, PALETTE, TEMPLATE, series_style

LN3 = math.log(3)
LEGEND_ROW = 28  # px per legend row under the plot


def _figure(title: str, x_title: str, y_title: str, traces: list[dict], *, legend_rows: int,
            xaxis: dict | None = None, yaxis: dict | None = None, **layout) -> go.Figure:
    """ui.theme.figure's look (template "dplab", title, axis titles with units), built at once.

    The legend sits under the x-axis title, so it never covers the title and wraps on a phone.
    """
    return PlainFigure(traces, {  # validated in tests/test_pages.py
        "template": TEMPLATE,
        "title": {"text": title},
        "xaxis": {"title": {"text": x_title}, **(xaxis or {})},
        "yaxis": {"title": {"text": y_title}, **(yaxis or {})},
        "legend": {"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0, "xanchor": "left"},
        "margin": {"b": 90 + LEGEND_ROW * legend_rows},
        "height": HEIGHT + LEGEND_ROW * legend_rows,
        **layout,
    })


def _line(x, y, name: str, i: int, **extra) -> dict:
    return {"type": "scatter", "x": x, "y": y, "mode": "lines", "name": name,
            "line": series_style(i)["line"], **extra}


def _markers(x, y, name: str, i: int, size: int = 10, **extra) -> dict:
    return {"type": "scatter", "x": x, "y": y, "mode": "markers", "name": name,
            "marker": {**series_style(i)["marker"], "size": size}, **extra}


def _vertical(x: float, y_range: tuple[float, float], name: str, *, color: str = INK,
              dash: str = "dot") -> dict:
    """A vertical marker line drawn as a trace, so it has a legend entry (not a floating label)."""
    return {"type": "scatter", "x": [x, x], "y": list(y_range), "mode": "lines", "name": name,
            "line": {"color": color, "dash": dash, "width": 2}, "hoverinfo": "name+x"}


LOG_AXIS = {"type": "log", "exponentformat": "power", "dtick": 1}  # labels at powers of ten


def keep_probability_chart(epsilon: float) -> go.Figure:
    """Pr[report = truth] = ½ + α against ε: the right α and the slide theorem's α (no 2)."""
    x_max = max(3.0, min(10.0, 1.3 * epsilon))
    eps = np.linspace(0.001, x_max, 300)
    right = 0.5 + np.asarray(rr_alpha(eps))
    slide = 0.5 + np.asarray(lecture_theorem_alpha(eps))
    traces = [
        {"type": "scatter", "x": [0, x_max], "y": [1, 1], "mode": "lines",
         "name": "1: everyone tells the truth", "line": {"color": GREY, "width": 1.5},
         "hoverinfo": "skip"},
        _line(eps, right, "α = (e^ε−1)/(2(e^ε+1)) (right)", 0),
        _line(eps, slide, "α = (e^ε−1)/(e^ε+1) (slide, no 2)", 1),
        _vertical(LN3, (0.45, 1.55), "fair coins: ε = ln 3", color=GREY),
        {"type": "scatter", "x": [epsilon, epsilon],
         "y": [0.5 + rr_alpha(epsilon), 0.5 + lecture_theorem_alpha(epsilon)], "mode": "markers",
         "name": f"your ε = {epsilon:.3g}",
         "marker": {"color": INK, "size": 13, "symbol": ["circle", "square"]}},
        # Named in the legend, not on the plot: wherever a label sat inside the plot box, some
        # width or ε put a curve, the fair-coins line or the y axis's labels through it.
        {"type": "scatter", "x": [None], "y": [None], "mode": "markers", "hoverinfo": "skip",
         "name": "shaded: above 1, not a probability",
         "marker": {"symbol": "square", "size": 14, "color": GREY, "opacity": 0.3}},
    ]
    return _figure(
        "Keep probability ½ + α against ε", "ε (privacy-loss bound)", "Pr[report = truth]", traces,
        legend_rows=3, xaxis={"range": [0, x_max]}, yaxis={"range": [0.45, 1.55]},
        shapes=[{"type": "rect", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": 1,
                 "y1": 1.55, "fillcolor": GREY, "opacity": 0.12, "line": {"width": 0},
                 "layer": "below"}],
    )


def _bin_edges(values: np.ndarray, lo: float, hi: float, step: float | None,
               bins: int = 40) -> np.ndarray:
    """About `bins` equal bins over [lo, hi]. If the values lie on a lattice of spacing
    `step` (π̂ from n reports can only move in steps of 1/(n(2q − 1))), each bin holds the
    same whole number of lattice points, so the histogram shows no comb pattern."""
    width = (hi - lo) / bins
    if not step or step <= 0 or step < width / 50:
        return np.linspace(lo, hi, bins + 1)
    width = math.ceil(width / step) * step
    start = values[0] - step / 2
    start -= width * math.ceil((start - lo) / width)
    return start + width * np.arange(math.ceil((hi - start) / width) + 1)


def sampling_histogram(estimates: np.ndarray, truth: float, this_estimate: float,
                       rmse: float, step: float | None = None) -> go.Figure:
    """Histogram of π̂ over repeated surveys, the normal curve N(truth, rmse²), the truth,
    and the one survey shown in the numbers. Sends bin counts, not the raw estimates.
    `step` is the spacing of the possible estimates (see _bin_edges)."""
    estimates = np.asarray(estimates, dtype=float)
    spread = max(4 * rmse, 3 * (step or 0))
    lo = min(estimates.min(), truth - spread)
    hi = max(estimates.max(), truth + spread)
    counts, edges = np.histogram(estimates, bins=_bin_edges(estimates, lo, hi, step))
    width = edges[1] - edges[0]
    traces = [{"type": "bar", "x": (edges[:-1] + edges[1:]) / 2, "y": counts, "width": width,
               "name": "repeated surveys",
               "marker": {"color": PALETTE["sky"], "line": {"color": PALETTE["blue"], "width": 1}},
               "hovertemplate": "π̂ ≈ %{x:.4g}: %{y} surveys<extra></extra>"}]
    top = float(counts.max())
    if not step or step < rmse:  # the normal curve only makes sense if π̂ is not too discrete
        grid = np.linspace(edges[0], edges[-1], 200)
        density = np.exp(-0.5 * ((grid - truth) / rmse) ** 2) / (rmse * math.sqrt(2 * math.pi))
        expected = density * len(estimates) * width
        traces.append(_line(grid, expected, "normal approximation", 2))
        top = max(top, float(expected.max()))
    top *= 1.08
    traces += [_vertical(truth, (0, top), f"truth {truth:.4g}", dash="solid"),
               _vertical(this_estimate, (0, top), f"this survey {this_estimate:.4g}",
                         color=PALETTE["vermillion"], dash="dash")]
    return _figure(f"π̂ over {len(estimates):,} repeated surveys", "debiased estimate π̂ (fraction)",
                   "surveys (count)", traces, legend_rows=2, yaxis={"range": [0, top]})


def error_vs_n_chart(n_grid: np.ndarray, theory: np.ndarray, sim_n: np.ndarray,
                     sim_rmse: np.ndarray, n_now: int, error_now: float) -> go.Figure:
    """Log–log: RMSE of the debiased estimate against n (formula and simulation) and this
    survey's own error (left out when it is exactly 0, which a log axis cannot show)."""
    traces = [_line(n_grid, theory, "RMSE, formula", 0),
              _markers(sim_n, sim_rmse, "RMSE, simulated", 2, size=11)]
    if error_now > 0:
        traces.append({"type": "scatter", "x": [n_now], "y": [error_now], "mode": "markers",
                       "name": f"this survey: |π̂ − π| = {number(error_now, '.2g')}",
                       "marker": {"color": PALETTE["vermillion"], "symbol": "star", "size": 16,
                                  "line": {"color": INK, "width": 1}}})
    return _figure("Error of π̂ against n", "n (people, log scale)", "error (fraction, log scale)",
                   traces, legend_rows=2, xaxis=LOG_AXIS, yaxis=LOG_AXIS)


def local_central_chart(n_grid: np.ndarray, local: np.ndarray, central: np.ndarray,
                        sampling: np.ndarray, sim_n: np.ndarray, sim_local: np.ndarray,
                        sim_central: np.ndarray, n_now: int) -> go.Figure:
    """Log–log RMSE against n: local RR, central Laplace, and the sampling error for scale."""
    low = float(min(np.min(central), np.min(sim_central)))
    high = float(max(np.max(local), np.max(sim_local), np.max(sampling)))
    traces = [
        _line(n_grid, local, "local: randomized response", 0),
        _line(n_grid, central, "central: Laplace on the count", 1),
        {"type": "scatter", "x": n_grid, "y": sampling, "mode": "lines",
         "name": "sampling error, no privacy (π = ½)",
         "line": {"color": GREY, "dash": "dot", "width": 2}},
        _markers(sim_n, sim_local, "simulated (local)", 0),
        _markers(sim_n, sim_central, "simulated (central)", 1),
        _vertical(n_now, (low, high), f"n = {n_now:,}"),
    ]
    return _figure("Local versus central: RMSE against n", "n (people, log scale)",
                   "RMSE (fraction, log scale)", traces, legend_rows=3, xaxis=LOG_AXIS,
                   yaxis=LOG_AXIS)


def posterior_chart(epsilon: float, prior: float) -> go.Figure:
    """Pr[truth = Yes | report] against the prior, after a Yes and after a No, inside the band
    that any ε-DP mechanism allows (dp.posterior_bounds). Log–log, so that multiplying the
    odds by e^ε shows as a constant shift for small priors."""
    priors = np.logspace(-3, 0, 301)[:-1]  # 0.001 … just below 1
    lower, upper = posterior_bounds(priors, epsilon)
    yes_now = rr_posterior(prior, epsilon, report=1)
    no_now = rr_posterior(prior, epsilon, report=0)
    traces = [
        {"type": "scatter", "x": priors, "y": lower, "mode": "lines", "line": {"width": 0},
         "showlegend": False, "hoverinfo": "skip"},
        {"type": "scatter", "x": priors, "y": upper, "mode": "lines", "line": {"width": 0},
         "fill": "tonexty", "fillcolor": "rgba(0,114,178,0.12)",
         "name": f"any ε-DP answer (ε = {epsilon:.3g})", "hoverinfo": "skip"},
        {"type": "scatter", "x": priors, "y": priors, "mode": "lines", "name": "no information",
         "line": {"color": GREY, "dash": "dot", "width": 1.5}, "hoverinfo": "skip"},
        _line(priors, rr_posterior(priors, epsilon, report=1), "RR, after a Yes", 3),
        _line(priors, rr_posterior(priors, epsilon, report=0), "RR, after a No", 2),
        {"type": "scatter", "x": [prior, prior], "y": [yes_now, no_now], "mode": "markers+text",
         "name": f"prior {number(prior, '.2g')}", "text": [f"  {number(yes_now)}", f"  {number(no_now)}"],
         "textposition": "middle right",
         "marker": {"color": INK, "size": 12, "symbol": ["triangle-up", "diamond"]}},
    ]
    floor = max(float(np.min(lower)), 1e-12)
    return _figure("What one answer does to a belief", "prior Pr[Yes] before the answer (log scale)",
                   "posterior Pr[Yes | answer] (log scale)", traces, legend_rows=3,
                   xaxis={**LOG_AXIS, "range": [-3, 0]},
                   yaxis={**LOG_AXIS, "range": [math.floor(math.log10(floor)), 0]})
