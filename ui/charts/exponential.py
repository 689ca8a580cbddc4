"""Charts for "The exponential mechanism": selection probabilities and the utility line, the
most-common-disease race, private medians, the digital-goods auction, a coin's bias, and the
factor of two in the notes' convention.

Numbers in, plotly Figure out; the numbers come from dp.selection, dp.auction and dp.medians.
Each figure is built in one go (traces, shapes and annotations collected first): plotly
validates every incremental add_* call, and that cost more than the maths on this page.
The look is ui.theme's: the "dplab" template, series_style, PALETTE and GREY.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.plain_figure import PlainFigure
from ui.theme import GREY, HEIGHT, PALETTE, TEMPLATE, series_style

MAX_LINES = 5  # candidates drawn one by one in the ε sweep (6 if that is all); the rest are summed
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0, "xanchor": "left"}
DOTTED = {"color": GREY, "width": 1.5, "dash": "dot"}


def _fmt(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def _figure(title: str, x_title: str, y_title: str, data: list, *, shapes=(), annotations=(),
            xaxis=None, yaxis=None, legend_y: float = -0.22, **layout) -> go.Figure:
    """ui.theme.figure's look, with every trace and decoration passed at construction."""
    return PlainFigure(data, {
        "template": TEMPLATE, "title": {"text": title},
        "xaxis": {"title": {"text": x_title}, **(xaxis or {})},
        "yaxis": {"title": {"text": y_title}, **(yaxis or {})},
        "legend": {**LEGEND_BELOW, "y": legend_y},
        "shapes": list(shapes), "annotations": list(annotations), **layout,
    })


def _line(x, y, name: str, style: int, **kwargs) -> dict:
    s = series_style(style)
    return {"type": "scatter", "x": np.asarray(x), "y": np.asarray(y), "name": name, "line": s["line"],
            "marker": s["marker"], "mode": "lines", **kwargs}


def _vline(x: float, text: str, log: bool = False) -> tuple[dict, dict]:
    """A dotted marker line at x with a label at the top. On a log axis, shapes take data
    coordinates but annotations take log10 of them (a plotly quirk)."""
    shape = {"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
             "line": DOTTED}
    label = {"x": math.log10(x) if log else x, "xref": "x", "y": 1, "yref": "paper", "text": text,
             "showarrow": False, "xanchor": "left", "yanchor": "bottom", "xshift": 2,
             "font": {"color": GREY}}
    return shape, label


def _hline(y: float, text: str, position: str = "right", line=None, yref: str = "y",
           xref: str = "paper", color: str = GREY) -> tuple[dict, dict]:
    shape = {"type": "line", "xref": xref, "yref": yref, "x0": 0, "x1": 1, "y0": y, "y1": y,
             "line": line or DOTTED}
    label = {"x": 1 if position == "right" else 0, "xref": xref, "y": y, "yref": yref, "text": text,
             "showarrow": False, "xanchor": position, "yanchor": "bottom", "font": {"color": color},
             "bgcolor": "rgba(255,255,255,0.8)"}
    return shape, label


def _hatched(colour: str, shapes) -> dict:
    return {"color": colour, "pattern": {"shape": shapes, "fgcolor": "white", "fillmode": "overlay"}}


# --- Selection in general ----------------------------------------------------------------

def selection_figure(names: Sequence[str], scores, probabilities, threshold: float,
                     notes_probabilities=None) -> go.Figure:
    """Scores with the utility-theorem line (top panel) and each candidate's chance (bottom).

    Candidates with u ≤ threshold get hatched bars, so "below the line" is not told by colour only.
    """
    scores, probabilities = np.asarray(scores, float), np.asarray(probabilities, float)
    names = list(names)
    hatch = ["/" if below else "" for below in scores <= threshold]
    data = [
        {"type": "bar", "x": names, "y": scores, "name": "score u(r)", "showlegend": False,
         "yaxis": "y2", "marker": _hatched(GREY, hatch), "hovertemplate": "%{x}: u = %{y}<extra></extra>"},
        {"type": "bar", "x": names, "y": probabilities, "name": "Pr[chosen], exp(εu/(2Δu)): ε-DP",
         "marker": _hatched(PALETTE["blue"], hatch), "hovertemplate": "%{x}: %{y:.3f}<extra></extra>"},
    ]
    if notes_probabilities is not None:
        data.append({"type": "bar", "x": names, "y": np.asarray(notes_probabilities),
                     "name": "notes' exp(εu/Δu): 2ε-DP", "marker": _hatched(PALETTE["orange"], "."),
                     "hovertemplate": "%{x}: %{y:.3f}<extra></extra>"})
    line, line_label = _hline(threshold, f"OPT − 2Δu(ln|R| + t)/ε = {_fmt(threshold)}", yref="y2",
                              line={"color": PALETTE["vermillion"], "dash": "dash", "width": 2},
                              color=PALETTE["vermillion"])
    uniform, uniform_label = _hline(1 / len(names), "uniform 1/|R|")
    # Names sit side by side under narrow bars ("Hypertension" ran into "Diabetes" at 1440 px):
    # slant them once there are more than a few, and let the margin grow to fit.
    slant = {"tickangle": -45, "automargin": True} if len(names) > 4 else {}
    return _figure("Scores, and who gets chosen", "candidate (hatched: below the line)", "probability",
                   data, shapes=[line, uniform], annotations=[line_label, uniform_label], xaxis=slant,
                   yaxis={"domain": [0, 0.55], "range": [0, 1.02]},
                   yaxis2={"domain": [0.66, 1], "anchor": "x", "title": {"text": "score u"},
                           "showgrid": True, "gridcolor": "#e5e5e5", "linecolor": GREY},
                   height=HEIGHT + 160, barmode="group", bargap=0.2, legend_y=-0.2)


def selection_sweep_figure(epsilons, names: Sequence[str], probabilities, epsilon: float) -> go.Figure:
    """Pr[chosen] against ε (log axis) for the top candidates; the rest are summed in grey.

    `probabilities` has one row per ε and one column per candidate.
    """
    probabilities = np.asarray(probabilities, float)
    order = np.argsort(-probabilities[-1], kind="stable")
    shown = len(names) if len(names) <= MAX_LINES + 1 else MAX_LINES
    data = [_line(epsilons, probabilities[:, j], str(names[j]), i) for i, j in enumerate(order[:shown])]
    if len(names) > shown:
        data.append({"type": "scatter", "x": np.asarray(epsilons), "mode": "lines",
                     "y": probabilities[:, order[shown:]].sum(axis=1),
                     "name": f"the other {len(names) - shown} together",
                     "line": {"color": GREY, "dash": "dot", "width": 2}})
    marker, label = _vline(epsilon, f"ε = {epsilon:g}", log=True)
    return _figure("From uniform to the argmax as ε grows", "ε (log scale)", "Pr[chosen]", data,
                   shapes=[marker], annotations=[label], xaxis={"type": "log"},
                   yaxis={"range": [0, 1.02]})


# --- Most common disease -------------------------------------------------------------------

def disease_figure(epsilons, curves: dict[str, np.ndarray], labels: dict[str, str], k: int,
                   epsilon: float) -> go.Figure:
    """Pr[the true top disease is reported] against ε for each method, with chance level 1/k,
    and each method's value at the chosen ε marked."""
    data = []
    for i, (key, values) in enumerate(curves.items()):
        data.append(_line(epsilons, values, labels[key], i))
        now = float(np.interp(np.log(epsilon), np.log(epsilons), values))
        data.append({"type": "scatter", "x": [epsilon], "y": [now], "mode": "markers", "showlegend": False,
                     "marker": {**series_style(i)["marker"], "size": 12},
                     "hovertemplate": f"{labels[key]}<br>ε = {epsilon:g}: %{{y:.1%}}<extra></extra>"})
    chance, chance_label = _hline(1 / k, "blind guess 1/k")
    marker, label = _vline(epsilon, f"ε = {epsilon:g}", log=True)
    return _figure(f"Finding the top of k = {k:,} diseases", "ε (log scale)", "Pr[true top chosen]", data,
                   shapes=[chance, marker], annotations=[chance_label, label], xaxis={"type": "log"},
                   yaxis={"range": [0, 1.02]})


# --- Private median --------------------------------------------------------------------------

MEDIAN_LABELS = {
    "exponential": "exponential mechanism",
    "laplace": "Laplace on the median",
    "histogram": "noisy-histogram median",
}


def median_outputs_figure(centres, data_share, outputs: dict[str, np.ndarray], true_median: float,
                          x_title: str, discrete: bool) -> go.Figure:
    """Where each private median lands (probability per bin or level), over the data's histogram."""
    data = [{"type": "bar", "x": np.asarray(centres, float), "y": np.asarray(data_share),
             "name": "the data (share per bin)", "marker": {"color": "#d9d9d9", "line": {"color": GREY, "width": 0.5}},
             "hovertemplate": "%{x}: %{y:.3f}<extra>data</extra>"}]
    for i, (key, probabilities) in enumerate(outputs.items()):
        data.append(_line(centres, probabilities, MEDIAN_LABELS[key], i,
                          mode="lines+markers" if discrete else "lines",
                          line_shape="linear" if discrete else "hvh"))
    marker, label = _vline(true_median, f"true median {_fmt(true_median)}")
    return _figure("Where the private medians land", x_title, "share of data / probability", data,
                   shapes=[marker], annotations=[label], yaxis={"rangemode": "tozero"}, bargap=0.05)


def median_scores_figure(x, probabilities, errors, x_title: str, title: str) -> go.Figure:
    """The exponential mechanism's view: probability (bars) and rank error (line, right axis)."""
    data = [
        {"type": "bar", "x": np.asarray(x), "y": np.asarray(probabilities), "name": "Pr[output here]",
         "marker": {"color": PALETTE["blue"]}},
        {"type": "scatter", "x": np.asarray(x), "y": np.asarray(errors), "mode": "lines", "yaxis": "y2",
         "name": "rank error = −score (right axis)", "line": series_style(1)["line"]},
    ]
    return _figure(title, x_title, "probability", data, yaxis={"rangemode": "tozero"}, bargap=0,
                   yaxis2={"title": {"text": "rank error (people)"}, "overlaying": "y", "side": "right",
                           "showgrid": False, "rangemode": "tozero", "tickmode": "auto", "nticks": 6,
                           "tickformat": ",.0f"})


def rank_error_figure(x, errors: dict[str, np.ndarray], x_title: str, current: float,
                      current_label: str, title: str) -> go.Figure:
    """Mean rank error (people, log scale) of the three medians against ε or n (log scale)."""
    # Rank error can be exactly 0 (a level holding the median); log axes need a floor.
    data = [_line(x, np.maximum(values, 0.01), MEDIAN_LABELS[key], i, mode="lines+markers")
            for i, (key, values) in enumerate(errors.items())]
    marker, label = _vline(current, current_label, log=True)
    return _figure(title, x_title, "mean rank error (people, log)", data, shapes=[marker],
                   annotations=[label], xaxis={"type": "log"}, yaxis={"type": "log", "dtick": 1},
                   legend_y=-0.25)


# --- Digital goods auction -----------------------------------------------------------------

def revenue_figure(x, y, bid_prices, bid_revenues, opt_price: float, highest: float | None,
                   annotate_jump: bool) -> go.Figure:
    """revenue(p) = p·#{bids ≥ p}, with the revenue at each bid marked and the cliff just above
    the highest bid annotated."""
    data = [{"type": "scatter", "x": np.asarray(x), "y": np.asarray(y), "mode": "lines", "name": "revenue(p)",
             "line": series_style(0)["line"], "connectgaps": False,
             "hovertemplate": "p = %{x:.2f}: %{y:.2f}<extra></extra>"}]
    if len(bid_prices) <= 60:
        data.append({"type": "scatter", "x": np.asarray(bid_prices), "y": np.asarray(bid_revenues),
                     "mode": "markers", "name": "price = a bid", "marker": series_style(0)["marker"],
                     "hovertemplate": "p = %{x:.2f}: %{y:.2f}<extra></extra>"})
    marker, label = _vline(opt_price, f"best price {opt_price:.2f}")
    annotations = [label]
    if annotate_jump and highest is not None:
        annotations += [
            {"x": highest, "y": highest, "text": f"p = {highest:.2f}: revenue {highest:.2f}",
             "showarrow": True, "arrowhead": 2, "ax": -30, "ay": -45},
            {"x": highest + 0.01, "y": 0, "text": f"p = {highest + 0.01:.2f}: revenue 0",
             "showarrow": True, "arrowhead": 2, "ax": 30, "ay": -70},
        ]
    return _figure("Revenue at each price", "price p", "revenue p·#{bids ≥ p}", data, shapes=[marker],
                   annotations=annotations, yaxis={"rangemode": "tozero"})


def price_figure(prices, probabilities, epsilon: float, opt_price: float) -> go.Figure:
    """Pr[price p] under the exponential mechanism: bars for a few prices, a line for a menu."""
    prices, probabilities = np.asarray(prices, float), np.asarray(probabilities, float)
    if prices.size <= 60:
        trace = {"type": "bar", "x": prices, "y": probabilities, "name": "Pr[price]",
                 "marker": {"color": PALETTE["blue"]}, "width": np.full(prices.size, 0.04 * max(prices.max(), 1)),
                 "hovertemplate": "p = %{x:.2f}: %{y:.3f}<extra></extra>"}
    else:
        trace = {"type": "scatter", "x": prices, "y": probabilities, "name": "Pr[price]", "mode": "lines",
                 "line": series_style(0)["line"], "fill": "tozeroy",
                 "hovertemplate": "p = %{x:.2f}: %{y:.4f}<extra></extra>"}
    marker, label = _vline(opt_price, "best price")
    return _figure(f"Which price is picked at ε = {epsilon:g}", "price p", "Pr[price p]", [trace],
                   shapes=[marker], annotations=[label], yaxis={"rangemode": "tozero"}, showlegend=False)


def expected_revenue_figure(epsilons, expected, opt: float, guarantee, epsilon: float) -> go.Figure:
    """E[revenue] of the mechanism against ε, the best possible OPT, and the theorem's floor."""
    data = [
        _line(epsilons, expected, "E[revenue], exponential mechanism", 0),
        _line(epsilons, np.full(len(epsilons), opt), f"OPT = {_fmt(opt)}", 2),
        _line(epsilons, np.maximum(np.asarray(guarantee), 0), "guaranteed: OPT − 2Δu(ln|R| + 1)/ε", 1),
    ]
    marker, label = _vline(epsilon, f"ε = {epsilon:g}", log=True)
    return _figure("Expected revenue against ε", "ε (log scale)", "revenue", data, shapes=[marker],
                   annotations=[label], xaxis={"type": "log"}, yaxis={"rangemode": "tozero"})


def truthfulness_figure(reports, utilities, value: float, truthful: float, bound: float) -> go.Figure:
    """One bidder's expected utility against the bid they report; lying never beats e^ε × the truth."""
    ends = [reports[0], reports[-1]]
    data = [
        _line(reports, utilities, "expected utility when reporting this bid", 0),
        _line(ends, [truthful, truthful], f"truthful: {truthful:.3f}", 2),
        _line(ends, [bound, bound], f"e^ε × truthful: {bound:.3f}", 1),
    ]
    marker, label = _vline(value, f"true value {value:.2f}")
    return _figure("Can one bidder gain by lying?", "reported bid", "bidder's expected utility", data,
                   shapes=[marker], annotations=[label])


# --- A coin's bias -----------------------------------------------------------------------------

def coin_density_figure(grid, exponential_density, centres, laplace_density, estimate: float) -> go.Figure:
    """Distribution of θ̂ given the data: the truncated Beta (exact) and Laplace on counts (sampled)."""
    data = [
        _line(grid, exponential_density, "exponential mechanism (truncated Beta)", 0),
        _line(centres, laplace_density, "Laplace on the two counts", 1, line_shape="hvh"),
    ]
    marker, label = _vline(estimate, f"non-private N_H/N = {estimate:.3f}")
    return _figure("Private estimates of θ, this data", "estimate θ̂", "density", data, shapes=[marker],
                   annotations=[label], yaxis={"rangemode": "tozero"})


def coin_variance_figure(flips, variances: dict[str, np.ndarray], current: int) -> go.Figure:
    """Var(θ̂ | data) against N, log-log: slope −1 for the exponential mechanism, −2 for Laplace."""
    labels = {"exponential": "exponential mechanism: O(1/N)", "laplace": "Laplace on counts: O(1/N²)",
              "sampling": "the data's own sampling error θ(1−θ)/N"}
    data = []
    for i, (key, values) in enumerate(variances.items()):
        if key == "sampling":
            data.append({"type": "scatter", "x": np.asarray(flips), "y": np.asarray(values), "mode": "lines",
                         "name": labels[key], "line": {"color": GREY, "dash": "dot", "width": 2}})
        else:
            data.append(_line(flips, values, labels[key], i, mode="lines+markers"))
    marker, label = _vline(current, f"N = {current:,}", log=True)
    return _figure("Added variance against N", "N flips (log scale)", "Var(θ̂ | data), log scale", data,
                   shapes=[marker], annotations=[label], xaxis={"type": "log"},
                   yaxis={"type": "log", "dtick": 1, "exponentformat": "power"})


# --- The factor of two -------------------------------------------------------------------------

def loss_figure(ms, loss_app, loss_notes, epsilon: float, m: int) -> go.Figure:
    """Exact worst-case privacy loss of both conventions against the number of other options."""
    data = [
        _line(ms, loss_app, "this app: exp(εu/(2Δu))", 0, mode="lines+markers"),
        _line(ms, loss_notes, "the notes: exp(εu/Δu)", 1, mode="lines+markers"),
    ]
    shapes, annotations = [], []
    for level, text in ((epsilon, "ε"), (2 * epsilon, "2ε")):
        shape, label = _hline(level, text, position="left")
        shapes.append(shape)
        annotations.append(label)
    marker, label = _vline(m, f"m = {m}", log=True)
    return _figure("Exact privacy loss, approval vote", "m other options (log scale)",
                   "max over r of |ln(P_D(r) / P_D′(r))|", data, shapes=[*shapes, marker],
                   annotations=[*annotations, label], xaxis={"type": "log"}, yaxis={"rangemode": "tozero"})
