"""Figures held as plain data, so that sending one costs neither validation nor a deep copy.

What Streamlit 1.67's `st.plotly_chart(figure)` does with its argument:

    figure = plotly.tools.return_figure_from_figure_or_data(figure, validate_figure=True)
    spec = plotly.io.to_json(figure, validate=False)          # orjson

For a `go.Figure`, the first line is `figure.to_dict()`: a deep copy of every trace and of the
layout, then a walk that base64-encodes every numpy array. For a plain `dict` it is worse:
`go.Figure(**dict).to_dict()` validates every property first. Only a `BaseFigure` skips the
validation, so `PlainFigure` is one in name only: it holds `{"data": [...], "layout": {...}}`
as plain dicts and lists, encodes its numpy arrays once when they come in (plotly.js typed
arrays, exactly as plotly would send them), and `to_dict()` hands back that dict itself.
The second line then only serialises it.

Nothing checks a PlainFigure on its way to the browser, so the tests do: every chart a page
renders is validated by plotly in tests/test_pages.py, which also refuses the spellings
plotly would silently rewrite (`line_width=…`, `title="…"`: plotly.js would not understand
them as written). `.data` and `.layout` give the validated figure's objects, for tests to
read; the app itself reads the dicts (`spec`).

A PlainFigure may be cached and shared by every session (st.cache_resource): nothing may
change it after it is built. The builder methods (`add_trace`, `update_layout`, …) are for
building only, before the figure is returned.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.basedatatypes import BaseTraceType

# Keys whose arrays plotly never encodes (plotly's own is_skipped_key list).
_NOT_ENCODED = frozenset({"geojson", "layer", "layers", "range"})
# plotly.js typed arrays (plotly's plotlyjsShortTypes), and the integer types that 64-bit
# integers shrink to when their values fit, in plotly's order.
_SHORT = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4",
          "uint32": "u4", "float32": "f4", "float64": "f8"}
_SHRINK = {"int64": (np.int8, np.int16, np.int32), "uint64": (np.uint8, np.uint16, np.uint32)}


def to_typed_array_spec(array: np.ndarray):
    """plotly's own _plotly_utils.utils.to_typed_array_spec, the same output without its
    detour through narwhals (a third of the cost of sending a figure): a numeric array as
    {"dtype", "bdata"[, "shape"]}; 64-bit integers shrink to the smallest type that holds
    them (or stay a plain array); other arrays (text, booleans) go as lists."""
    if array.dtype.kind not in "uif":
        return array if array.dtype.kind == "M" else array.tolist()
    if array.size == 0:
        return array
    name = array.dtype.name
    if name in _SHRINK:
        low, high = array.min(), array.max()
        for kind in _SHRINK[name]:
            info = np.iinfo(kind)
            if info.min <= low and high <= info.max:
                array, name = array.astype(kind), np.dtype(kind).name
                break
        else:
            return array
    if name not in _SHORT:
        return array
    spec = {"dtype": _SHORT[name],
            "bdata": base64.b64encode(np.ascontiguousarray(array)).decode("ascii")}
    if array.ndim > 1:
        spec["shape"] = str(array.shape)[1:-1]
    return spec


def encode_arrays(value: Any) -> Any:
    """Numpy arrays (at any depth of dicts and lists) as plotly.js typed arrays, in place
    for containers; returns the value. The same conversion as plotly's to_dict()."""
    if isinstance(value, np.ndarray):
        return to_typed_array_spec(value)
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _NOT_ENCODED:
                continue
            if isinstance(item, np.ndarray):
                value[key] = to_typed_array_spec(item)
            elif isinstance(item, dict | list):
                encode_arrays(item)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, np.ndarray):
                value[i] = to_typed_array_spec(item)
            elif isinstance(item, dict | list):
                encode_arrays(item)
    return value


def decode_array(value: Any) -> Any:
    """A typed array back as numpy (other values as they are): for code that reads values."""
    if isinstance(value, dict) and "bdata" in value and "dtype" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            dims = shape if isinstance(shape, list) else str(shape).split(",")
            array = array.reshape([int(dim) for dim in dims])
        return array
    return value


def decode_arrays(value: Any) -> Any:
    """A copy of a spec with its typed arrays back as numpy arrays."""
    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            return decode_array(value)
        return {key: decode_arrays(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decode_arrays(item) for item in value]
    return value


def _trace_dict(trace) -> dict:
    if isinstance(trace, BaseTraceType):  # built (and validated) elsewhere: take its data
        return trace.to_plotly_json()
    if not isinstance(trace, dict):
        raise TypeError(f"a trace must be a dict, not {type(trace).__name__}")
    return dict(trace)


def _merge(target: dict, update: dict) -> None:
    """plotly's update(): nested dicts merge, everything else is replaced."""
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            merged = dict(target[key])
            _merge(merged, value)
            target[key] = merged
        else:
            target[key] = value


class PlainFigure(go.Figure):
    """A plotly figure as plain data (see the module docstring). `go.Figure.__init__` never
    runs: the object holds only its spec, and isinstance(…, go.Figure) holds for Streamlit."""

    def __init__(self, data=None, layout=None):  # no super().__init__(), on purpose
        if isinstance(data, dict) and layout is None:  # PlainFigure(spec), as pickle rebuilds it
            data, layout = data.get("data"), data.get("layout")
        self._spec = {"data": [encode_arrays(_trace_dict(trace)) for trace in data or ()],
                      "layout": encode_arrays(dict(layout or {}))}
        self._validated = None
        self._memo = {}

    @classmethod
    def encoded(cls, spec: dict) -> PlainFigure:
        """A PlainFigure holding `spec` itself, whose arrays are encoded already (no walk)."""
        figure = cls.__new__(cls)
        figure._spec, figure._validated, figure._memo = spec, None, {}
        return figure

    # ── What Streamlit and plotly.io call ──────────────────────────────────────────────────

    def to_dict(self) -> dict:
        """The figure's own spec: no copy, arrays already encoded. Do not change it."""
        return self._spec

    to_plotly_json = to_dict

    @property
    def spec(self) -> dict:
        return self._spec

    def memo(self, key, build):
        """A value derived from this (never changing) figure, built once per key.

        Cached figures are shared by every session, so their laid-out copies and captions
        are computed once per process, not once per send."""
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = build()
            return value

    def __reduce__(self):
        return (PlainFigure, (self._spec,))

    def __repr__(self) -> str:
        title = self._spec["layout"].get("title") or {}
        return (f"PlainFigure({len(self._spec['data'])} traces, title "
                f"{(title.get('text') if isinstance(title, dict) else title)!r})")

    def __eq__(self, other) -> bool:
        if isinstance(other, PlainFigure):
            return self._spec == other._spec
        return NotImplemented

    __hash__ = object.__hash__

    # ── Validation, for tests ──────────────────────────────────────────────────────────────

    def validated(self) -> go.Figure:
        """The spec through plotly's full validation, which raises on a misspelt property;
        and raises too where plotly would rewrite the spec into something else (magic
        underscores such as `line_width`, a title given as a bare string), since the
        browser gets the spec as written."""
        figure = self._full()
        problems = spec_mismatches(self._spec, figure.to_dict())
        if problems:
            raise ValueError("plotly would rewrite this spec: " + "; ".join(problems[:5]))
        return figure

    def _full(self) -> go.Figure:
        if self._validated is None:
            self._validated = go.Figure(decode_arrays(self._spec))
        return self._validated

    @property
    def data(self):
        """The traces as plotly objects (validated: slow; for tests and old callers)."""
        return self._full().data

    @property
    def layout(self):
        """The layout as a plotly object (validated: slow; for tests and old callers)."""
        return self._full().layout

    # ── Building (before the figure is returned; never on a shared figure) ─────────────────

    def add_trace(self, trace, **_ignored) -> PlainFigure:
        self._spec["data"].append(encode_arrays(_trace_dict(trace)))
        self._memo.clear()
        return self

    def add_traces(self, traces, **_ignored) -> PlainFigure:
        for trace in traces:
            self.add_trace(trace)
        return self

    def update_layout(self, dict1: dict | None = None, **kwargs) -> PlainFigure:
        update = encode_arrays({**(dict1 or {}), **kwargs})
        for key, value in update.items():
            if key == "title" and isinstance(value, str):
                update[key] = {"text": value}
        _merge(self._spec["layout"], update)
        self._memo.clear()
        return self

    def _update_axes(self, letter: str, update: dict) -> PlainFigure:
        layout = self._spec["layout"]
        keys = [key for key in layout if key.startswith(f"{letter}axis")] or [f"{letter}axis"]
        for key in keys:
            axis = dict(layout.get(key) or {})
            _merge(axis, encode_arrays(dict(update)))
            layout[key] = axis
        self._memo.clear()
        return self

    def update_xaxes(self, dict1: dict | None = None, **kwargs) -> PlainFigure:
        return self._update_axes("x", {**(dict1 or {}), **kwargs})

    def update_yaxes(self, dict1: dict | None = None, **kwargs) -> PlainFigure:
        return self._update_axes("y", {**(dict1 or {}), **kwargs})

    def add_shape(self, shape: dict | None = None, **kwargs) -> PlainFigure:
        layout = self._spec["layout"]
        layout["shapes"] = [*(layout.get("shapes") or []), {**(shape or {}), **kwargs}]
        self._memo.clear()
        return self

    def add_annotation(self, annotation: dict | None = None, **kwargs) -> PlainFigure:
        layout = self._spec["layout"]
        layout["annotations"] = [*(layout.get("annotations") or []),
                                 {**(annotation or {}), **kwargs}]
        self._memo.clear()
        return self

    def add_vrect(self, x0, x1, *, line_width=None, **kwargs) -> PlainFigure:
        """A band across the plot's full height, as plotly's add_vrect draws it."""
        shape = {"type": "rect", "x0": x0, "x1": x1, "xref": "x", "y0": 0, "y1": 1,
                 "yref": "y domain", **kwargs}
        if line_width is not None:
            shape["line"] = {**(shape.get("line") or {}), "width": line_width}
        return self.add_shape(shape)


def spec_mismatches(plain: Any, valid: Any, path: str = "") -> list[str]:
    """Where the plain spec says something other than plotly's validated version of it.

    Every key of the plain spec must survive validation, and a value that plotly turned
    into an object (e.g. `title="…"` → `{"text": "…"}`) must already be one. Arrays,
    tuples and typed arrays are compared by kind only; the template is plotly's own."""
    problems: list[str] = []
    if isinstance(plain, dict):
        if "bdata" in plain and "dtype" in plain:
            return problems
        if not isinstance(valid, dict):
            return [f"{path or 'figure'} is an object, plotly made it {type(valid).__name__}"]
        for key, value in plain.items():
            if key == "template" and path == "layout":
                continue
            where = f"{path}.{key}" if path else key
            if key not in valid:
                if value is None or (isinstance(value, list | tuple | dict) and not value):
                    continue  # empty: plotly leaves it out, plotly.js ignores it
                problems.append(f"{where} is not a property (plotly would drop or rewrite it)")
            else:
                problems += spec_mismatches(value, valid[key], where)
    elif isinstance(plain, list | tuple):
        if isinstance(valid, list | tuple) and len(valid) == len(plain):
            for i, (a, b) in enumerate(zip(plain, valid, strict=True)):
                if isinstance(a, dict):
                    problems += spec_mismatches(a, b, f"{path}[{i}]")
    elif isinstance(valid, dict) and not ("bdata" in valid and "dtype" in valid):
        problems.append(f"{path} = {plain!r}: plotly expects an object here")
    return problems


def plain_spec(figure) -> dict:
    """The figure as plain data: a PlainFigure's own spec (do not change it), a go.Figure's
    to_dict() (a fresh copy), or a dict as it is."""
    if isinstance(figure, go.Figure):
        return figure.to_dict()
    return figure
