"""Charts for "The exponential mechanism": selection probabilities and the utility line, the
most-common-disease race, private medians, the digital-goods auction, a coin's bias, and the
factor of two in the notes' convention.

Numbers in, plotly Figure out; the numbers come from dp.selection, dp.auction and dp.medians.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.theme import GREY, HEIGHT, PALETTE, figure, series_style

MAX_LINES = 5  # candidates drawn one by one in the ε sweep; the rest are summed


def _fmt(value: float) -> str:
    return f"{value:,.3g}" if abs(value) < 1e4 else f"{value:,.0f}"


def _colour(i: int) -> str:
    return series_style(i)["line"]["color"]


def _line(x, y, name: str, style: int, **kwargs) -> go.Scatter:
    s = series_style(style)
    return go.Scatter(x=np.asarray(x), y=np.asarray(y), name=name, line=s["line"],
                      marker=s["marker"], **{"mode": "lines", **kwargs})


def _legend_below(fig: go.Figure, y: float = -0.22) -> go.Figure:
    """Legend under the plot: never on the title, and it wraps on a phone."""
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": y, "x": 0, "xanchor": "left"})
    return fig


def _vline(fig: go.Figure, x: float, text: str, log: bool = False) -> None:
    """A dotted marker line at x, labelled at the top. On a log axis, shapes take data
    coordinates but annotations take log10 of them (a plotly quirk)."""
    fig.add_vline(x=x, line={"color": GREY, "width": 1.5, "dash": "dot"})
    fig.add_annotation(x=math.log10(x) if log else x, xref="x", y=1, yref="paper", text=text,
                       showarrow=False, xanchor="left", yanchor="bottom", xshift=2,
                       font={"color": GREY})


# --- Selection in general ----------------------------------------------------------------

def selection_figure(names: Sequence[str], scores, probabilities, threshold: float,
                     notes_probabilities=None) -> go.Figure:
    """Scores with the utility-theorem line (top) and the chosen candidate's probabilities (bottom).

    Candidates with u ≤ threshold get hatched bars, so "below the line" is not told by colour only.
    """
    scores, probabilities = np.asarray(scores, float), np.asarray(probabilities, float)
    names = list(names)
    below = scores <= threshold
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        row_heights=[0.4, 0.6])
    fig.update_layout(template="dplab", height=HEIGHT + 160,
                      title={"text": "Scores, and who gets chosen"})
    hatch = ["/" if b else "" for b in below]
    fig.add_trace(go.Bar(x=names, y=scores, name="score u(r)", showlegend=False,
                         marker={"color": GREY, "pattern": {"shape": hatch, "fgcolor": "white", "fillmode": "overlay"}},
                         hovertemplate="%{x}: u = %{y}<extra></extra>"), row=1, col=1)
    fig.add_hline(y=threshold, line={"color": PALETTE["vermillion"], "dash": "dash", "width": 2},
                  annotation_text=f"OPT − 2Δu(ln|R| + t)/ε = {_fmt(threshold)}",
                  annotation_position="top right", annotation_bgcolor="rgba(255,255,255,0.85)",
                  annotation_font={"color": PALETTE["vermillion"]},
                  row=1, col=1)
    fig.add_trace(go.Bar(x=names, y=probabilities, name="Pr[chosen], exp(εu/(2Δu)): ε-DP",
                         marker={"color": PALETTE["blue"], "pattern": {"shape": hatch, "fgcolor": "white", "fillmode": "overlay"}},
                         hovertemplate="%{x}: %{y:.3f}<extra></extra>"), row=2, col=1)
    if notes_probabilities is not None:
        fig.add_trace(go.Bar(x=names, y=np.asarray(notes_probabilities), name="notes' exp(εu/Δu): 2ε-DP",
                             marker={"color": PALETTE["orange"], "pattern": {"shape": ".", "fgcolor": "white", "fillmode": "overlay"}},
                             hovertemplate="%{x}: %{y:.3f}<extra></extra>"), row=2, col=1)
    fig.add_hline(y=1 / len(names), line={"color": GREY, "dash": "dot", "width": 1.5},
                  annotation_text="uniform 1/|R|", annotation_position="top right",
                  annotation_font={"color": GREY}, row=2, col=1)
    fig.update_yaxes(title_text="score u", row=1, col=1)
    fig.update_yaxes(title_text="probability", range=[0, 1.02], row=2, col=1)
    fig.update_xaxes(title_text="candidate (hatched: below the line)", row=2, col=1)
    fig.update_layout(barmode="group", bargap=0.2)
    return _legend_below(fig, y=-0.2)


def selection_sweep_figure(epsilons, names: Sequence[str], probabilities, epsilon: float) -> go.Figure:
    """Pr[chosen] against ε (log axis) for the top candidates; the rest are summed in grey.

    `probabilities` has one row per ε and one column per candidate.
    """
    probabilities = np.asarray(probabilities, float)
    order = np.argsort(-probabilities[-1], kind="stable")
    fig = figure("From uniform to the argmax as ε grows", "ε (log scale)", "Pr[chosen]")
    shown = len(names) if len(names) <= MAX_LINES + 1 else MAX_LINES
    for i, j in enumerate(order[:shown]):
        fig.add_trace(_line(epsilons, probabilities[:, j], str(names[j]), i))
    if len(names) > shown:
        rest = probabilities[:, order[MAX_LINES:]].sum(axis=1)
        fig.add_trace(go.Scatter(x=np.asarray(epsilons), y=rest, mode="lines",
                                 name=f"the other {len(names) - MAX_LINES} together",
                                 line={"color": GREY, "dash": "dot", "width": 2}))
    _vline(fig, epsilon, f"ε = {epsilon:g}", log=True)
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0, 1.02])
    return _legend_below(fig)


# --- Most common disease -------------------------------------------------------------------

def disease_figure(epsilons, curves: dict[str, np.ndarray], labels: dict[str, str], k: int,
                   epsilon: float) -> go.Figure:
    """Pr[the true top disease is reported] against ε for each method, with chance level 1/k."""
    fig = figure(f"Finding the top of k = {k:,} diseases", "ε (log scale)",
                 "Pr[true top chosen]")
    for i, (key, values) in enumerate(curves.items()):
        fig.add_trace(_line(epsilons, values, labels[key], i))
        now = float(np.interp(np.log(epsilon), np.log(epsilons), values))
        fig.add_trace(go.Scatter(x=[epsilon], y=[now], mode="markers", showlegend=False,
                                 marker={**series_style(i)["marker"], "size": 12},
                                 hovertemplate=f"{labels[key]}<br>ε = {epsilon:g}: %{{y:.1%}}<extra></extra>"))
    fig.add_hline(y=1 / k, line={"color": GREY, "dash": "dot", "width": 1.5},
                  annotation_text="blind guess 1/k", annotation_position="bottom right",
                  annotation_font={"color": GREY})
    _vline(fig, epsilon, f"ε = {epsilon:g}", log=True)
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0, 1.02])
    return _legend_below(fig)


# --- Private median --------------------------------------------------------------------------

MEDIAN_LABELS = {
    "exponential": "exponential mechanism",
    "laplace": "Laplace on the median",
    "histogram": "noisy-histogram median",
}


def median_outputs_figure(centres, data_share, outputs: dict[str, np.ndarray], true_median: float,
                          x_title: str, discrete: bool) -> go.Figure:
    """Where each private median lands (probability per bin or level), over the data's histogram."""
    centres = np.asarray(centres, float)
    fig = figure("Where the private medians land", x_title, "share of data / probability")
    fig.add_trace(go.Bar(x=centres, y=np.asarray(data_share), name="the data (share per bin)",
                         marker={"color": "#d9d9d9", "line": {"color": GREY, "width": 0.5}},
                         hovertemplate="%{x}: %{y:.3f}<extra>data</extra>"))
    for i, (key, probabilities) in enumerate(outputs.items()):
        fig.add_trace(_line(centres, probabilities, MEDIAN_LABELS[key], i,
                            mode="lines+markers" if discrete else "lines",
                            line_shape="hvh" if not discrete else "linear"))
    _vline(fig, true_median, f"true median {_fmt(true_median)}")
    fig.update_layout(bargap=0.05)
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(fig)


def median_scores_figure(x, probabilities, errors, x_title: str, title: str) -> go.Figure:
    """The exponential mechanism's view: probability (bars) and rank error (line, right axis)."""
    fig = figure(title, x_title, "probability")
    fig.add_trace(go.Bar(x=np.asarray(x), y=np.asarray(probabilities), name="Pr[output here]",
                         marker={"color": PALETTE["blue"]}))
    style = series_style(1)
    fig.add_trace(go.Scatter(x=np.asarray(x), y=np.asarray(errors), name="rank error = −score (right axis)",
                             mode="lines", line=style["line"], yaxis="y2"))
    fig.update_layout(yaxis2={"title": "rank error (people)", "overlaying": "y", "side": "right",
                              "showgrid": False, "rangemode": "tozero", "tickmode": "auto",
                              "nticks": 6, "tickformat": ",.0f"}, bargap=0)
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(fig)


def rank_error_figure(x, errors: dict[str, np.ndarray], x_title: str, current: float,
                      current_label: str, title: str) -> go.Figure:
    """Mean rank error (people, log scale) of the three medians against ε or n (log scale)."""
    fig = figure(title, x_title, "mean rank error (people, log)")
    for i, (key, values) in enumerate(errors.items()):
        # Rank error can be exactly 0 (a level holding the median); log axes need a floor.
        fig.add_trace(_line(x, np.maximum(values, 0.01), MEDIAN_LABELS[key], i, mode="lines+markers"))
    _vline(fig, current, current_label, log=True)
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log", dtick=1)
    return _legend_below(fig, y=-0.25)


# --- Digital goods auction -----------------------------------------------------------------

def revenue_figure(x, y, bid_prices, bid_revenues, opt_price: float, highest: float | None,
                   annotate_jump: bool) -> go.Figure:
    """revenue(p) = p·#{bids ≥ p}, with the revenue at each bid marked and the cliff just above
    the highest bid annotated."""
    fig = figure("Revenue at each price", "price p", "revenue p·#{bids ≥ p}")
    fig.add_trace(go.Scatter(x=np.asarray(x), y=np.asarray(y), mode="lines", name="revenue(p)",
                             line=series_style(0)["line"], connectgaps=False,
                             hovertemplate="p = %{x:.2f}: %{y:.2f}<extra></extra>"))
    if len(bid_prices) <= 60:
        fig.add_trace(go.Scatter(x=np.asarray(bid_prices), y=np.asarray(bid_revenues), mode="markers",
                                 name="price = a bid", marker=series_style(0)["marker"],
                                 hovertemplate="p = %{x:.2f}: %{y:.2f}<extra></extra>"))
    if annotate_jump and highest is not None:
        fig.add_annotation(x=highest, y=highest, text=f"p = {highest:.2f}: revenue {highest:.2f}",
                           showarrow=True, arrowhead=2, ax=-30, ay=-45)
        fig.add_annotation(x=highest + 0.01, y=0, text=f"p = {highest + 0.01:.2f}: revenue 0",
                           showarrow=True, arrowhead=2, ax=30, ay=-70)
    _vline(fig, opt_price, f"best price {opt_price:.2f}")
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(fig)


def price_figure(prices, probabilities, epsilon: float, opt_price: float) -> go.Figure:
    """Pr[price p] under the exponential mechanism: bars for a few prices, a line for a menu."""
    prices, probabilities = np.asarray(prices, float), np.asarray(probabilities, float)
    fig = figure(f"Which price is picked at ε = {epsilon:g}", "price p", "Pr[price p]")
    if prices.size <= 60:
        fig.add_trace(go.Bar(x=prices, y=probabilities, name="Pr[price]",
                             marker={"color": PALETTE["blue"]}, width=np.full(prices.size, 0.04 * max(prices.max(), 1)),
                             hovertemplate="p = %{x:.2f}: %{y:.3f}<extra></extra>"))
    else:
        fig.add_trace(go.Scatter(x=prices, y=probabilities, name="Pr[price]", mode="lines",
                                 line=series_style(0)["line"], fill="tozeroy",
                                 hovertemplate="p = %{x:.2f}: %{y:.4f}<extra></extra>"))
    _vline(fig, opt_price, "best price")
    fig.update_yaxes(rangemode="tozero")
    fig.update_layout(showlegend=False)
    return fig


def expected_revenue_figure(epsilons, expected, opt: float, guarantee, epsilon: float) -> go.Figure:
    """E[revenue] of the mechanism against ε, the best possible OPT, and the theorem's floor."""
    fig = figure("Expected revenue against ε", "ε (log scale)", "revenue")
    fig.add_trace(_line(epsilons, expected, "E[revenue], exponential mechanism", 0))
    fig.add_trace(_line(epsilons, np.full(len(epsilons), opt), f"OPT = {_fmt(opt)}", 2))
    fig.add_trace(_line(epsilons, np.maximum(np.asarray(guarantee), 0),
                        "guaranteed: OPT − 2Δu(ln|R| + 1)/ε", 1))
    _vline(fig, epsilon, f"ε = {epsilon:g}", log=True)
    fig.update_xaxes(type="log")
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(fig)


def truthfulness_figure(reports, utilities, value: float, truthful: float, bound: float) -> go.Figure:
    """One bidder's expected utility against the bid they report; lying never beats e^ε × the truth."""
    fig = figure("Can one bidder gain by lying?", "reported bid", "bidder's expected utility")
    fig.add_trace(_line(reports, utilities, "expected utility when reporting this bid", 0))
    fig.add_trace(_line([reports[0], reports[-1]], [truthful, truthful],
                        f"truthful: {truthful:.3f}", 2))
    fig.add_trace(_line([reports[0], reports[-1]], [bound, bound], f"e^ε × truthful: {bound:.3f}", 1))
    _vline(fig, value, f"true value {value:.2f}")
    return _legend_below(fig)


# --- A coin's bias -----------------------------------------------------------------------------

def coin_density_figure(grid, exponential_density, centres, laplace_density, estimate: float) -> go.Figure:
    """Distribution of θ̂ given the data: the truncated Beta (exact) and Laplace on counts (sampled)."""
    fig = figure("Private estimates of θ, this data", "estimate θ̂", "density")
    fig.add_trace(_line(grid, exponential_density, "exponential mechanism (truncated Beta)", 0))
    fig.add_trace(_line(centres, laplace_density, "Laplace on the two counts", 1, line_shape="hvh"))
    _vline(fig, estimate, f"non-private N_H/N = {estimate:.3f}")
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(fig)


def coin_variance_figure(flips, variances: dict[str, np.ndarray], current: int) -> go.Figure:
    """Var(θ̂ | data) against N, log-log: slope −1 for the exponential mechanism, −2 for Laplace."""
    labels = {"exponential": "exponential mechanism: O(1/N)", "laplace": "Laplace on counts: O(1/N²)",
              "sampling": "the data's own sampling error θ(1−θ)/N"}
    fig = figure("Added variance against N", "N flips (log scale)",
                 "Var(θ̂ | data), log scale")
    for i, (key, values) in enumerate(variances.items()):
        if key == "sampling":
            fig.add_trace(go.Scatter(x=np.asarray(flips), y=values, name=labels[key], mode="lines",
                                     line={"color": GREY, "dash": "dot", "width": 2}))
        else:
            fig.add_trace(_line(flips, values, labels[key], i, mode="lines+markers"))
    _vline(fig, current, f"N = {current:,}", log=True)
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log", dtick=1, exponentformat="power")
    return _legend_below(fig)


# --- The factor of two -------------------------------------------------------------------------

def loss_figure(ms, loss_app, loss_notes, epsilon: float, m: int) -> go.Figure:
    """Exact worst-case privacy loss of both conventions against the number of other options."""
    fig = figure("Exact privacy loss, approval vote", "m other options (log scale)",
                 "max over r of |ln(P_D(r) / P_D′(r))|")
    fig.add_trace(_line(ms, loss_app, "this app: exp(εu/(2Δu))", 0, mode="lines+markers"))
    fig.add_trace(_line(ms, loss_notes, "the notes: exp(εu/Δu)", 1, mode="lines+markers"))
    for level, text in ((epsilon, "ε"), (2 * epsilon, "2ε")):
        fig.add_hline(y=level, line={"color": GREY, "dash": "dot", "width": 1.5}, annotation_text=text,
                      annotation_position="top left", annotation_font={"color": GREY})
    _vline(fig, m, f"m = {m}", log=True)
    fig.update_xaxes(type="log")
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(fig)
