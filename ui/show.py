"""Show a chart: the one place where figures meet Streamlit.

Every chart goes out with a text caption (what it plots, along which axes), so the page
says in words what the picture shows. In presenter mode the figure is restyled for a
projector first: bigger fonts, thicker lines, larger markers.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ui.presenter import presenter_mode
from ui.theme import FONT_SIZE, HEIGHT

PRESENTER_FONT_SIZE = 24
PRESENTER_LINE_SCALE = 1.8
PRESENTER_EXTRA_HEIGHT = 80  # room for the legend under the axis title


def _text(title) -> str:
    if isinstance(title, dict):
        title = title.get("text")
    return str(title or "").replace("<br>", " ").strip()


def describe(figure: go.Figure) -> str:
    """A one-line text alternative built from the chart's own title, axes and series."""
    layout = figure.layout
    parts = [f"Chart: {_text(layout.title.text) or 'untitled'}."]
    for axis, side in (("xaxis", "Horizontal"), ("yaxis", "Vertical")):
        title = _text(getattr(layout, axis).title.text)
        if title:
            parts.append(f"{side} axis: {title}.")
    names = list(dict.fromkeys(_text(t.name) for t in figure.data
                               if t.name and t.showlegend is not False))
    if names:
        parts.append("Series: " + "; ".join(names[:6]) + ("; …" if len(names) > 6 else "") + ".")
    return " ".join(parts)


def for_projector(figure: go.Figure) -> go.Figure:
    """A copy of the figure with projector-sized type and lines (the original may be cached)."""
    big = go.Figure(figure.to_dict(), _validate=False)
    big.layout.font.size = PRESENTER_FONT_SIZE
    big.layout.title.font.size = PRESENTER_FONT_SIZE + 4
    big.layout.legend.font.size = PRESENTER_FONT_SIZE - 2
    # Large legends collide with axis titles wherever a chart placed them; along the bottom
    # of the container they push the margin out instead.
    big.layout.legend.update(orientation="h", x=0, xanchor="left", yref="container", y=0,
                             yanchor="bottom")
    big.layout.margin.b = None
    big.layout.height = (big.layout.height or HEIGHT) + PRESENTER_EXTRA_HEIGHT
    for trace in big.data:
        line = getattr(trace, "line", None)
        if line is not None and trace.type in ("scatter", "scattergl"):
            line.width = (line.width or 2) * PRESENTER_LINE_SCALE
        marker = getattr(trace, "marker", None)
        if marker is not None and trace.type in ("scatter", "scattergl") and (
                marker.size is None or isinstance(marker.size, (int, float))):
            marker.size = (marker.size or 6) * 1.4
    for annotation in big.layout.annotations:
        annotation.font.size = max(annotation.font.size or FONT_SIZE, FONT_SIZE) * PRESENTER_FONT_SIZE / FONT_SIZE
    return big


def chart(figure: go.Figure, caption: str | None = None, **kwargs) -> None:
    """Render a chart full width, followed by its text caption (hidden in presenter mode)."""
    kwargs.setdefault("width", "stretch")
    # Streamlit's own chart theme would override our axis fonts with small ones.
    kwargs.setdefault("theme", None)
    if presenter_mode():
        st.plotly_chart(for_projector(figure), **kwargs)
        return
    st.plotly_chart(figure, **kwargs)
    st.caption(caption or describe(figure))
