"""Charts for "What DP promises": two output densities, their ratio, the privacy loss,
the posterior band, the hypothesis-testing region and the guessing game's tally.

Numbers in, plotly Figure out; no Streamlit calls. Each figure is built in one go.Figure
call with its shapes in the layout: plotly validates every property it is given, and
add_hline/update_layout one at a time would cost several times as much per rerun.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.numbers import number
from ui.plain_figure import PlainFigure
from ui.theme import GREY, LINE_WIDTH, PALETTE, TEMPLATE

# The blog's colours and marks: M(D) green with crosses, M(D′) blue with circles.
COLOUR_D = PALETTE["green"]
COLOUR_D_PRIME = PALETTE["blue"]
COLOUR_RATIO = PALETTE["vermillion"]
BAND = "rgba(230, 159, 0, 0.18)"  # orange, for the e^±ε band
REGION = "rgba(0, 114, 178, 0.15)"  # blue, for the achievable region
INK_SOFT = "#444444"
# Legends go under the plot: on a phone a legend above it would run into the title.
BELOW_LEGEND = {"orientation": "h", "yanchor": "top", "y": -0.24, "xanchor": "left", "x": 0}


def _figure(title: str, x_title: str, y_title: str, traces: list, *, xaxis: dict | None = None,
            yaxis: dict | None = None, shapes: list | None = None, annotations: list | None = None,
            **layout) -> go.Figure:
    """A figure in the shared "dplab" template (ui.theme), built in a single call."""
    return PlainFigure(traces, {
        "template": TEMPLATE, "title": {"text": title},
        "xaxis": {"title": {"text": x_title}, **(xaxis or {})},
        "yaxis": {"title": {"text": y_title}, **(yaxis or {})},
        "shapes": shapes or [], "annotations": annotations or [],
        "legend": BELOW_LEGEND, "margin": {"b": 120}, **layout,
    })


def _line(x, y, name, colour, dash="solid", **kwargs) -> dict:
    return dict(type="scatter", x=x, y=y, name=name, mode="lines",
                      line={"color": colour, "dash": dash, "width": LINE_WIDTH}, **kwargs)


def _hline(y, colour, dash="dash", width=2.0) -> dict:
    return {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y,
            "line": {"color": colour, "dash": dash, "width": width}, "layer": "below"}


def _vline(x, colour, dash="dot", width=1.0) -> dict:
    return {"type": "line", "yref": "y domain", "y0": 0, "y1": 1, "xref": "x", "x0": x, "x1": x,
            "line": {"color": colour, "dash": dash, "width": width}, "layer": "below"}


def _label(text, colour, *, x=0.01, y, xref="x domain", yref="y", xanchor="left", yanchor="bottom") -> dict:
    return {"text": text, "x": x, "y": y, "xref": xref, "yref": yref, "xanchor": xanchor,
            "yanchor": yanchor, "showarrow": False, "font": {"color": colour},
            "bgcolor": "rgba(255, 255, 255, 0.8)"}


def _band(lo, hi, bottom, top, name) -> dict:
    return dict(type="scatter", x=[lo, hi, hi, lo], y=[bottom, bottom, top, top], fill="toself",
                      fillcolor=BAND, line={"width": 0}, mode="lines", name=name, hoverinfo="skip")


def _marks(x, y, name, colour, symbol) -> dict:
    return dict(type="scatter", x=x, y=y, mode="markers", name=name,
                      marker={"color": colour, "symbol": symbol, "size": 10,
                              "line": {"width": 2, "color": colour}},
                      hovertemplate="%{x:.2f}<extra>" + name + "</extra>")


def densities(x, density_d, density_d_prime, value_d, value_d_prime, *,
              samples_d=None, samples_d_prime=None, observed=None,
              label_d="M(D)", label_d_prime="M(D′)",
              title="Output densities of M(D) and M(D′)",
              x_title="released value") -> go.Figure:
    """Both output densities; optional rug marks of sampled outputs and one observed output."""
    top = float(max(np.max(density_d), np.max(density_d_prime)))
    traces = [_line(x, density_d, f"{label_d}, centred at {value_d:g}", COLOUR_D),
              _line(x, density_d_prime, f"{label_d_prime}, centred at {value_d_prime:g}",
                    COLOUR_D_PRIME, dash="dash")]
    bottom = 0.0
    for samples, label, colour, symbol, depth in [
        (samples_d, label_d, COLOUR_D, "x-thin-open", 0.07),
        (samples_d_prime, label_d_prime, COLOUR_D_PRIME, "circle-open", 0.15),
    ]:
        if samples is not None:
            traces.append(_marks(samples, np.full(len(samples), -depth * top),
                                 f"{len(samples)} outputs of {label}", colour, symbol))
            bottom = -(depth + 0.06) * top
    shapes = [_vline(value_d, COLOUR_D), _vline(value_d_prime, COLOUR_D_PRIME)]
    annotations = []
    if observed is not None:
        shapes.append(_vline(observed, PALETTE["vermillion"], width=3))
        annotations.append(_label(f"released: {observed:.2f}", PALETTE["vermillion"], x=observed,
                                  xref="x", y=0.98, yref="y domain", xanchor="left", yanchor="top"))
    return _figure(title, x_title, "probability density", traces, shapes=shapes, annotations=annotations,
                   xaxis={"range": [float(np.min(x)), float(np.max(x))]},
                   yaxis={"range": [bottom, 1.12 * top]})


def density_ratio(x, ratio, epsilon) -> go.Figure:
    """p_D(x)/p_D′(x) on a log axis, against the band [e^−ε, e^ε] that ε-DP allows."""
    lo, hi = float(np.min(x)), float(np.max(x))
    upper = float(np.exp(epsilon))
    traces = [_band(lo, hi, 1 / upper, upper, f"allowed band e^±ε = [{number(1 / upper)}, {number(upper)}]"),
              _line(x, ratio, "p_D(x) / p_D′(x)", COLOUR_RATIO,
                    hovertemplate="x = %{x:.2f}<br>ratio = %{y:.4g}<extra></extra>")]
    shapes = [_hline(upper, PALETTE["orange"]), _hline(1 / upper, PALETTE["orange"]),
              _hline(1.0, GREY, dash="dot", width=1)]
    # Room above and below the band, in decades, so both band edges stay visible.
    span = max(float(np.log10(upper)), float(np.max(np.abs(np.log10(ratio)))), 0.05)
    return _figure("Density ratio p_D(x) / p_D′(x)", "released value x", "ratio (log scale)", traces,
                   shapes=shapes, xaxis={"range": [lo, hi]},
                   yaxis={"type": "log", "range": [-1.25 * span, 1.25 * span]})


def privacy_loss(x, loss, epsilon, samples_d, loss_d, samples_d_prime, loss_d_prime) -> go.Figure:
    """L(x) = ln(p_D(x)/p_D′(x)) against ±ε, with the sampled outputs placed on the curve."""
    lo, hi = float(np.min(x)), float(np.max(x))
    traces = [_band(lo, hi, -epsilon, epsilon, f"allowed: |L| ≤ ε = {epsilon:g}"),
              _line(x, loss, "L(x)", COLOUR_RATIO,
                    hovertemplate="x = %{x:.2f}<br>L = %{y:.3f}<extra></extra>"),
              _marks(samples_d, loss_d, "outputs of M(D)", COLOUR_D, "x-thin-open"),
              _marks(samples_d_prime, loss_d_prime, "outputs of M(D′)", COLOUR_D_PRIME, "circle-open")]
    shapes = [_hline(epsilon, PALETTE["orange"]), _hline(-epsilon, PALETTE["orange"])]
    span = max(float(epsilon), float(np.max(np.abs(loss))))
    return _figure("Privacy loss L(x) = ln(p_D(x) / p_D′(x))", "released value x", "privacy loss L(x)",
                   traces, shapes=shapes, xaxis={"range": [lo, hi]},
                   yaxis={"range": [-1.25 * span, 1.25 * span]})


# Probabilities that may label the log-odds axis of the posterior chart.
_BELIEF_TICKS = np.array([1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9,
                          0.95, 0.98, 0.99, 0.999, 0.9999, 0.99999, 0.999999])
_BELIEF_TICK_GAPS = 7  # ticks at least 1/7 of the axis apart, so they never crowd


def _log_odds(p):
    """logit(p) = ln(p/(1 − p)); ±inf at 0 and 1."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log1p(-p)


def _belief_text(p: float) -> str:
    """A probability as a percentage for a hover: never "100%" or "0%" unless it is exactly that."""
    if p <= 0 or p >= 1:
        return f"{100 * p:.0f}%"
    digits = 3 if p <= 0.99 else max(3, 2 + int(np.floor(-np.log10(1 - p))))
    return f"{number(100 * p, f'.{digits}g')}%"


def belief_axis(prior: float, epsilon: float) -> dict:
    """A log-odds y axis centred on the prior, reaching a third beyond the chosen ε (and at least
    ±2.7, so that a small ε still shows its band), with ticks labelled as percentages."""
    centre = float(_log_odds(prior))
    reach = 1.35 * max(float(epsilon), 2.0)
    bottom, top = centre - reach, centre + reach
    chosen, last = [], -np.inf
    for p, y in zip(_BELIEF_TICKS, _log_odds(_BELIEF_TICKS), strict=True):
        if bottom <= y <= top and y - last >= (top - bottom) / _BELIEF_TICK_GAPS:
            chosen.append(float(p))
            last = y
    return {"type": "linear", "range": [bottom, top],
            "tickvals": [float(v) for v in _log_odds(chosen)],
            "ticktext": [f"{100 * p:g}%" for p in chosen], "zeroline": False}


def posterior_band(epsilons, lower, upper, prior, epsilon, chosen_lower, chosen_upper,
                   simple_lower=None, simple_upper=None, labels=None) -> go.Figure:
    """How far one ε-DP output can move a prior, as a function of ε (log axis).

    Beliefs are drawn on a log-odds axis (tick labels in %): an ε-DP output moves the log-odds
    by at most ±ε, so the tight band is symmetric about the prior and its width is visible at
    every prior, where a 0–100% axis squeezed a 2% prior's story into its bottom few percent.
    `labels` are the texts at the chosen ε (default: one decimal of a percent); the upper sits
    above its marker and the lower below, so they never overlap.
    """
    axis = belief_axis(prior, epsilon)
    bottom, top = axis["range"]

    def y_of(p):  # log-odds, held just outside the plot where a bound reaches 0% or 100%
        return np.clip(_log_odds(p), bottom - 1, top + 1)

    def line(p, name, colour, dash="solid", **kwargs):
        p = np.asarray(p, dtype=float)
        return _line(epsilons, y_of(p), name, colour, dash, text=[_belief_text(v) for v in p],
                     hovertemplate="ε = %{x:.3g}: %{text}<extra>" + name + "</extra>", **kwargs)

    traces = [line(upper, "highest possible belief", COLOUR_RATIO),
              line(lower, "lowest possible belief", PALETTE["blue"], dash="dash",
                   fill="tonexty", fillcolor="rgba(213, 94, 0, 0.12)")]
    if simple_lower is not None:
        traces += [line(simple_upper, "lecture's simpler bound p·e^±ε", GREY, dash="dot"),
                   line(simple_lower, "lecture's simpler bound", GREY, dash="dot", showlegend=False)]
    low_text, high_text = labels or (f"{chosen_lower:.1%}", f"{chosen_upper:.1%}")
    traces.append(dict(type="scatter",
        x=[epsilon, epsilon], y=[float(y_of(chosen_lower)), float(y_of(chosen_upper))],
        mode="markers+text", text=[low_text, high_text], textposition=["bottom left", "top left"],
        marker={"color": COLOUR_RATIO, "size": 11, "symbol": "diamond"},
        name="at the chosen ε", textfont={"color": "#1a1a1a"}, hovertemplate="%{text}<extra></extra>",
    ))
    centre = float(_log_odds(prior))
    shapes = [_hline(centre, INK_SOFT, dash="longdash", width=1.5), _vline(epsilon, GREY)]
    annotations = [_label(f"prior {prior:.0%}", INK_SOFT, x=0.99, xanchor="right", y=centre)]
    return _figure(f"Belief after one ε-DP output (prior {prior:.0%})",
                   "ε (log scale)", "attacker's belief afterwards (log-odds scale)", traces,
                   shapes=shapes, annotations=annotations, xaxis={"type": "log"}, yaxis=axis)


def membership_region(fpr, tpr_max, tpr_min, epsilon, delta, roc_fpr=None, roc_tpr=None) -> go.Figure:
    """The (false positive, true positive) pairs any membership test can reach under (ε, δ)-DP."""
    label = f"ε = {epsilon:g}" + (f", δ = {number(delta, 'g')}" if delta else "")
    traces = [_line(fpr, tpr_min, "worst test", GREY, dash="dot", showlegend=False, hoverinfo="skip"),
              _line(fpr, tpr_max, "best possible test", COLOUR_RATIO, fill="tonexty", fillcolor=REGION,
                    hovertemplate="FPR %{x:.2f} → TPR ≤ %{y:.3f}<extra></extra>"),
              _line([0, 1], [0, 1], "coin flip", GREY, dash="dash")]
    if roc_fpr is not None:
        traces.append(_line(roc_fpr, roc_tpr, "threshold tests on a Laplace count", COLOUR_D,
                            dash="dashdot"))
    return _figure(f"What any membership test can achieve ({label})",
                   "false positive rate (says 'in' when out)", "true positive rate (says 'in' when in)",
                   traces, xaxis={"range": [0, 1], "constrain": "domain"},
                   yaxis={"range": [0, 1.01], "scaleanchor": "x", "scaleratio": 1, "constrain": "domain"},
                   height=520)


def game_tally(correct: list[bool], ceiling: float, laplace_best: float) -> go.Figure:
    """The student's running accuracy over the rounds, against what is possible."""
    rounds = np.arange(1, len(correct) + 1)
    running = np.cumsum(np.asarray(correct, dtype=float)) / rounds if len(correct) else np.array([])
    traces = [dict(type="scatter", x=rounds, y=running, mode="lines+markers", name="you",
                         line={"color": PALETTE["blue"], "width": LINE_WIDTH},
                         marker={"symbol": "circle", "size": 7, "color": PALETTE["blue"]})]
    shapes = [_hline(ceiling, COLOUR_RATIO), _hline(laplace_best, COLOUR_D, dash="dot"),
              _hline(0.5, GREY, dash="longdash", width=1.5)]
    annotations = [
        _label(f"ceiling for any ε-DP release: {ceiling:.1%}", COLOUR_RATIO, y=ceiling),
        _label(f"best against this Laplace count: {laplace_best:.1%}", COLOUR_D, y=laplace_best,
               yanchor="top"),
        _label("coin flip: 50%", GREY, x=0.99, xanchor="right", y=0.5, yanchor="top"),
    ]
    return _figure("Your running accuracy", "round", "share of correct guesses", traces,
                   shapes=shapes, annotations=annotations, showlegend=False, height=360,
                   margin={"b": 60}, yaxis={"range": [0, 1.05], "tickformat": ".0%"},
                   xaxis={"range": [0.5, max(10, len(correct)) + 0.5]})
