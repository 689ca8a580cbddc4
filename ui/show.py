"""Show a chart: the one place where figures meet Streamlit.

Every chart goes out with a text caption (what it plots, along which axes), so the page
says in words what the picture shows.

Every chart is also laid out here, once, for the three screens DP Lab is read on: a laptop,
a 390 px phone and a 1280×720 projector. Chart builders say what to draw; `fit_layout`
decides where the words go, so that no two labels overlap and none is cut at the chart's
edge (tests/test_layout.py measures this in Chromium on every page):

- the legend sits along the bottom of the figure, under the axis title, and Plotly grows
  the bottom margin to make room for it (a legend placed at a fraction of the plot height
  lands on the axis title as soon as the tick labels or the title wrap);
- titles and axis titles longer than a phone's width wrap onto a second line, and titles
  push the top margin down instead of being clipped;
- a vertical axis title longer than the plot is tall wraps, so that it neither runs into
  the chart's title nor out of the figure;
- in presenter mode fonts and lines grow: ticks, legends and annotations to 20 px, the least
  the back row of a hall reads (annotations are wrapped to short lines, since they sit
  inside the plot, where large type runs over the data and off the edges).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas  # noqa: F401 - whole before any chart: see below
import plotly.graph_objects as go
import streamlit as st

from ui.plain_figure import PlainFigure, decode_array, plain_spec
from ui.presenter import presenter_mode
from ui.theme import FONT_SIZE, HEIGHT

# Plotly checks its values against pandas types by looking pandas up in sys.modules, without
# the import lock (_plotly_utils.optional_imports.get_module(should_load=False)). A session
# whose chart was checked while another session's thread was still importing pandas met a
# half-initialised module and a traceback ("partially initialized module 'pandas' has no
# attribute 'Series'"; seen with the warm-up's decks beside a first visitor). app.py imports
# this module before any page runs, so pandas is whole before any chart: a second session's
# import waits on the lock.

PRESENTER_FONT_SIZE = 20
PRESENTER_TITLE_SIZE = 24
PRESENTER_ANNOTATION_SIZE = 20  # the back row reads ticks, legends and annotations at ≥ 20 px
PRESENTER_LINE_SCALE = 1.8
PRESENTER_EXTRA_HEIGHT = -40  # a step fits 720 px: bigger type, a lower chart (MIN_PLOT_HEIGHT holds)

# A 390 px phone leaves a chart about 350 px: about 38 characters of an 18 px title
# (Source Sans averages about 0.5 em a character).
TITLE_CHARS = 38
# A projector is never a phone: a chart there is at least half of 1280 px, about 46 characters
# of its 24 px title, so the title keeps to one line where it can (a step fits one screen).
PRESENTER_TITLE_CHARS = 44
AXIS_TITLE_CHARS = 32  # centred under a phone's plot, which the y-axis narrows to ~280 px
ANNOTATION_CHARS = 24
LEGEND_CHARS = 34
PHONE_CHART_WIDTH = 330
MIN_PLOT_HEIGHT = 200  # px left for the plot itself, whatever the title and legend take
CHAR_EM = 0.52  # average character width of the theme's font, in ems
LINE_EM = 1.3
TITLE_PAD = 8  # px above the title and between it and the plot

# Plotly's own toolbar covers the chart's title on a phone (a tap is a hover on a touch
# screen) and on a projector; charts still zoom by dragging and reset on a double click.
CHART_CSS = """
<style>
@media (hover: none), (max-width: 640px) { .js-plotly-plot .modebar-container { display: none; } }
/* A control's or a metric's label wraps rather than ending in "…" (Streamlit cuts them to one
   line): on a projector or a phone the cut part is often the part that says what it does. */
[data-testid="stWidgetLabel"] .stMarkdownEllipsis, [data-testid="stWidgetLabel"] .stMarkdownEllipsis p,
[data-testid="stMetricLabel"] .stMarkdownEllipsis, [data-testid="stMetricLabel"] .stMarkdownEllipsis p {
  white-space: normal; overflow: visible; text-overflow: clip; }
</style>
"""


def _text(title) -> str:
    if isinstance(title, dict):
        title = title.get("text")
    return str(title or "").replace("<br>", " ").strip()


def describe(figure: go.Figure) -> str:
    """A one-line text alternative built from the chart's own title, axes and series."""
    if isinstance(figure, PlainFigure):  # computed once per figure, which may be cached
        return figure.memo("describe", lambda: _describe(figure.spec))
    return _describe(plain_spec(figure))


def _describe(spec: dict) -> str:
    layout = spec.get("layout") or {}
    parts = [f"Chart: {_text(layout.get('title')) or 'untitled'}."]
    for axis, side in (("xaxis", "Horizontal"), ("yaxis", "Vertical")):
        title = _text((layout.get(axis) or {}).get("title"))
        if title:
            parts.append(f"{side} axis: {title}.")
    names = list(dict.fromkeys(_text(t.get("name")) for t in spec.get("data") or []
                               if t.get("name") and t.get("showlegend") is not False))
    if names:
        parts.append("Series: " + "; ".join(names[:6]) + ("; …" if len(names) > 6 else "") + ".")
    return " ".join(parts)


_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")


def visible_length(text: str) -> int:
    """Characters a reader sees (HTML tags such as <sup> do not count)."""
    return len(_TAG.sub("", text))


def wrap(text: str, width: int) -> str:
    """Break a Plotly label into lines of at most `width` visible characters, at spaces.

    Existing <br> breaks stay; a single word longer than `width` stays whole.
    """
    lines: list[str] = []
    for part in _BREAK.split(text):
        line = ""
        for word in part.split(" "):
            if line and visible_length(line) + 1 + visible_length(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return "<br>".join(lines)


def _title_text(holder: dict) -> str | None:
    title = holder.get("title")
    if isinstance(title, dict):
        return title.get("text")
    return title


def _set_title_text(holder: dict, text: str) -> None:
    title = holder.get("title")
    holder["title"] = {**title, "text": text} if isinstance(title, dict) else {"text": text}


def _balanced(text: str, lines: int) -> str:
    """Wrap into about `lines` lines of similar length."""
    return wrap(text, -(-visible_length(text) // lines) + 2)


def fit_layout(layout: dict, data: list[dict] = (), *, presenter: bool = False) -> dict:
    """Place titles, axis titles and the legend so they neither overlap nor leave the figure.

    Works on the figure's layout as plain data (no plotly validation) and returns it.
    `data` are the traces as plain data (their names and values decide how many rows the
    legend takes and how many decades a log axis spans).
    """
    font = PRESENTER_FONT_SIZE if presenter else (layout.get("font") or {}).get("size", FONT_SIZE)
    height = layout.get("height") or HEIGHT
    margin = dict(layout.get("margin") or {})

    # The title: wrapped, and the top margin sized to its lines. Plotly anchors a title of
    # several lines by its first line whatever yanchor says (and its automargin then clips
    # that line), so the first line's baseline is placed, and the others flow down from it.
    title = _title_text(layout)
    if title:
        text = wrap(title, PRESENTER_TITLE_CHARS if presenter else TITLE_CHARS)
        lines = len(_BREAK.findall(text)) + 1
        title_font = ((layout.get("title") or {}).get("font") or {}).get("size") or font + 2
        layout["title"] = {**(layout.get("title") or {}), "text": text, "yref": "container",
                           "yanchor": "bottom", "y": 1 - (TITLE_PAD + title_font) / height}
        # and room under it for the top tick label, which sticks out above the plot
        margin["t"] = round(TITLE_PAD + lines * LINE_EM * title_font + 0.7 * font + TITLE_PAD)
    else:
        margin["t"] = min(margin.get("t", 60), 20)

    # The legend: along the bottom of the whole figure, where Plotly reserves room for it
    # under the axis titles (yref="container"), instead of at a fraction of the plot height.
    if layout.get("showlegend") is not False:
        layout["legend"] = {**(layout.get("legend") or {}), "orientation": "h",
                            "xref": "container", "x": 0, "xanchor": "left",
                            "yref": "container", "y": 0, "yanchor": "bottom"}
        margin["b"] = 10
    else:
        margin["b"] = min(margin.get("b", 60), 30)
    margin["l"] = min(margin.get("l", 70), 20)
    margin["r"] = max(margin.get("r", 20), 20)
    layout["margin"] = margin

    # Annotations: wrapped, so that one placed right of centre stays inside a phone's plot;
    # one above the plot (a label on a vertical line) gets room under the title.
    above = 0  # lines of the tallest annotation above the plot
    for annotation in layout.get("annotations") or []:
        if annotation.get("text"):
            annotation["text"] = wrap(annotation["text"], ANNOTATION_CHARS)
        if (annotation.get("yref") or "y").startswith("paper") and (annotation.get("y") or 0) >= 1 \
                and annotation.get("yanchor", "auto") in ("bottom", "auto"):
            above = max(above, len(_BREAK.findall(annotation.get("text") or "")) + 1)
    margin["t"] = margin.get("t", 0) + round(above * LINE_EM * font)

    # The plot's height, roughly: what the title, the x-axis (ticks and title) and the legend
    # leave over, with the legend's rows as a phone would wrap them.
    legend_rows = _legend_rows(data, layout, font) if layout.get("showlegend") is not False else 0
    plot_height = height - margin["t"] - 3 * LINE_EM * font - legend_rows * 1.5 * font - 20
    if plot_height < MIN_PLOT_HEIGHT:  # a long legend or title: the figure grows, not the plot shrinks
        height += round(MIN_PLOT_HEIGHT - plot_height)
        layout["height"] = height
        plot_height = MIN_PLOT_HEIGHT
        if title:
            layout["title"]["y"] = 1 - (TITLE_PAD + title_font) / height
    for key in [k for k in layout if re.fullmatch(r"[xy]axis\d*", k)]:
        axis = layout[key] = dict(layout[key] or {})
        axis["automargin"] = True
        if key.startswith("x"):
            # Room between the x labels and the plot, so the first x label and the lowest
            # y label do not meet at the corner.
            axis.setdefault("ticklabelstandoff", round(0.5 * font))
        if axis.get("type") == "log":
            _space_log_ticks(axis, key, data, plot_height, font)
        if key.startswith("y") and axis.get("type") != "category" and axis.get("tickvals") is None \
                and axis.get("dtick") is None and "nticks" not in axis:
            # Plotly spaces ticks by the axis length only; projector type needs more room.
            low, high = axis.get("domain") or (0, 1)
            axis["nticks"] = max(3, int(plot_height * (high - low) / (2.2 * font)))
        text = _title_text(axis)
        if not text:
            continue
        if key.startswith("x"):
            _set_title_text(axis, wrap(text, AXIS_TITLE_CHARS))
            continue
        low, high = axis.get("domain") or (0, 1)
        room = max(0.9 * plot_height * (high - low), 2 * font)
        length = visible_length(text) * CHAR_EM * font
        if length > room:
            _set_title_text(axis, _balanced(text, -(-int(length) // int(room))))
    return layout


def _legend_rows(data: list[dict], layout: dict, font: float) -> int:
    """The lines of text a horizontal legend takes on a phone. Plotly puts all entries on one
    row if they fit, and otherwise lays them out in columns as wide as the widest entry."""
    legend_font = ((layout.get("legend") or {}).get("font") or {}).get("size") or font
    names = [_BREAK.split(str(trace["name"])) for trace in data
             if trace.get("name") and trace.get("showlegend") is not False]
    if len(names) < 2 and not layout.get("showlegend"):
        return 0  # Plotly shows no legend for a single trace unless asked
    widths = [(max(visible_length(line) for line in lines) * CHAR_EM + 3) * legend_font
              for lines in names]
    if sum(widths) <= PHONE_CHART_WIDTH:
        return max(len(lines) for lines in names)
    columns = max(1, int(PHONE_CHART_WIDTH // max(widths)))
    if columns == 1:
        return sum(len(lines) for lines in names)
    return -(-len(names) // columns) * max(len(lines) for lines in names)


def _log_range(axis: dict, key: str, data: list[dict]) -> tuple[float, float] | None:
    """The powers of ten a log axis spans: its range, or else its traces' values."""
    if axis.get("range") and None not in axis["range"]:
        low, high = (float(end) for end in axis["range"])
        return min(low, high), max(low, high)
    letter, ref = key[0], key[0] + key[5:]  # "yaxis2" → "y2"
    values = []
    for trace in data:
        column = decode_array(trace.get(letter))  # typed arrays back to numbers
        if (trace.get(f"{letter}axis") or letter) != ref or column is None or isinstance(column, dict):
            continue
        try:
            column = np.asarray(column, dtype=float).ravel()
        except (TypeError, ValueError):
            continue
        column = column[np.isfinite(column) & (column > 0)]
        if column.size:
            values += [float(column.min()), float(column.max())]
    if not values:
        return None
    low, high = math.log10(min(values)), math.log10(max(values))
    pad = 0.06 * (high - low)  # Plotly's autorange pads the data by about this much
    return low - pad, high + pad


def _space_log_ticks(axis: dict, key: str, data: list[dict], plot_height: float, font: float) -> None:
    """Label every power of ten, or every second or third, so that labels never touch.

    Plotly spaces log ticks by the axis length but not by the labels' size: superscript
    powers (10⁻⁶) are taller than a line, and a phone's x-axis is short.
    """
    given = axis.get("tickvals")
    if given is not None:
        _thin_tickvals(axis, key, data, plot_height, font)
        return
    if axis.get("dtick") not in (None, 1, "D1", "D2"):
        return
    span = _log_range(axis, key, data)
    if span is None or span[1] - span[0] < 2:
        return
    if key.startswith("y"):
        low, high = axis.get("domain") or (0, 1)
        label = (1.9 if axis.get("exponentformat") == "power" else 1.6) * font
        room = plot_height * (high - low)
    else:
        if axis.get("exponentformat") == "power":
            chars = 3.5
        else:  # 1,000,000 or 0.0001
            chars = max(len(f"{10.0 ** round(span[1]):,.0f}"), len(f"{10.0 ** round(span[0]):g}"))
        label, room = (chars * CHAR_EM + 1) * font, PHONE_CHART_WIDTH - 4 * font
    axis["dtick"] = max(1, math.ceil((span[1] - span[0]) * label / max(room, 1)))
    axis.setdefault("tick0", 0)


def _thin_tickvals(axis: dict, key: str, data: list[dict], plot_height: float, font: float) -> None:
    """Drop listed ticks of a log axis whose labels would touch (by height on a vertical
    axis, by width on a phone's horizontal one)."""
    span = _log_range(axis, key, data)
    values, texts = list(axis["tickvals"]), axis.get("ticktext")
    if span is None or not values or span[1] <= span[0]:
        return
    if key.startswith("y"):
        low, high = axis.get("domain") or (0, 1)
        label, room = 1.6 * font, plot_height * (high - low)
    else:
        shown = [str(t) for t in texts] if texts is not None else [f"{v:,g}" for v in values]
        label = (max(len(t) for t in shown) * CHAR_EM + 1) * font
        room = PHONE_CHART_WIDTH - 4 * font
    gap = label * (span[1] - span[0]) / max(room, 1)  # in decades
    kept, last = [], None
    for i, value in enumerate(values):
        if value <= 0:
            continue
        position = math.log10(value)
        if last is None or position - last >= gap:
            kept.append(i)
            last = position
    if len(kept) < len(values):
        axis["tickvals"] = [values[i] for i in kept]
        if texts is not None:
            axis["ticktext"] = [list(texts)[i] for i in kept]


def _for_projector(layout: dict, data: list[dict]) -> None:
    """Projector-sized type and lines, in place."""
    layout["font"] = {**(layout.get("font") or {}), "size": PRESENTER_FONT_SIZE}
    title = layout.get("title")
    if isinstance(title, dict):
        title["font"] = {**(title.get("font") or {}), "size": PRESENTER_TITLE_SIZE}
    layout["legend"] = {**(layout.get("legend") or {}),
                        "font": {**((layout.get("legend") or {}).get("font") or {}),
                                 "size": PRESENTER_FONT_SIZE}}
    layout["height"] = (layout.get("height") or HEIGHT) + PRESENTER_EXTRA_HEIGHT
    for key in [k for k in layout if re.fullmatch(r"[xy]axis\d*", k)]:  # ticks a chart set smaller
        axis = layout[key]
        if isinstance(axis, dict) and isinstance(axis.get("tickfont"), dict) and axis["tickfont"].get("size"):
            axis["tickfont"] = {**axis["tickfont"], "size": max(axis["tickfont"]["size"], PRESENTER_FONT_SIZE)}
    for annotation in layout.get("annotations") or []:
        annotation["font"] = {**(annotation.get("font") or {}), "size": PRESENTER_ANNOTATION_SIZE}
    for trace in data:
        if trace.get("type", "scatter") not in ("scatter", "scattergl"):
            continue
        line = trace.get("line")
        if isinstance(line, dict):
            line["width"] = (line.get("width") or 2) * PRESENTER_LINE_SCALE
        marker = trace.get("marker")
        if isinstance(marker, dict) and isinstance(marker.get("size", 6), int | float):
            marker["size"] = (marker.get("size") or 6) * 1.4


def for_screens(figure: go.Figure, *, presenter: bool = False) -> PlainFigure:
    """A laid-out copy of the figure (the original may be cached and shared: never mutated).

    A PlainFigure never changes, so its laid-out copy is made once and kept with it: a
    cached figure is laid out once per process, not on every send."""
    if isinstance(figure, PlainFigure):
        return figure.memo(("screens", presenter), lambda: _laid_out(figure.spec, presenter))
    return _laid_out(plain_spec(figure), presenter)


def _copy_tree(value):
    """Dicts and lists copied all the way down (what fit_layout may change), other values
    shared; the template is shared too (nothing changes it)."""
    if isinstance(value, dict):
        return {key: item if key == "template" else _copy_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_tree(item) for item in value]
    return value


def _laid_out(spec: dict, presenter: bool) -> PlainFigure:
    layout = _copy_tree(spec["layout"])
    # Traces: a copy of the trace and of the line and marker that projector mode restyles;
    # their data arrays are shared.
    data = [{**trace, **{key: dict(trace[key]) for key in ("line", "marker")
                         if isinstance(trace.get(key), dict)}} for trace in spec["data"]]
    for trace in data:  # a legend entry wider than a phone runs off its right edge
        if isinstance(trace.get("name"), str) and visible_length(trace["name"]) > LEGEND_CHARS:
            trace["name"] = wrap(trace["name"], LEGEND_CHARS)
    if presenter:
        _for_projector(layout, data)
    fit_layout(layout, data, presenter=presenter)
    return PlainFigure.encoded({"data": data, "layout": layout})


def for_projector(figure: go.Figure) -> go.Figure:
    return for_screens(figure, presenter=True)


def chart(figure: go.Figure, caption: str | None = None, *, projected: bool = False, **kwargs) -> None:
    """Render a chart full width, followed by its text caption (hidden in presenter mode).

    `projected` draws it as presenter mode would on a page that is projected without it (the
    live class's projector view)."""
    kwargs.setdefault("width", "stretch")
    # Streamlit's own chart theme would override our axis fonts with small ones.
    kwargs.setdefault("theme", None)
    presenting = projected or presenter_mode()
    if presenting:
        kwargs.setdefault("config", {"displayModeBar": False})
    st.plotly_chart(for_screens(figure, presenter=presenting), **kwargs)
    if not presenting:
        st.caption(caption or describe(figure))


def fold(label: str, *, key: str):
    """A folded st.expander whose content is built only while it is open, or None when closed.

    Its label must not change with the page's values (a new label is a new widget, which
    would fold again on every move); `key` ends in "_fold" (tests open folds by it).

    Opening it reruns its demo (on_change="rerun"), so a closed fold is one element on every
    move, whatever it would hold: a chart, a table and their prose are not rebuilt and resent
    for a reader who is not looking (issue 16). Use as

        if (box := fold(label, key=...)) is not None:
            with box:
                ...
    """
    if not key.endswith("_fold"):
        raise ValueError(f"a fold's key ends in _fold, got {key!r}")
    box = st.expander(label, key=key, on_change="rerun")
    return box if box.open else None
