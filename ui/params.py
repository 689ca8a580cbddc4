"""Parameter widgets: ε, δ, n and friends, with sensible ranges and URL binding.

Every main parameter is bound to a query parameter named after its key, so a copied
URL reopens the same view. Streamlit silently drops a URL value it cannot use; these
helpers say so under the widget instead, naming the value that was ignored.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st

from ui.course import HOME, LESSONS, ROOT
from ui.text import quoted

# Log-spaced, human-readable steps ("1-2-5"-like) for parameters that span decades.
EPSILONS = [0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7,
            1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0]
DELTAS = [10.0**-k for k in range(12, 0, -1)]
POPULATIONS = [int(m * 10**k) for k in range(1, 10) for m in (1, 2, 5)]


def number_label(value) -> str:
    """How a number appears on a slider and in a URL: 0.1, 1e-05, 2000."""
    return f"{value:g}"


def url_value(key: str) -> str | None:
    """The link's value for `key` (the last one, if the link repeats the key)."""
    values = st.query_params.get_all(key)
    return values[-1] if values else None


def link_values(key: str) -> list[str] | None:
    """Every value the link gives for `key`, in order, or None if it gives none."""
    return st.query_params.get_all(key) or None


# How each bound widget writes its value into a link. Streamlit drops a bound widget's
# parameter from the address bar while it sits at its default, so "Copy link to this
# view" (ui.share) writes every one of them itself, defaults included: an old link then
# keeps its picture even after a default changes.
_LINK_FORMATS = "_dplab_link_formats"


def remember_for_links(key: str, to_link: Callable[[object], list[str]]) -> None:
    """Register a URL-bound widget: `to_link(value)` gives its link value(s)."""
    st.session_state.setdefault(_LINK_FORMATS, {})[key] = to_link


def forget_link_widgets(page: str) -> None:
    """app.py, before a page runs: a new page starts with no widgets registered. The same
    page keeps them, so a demo's own rerun still knows the widgets of the other demos."""
    if st.session_state.get(f"{_LINK_FORMATS}_page") != page:
        st.session_state[f"{_LINK_FORMATS}_page"] = page
        st.session_state[_LINK_FORMATS] = {}


def link_params() -> dict[str, list[str]]:
    """Every registered widget's current value, as a link writes it (a widget the page did
    not draw this time has no value, and is left out)."""
    formats = st.session_state.get(_LINK_FORMATS) or {}
    return {key: to_link(st.session_state[key]) for key, to_link in formats.items()
            if key in st.session_state}


def _number_in_link(value) -> str:
    """As Streamlit writes a slider's value in the address: 3, 0.5, 1 (not 1.0)."""
    return str(value) if isinstance(value, int | np.integer) else number_label(value)


def _times(count: int) -> str:
    return "twice" if count == 2 else f"{count} times"


def note_if_ignored(key: str, label: str, link_value: str | Sequence[str] | None, shown: str) -> None:
    """Say under the widget when a URL value for it was ignored or adjusted.

    `link_value` is what the link gave for the key: one value, or the list of values if the
    key may be repeated (Streamlit ignores a repeated key of a one-value widget). Values
    are echoed cut short and as inert text, since anyone can write a link (the key, label
    and shown value are the page's own words). The note stays until the student moves the
    widget away from the fallback value.
    """
    note_key = f"{key}__url_note"
    values = [link_value] if isinstance(link_value, str) else list(link_value or [])
    note = None
    if len(values) > 1:
        listed = ", ".join(quoted(value, 20) for value in values[:3]) + (", …" if len(values) > 3 else "")
        note = (f"The link gives {key} {_times(len(values))} ({listed}), and a link can set "
                f"it only once; showing {shown}.")
    elif values and values[0] != shown:
        note = f"The link's value {key}={quoted(values[0])} is not a valid {label}; showing {shown} instead."
    if note:
        st.session_state[note_key] = (note, shown)
    note, fallback = st.session_state.get(note_key, (None, None))
    if note and fallback == shown:
        st.caption(f"⚠️ {note}")
    else:
        st.session_state.pop(note_key, None)


def url_note_shown(key: str) -> bool:
    """Whether the widget `key` shows a note about its link value (note_if_ignored): a demo
    that reruns only parts of itself when the widget moves must rerun whole to take it away."""
    return f"{key}__url_note" in st.session_state


_KEY_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_KEY_SUFFIX = re.compile(r"_[A-Za-z0-9_]*")
MAX_UNKNOWN_NOTES = 3


@functools.lru_cache(maxsize=32)
def _link_key_parts(script: str) -> tuple[frozenset[str], frozenset[str]]:
    """The identifier-like string literals, and the constant tails of f-strings such as
    f"{key}_err" or f"{demo}_draw", in the page's script, app.py and the shared ui/ modules."""
    words, tails = set(), {""}
    for path in [ROOT / script, ROOT / "app.py", *sorted((ROOT / "ui").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and _KEY_LIKE.fullmatch(node.value):
                words.add(node.value)
            elif isinstance(node, ast.JoinedStr) and len(node.values) == 2 \
                    and isinstance(node.values[0], ast.FormattedValue) \
                    and isinstance(node.values[1], ast.Constant) \
                    and _KEY_SUFFIX.fullmatch(str(node.values[1].value)):
                tails.add(node.values[1].value)
    return frozenset(words), frozenset(tails)


def is_known_link_key(script: str, key: str) -> bool:
    """Whether the page could read `key` from its link, judged generously: the key is a
    string literal of the page, app.py or ui/, or such a literal followed by the tail of an
    f-string key (f"{key}_err" with key="lap_plan" gives lap_plan_err)."""
    words, tails = _link_key_parts(script)
    return any(key.endswith(tail) and key[:len(key) - len(tail)] in words for tail in tails)


def note_unknown_link_keys(url_path: str) -> None:
    """Say when the link carries a name that no setting of this page reads (e.g. a typo, or
    a setting that was renamed), and take it out of the address so copied links stay clean.

    Lesson pages only: the class poll's pages build their own links.
    """
    lesson = next((lesson for lesson in LESSONS
                   if (lesson.slug if lesson is not HOME else "") == url_path), None)
    if lesson is None or lesson.section == "Classroom":
        return
    unknown = [key for key in st.query_params if not is_known_link_key(lesson.script, key)]
    for i, key in enumerate(unknown):
        values = st.query_params.get_all(key)
        del st.query_params[key]
        if i < MAX_UNKNOWN_NOTES:
            value = quoted(values[-1], 20) if values else "''"
            st.caption(f"⚠️ This page has no setting called {quoted(key, 20)}, so the link's "
                       f"value {value} for it was ignored.")
    if len(unknown) > MAX_UNKNOWN_NOTES:
        st.caption(f"⚠️ … and {len(unknown) - MAX_UNKNOWN_NOTES:,} more names in the link that "
                   "this page does not read, also ignored.")


def choice_slider(label: str, options: Sequence, default, key: str, *,
                  help: str | None = None, format_func: Callable = number_label,
                  on_change: Callable | None = None):
    """A slider over a fixed list of values (log scales), bound to the URL.

    `on_change` is Streamlit's widget callback, e.g. one that reruns the other demos
    that read this value (st.rerun(scope=[fragment keys]))."""
    if default not in options:
        raise ValueError(f"default {default!r} for {key} is not one of the options")
    link_value = link_values(key)
    value = st.select_slider(label, options=list(options), value=default, key=key,
                             format_func=format_func, help=help, bind="query-params",
                             on_change=on_change)
    remember_for_links(key, lambda chosen: [format_func(chosen)])
    note_if_ignored(key, label, link_value, format_func(value))
    return value


def choice_radio(label: str, options: Sequence, default, key: str, *,
                 format_func: Callable = str, help: str | None = None):
    """A horizontal radio bound to the URL, with the same ignored-link note as the sliders."""
    link_value = link_values(key)
    value = st.radio(label, list(options), index=list(options).index(default), key=key,
                     format_func=format_func, horizontal=True, help=help, bind="query-params")
    remember_for_links(key, lambda chosen: [format_func(chosen)])
    note_if_ignored(key, label, link_value, format_func(value))
    return value


def choice_select(label: str, options: Sequence, default, key: str, *,
                  format_func: Callable = str, help: str | None = None):
    """A drop-down bound to the URL by its shown label, with the same ignored-link note."""
    link_value = link_values(key)
    value = st.selectbox(label, list(options), index=list(options).index(default), key=key,
                         format_func=format_func, help=help, bind="query-params")
    remember_for_links(key, lambda chosen: [format_func(chosen)])
    note_if_ignored(key, label, link_value, format_func(value))
    return value


def choice_pills(label: str, options: Sequence, default: Sequence, key: str, *,
                 format_func: Callable = str, help: str | None = None) -> list:
    """Multi-select pills bound to the URL, which carries one label per chosen option."""
    link_values = st.query_params.get_all(key)
    chosen = st.pills(label, list(options), selection_mode="multi", default=list(default), key=key,
                      format_func=format_func, help=help, bind="query-params")
    shown = [format_func(option) for option in chosen]
    remember_for_links(key, lambda picked: [format_func(option) for option in picked] or [""])
    # Streamlit keeps the valid labels in its own order, and drops the whole link if one is bad.
    same = not link_values or sorted(link_values) == sorted(shown) or link_values == [""]
    note_if_ignored(key, label, None if same else ", ".join(link_values), ", ".join(shown))
    return chosen


def bound_toggle(label: str, key: str, *, help: str | None = None) -> bool:
    """A toggle bound to the URL as true/false."""
    link_value = link_values(key)
    on = st.toggle(label, key=key, help=help, bind="query-params")
    remember_for_links(key, lambda value: [str(bool(value)).lower()])
    accepted = link_value is None or (len(link_value) == 1 and link_value[0].lower() in ("true", "false"))
    note_if_ignored(key, f"{label!r} switch (use true or false)",
                    None if accepted else link_value, str(on).lower())
    return on


def range_slider(label: str, min_value, max_value, default, key: str, *,
                 step=None, help: str | None = None, format: str | None = None,
                 on_change: Callable | None = None):
    """A linear slider bound to the URL (ints stay ints); `on_change` as for choice_slider."""
    link_value = link_values(key)
    value = st.slider(label, min_value=min_value, max_value=max_value, value=default,
                      step=step, key=key, help=help, format=format, bind="query-params",
                      on_change=on_change)
    remember_for_links(key, lambda chosen: [_number_in_link(chosen)])
    note_if_ignored(key, label, link_value, number_label(value))
    return value


def epsilon_slider(key: str, default: float = 1.0, options: Sequence[float] = EPSILONS,
                   label: str = "ε (privacy-loss budget)") -> float:
    return choice_slider(label, options, default, key,
                         help="Smaller ε means more noise and stronger privacy.")


def delta_slider(key: str, default: float = 1e-5, options: Sequence[float] = DELTAS,
                 label: str = "δ (the slack in the guarantee)") -> float:
    return choice_slider(label, options, default, key,
                         help="δ should be much smaller than 1/n.")


def n_slider(key: str, default: int = 1000, options: Sequence[int] = POPULATIONS,
             label: str = "n (people)", *, thousands: bool = False) -> int:
    """An n slider; `thousands` shows 1,000,000 (and its links say so) and still opens old links (1e+06)."""
    if not thousands:
        return choice_slider(label, options, default, key)
    link = url_value(key)
    try:
        old = float(link) if link is not None else None
    except ValueError:
        old = None
    if old is not None and old in options and key not in st.session_state:
        st.query_params[key] = f"{int(old):,}"  # the URL, and the value the note compares with
        st.session_state[key] = int(old)  # the widget (it was seeded from the old URL already)
    return choice_slider(label, options, default, key, format_func=lambda v: f"{v:,}")


def log_options(lower: float, upper: float, per_decade: int = 3) -> list[float]:
    """Round, log-spaced values from lower to upper: 1, 2, 5, 10, … for per_decade=3."""
    mantissas = {1: [1], 2: [1, 3], 3: [1, 2, 5], 4: [1, 2, 3, 5], 6: [1, 1.5, 2, 3, 5, 7]}
    steps = mantissas[per_decade]
    values = [m * 10.0**k for k in range(int(np.floor(np.log10(lower))), int(np.ceil(np.log10(upper))) + 1)
              for m in steps]
    return [float(f"{v:.6g}") for v in values if lower <= v <= upper]
