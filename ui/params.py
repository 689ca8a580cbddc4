"""Parameter widgets: ε, δ, n and friends, with sensible ranges and URL binding.

Every main parameter is bound to a query parameter named after its key, so a copied
URL reopens the same view. Streamlit silently drops a URL value it cannot use; these
helpers say so under the widget instead, naming the value that was ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st

# Log-spaced, human-readable steps ("1-2-5"-like) for parameters that span decades.
EPSILONS = [0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7,
            1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0]
DELTAS = [10.0**-k for k in range(12, 0, -1)]
POPULATIONS = [int(m * 10**k) for k in range(1, 10) for m in (1, 2, 5)]


def number_label(value) -> str:
    """How a number appears on a slider and in a URL: 0.1, 1e-05, 2000."""
    return f"{value:g}"


def url_value(key: str) -> str | None:
    values = st.query_params.get_all(key)
    return values[-1] if values else None


def note_if_ignored(key: str, label: str, link_value: str | None, shown: str) -> None:
    """Say under the widget when a URL value for it was ignored or adjusted.

    The note stays until the student moves the widget away from the fallback value.
    """
    note_key = f"{key}__url_note"
    if link_value is not None and link_value != shown:
        note = f"The link's value {key}={link_value!r} is not a valid {label}; showing {shown} instead."
        st.session_state[note_key] = (note, shown)
    note, fallback = st.session_state.get(note_key, (None, None))
    if note and fallback == shown:
        st.caption(f"⚠️ {note}")
    else:
        st.session_state.pop(note_key, None)


def choice_slider(label: str, options: Sequence, default, key: str, *,
                  help: str | None = None, format_func: Callable = number_label):
    """A slider over a fixed list of values (log scales), bound to the URL."""
    if default not in options:
        raise ValueError(f"default {default!r} for {key} is not one of the options")
    link_value = url_value(key)
    value = st.select_slider(label, options=list(options), value=default, key=key,
                             format_func=format_func, help=help, bind="query-params")
    note_if_ignored(key, label, link_value, format_func(value))
    return value


def choice_radio(label: str, options: Sequence, default, key: str, *,
                 format_func: Callable = str, help: str | None = None):
    """A horizontal radio bound to the URL, with the same ignored-link note as the sliders."""
    link_value = url_value(key)
    value = st.radio(label, list(options), index=list(options).index(default), key=key,
                     format_func=format_func, horizontal=True, help=help, bind="query-params")
    note_if_ignored(key, label, link_value, format_func(value))
    return value


def choice_pills(label: str, options: Sequence, default: Sequence, key: str, *,
                 format_func: Callable = str, help: str | None = None) -> list:
    """Multi-select pills bound to the URL, which carries one label per chosen option."""
    link_values = st.query_params.get_all(key)
    chosen = st.pills(label, list(options), selection_mode="multi", default=list(default), key=key,
                      format_func=format_func, help=help, bind="query-params")
    shown = [format_func(option) for option in chosen]
    # Streamlit keeps the valid labels in its own order, and drops the whole link if one is bad.
    same = not link_values or sorted(link_values) == sorted(shown) or link_values == [""]
    note_if_ignored(key, label, None if same else ", ".join(link_values), ", ".join(shown))
    return chosen


def bound_toggle(label: str, key: str, *, help: str | None = None) -> bool:
    """A toggle bound to the URL as true/false."""
    link_value = url_value(key)
    on = st.toggle(label, key=key, help=help, bind="query-params")
    accepted = link_value is None or link_value.lower() in ("true", "false")
    note_if_ignored(key, f"{label!r} switch (use true or false)",
                    None if accepted else link_value, str(on).lower())
    return on


def range_slider(label: str, min_value, max_value, default, key: str, *,
                 step=None, help: str | None = None, format: str | None = None):
    """A linear slider bound to the URL (ints stay ints)."""
    link_value = url_value(key)
    value = st.slider(label, min_value=min_value, max_value=max_value, value=default,
                      step=step, key=key, help=help, format=format, bind="query-params")
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
             label: str = "n (people)") -> int:
    return choice_slider(label, options, default, key)


def log_options(lower: float, upper: float, per_decade: int = 3) -> list[float]:
    """Round, log-spaced values from lower to upper: 1, 2, 5, 10, … for per_decade=3."""
    mantissas = {1: [1], 2: [1, 3], 3: [1, 2, 5], 4: [1, 2, 3, 5], 6: [1, 1.5, 2, 3, 5, 7]}
    steps = mantissas[per_decade]
    values = [m * 10.0**k for k in range(int(np.floor(np.log10(lower))), int(np.ceil(np.log10(upper))) + 1)
              for m in steps]
    return [float(f"{v:.6g}") for v in values if lower <= v <= upper]
