"""The live class's projector charts: a quiz's votes (round 1 beside round 2), and the class game.

Numbers in, plotly Figure out; no Streamlit calls.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.theme import GREY, PALETTE, figure, series_style

LETTERS = "ABCDEFGH"
ROUND_COLOURS = ("sky", "blue")
ROUND_PATTERNS = ("", "/")  # colour is never the only signal: round 2's bars are hatched


def option_letter(i: int) -> str:
    return LETTERS[i]


def votes_figure(n_options: int, tally: dict[int, list[int]], answer: int | None = None) -> go.Figure:
    """Share of each round's votes per option (A, B, …), round 1 and round 2 side by side.

    `answer`, when given (after the reveal), marks the right option under its bars.
    """
    letters = [option_letter(i) for i in range(n_options)]
    rounds = sorted(r for r in tally if sum(tally[r]) or r == 1)
    fig = figure("The class's votes" + (": round 1 and round 2" if len(rounds) > 1 else ""),
                 "option", "share of the round's votes (%)",
                 yaxis={"title": {"text": "share of the round's votes (%)"}, "range": [0, 105]},
                 xaxis={"title": {"text": "option"}, "type": "category"},
                 barmode="group", bargap=0.25, height=420)
    traces = []
    for r in rounds:
        counts = np.asarray(tally[r], dtype=float)
        total = counts.sum()
        share = 100 * counts / total if total else counts
        colour = PALETTE[ROUND_COLOURS[(r - 1) % 2]]
        traces.append(go.Bar(
            x=letters, y=share.tolist(), name=f"round {r} ({int(total)} vote{'s' if total != 1 else ''})",
            marker={"color": colour, "pattern": {"shape": ROUND_PATTERNS[(r - 1) % 2]},
                    "line": {"color": colour, "width": 1}},
            # The share alone, at the chart's own type size: "67% (2)" beside a neighbour's
            # label ran into it, and Plotly shrank it to the bar's width, unreadable from the
            # back row. The counts are in the legend (each round's total) and the hover.
            text=[f"{s:.0f}%" for s in share], textposition="outside", cliponaxis=False,
            constraintext="none", customdata=counts.astype(int).tolist(),
            hovertemplate="option %{x}<br>%{y:.0f}% of round " + str(r) + " (%{customdata})<extra></extra>"))
    fig.add_traces(traces)
    if answer is not None:
        ticks = [f"<b>{letter} ✓</b>" if i == answer else letter for i, letter in enumerate(letters)]
        fig.update_xaxes(tickvals=letters, ticktext=ticks)
    return fig


def game_figure(epsilon: float, bound: tuple[np.ndarray, np.ndarray, np.ndarray],
                laplace: tuple[np.ndarray, np.ndarray], point: tuple[float, float] | None,
                n: int) -> go.Figure:
    """The class's (false positive rate, true positive rate) against what ε-DP allows.

    bound: (FPR, highest TPR, lowest TPR) that any guesser can reach under ε-DP, both
    impossible regions shaded; laplace: the best tests against this Laplace release; point:
    the class's rates over every dealt phone (None before there is one); n: dealt phones.
    Both axes run 0–1 at the same scale: the plot keeps its square and the figure's width
    holds it centred, instead of the axes stretching past the unit square. Labels are short
    (the lesson text says what the rates mean) so that the square gets the height.
    """
    square = {"range": [0, 1], "constrain": "domain", "tickformat": ".0%", "dtick": 0.25}
    fig = figure(f"The class as an attacker, ε = {epsilon:g}", "false positive rate", "true positive rate",
                 xaxis={"title": {"text": "false positive rate"}, **square},
                 yaxis={"title": {"text": "true positive rate"}, **square, "scaleanchor": "x", "scaleratio": 1},
                 height=520)
    fpr, highest, lowest = bound
    edge = fpr.tolist()
    gap = [None]  # two pieces in one trace: Plotly fills (and draws) each piece on its own
    traces = [
        go.Scatter(x=[*edge, 0.0, *gap, *edge, 1.0], y=[*highest.tolist(), 1.0, *gap, *lowest.tolist(), 0.0],
                   mode="none", fill="toself", fillcolor="rgba(213, 94, 0, 0.12)", showlegend=False,
                   name="impossible under ε-DP",
                   hoverinfo="skip"),
        go.Scatter(x=[*edge, *gap, *edge], y=[*highest.tolist(), *gap, *lowest.tolist()], mode="lines",
                   line=series_style(3)["line"], name="ε-DP bound (shaded: impossible)", hoverinfo="skip"),
        go.Scatter(x=laplace[0].tolist(), y=laplace[1].tolist(), mode="lines",
                   line=series_style(0)["line"], name="best guesses, this count", hoverinfo="skip"),
        go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line={"color": GREY, "dash": "dot", "width": 2},
                   name="coin flip", hoverinfo="skip"),
    ]
    if point is not None:
        fpr_at, tpr_at = point
        traces.append(go.Scatter(
            x=[fpr_at], y=[tpr_at], mode="markers+text", name=f"the class ({n} phone{'s' if n != 1 else ''})",
            marker={"color": PALETTE["green"], "symbol": "star", "size": 22,
                    "line": {"color": "black", "width": 1}},
            text=["the class"],  # beside the star, on the side with room (never on the tick labels)
            textposition=f"{'top' if tpr_at < 0.5 else 'bottom'} {'right' if fpr_at < 0.7 else 'left'}",
            cliponaxis=False,  # a point on an edge (a perfect class) is drawn whole
            hovertemplate="FPR %{x:.2f}<br>TPR %{y:.2f}<extra></extra>"))
    fig.add_traces(traces)
    return fig
