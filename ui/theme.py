"""One look for every chart: the Okabe–Ito colour-blind-safe palette, fonts and sizes.

Colour is never the only signal: each series also gets its own dash and marker from
the same position in DASHES and MARKERS.
"""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

from ui.plain_figure import PlainFigure

# Okabe & Ito 2008, "Color Universal Design". Black is left out: it is the text colour.
PALETTE = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
}
SERIES = ["blue", "orange", "green", "vermillion", "sky", "purple"]
DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
MARKERS = ["circle", "square", "diamond", "triangle-up", "x", "star"]
GREY = "#6b6b6b"
INK = "#1a1a1a"

FONT_SIZE = 16  # readable from the back of a lecture hall at 1280×720
LINE_WIDTH = 2.5
HEIGHT = 420


def series_style(i: int) -> dict:
    """Colour, dash and marker for the i-th series of a chart."""
    colour = PALETTE[SERIES[i % len(SERIES)]]
    return {
        "line": {"color": colour, "dash": DASHES[i % len(DASHES)], "width": LINE_WIDTH},
        "marker": {"color": colour, "symbol": MARKERS[i % len(MARKERS)], "size": 8},
    }


pio.templates["dplab"] = go.layout.Template(
    layout=go.Layout(
        font={"family": "\"Source Sans\", \"Source Sans Pro\", Arial, sans-serif", "size": FONT_SIZE, "color": INK},
        colorway=[PALETTE[name] for name in SERIES],
        paper_bgcolor="white",
        plot_bgcolor="white",
        height=HEIGHT,
        margin={"l": 20, "r": 20, "t": 60, "b": 10},  # axes push it out (automargin)
        title={"x": 0, "xanchor": "left", "font": {"size": FONT_SIZE + 2}},
        xaxis={"showgrid": True, "gridcolor": "#e5e5e5", "zeroline": False, "linecolor": GREY,
               "ticks": "outside", "automargin": True},
        yaxis={"showgrid": True, "gridcolor": "#e5e5e5", "zeroline": False, "linecolor": GREY,
               "ticks": "outside", "automargin": True},
        # Along the bottom of the figure, under the x-axis title: Plotly reserves room for a
        # container-referenced legend, so it never lands on the axis title or the chart title.
        legend={"orientation": "h", "xref": "container", "x": 0, "xanchor": "left",
                "yref": "container", "y": 0, "yanchor": "bottom"},
        hoverlabel={"font": {"size": FONT_SIZE}},
    )
)


# The template as plain data. Figures are built without validation, which would otherwise
# expand the name "dplab" into this (plotly.js knows no templates by name).
TEMPLATE = pio.templates["dplab"].to_plotly_json()


def figure(title: str, x_title: str, y_title: str, **layout) -> PlainFigure:
    """An empty figure in the DP Lab theme, with a title and axis labels (with units).

    Held as plain data (ui.plain_figure), without plotly's property validation, which costs
    milliseconds per figure on every rerun. Typos still cannot slip through:
    tests/test_pages.py validates every chart each page renders.
    """
    return PlainFigure(layout={
        "template": TEMPLATE,
        "title": {"text": title},
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}},
        **layout,
    })
