"""Charts for "Privacy for graphs": the network itself, its degrees, edge- versus node-level
neighbours, the sensitivity table, and the private triangle count's releases and error.

Numbers in, plotly Figure (or a plain table) out; the numbers come from dp.graphs. Each
figure is built in one go.Figure(data, layout) call: plotly validates every incremental
add_*/update_* call, and that would cost more than the maths on this page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.plain_figure import PlainFigure
from ui.theme import GREY, PALETTE, TEMPLATE, series_style

LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0, "xanchor": "left"}
LOG_AXIS = {"type": "log", "exponentformat": "power"}
HIDDEN_AXIS = {"visible": False, "showgrid": False, "zeroline": False}
NODE_COLOUR = PALETTE["sky"]
EDGE_COLOUR = "#b9b9b9"
GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))
QUERY_NAMES = {"edges": "number of ties", "max_degree": "max degree d",
               "triangles": "number of triangles"}
TICKS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]
MECHANISM, NAIVE, TIGHT = 0, 1, 2  # series_style indices, the same on every chart


def _figure(title: str, x_title: str, y_title: str, data: list, *, shapes=(), annotations=(),
            xaxis=None, yaxis=None, legend=None, **layout) -> go.Figure:
    """ui.theme.figure's look, with every trace and decoration passed at construction."""
    return PlainFigure(data, {
        "template": TEMPLATE, "title": {"text": title},
        "xaxis": {"title": {"text": x_title}, **(xaxis or {})},
        "yaxis": {"title": {"text": y_title}, **(yaxis or {})},
        "legend": legend or LEGEND_BELOW,
        "shapes": list(shapes), "annotations": list(annotations), **layout,
    })


def _fmt(value: float) -> str:
    return f"{value:,.3g}" if abs(value) < 1e4 else f"{value:,.0f}"


def _vline(x: float, text: str, *, log: bool = False, anchor: str = "left") -> tuple[dict, dict]:
    """A dotted line at x labelled at the top (annotations on a log axis take log10 x)."""
    shape = {"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
             "line": {"color": GREY, "width": 1.5, "dash": "dot"}}
    label = {"x": math.log10(x) if log else x, "y": 1, "yref": "paper", "text": text,
             "showarrow": False, "xanchor": anchor, "yanchor": "top", "xshift": 3 if anchor == "left" else -3,
             "bgcolor": "rgba(255,255,255,0.85)", "font": {"color": GREY}}
    return shape, label


# ---------------------------------------------------------------- drawing the network


def spring_layout(n: int, edges: np.ndarray, iterations: int = 80) -> np.ndarray:
    """Node positions (n, 2) from a force-directed layout (Fruchterman & Reingold 1991).

    Deterministic: people start on a sunflower spiral in order of arrival (the oldest,
    who become the hubs, in the middle), then ties pull friends together and every pair
    pushes apart, with a step size that cools to zero. O(n²) per step: for small n only.
    """
    i = np.arange(n)
    radius = np.sqrt((i + 0.5) / n)
    x, y = radius * np.cos(i * GOLDEN_ANGLE), radius * np.sin(i * GOLDEN_ANGLE)
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    u, v = edges[:, 0], edges[:, 1]
    k2 = (1.6 / math.sqrt(n)) ** 2  # squared ideal distance between friends
    for step in range(iterations):
        dx, dy = x[:, None] - x[None, :], y[:, None] - y[None, :]
        push = k2 / np.maximum(dx * dx + dy * dy, 1e-4)  # repulsion k²/dist along the unit vector
        np.fill_diagonal(push, 0.0)
        fx, fy = (dx * push).sum(axis=1), (dy * push).sum(axis=1)
        ex, ey = x[u] - x[v], y[u] - y[v]
        pull = np.sqrt(ex * ex + ey * ey) / math.sqrt(k2)  # attraction dist²/k
        fx += np.bincount(v, ex * pull, n) - np.bincount(u, ex * pull, n)
        fy += np.bincount(v, ey * pull, n) - np.bincount(u, ey * pull, n)
        length = np.maximum(np.sqrt(fx * fx + fy * fy), 1e-9)
        step_size = np.minimum(length, 0.1 * (1 - step / iterations)) / length
        x, y = x + fx * step_size, y + fy * step_size
    return np.column_stack([x - x.mean(), y - y.mean()])


def _segments(pos: np.ndarray, edges) -> tuple[np.ndarray, np.ndarray]:
    """x and y of all ties as one polyline broken by NaN (one trace, not one per tie)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    xs = np.full(3 * len(edges), np.nan)
    ys = np.full(3 * len(edges), np.nan)
    xs[0::3], xs[1::3] = pos[edges[:, 0], 0], pos[edges[:, 1], 0]
    ys[0::3], ys[1::3] = pos[edges[:, 0], 1], pos[edges[:, 1], 1]
    return xs, ys


def _ties(pos, edges, name: str, line: dict, show: bool = True) -> dict:
    xs, ys = _segments(pos, edges)
    return {"type": "scatter", "x": xs, "y": ys, "mode": "lines", "name": name, "line": line,
            "hoverinfo": "skip", "showlegend": show}


def graph_chart(pos: np.ndarray, edges, degrees: np.ndarray, title: str, *,
                highlight: Sequence[int] = (), highlight_name: str = "",
                added=(), removed=(), context: Sequence[int] = (), context_name: str = "",
                height: int = 480) -> go.Figure:
    """The network drawn: grey ties, people sized by degree, and optionally one change.

    `added`/`removed` are ties that a neighbouring graph adds or drops (dashed blue and
    dotted vermillion, drawn over the people so they stay visible), `highlight` the people
    the change is about (vermillion stars), `context` others worth seeing (green diamonds).
    """
    degrees = np.asarray(degrees)
    added = np.asarray(added, dtype=np.int64).reshape(-1, 2)
    removed = np.asarray(removed, dtype=np.int64).reshape(-1, 2)
    kept = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    changed = len(added) + len(removed) > 0
    if len(removed):
        gone = {tuple(pair) for pair in np.sort(removed, axis=1).tolist()}
        kept = kept[[tuple(pair) not in gone for pair in np.sort(kept, axis=1).tolist()]]
    background = {"color": "#d4d4d4" if changed else EDGE_COLOUR, "width": 1}
    size = 5 + 14 * np.sqrt(degrees / max(1, degrees.max()))
    data = [
        _ties(pos, kept, "tie", background, show=False),
        {"type": "scatter", "x": pos[:, 0], "y": pos[:, 1], "mode": "markers",
         "name": "person (size = degree)", "showlegend": False,
         "marker": {"size": size, "color": NODE_COLOUR, "opacity": 0.55 if changed else 1,
                    "line": {"color": "white", "width": 0.5}},
         "customdata": np.column_stack([np.arange(len(degrees)), degrees]),
         "hovertemplate": "person %{customdata[0]}<br>%{customdata[1]} friends<extra></extra>"},
    ]
    if len(removed):
        data.append(_ties(pos, removed, f"tie removed ({len(removed)})",
                          {"color": PALETTE["vermillion"], "width": 3, "dash": "dot"}))
    if len(added):
        many = len(added) > 20
        data.append(_ties(pos, added, f"tie added ({len(added)})",
                          {"color": "rgba(0,114,178,0.55)" if many else PALETTE["blue"],
                           "width": 1.3 if many else 3, "dash": "dash"}))
    for people, name, marker in (
            (context, context_name, {"size": 12, "symbol": "diamond", "color": PALETTE["green"]}),
            (highlight, highlight_name, {"size": 18, "symbol": "star", "color": PALETTE["vermillion"]})):
        if len(people):
            idx = np.asarray(people, dtype=np.int64)
            data.append({"type": "scatter", "x": pos[idx, 0], "y": pos[idx, 1], "mode": "markers",
                         "name": name, "marker": {**marker, "line": {"color": "white", "width": 1}},
                         "hovertemplate": "person %{text}<extra></extra>", "text": idx.astype(str)})
    return _figure(title, "", "", data, xaxis=HIDDEN_AXIS,
                   yaxis={**HIDDEN_AXIS, "scaleanchor": "x", "scaleratio": 1},
                   legend={**LEGEND_BELOW, "y": 0}, height=height,
                   margin={"l": 10, "r": 10, "t": 50, "b": 10})


def degree_chart(degrees: np.ndarray) -> go.Figure:
    """How many people have each number of friends (log scales), mean and max marked."""
    degrees = np.asarray(degrees)
    values, counts = np.unique(degrees[degrees > 0], return_counts=True)
    mean, top = float(degrees.mean()), int(degrees.max())
    style = series_style(MECHANISM)
    data = [{"type": "scatter", "x": values, "y": counts, "mode": "markers", "name": "people",
             "marker": {**style["marker"], "size": 9}, "showlegend": False,
             "hovertemplate": "%{y} people with %{x} friends<extra></extra>"}]
    mean_line, mean_label = _vline(mean, f"mean {mean:.1f}", log=True, anchor="right")
    top_line, top_label = _vline(top, f"max d = {top}", log=True, anchor="right")
    mean_label["y"] = 0.9  # below the max label when the two are close
    ticks = {**LOG_AXIS, "tickvals": TICKS, "ticktext": [f"{t:,}" for t in TICKS]}
    return _figure("Friends per person: a few hubs, many with few",
                   "degree (number of friends, log scale)", "people (log scale)", data,
                   xaxis=ticks, yaxis=ticks,
                   shapes=[mean_line, top_line], annotations=[mean_label, top_label], height=360)


# ---------------------------------------------------------------- the sensitivity table


def sensitivity_rows(table: dict[str, dict[str, int]], n: int, max_degree: int) -> dict[str, list]:
    """The CS208 table as columns of text, ready for st.table / st.dataframe."""
    ranges = {"edges": f"0 … d·n/2 = {max_degree * n // 2:,}",
              "max_degree": f"0 … d = {max_degree:,}",
              "triangles": f"0 … n·C(d,2)/3 = {n * math.comb(max_degree, 2) // 3:,}"}
    queries = list(table)
    return {
        "query q": [QUERY_NAMES[q] for q in queries],
        "q(G)": [f"{table[q]['value']:,}" for q in queries],
        "range (max degree d)": [ranges[q] for q in queries],
        "LS edge": [f"{table[q]['ls_edge']:,}" for q in queries],
        "GS edge": [f"{table[q]['gs_edge']:,}" for q in queries],
        "LS node": [f"{table[q]['ls_node']:,}" for q in queries],
        "GS node": [f"{table[q]['gs_node']:,}" for q in queries],
    }


def sensitivity_chart(table: dict[str, dict[str, int]]) -> go.Figure:
    """LS and GS at each level as grouped bars on a log axis: where local sensitivity helps."""
    queries = list(table)
    names = [QUERY_NAMES[q] for q in queries]
    columns = [("ls_edge", "LS, edge level", PALETTE["blue"], ""),
               ("gs_edge", "GS, edge level", PALETTE["sky"], "/"),
               ("ls_node", "LS, node level", PALETTE["vermillion"], ""),
               ("gs_node", "GS, node level", PALETTE["orange"], "x")]
    names = [name.replace(" ", "<br>", 1) for name in names]  # upright, and narrow enough for a phone
    data = [{"type": "bar", "x": names, "y": [max(table[q][key], 0.5) for q in queries],
             "name": label, "marker": {"color": colour, "pattern": {"shape": shape}},
             "text": [f"{table[q][key]:,}" for q in queries], "textposition": "outside",
             "cliponaxis": False, "hovertemplate": f"{label}: %{{text}}<extra></extra>"}
            for key, label, colour, shape in columns]
    top = max(max(row.values()) for row in table.values())
    return _figure("How much one neighbour can change each count", "count released",
                   "sensitivity (log scale; 0 drawn at 0.5)", data, barmode="group",
                   xaxis={"tickangle": 0},
                   yaxis={**LOG_AXIS, "range": [-0.5, math.log10(top) + 0.8], "dtick": 1},
                   height=440)


# ---------------------------------------------------------------- the triangle mechanism


def release_chart(edges_of_bins: np.ndarray, mechanism: np.ndarray, naive: np.ndarray,
                  truth: int, mechanism_label: str, naive_label: str) -> go.Figure:
    """Histograms (as densities) of many releases of each mechanism around the true count."""
    centres = (edges_of_bins[:-1] + edges_of_bins[1:]) / 2
    width = edges_of_bins[1] - edges_of_bins[0]
    data = []
    for counts, label, style in ((mechanism, mechanism_label, MECHANISM), (naive, naive_label, NAIVE)):
        s = series_style(style)
        data.append({"type": "scatter", "x": centres, "y": counts / max(1, counts.sum()) / width,
                     "mode": "lines", "line": {**s["line"], "shape": "hvh"}, "name": label,
                     "fill": "tozeroy" if style == MECHANISM else None,
                     "fillcolor": "rgba(0,114,178,0.15)",
                     "hovertemplate": "release ≈ %{x:,.0f}<br>density %{y:.2g}<extra></extra>"})
    line, label = _vline(truth, f"true count T = {truth:,}")
    return _figure("Where the released triangle count lands", "released count",
                   "density (share per unit)", data, shapes=[line], annotations=[label])


def error_chart(populations: Sequence[int], naive_n: np.ndarray, naive_error: np.ndarray,
                degree_error: Sequence[float], common_error: Sequence[float], n: int,
                current: float) -> go.Figure:
    """Expected |error| against n (log–log) for naive GS noise and the two bounded mechanisms."""
    s_mech, s_naive, s_tight = (series_style(i) for i in (MECHANISM, NAIVE, TIGHT))
    data = [
        {"type": "scatter", "x": naive_n, "y": naive_error, "mode": "lines",
         "name": "naive: Lap((n−2)/(2ε))", "line": s_naive["line"]},
        {"type": "scatter", "x": list(populations), "y": list(degree_error), "mode": "lines+markers",
         "name": "bound B = max degree d", "line": s_mech["line"], "marker": s_mech["marker"]},
        {"type": "scatter", "x": list(populations), "y": list(common_error), "mode": "lines+markers",
         "name": "bound B = max common friends", "line": s_tight["line"], "marker": s_tight["marker"]},
        {"type": "scatter", "x": [n], "y": [current], "mode": "markers", "name": "your settings",
         "marker": {"size": 16, "symbol": "circle-open", "color": PALETTE["vermillion"],
                    "line": {"width": 3, "color": PALETTE["vermillion"]}},
         "hovertemplate": "your settings: %{y:,.3g}<extra></extra>"},
    ]
    return _figure("Expected error as the network grows", "n (people, log scale)",
                   "expected |error| (log scale)", data,
                   xaxis={**LOG_AXIS, "dtick": 1}, yaxis={**LOG_AXIS, "dtick": 1})
