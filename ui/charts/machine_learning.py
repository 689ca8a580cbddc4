"""Charts for "Privacy in machine learning": confidences, ROC curves, the ε sweep and FedAvg.

Numbers in, plotly Figure out. Each figure is built in one go.Figure(data, layout) call on top
of the shared theme captured once (already validated) from ui.theme.figure.

Speed: plotly's property validation costs 5-15 ms per figure on a busy machine, and a full
rerun of this page draws six. The figures here are built with validation switched off
(`_validate=False`), so they cost about a millisecond each; in exchange,
tests/test_page_machine_learning.py rebuilds every chart WITH validation, so a misspelt
property still fails a test instead of silently vanishing from the plot.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from ui.plain_figure import PlainFigure
from ui.theme import GREY, PALETTE, figure, series_style

MAX_POINTS = 400  # per curve sent to the browser
_THEME = figure("", "", "").to_dict()["layout"]
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0, "xanchor": "left"}
EPSILON_TICKS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50]
EPSILON_AXIS = {"type": "log", "tickvals": EPSILON_TICKS,
                "ticktext": [f"{e:g}" for e in EPSILON_TICKS]}
LABEL_BOX = "rgba(255,255,255,0.85)"
MEMBERS, OTHERS, BOUND, GDP, BASELINE = 0, 1, 3, 2, 4  # series_style indices


def _figure(title: str, x_title: str, y_title: str, traces: list[dict], *,
            xaxis: dict | None = None, yaxis: dict | None = None, shapes=(), annotations=(),
            **layout) -> go.Figure:
    """One figure in the DP Lab theme, legend under the plot (never on the title, and it
    reads on a phone), built and validated in a single call."""
    spec = dict(_THEME)  # shallow: every key changed below is rebuilt, never mutated
    spec["title"] = {**spec.get("title", {}), "text": title}
    spec["xaxis"] = {**spec.get("xaxis", {}), "title": {"text": x_title}, **(xaxis or {})}
    spec["yaxis"] = {**spec.get("yaxis", {}), "title": {"text": y_title}, **(yaxis or {})}
    spec["shapes"] = list(shapes)
    spec["annotations"] = list(annotations)
    spec["legend"] = LEGEND_BELOW
    spec["margin"] = {"b": 40, "r": 30}
    spec.update(layout)
    return PlainFigure(traces, spec)


def _line(x, y, name: str, style: int, **kwargs) -> dict:
    return {"type": "scatter", "x": x, "y": y, "name": name, "mode": "lines",
            "line": series_style(style)["line"], **kwargs}


def _vline(x: float) -> dict:
    return {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "yref": "paper",
            "line": {"color": GREY, "dash": "dot"}}


def _hline(y: float, colour: str = GREY, dash: str = "dot") -> dict:
    return {"type": "line", "x0": 0, "x1": 1, "xref": "paper", "y0": y, "y1": y,
            "line": {"color": colour, "dash": dash, "width": 2}}


def _label(x, y, text: str, **kwargs) -> dict:
    return {"x": x, "y": y, "text": text, "showarrow": False, "bgcolor": LABEL_BOX, **kwargs}


def thin_curve(x, y, max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """At most max_points of a curve, evenly spaced along it, first and last kept."""
    x, y = np.asarray(x), np.asarray(y)
    if x.size <= max_points:
        return x, y
    keep = np.unique(np.round(np.linspace(0, x.size - 1, max_points)).astype(int))
    return x[keep], y[keep]


def confidence_chart(member_confidence, nonmember_confidence, bins: int = 20) -> go.Figure:
    """How sure the model is of each record's true label: members against non-members,
    as the share of each group per confidence bin."""
    edges = np.linspace(0, 1, bins + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    traces = []
    for values, name, style in ((member_confidence, "members (in the training data)", MEMBERS),
                                (nonmember_confidence, "non-members (fresh records)", OTHERS)):
        values = np.ravel(values)
        share = np.histogram(values, bins=edges)[0] / max(values.size, 1)
        look = series_style(style)
        traces.append({"type": "bar", "x": centres, "y": 100 * share, "name": name,
                       "width": 1 / bins, "opacity": 0.55,
                       "marker": {"color": look["line"]["color"],
                                  "line": {"color": look["line"]["color"], "width": 1.5},
                                  "pattern": {"shape": "" if style == MEMBERS else "/"}},
                       "hovertemplate": "confidence %{x:.2f}: %{y:.1f}%<extra></extra>"})
    return _figure("The model's confidence in the true label", "confidence in the true label",
                   "share of records (%)", traces, barmode="overlay",
                   xaxis={"range": [0, 1]})


def roc_chart(fpr, tpr, *, title: str, attack_name: str = "the attack",
              baseline: tuple | None = None, bound: tuple | None = None,
              exact: tuple | None = None, point: tuple[float, float] | None = None) -> go.Figure:
    """The attacker's ROC curve (TPR against FPR over all thresholds), with the chance line,
    and optionally the non-private model's curve, the (ε, δ)-DP bound, the exact Gaussian
    limit and the operating point chosen on shadow models."""
    traces = [{"type": "scatter", "x": [0, 1], "y": [0, 1], "mode": "lines",
               "name": "guessing (TPR = FPR)", "line": {"color": GREY, "dash": "dot", "width": 1.5},
               "hoverinfo": "skip"}]
    if bound is not None:
        bx, by = thin_curve(*bound[:2])
        traces.append(_line(bx, by, bound[2] if len(bound) > 2 else "(ε, δ)-DP bound", BOUND,
                            fill="tozeroy", fillcolor="rgba(213,94,0,0.07)"))
    if exact is not None:
        ex, ey = thin_curve(*exact[:2])
        traces.append(_line(ex, ey, exact[2] if len(exact) > 2 else "exact Gaussian limit", GDP))
    if baseline is not None:
        bx, by = thin_curve(*baseline[:2])
        traces.append({"type": "scatter", "x": bx, "y": by, "mode": "lines",
                       "name": baseline[2] if len(baseline) > 2 else "non-private model",
                       "line": {"color": GREY, "width": 2, "dash": "longdash"}})
    x, y = thin_curve(fpr, tpr)
    traces.append(_line(x, y, attack_name, MEMBERS))
    if point is not None:
        traces.append({"type": "scatter", "x": [point[1]], "y": [point[0]], "mode": "markers",
                       "name": "threshold chosen on shadow models",
                       "marker": {**series_style(MEMBERS)["marker"], "size": 13,
                                  "line": {"color": "white", "width": 1.5}},
                       "hovertemplate": "TPR %{y:.3f} at FPR %{x:.3f}<extra></extra>"})
    square = {"range": [0, 1], "constrain": "domain"}
    return _figure(title, "FPR (non-members flagged)", "TPR (members caught)", traces,
                   xaxis=square, yaxis={**square, "scaleanchor": "x", "scaleratio": 1},
                   height=480)


def accuracy_sweep_chart(epsilons, mean, se, *, nonprivate: float, noiseless: float,
                         bayes: float, current: float) -> go.Figure:
    """Test accuracy of DP-GD against ε (±2 standard errors over repeats), next to the
    same algorithm without noise, the non-private model and the best possible accuracy."""
    epsilons, mean, se = map(np.asarray, (epsilons, mean, se))
    traces = [
        {"type": "scatter", "x": epsilons, "y": 100 * mean, "mode": "lines+markers",
         "name": "DP-GD (±2 SE)", **series_style(MEMBERS),
         "error_y": {"type": "data", "array": 200 * se, "color": PALETTE["blue"], "thickness": 1.5},
         "hovertemplate": "ε = %{x:g}: %{y:.1f}%<extra></extra>"},
        _line([epsilons[0], epsilons[-1]], [100 * noiseless] * 2, "same steps, no noise", GDP),
        {"type": "scatter", "x": [epsilons[0], epsilons[-1]], "y": [100 * nonprivate] * 2,
         "mode": "lines", "name": "non-private model",
         "line": {"color": GREY, "width": 2, "dash": "longdash"}},
        {"type": "scatter", "x": [epsilons[0], epsilons[-1]], "y": [100 * bayes] * 2,
         "mode": "lines", "name": "best possible (true weights)",
         "line": {"color": GREY, "width": 1.5, "dash": "dot"}},
    ]
    notes = [_label(math.log10(current), 1, f" your ε = {current:g}", yref="paper",
                    xanchor="left", yanchor="top")]
    return _figure("Accuracy on fresh records against ε", "ε (log scale)", "test accuracy (%)",
                   traces, xaxis=EPSILON_AXIS,
                   yaxis={"range": [45, 100 * max(bayes, nonprivate, float(np.max(mean))) + 5]},
                   shapes=[_vline(current)], annotations=notes)


def advantage_sweep_chart(epsilons, mean, se, *, cap, exact_cap, nonprivate: float,
                          current: float) -> go.Figure:
    """The attack's advantage TPR − FPR against ε (±2 standard errors), under the most that
    (ε, δ)-DP and the exact Gaussian limit allow, with the non-private model's advantage."""
    epsilons, mean, se = map(np.asarray, (epsilons, mean, se))
    traces = [
        _line(epsilons, cap, "(ε, δ)-DP cap", BOUND),
        _line(epsilons, exact_cap, "exact Gaussian limit", GDP),
        {"type": "scatter", "x": [epsilons[0], epsilons[-1]], "y": [nonprivate] * 2,
         "mode": "lines", "name": "non-private model",
         "line": {"color": GREY, "width": 2, "dash": "longdash"}},
        {"type": "scatter", "x": epsilons, "y": mean, "mode": "lines+markers",
         "name": "attack on DP-GD (±2 SE)", **series_style(MEMBERS),
         "error_y": {"type": "data", "array": 2 * se, "color": PALETTE["blue"], "thickness": 1.5},
         "hovertemplate": "ε = %{x:g}: %{y:.3f}<extra></extra>"},
    ]
    notes = [_label(math.log10(current), 1, f" your ε = {current:g}", yref="paper",
                    xanchor="left", yanchor="top")]
    return _figure("Membership advantage against ε", "ε (log scale)",
                   "attacker's advantage TPR − FPR", traces,
                   xaxis=EPSILON_AXIS,
                   yaxis={"range": [min(-0.05, float(np.min(mean - 2 * se)) - 0.02), 1.02]},
                   shapes=[_vline(current), _hline(0.0, GREY, "solid")], annotations=notes)


def fedavg_chart(rounds, curves: dict[str, np.ndarray], spread: dict[str, np.ndarray],
                 bayes: float) -> go.Figure:
    """Test accuracy of the global model after each round, one curve per place of the noise
    (mean over repeats, ±2 standard errors as error bars)."""
    rounds = np.asarray(rounds)
    traces = []
    for i, (name, values) in enumerate(curves.items()):
        look = series_style([GDP, MEMBERS, BOUND][i % 3])
        traces.append({"type": "scatter", "x": rounds, "y": 100 * np.asarray(values),
                       "mode": "lines+markers", "name": name, **look,
                       "error_y": {"type": "data", "array": 200 * np.asarray(spread[name]),
                                   "color": look["line"]["color"], "thickness": 1.2},
                       "hovertemplate": f"{name}, round %{{x}}: %{{y:.1f}}%<extra></extra>"})
    traces.append({"type": "scatter", "x": [rounds[0], rounds[-1]], "y": [100 * bayes] * 2,
                   "mode": "lines", "name": "best possible",
                   "line": {"color": GREY, "width": 1.5, "dash": "dot"}})
    return _figure("Federated averaging: accuracy after each round", "round",
                   "test accuracy (%)", traces, yaxis={"range": [40, 100 * bayes + 5]},
                   xaxis={"dtick": 1 if rounds[-1] <= 12 else None})
