"""Charts for "Why anonymisation fails": linkage uniqueness, anonymity sets, the noisy
differencing attack, and the Dinur–Nissim reconstruction sweep.

Numbers in, plotly Figure (or plain table data) out; no Streamlit calls.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from dp.linkage import noisy_difference_density
from ui.theme import FONT_SIZE, GREY, INK, PALETTE, figure, series_style

SWEENEY_SHARE = 0.87  # Sweeney 2000: 87% of the 1990 US population, by (ZIP, birth date, sex)
# Two-line labels: on the projector the chart sits in a 470 px column, where "6–20" and
# "21–100" on one line ran into each other ("6–2021–100over").
ANONYMITY_BINS = [(1, 1, "1<br>(named)"), (2, 2, "2"), (3, 5, "3–5"), (6, 20, "6–<br>20"),
                  (21, 100, "21–<br>100"), (101, None, "over<br>100")]


def _vertical(fig: go.Figure, x: float, y_range: tuple[float, float], name: str, *,
              color: str = INK, dash: str = "dot") -> None:
    """A vertical marker line drawn as a trace, so it has a legend entry (not a floating label)."""
    fig.add_trace(dict(type="scatter", x=[x, x], y=list(y_range), mode="lines", name=name,
                             line={"color": color, "dash": dash, "width": 2}, hoverinfo="name+x"))


def _legend_below(fig: go.Figure, rows: int = 2) -> None:
    """Legend under the x-axis title: never over the title, and it wraps on a phone."""
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0,
                              "xanchor": "left"},
                      margin={"b": 90 + 28 * rows}, height=420 + 28 * rows)


def uniqueness_chart(populations: np.ndarray, curves: dict[str, np.ndarray], chosen: str,
                     n_now: int, share_now: float, zip_label: str) -> go.Figure:
    """Share of hospital records singled out by the join, against the county's population.

    One expected-share curve per birth-date resolution (at the chosen ZIP digits), the chosen
    one drawn bold, the simulated share for this county as a star, and Sweeney's 87%.
    """
    fig = figure(f"Patients named by the join ({zip_label})",
                 "people in the county, n (log scale)", "hospital records named (%)")
    for i, (label, shares) in enumerate(curves.items()):
        style = series_style(i)
        if label != chosen:
            style["line"]["width"] = 1.5
        fig.add_trace(dict(type="scatter", x=populations, y=100 * np.asarray(shares), mode="lines",
                                 name=f"birth {label}" + (" (chosen)" if label == chosen else ""),
                                 opacity=1.0 if label == chosen else 0.55, **style,
                                 hovertemplate="n = %{x:,}: %{y:.1f}%<extra>birth " + label + "</extra>"))
    fig.add_trace(dict(type="scatter", x=[populations[0], populations[-1]], y=[100 * SWEENEY_SHARE] * 2,
                             mode="lines", name="87%: US estimate for (ZIP, birth date, sex)",
                             line={"color": GREY, "dash": "dot", "width": 2}, hoverinfo="skip"))
    fig.add_trace(dict(type="scatter", x=[n_now], y=[100 * share_now], mode="markers",
                             name=f"this county: {100 * share_now:.1f}% named",
                             marker={"color": PALETTE["vermillion"], "symbol": "star", "size": 18,
                                     "line": {"color": INK, "width": 1}},
                             hovertemplate="n = %{x:,}: %{y:.1f}% (simulated)<extra></extra>"))
    fig.update_xaxes(type="log", exponentformat="none", separatethousands=True)
    fig.update_yaxes(range=[-3, 103])
    _legend_below(fig, rows=3)
    return fig


def anonymity_chart(matches: np.ndarray) -> go.Figure:
    """How many voters share each hospital record's released (ZIP, birth date, sex)."""
    matches = np.asarray(matches)
    labels, shares = [], []
    for low, high, label in ANONYMITY_BINS:
        inside = (matches >= low) if high is None else ((matches >= low) & (matches <= high))
        labels.append(label)
        shares.append(100 * float(np.mean(inside)) if len(matches) else 0.0)
    colours = [PALETTE["vermillion"]] + [PALETTE["sky"]] * (len(labels) - 1)
    fig = figure("Voters sharing each record's released columns", "matching voters (anonymity set)",
                 "hospital records (%)")
    fig.add_trace(dict(type="bar", x=labels, y=shares, marker={"color": colours, "line": {"color": INK, "width": 1}},
                         text=[f"{s:.1f}%" for s in shares], textposition="outside",
                         hovertemplate="%{x} voters: %{y:.1f}% of records<extra></extra>",
                         showlegend=False))
    fig.update_yaxes(range=[0, 115])
    # Six labels side by side fit a phone only upright, at a size smaller than the axis title.
    fig.update_xaxes(tickangle=0, tickfont={"size": FONT_SIZE - 2})
    fig.update_layout(height=360)
    return fig


def differencing_chart(epsilon: float, observed: float) -> go.Figure:
    """Densities of q̃₁ − q̃₂ when the target has the diagnosis (centred at 1) and when not
    (centred at 0), each count with Lap(1/ε) noise; the ½ cut-off and the answer drawn."""
    spread = 6 / epsilon
    low, high = min(-spread, observed - 0.5), max(1 + spread, observed + 0.5)
    z = np.linspace(low, high, 400)
    fig = figure(f"What the attacker sees: q̃₁ − q̃₂ at ε = {epsilon:g} per count",
                 "q̃₁ − q̃₂ (patients)", "probability density")
    curves = [(noisy_difference_density(z, epsilon), "if the target does not have it (truth 0)"),
              (noisy_difference_density(z - 1, epsilon), "if the target has it (truth 1)")]
    for i, (density, name) in enumerate(curves):
        fig.add_trace(dict(type="scatter", x=z, y=density, mode="lines", name=name, **series_style(i),
                                 hovertemplate="%{x:.2f}: %{y:.3f}<extra></extra>"))
    top = 1.1 * max(float(curves[0][0].max()), float(curves[1][0].max()))
    _vertical(fig, 0.5, (0, top), "attacker's cut-off: ½", color=GREY)
    _vertical(fig, observed, (0, top), f"the answer you got: {observed:.2f}",
              color=PALETTE["vermillion"], dash="dash")
    fig.update_xaxes(range=[low, high])
    fig.update_yaxes(range=[0, top])
    _legend_below(fig, rows=3)
    return fig


def reconstruction_chart(noise_grid: np.ndarray, recovered: np.ndarray, sqrt_n: float,
                         noise_now: float, recovered_now: float, baseline: float) -> go.Figure:
    """Fraction of secret bits recovered by the LP attack against the noise bound E."""
    fig = figure("Bits recovered by the LP attack", "noise bound E (each answer off by ≤ E)",
                 "secret bits recovered (%)")
    fig.add_vrect(x0=0, x1=sqrt_n, fillcolor=PALETTE["vermillion"], opacity=0.07, line_width=0)
    fig.add_trace(dict(type="scatter", x=noise_grid, y=100 * np.asarray(recovered), mode="lines+markers",
                             name="recovered (same queries, growing noise)", **series_style(0),
                             hovertemplate="E = %{x:.2f}: %{y:.1f}%<extra></extra>"))
    fig.add_trace(dict(type="scatter", x=[0, max(noise_grid[-1], noise_now)], y=[100 * baseline] * 2,
                             mode="lines", name=f"guess the majority bit: {100 * baseline:.0f}%",
                             line={"color": GREY, "dash": "dash", "width": 2}, hoverinfo="skip"))
    _vertical(fig, sqrt_n, (0, 102), f"E = √n = {sqrt_n:.1f}", color=INK)
    fig.add_trace(dict(type="scatter", x=[noise_now], y=[100 * recovered_now], mode="markers",
                             name=f"your E = {noise_now:g}: {100 * recovered_now:.0f}%",
                             marker={"color": PALETTE["vermillion"], "symbol": "star", "size": 18,
                                     "line": {"color": INK, "width": 1}},
                             hovertemplate="E = %{x:g}: %{y:.1f}%<extra></extra>"))
    fig.update_yaxes(range=[0, 102])
    fig.update_xaxes(range=[-0.02 * max(noise_grid[-1], noise_now), 1.02 * max(noise_grid[-1], noise_now)])
    _legend_below(fig, rows=3)
    return fig


def people_grid_chart(secret: np.ndarray, recovered: np.ndarray, columns: int = 20) -> go.Figure:
    """One mark per person, in rows of `columns`: a square coloured by the secret bit where the
    attacker got it right, a red ✕ where the attacker got it wrong."""
    secret = np.asarray(secret)
    recovered = np.asarray(recovered)
    n = len(secret)
    index = np.arange(n)
    x, y = index % columns, -(index // columns)
    right = secret == recovered
    fig = figure(f"{n} people's secret bits, after the attack", "", "")
    groups = [(right & (secret == 1), "recovered: secret 1",
               {"symbol": "square", "size": 11, "color": PALETTE["blue"]}),
              (right & (secret == 0), "recovered: secret 0",
               {"symbol": "square-open", "size": 10, "color": PALETTE["blue"], "line": {"width": 2}}),
              (~right, f"wrong ({int((~right).sum())})",
               {"symbol": "x", "size": 12, "color": PALETTE["vermillion"]})]
    for rows, name, marker in groups:
        fig.add_trace(dict(type="scatter", x=x[rows], y=y[rows], mode="markers", name=name, marker=marker,
                                 customdata=np.stack([index[rows] + 1, secret[rows]], axis=-1),
                                 hovertemplate="person %{customdata[0]}: secret bit %{customdata[1]}"
                                               f", {name.split(':')[0].split(' (')[0]}<extra></extra>"))
    rows_of_people = int(np.ceil(n / columns))
    fig.update_xaxes(visible=False, range=[-1, columns], showgrid=False)
    fig.update_yaxes(visible=False, range=[-rows_of_people, 1], showgrid=False)
    fig.update_layout(height=190 + 22 * rows_of_people, margin={"l": 10, "r": 10, "b": 90, "t": 50},
                      legend={"orientation": "h", "yanchor": "top", "y": -0.02, "x": 0,
                              "xanchor": "left"})
    return fig


def join_table(released: dict[str, list], matches: np.ndarray, names: list[str | None]) -> dict[str, list]:
    """The join's result, row by row: whom the voter roll names next to their diagnosis
    (first, so a phone shows them), how many voters match, then the released columns."""
    rest = {column: values for column, values in released.items() if column != "diagnosis"}
    return {
        "name (voter roll)": [name if name is not None else f"? ({int(m)} candidates)"
                              for name, m in zip(names, matches, strict=True)],
        "diagnosis": released["diagnosis"],
        "matches": [int(m) for m in matches],
        **rest,
    }
