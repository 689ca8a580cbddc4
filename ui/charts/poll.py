"""The class poll's live chart: the debiased estimate and its 95% interval as answers arrive.

Numbers in (from dp.rr_inference.rr_running_estimates), plotly Figure out; no Streamlit calls.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.charts.budget import thin
from ui.theme import figure, series_style

MAX_POINTS = 600  # a big class is thinned to this many points before it is sent
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.28, "x": 0, "xanchor": "left"}


def shown_share(estimate):
    """The debiased share as the poll shows it: cut to [0, 1], the range the true share lies in.

    The unbiased estimate (dp.rr_inference.rr_debiased_share) can leave [0, 1] by chance in the
    coins; cutting it is post-processing (no privacy cost), and makes it slightly biased near 0
    and 1. The one rule used by the poll's chart and by both instructor pages' figures.
    """
    return np.clip(estimate, 0.0, 1.0)


def percent_text(raw_percent: float) -> str:
    """The unbiased estimate in %, to one decimal, or more when it is outside 0–100% but would
    round to 0 or 100 (so that it never reads as the bound it is cut to)."""
    for decimals in range(1, 6):
        text = f"{raw_percent:.{decimals}f}"
        if 0 <= raw_percent <= 100 or float(text) not in (0.0, 100.0):
            break
    return text


def cut_note(raw_percent: float) -> str:
    """How a cut estimate reads in a hover: "" when the estimate is inside 0–100%."""
    return "" if 0 <= raw_percent <= 100 else f"cut from {percent_text(raw_percent)}%"


def estimate_figure(running: dict[str, np.ndarray], epsilon_label: str) -> go.Figure:
    """Debiased Yes share (%) after each answer, its 95% band, and the raw reported Yes share."""
    n = np.asarray(running["n"])
    idx = thin(n.size, keep=(n.size - 1,), max_points=MAX_POINTS)
    x = n[idx]
    percent = {key: 100 * np.asarray(running[key])[idx]
               for key in ("estimate", "lower", "upper", "reported_share")}
    raw = percent["estimate"]
    notes = [cut_note(value) for value in raw]
    fig = figure(f"Debiased estimate as answers arrive ({epsilon_label})",
                 "answers received (people)", "share answering Yes (%)",
                 yaxis={"title": {"text": "share answering Yes (%)"}, "range": [-5, 105]},
                 xaxis={"title": {"text": "answers received (people)"}, "rangemode": "tozero",
                        **({"dtick": 1} if x[-1] <= 5 else {})},  # whole answers, never 0.5
                 legend=LEGEND_BELOW, margin={"b": 130}, height=460)
    mode = "lines+markers" if x.size <= 40 else "lines"
    fig.add_traces([
        go.Scatter(x=np.concatenate([x, x[::-1]]),
                   y=np.concatenate([percent["upper"], percent["lower"][::-1]]),
                   mode="lines", fill="toself", fillcolor="rgba(86, 180, 233, 0.3)",
                   line={"width": 0, "color": "rgba(86, 180, 233, 0.3)"},
                   name="95% interval for the true share", hoverinfo="skip"),
        # Drawn cut to 0–100% like the number above the chart; the hover gives the unbiased value.
        go.Scatter(x=x, y=100 * shown_share(raw / 100), mode=mode,
                   name="debiased estimate (cut to 0–100%)",
                   line=series_style(0)["line"], marker=series_style(0)["marker"],
                   text=[f"<br>({note})" if note else "" for note in notes],
                   hovertemplate="%{x} answers<br>estimate %{y:.1f}%%{text}<extra></extra>"),
        go.Scatter(x=x, y=percent["reported_share"], mode="lines", name="reported Yes (raw)",
                   line=series_style(1)["line"],
                   hovertemplate="%{x} answers<br>reported Yes %{y:.1f}%<extra></extra>"),
    ])
    return fig


def precision_figure(class_sizes, half_widths: dict[str, np.ndarray], class_size: int) -> go.Figure:
    """The 95% interval's half-width (percentage points) against class size, one curve per ε,
    with the chosen class size marked on each curve."""
    sizes = np.asarray(class_sizes)
    fig = figure(f"How precise a poll of {class_size:,} people is", "class size n (people, log scale)",
                 "95% interval: ± percentage points",
                 xaxis={"title": {"text": "class size n (people, log scale)"}, "type": "log"},
                 legend=LEGEND_BELOW, margin={"b": 130}, height=460)
    traces = []
    for i, (label, widths) in enumerate(half_widths.items()):
        widths = 100 * np.asarray(widths)
        style = series_style(i)
        traces.append(go.Scatter(x=sizes, y=widths, mode="lines", name=label, line=style["line"],
                                 hovertemplate="n = %{x}<br>± %{y:.1f} points<extra></extra>"))
        at_class = float(np.interp(np.log(class_size), np.log(sizes), widths))
        traces.append(go.Scatter(x=[class_size], y=[at_class], mode="markers", showlegend=False,
                                 marker={**style["marker"], "size": 12}, name=label,
                                 hovertemplate=f"{label}<br>n = %{{x}}: ± %{{y:.1f}} points<extra></extra>"))
    fig.add_traces(traces)
    return fig
