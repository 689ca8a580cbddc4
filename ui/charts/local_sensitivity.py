"""Charts for "Local sensitivity and its traps".

    strip_chart         the scores of D and of D′ (one student changed), medians and reach
    replacement_chart   the median as one student's score slides from 0 to 100
    trap_chart          output densities of "median + Lap(LS/ε)" on D and D′ (log scale)
    trap_loss_chart     the privacy loss ln(p_D/p_D′) of that mechanism against the ±ε band
    distance_chart      A⁽ᵏ⁾ against k: smooth sensitivity and PTR's distance in one picture
    accuracy_chart      typical error against ε for every median mechanism

Numbers in, plotly Figure out; no Streamlit calls. Each figure is built in one
go.Figure(data, layout) call from plain dicts on top of the shared theme: plotly validates
every property, and incremental add_trace/update_layout calls cost milliseconds each.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from ui.plain_figure import PlainFigure
from ui.theme import GREY, LINE_WIDTH, PALETTE, TEMPLATE, series_style

COLOUR_D, COLOUR_D_PRIME, COLOUR_MOVED = PALETTE["blue"], PALETTE["orange"], PALETTE["vermillion"]
REACH = "rgba(0, 158, 115, 0.18)"  # green: what one change can do here (local)
GLOBAL = "rgba(107, 107, 107, 0.10)"  # grey: what one change can do anywhere (global)
BAND = "rgba(230, 159, 0, 0.18)"  # orange: the ±ε band
EVENT = "rgba(86, 180, 233, 0.22)"  # sky: the audit's event S
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.25, "xanchor": "left", "x": 0}
LOG = {"type": "log", "exponentformat": "power"}
LABEL_BOX = "rgba(255, 255, 255, 0.85)"
MECHANISM_STYLE = {  # name, series_style index
    "exponential": ("exponential mechanism (dp.private_median)", 0),
    "smooth": ("smooth sensitivity + Cauchy noise", 2),
    "ptr": ("propose-test-release, when it answers", 1),
    "global": ("Laplace with global Δ = 100", 4),
    "local": ("Laplace with local LS (not private!)", 3),
}


def _figure(title: str, x_title: str, y_title: str, traces: list, *, xaxis: dict | None = None,
            yaxis: dict | None = None, shapes=(), annotations=(), legend_below: bool = True,
            **layout) -> go.Figure:
    """A figure in the shared "dplab" template (ui.theme), built in a single call."""
    spec = {"template": TEMPLATE, "title": {"text": title},
            "xaxis": {"title": {"text": x_title}, **(xaxis or {})},
            "yaxis": {"title": {"text": y_title}, **(yaxis or {})},
            "shapes": list(shapes), "annotations": list(annotations)}
    if legend_below:  # under the plot: never on the title, and it reads on a phone
        spec.update(legend=LEGEND_BELOW, margin={"b": 40})
    spec.update(layout)
    return PlainFigure(traces, spec)


def _line(x, y, name: str, style: int, **kwargs) -> dict:
    return {"type": "scatter", "x": x, "y": y, "name": name, "mode": "lines",
            "line": series_style(style)["line"], **kwargs}


def _vline(x: float, colour: str = GREY, dash: str = "dot") -> dict:
    return {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "yref": "paper",
            "line": {"color": colour, "dash": dash, "width": 1.5}}


def _hline(y: float, colour: str = GREY, dash: str = "dot") -> dict:
    return {"type": "line", "x0": 0, "x1": 1, "xref": "paper", "y0": y, "y1": y,
            "line": {"color": colour, "dash": dash, "width": 1.5}}


def _xband(x0: float, x1: float, colour: str, y0: float = 0, y1: float = 1, yref: str = "paper") -> dict:
    return {"type": "rect", "x0": x0, "x1": x1, "y0": y0, "y1": y1, "yref": yref,
            "fillcolor": colour, "line": {"width": 0}, "layer": "below"}


def _label(x, y, text: str, **kwargs) -> dict:
    return {"x": x, "y": y, "text": text, "showarrow": False, "bgcolor": LABEL_BOX, **kwargs}


def _fmt(value: float) -> str:
    return f"{value:.3g}"


# --- Local versus global ------------------------------------------------------------------


def strip_chart(data, changed, person: int, lower: float, upper: float,
                median: float, new_median: float, reach: tuple[float, float]) -> go.Figure:
    """Two rows of dots: D and D′ (person `person` of D given a new score), with each median
    and, on D's row, the interval of medians that one changed student can produce."""
    data, changed = np.asarray(data, dtype=float), np.asarray(changed, dtype=float)
    others = np.arange(data.size) != person
    row_d, row_d_prime = 1.0, 0.0
    marker = {"size": 13, "line": {"width": 1.5, "color": "white"}}
    traces = [
        {"type": "scatter", "x": data[others], "y": np.full(others.sum(), row_d), "mode": "markers",
         "name": "scores in D", "marker": {**marker, "color": COLOUR_D, "symbol": "circle"},
         "hovertemplate": "%{x:g}<extra>D</extra>"},
        {"type": "scatter", "x": changed[others], "y": np.full(others.sum(), row_d_prime),
         "mode": "markers", "name": "scores in D′",
         "marker": {**marker, "color": COLOUR_D_PRIME, "symbol": "square"},
         "hovertemplate": "%{x:g}<extra>D′</extra>"},
        {"type": "scatter", "x": [data[person], changed[person]], "y": [row_d, row_d_prime],
         "mode": "markers", "name": "the student who changes",
         "marker": {"size": 17, "color": COLOUR_MOVED, "symbol": ["circle-open", "diamond"],
                    "line": {"width": 3, "color": COLOUR_MOVED}},
         "hovertemplate": "%{x:g}<extra>changed student</extra>"},
        {"type": "scatter", "x": [median, new_median], "y": [row_d, row_d_prime], "mode": "markers",
         "name": "median", "marker": {"size": 34, "color": "black", "symbol": "line-ns-open",
                                      "line": {"width": 3}},
         "hovertemplate": "median %{x:g}<extra></extra>"},
    ]
    shapes = [_xband(lower, upper, GLOBAL, row_d_prime - 0.45, row_d + 0.3, "y"),
              _xband(reach[0], reach[1], REACH, row_d - 0.3, row_d + 0.3, "y")]
    notes = [
        _label(lower, row_d_prime - 0.4, " global: anywhere in 0–100", xanchor="left", yanchor="bottom",
               font={"color": GREY, "size": 13}, bgcolor="rgba(0,0,0,0)"),
        _label((reach[0] + reach[1]) / 2, row_d + 0.32,
               f"local: [{reach[0]:g}, {reach[1]:g}]",
               xanchor="center", yanchor="bottom", font={"color": PALETTE["green"], "size": 13}),
        {"x": changed[person], "y": row_d_prime, "ax": data[person], "ay": row_d, "xref": "x",
         "yref": "y", "axref": "x", "ayref": "y", "showarrow": bool(data[person] != changed[person]),
         "arrowhead": 2, "arrowwidth": 2, "arrowcolor": COLOUR_MOVED, "standoff": 10, "startstandoff": 10,
         "text": ""},
    ]
    return _figure("D becomes D′: one score changes", "exam score (points out of 100)", "dataset",
                   traces, shapes=shapes, annotations=notes, height=360,
                   legend={**LEGEND_BELOW, "y": -0.3},
                   xaxis={"range": [lower - 3, upper + 3], "dtick": 10},
                   yaxis={"tickvals": [row_d_prime, row_d], "ticktext": ["D′", "D"],
                          "range": [-0.55, 1.6], "showgrid": False})


def replacement_chart(values, medians, new_value: float, new_median: float, median: float,
                      reach: tuple[float, float], lower: float, upper: float) -> go.Figure:
    """The median of D′ as the changed student's score runs over [lower, upper]."""
    traces = [
        _line(values, medians, "median of D′", 0),
        {"type": "scatter", "x": [new_value], "y": [new_median], "mode": "markers", "name": "your D′",
         "marker": {"size": 15, "color": COLOUR_MOVED, "symbol": "diamond"},
         "hovertemplate": "new score %{x:g} → median %{y:g}<extra></extra>"},
    ]
    shapes = [{"type": "rect", "x0": 0, "x1": 1, "xref": "paper", "y0": reach[0], "y1": reach[1],
               "fillcolor": REACH, "line": {"width": 0}, "layer": "below"}, _hline(median)]
    notes = [_label(0.01, median, f"median of D = {median:g}", xref="paper", xanchor="left",
                    yanchor="bottom", font={"size": 13})]
    return _figure("The median as this student's score slides", "the student's new score (points)",
                   "median of D′ (points)", traces, shapes=shapes, annotations=notes, height=330,
                   xaxis={"range": [lower, upper]}, yaxis={"range": [lower - 2, upper + 2]},
                   showlegend=False)


# --- The trap -------------------------------------------------------------------------------


def trap_chart(x, density_d, density_d_prime, centre: float, scale_d: float, scale_d_prime: float,
               samples_d, samples_d_prime, radius: float) -> go.Figure:
    """Output densities of "median + Lap(LS/ε)" on D and on D′, log scale, with a rug of
    sampled outputs under the curves and the audit's event S = |y − centre| ≤ radius.

    `density_d` is None when LS(D) = 0: every output is then exactly the median, drawn as a
    spike that runs off the top of the chart.
    """
    floor, top = 1e-7, 10.0
    traces = []
    if density_d is None:
        traces.append({"type": "scatter", "x": [centre, centre], "y": [floor, top], "mode": "lines+markers",
                       "name": f"D: b = 0, every output is exactly {centre:g}",
                       "line": {**series_style(0)["line"], "width": 4},
                       "marker": {"symbol": ["circle", "triangle-up"], "size": [1, 16],
                                  "color": COLOUR_D}})
    else:
        traces.append(_line(x, np.maximum(density_d, floor), f"D: b = LS(D)/ε = {_fmt(scale_d)}", 0))
    traces.append(_line(x, np.maximum(density_d_prime, floor), f"D′: b = LS(D′)/ε = {_fmt(scale_d_prime)}",
                        1))
    # rugs: sampled outputs sit just under the curves, D above D′
    for samples, name, colour, symbol, y in ((samples_d, "outputs on D", COLOUR_D, "line-ns-open", 3e-7),
                                             (samples_d_prime, "outputs on D′", COLOUR_D_PRIME,
                                              "line-ns-open", 1.4e-7)):
        traces.append({"type": "scatter", "x": samples, "y": np.full(len(samples), y), "mode": "markers",
                       "name": name, "marker": {"symbol": symbol, "size": 16, "color": colour,
                                                "line": {"width": 2, "color": colour}},
                       "hovertemplate": "%{x:.2f}<extra>" + name + "</extra>"})
    shapes = [_xband(centre - radius, centre + radius, EVENT)] if radius > 0 else [_vline(centre, PALETTE["sky"], "solid")]
    notes = [_label(centre + radius, 1, " audit event S", yref="paper", xanchor="left", yanchor="top",
                    font={"color": "#2a7fb0", "size": 13})]
    return _figure("Noise ∝ LS: outputs on D and D′", "released median (points)",
                   "density (log scale)", traces, shapes=shapes, annotations=notes,
                   xaxis={"range": [float(x[0]), float(x[-1])]},
                   yaxis={**LOG, "range": [math.log10(1e-7), 0.3], "dtick": 1})


def trap_loss_chart(x, loss, epsilon: float) -> go.Figure:
    """Privacy loss ln(p_D(y)/p_D′(y)) of the broken mechanism, against the ±ε band.

    The y-axis is zoomed on the band (the loss runs off the bottom far from the median), so
    that both ways of leaving it show: above ε at the median, below −ε further out.
    """
    hi = float(np.max(loss))
    span = max(1.6 * hi, 3 * epsilon)
    traces = [
        {"type": "scatter", "x": [x[0], x[-1], x[-1], x[0]], "y": [-epsilon, -epsilon, epsilon, epsilon],
         "fill": "toself", "fillcolor": BAND, "line": {"width": 0}, "mode": "lines",
         "name": f"allowed: |loss| ≤ ε = {epsilon:g}", "hoverinfo": "skip"},
        _line(x, loss, "ln p_D(y) / p_D′(y)", 3),
    ]
    notes = [_label(float(x[int(np.argmax(loss))]), hi, f"{hi:.2f} at the median", yanchor="bottom",
                    font={"size": 13})]
    return _figure("Privacy loss of each output", "released median y (points)",
                   "loss ln(p_D(y)/p_D′(y))", traces, annotations=notes,
                   yaxis={"range": [-span, span], "zeroline": True, "zerolinecolor": GREY})


# --- Smooth sensitivity and PTR -------------------------------------------------------------


def distance_chart(reach, beta: float, smooth: float, bound: float, distance: float,
                   threshold: float) -> go.Figure:
    """A⁽ᵏ⁾(x) against k, the discounted e^(−kβ)A⁽ᵏ⁾ whose peak is S_β, PTR's proposed bound Δ̂
    and its distance to instability, and the threshold the noisy distance must pass.

    Shows k up to the last point of interest (the threshold, the distance, a few 1/β), so that
    a class of 2,001 does not squash the start of the curve into the y-axis.
    """
    reach = np.asarray(reach, dtype=float)
    marks = [1.5 * threshold, 3 / beta, 20] + ([1.5 * distance] if math.isfinite(distance) else [])
    last = int(min(reach.size - 1, math.ceil(max(marks))))
    k = np.arange(last + 1)
    shown = reach[:last + 1]
    discounted = np.exp(-beta * k) * shown
    peak = int(np.argmax(np.exp(-beta * np.arange(reach.size)) * reach))
    positive = shown[shown > 0]
    floor = min((positive.min() if positive.size else 1.0), smooth, bound) / 3

    def visible(y):  # a log axis cannot show 0: leave those points out
        return np.where(y >= floor, y, np.nan)

    traces = [
        {**_line(k, visible(shown), "A⁽ᵏ⁾: the largest LS within k changes", 0),
         "line": {**series_style(0)["line"], "shape": "hv"}},
        _line(k, visible(discounted), f"e^(−kβ)·A⁽ᵏ⁾, β = ε/6 = {beta:.3g}", 1),
        {"type": "scatter", "x": [peak], "y": [smooth], "mode": "markers",
         "name": f"its peak: smooth sensitivity S = {_fmt(smooth)}",
         "marker": {**series_style(2)["marker"], "size": 14}},
        _line([0, last], [bound, bound], f"PTR's proposed bound Δ̂ = {bound:g}", 3),
    ]
    shapes, notes = [], []
    if threshold <= last:
        shapes += [_xband(0, threshold, "rgba(213, 94, 0, 0.07)"), _vline(threshold, COLOUR_MOVED, "dash")]
        notes.append(_label(threshold, 0.02, f" PTR's threshold: {threshold:.3g}", yref="paper",
                            xanchor="left", yanchor="bottom", font={"color": COLOUR_MOVED, "size": 13}))
    if math.isfinite(distance) and distance <= last:
        shapes.append(_vline(distance, PALETTE["purple"], "dot"))
        right = distance > 0.6 * last  # keep the label inside the plot
        notes.append(_label(distance, 0.98, f" distance to LS > Δ̂: {distance:.0f} " if right else
                            f" distance to LS > Δ̂: {distance:.0f}", yref="paper",
                            xanchor="right" if right else "left", yanchor="top",
                            font={"color": "#a0527f", "size": 13}))
    top = 3 * max(float(np.max(shown)), bound, smooth)
    return _figure("Sensitivity k changes away", "k (students changed)",
                   "sensitivity (points, log scale)", traces, shapes=shapes, annotations=notes,
                   xaxis={"range": [-0.5, last + 0.5]},
                   yaxis={**LOG, "range": [math.log10(floor), math.log10(min(top, 300))]})


def accuracy_chart(epsilons, sweep: dict, epsilon: float, answer_level: float = 0.5) -> go.Figure:
    """Typical error (median |output − median|) against ε for each mechanism; log-log.

    PTR's line is drawn where it answers with probability ≥ `answer_level`; where it mostly
    refuses, the chart is shaded instead.
    """
    epsilons = np.asarray(epsilons, dtype=float)
    traces = []
    for key in ("exponential", "smooth", "ptr", "global", "local"):
        name, style = MECHANISM_STYLE[key]
        y = np.asarray(sweep[key], dtype=float)
        if key == "ptr":
            y = np.where(np.asarray(sweep["ptr_answers"]) >= answer_level, y, np.nan)
        trace = _line(epsilons, np.maximum(y, 1e-4), name, style,
                      hovertemplate="ε = %{x:.3g}: %{y:.3g} points<extra>" + name + "</extra>")
        if key == "local":
            trace["line"] = {**trace["line"], "color": GREY, "width": LINE_WIDTH - 0.5}
        traces.append(trace)
    refuses = epsilons[np.asarray(sweep["ptr_answers"]) < answer_level]
    shapes, notes = [_vline(epsilon, "black", "dash")], []
    if refuses.size:
        # shapes take data values on a log axis; annotations take log10 values
        shapes.append(_xband(epsilons[0], refuses.max(), "rgba(230, 159, 0, 0.12)"))
        notes.append(_label(math.log10(refuses.max()), 0.02, "PTR mostly says ⊥ here ", yref="paper",
                            xanchor="right", yanchor="bottom", font={"color": "#9a6a00", "size": 13}))
    notes.append(_label(math.log10(epsilon), 1, f" your ε = {epsilon:g}", yref="paper", xanchor="left",
                        yanchor="top", font={"size": 13}))
    edges = [math.log10(epsilons[0]) - 0.05, math.log10(epsilons[-1]) + 0.05]
    return _figure("Typical error of each private median", "ε (log scale)",
                   "typical error (points, log scale)", traces, shapes=shapes, annotations=notes,
                   xaxis={**LOG, "dtick": 1, "range": edges}, height=480,
                   yaxis={**LOG, "dtick": 1, "range": [math.log10(_lowest(sweep)) - 0.3, math.log10(400)]})


def _lowest(sweep: dict) -> float:
    values = np.concatenate([np.ravel(sweep[key]) for key in MECHANISM_STYLE])
    return float(max(np.min(values[values > 0], initial=1.0), 1e-4))
