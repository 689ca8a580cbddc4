"""Editable tables (st.data_editor) that a crafted widget state cannot stall.

The browser sends a data editor's edits as a widget state: `edited_rows` (row position →
column → value), `added_rows` and `deleted_rows`. Streamlit 1.67 applies it inside
st.data_editor, before the page sees the table: each added row is a `df.loc[...] = ...`
that copies the whole frame, so N added rows cost time in N² (4,000 rows: 8.4 s of CPU,
bench/attacks.py). A script can send any state it likes, so the page must refuse an
oversized or malformed state *before* st.data_editor applies it.

Two things make that hold:

- The state is read with st.session_state[key] before the editor is drawn, and checked:
  its shape, row positions and column names, and the number of rows it adds. A state that
  fails is never handed to st.data_editor; the page says why, and the editor starts again
  from the last good table.
- st.session_state[key] only sees a state if the server already maps the key to the
  editor's id, i.e. the editor was drawn in this session's previous run. A state sent for
  an editor the server did not just draw (a fresh session, or a tab that was closed) would
  be applied unseen. So whenever the mapping is missing, the editor gets a new key with a
  random suffix: its id is then one no client has seen, and a state crafted for an earlier
  id is dropped by Streamlit as belonging to no widget.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping

import pandas as pd
import streamlit as st

SCALARS = (str, int, float, bool, type(None))


def edit_problem(state, rows: int, columns: list[str], max_rows: int) -> str | None:
    """Why this editor state cannot be applied to a table of `rows` rows, or None.

    `max_rows` is the most rows the page accepts. An edit may overshoot it a little (the
    page then says the table is too long); one that adds more than `max_rows` rows at once
    is refused here, before Streamlit spends time applying it.
    """
    if state is None:  # no edit yet
        return None
    if not isinstance(state, Mapping):
        return "the edit arrived in a form the table does not understand"
    edited = state.get("edited_rows", {})
    added = state.get("added_rows", [])
    deleted = state.get("deleted_rows", [])
    if not (isinstance(edited, Mapping) and isinstance(added, list) and isinstance(deleted, list)):
        return "the edit arrived in a form the table does not understand"
    if len(added) > max_rows:
        return f"the edit adds {len(added):,} rows, and this table takes at most {max_rows}"
    if len(edited) > rows or len(deleted) > rows:
        return "the edit changes more rows than the table has"
    known = set(columns)
    for position, changes in edited.items():
        if not _position(position, rows) or not _row(changes, known):
            return "the edit names a row or a column that the table does not have"
    for changes in added:
        if not _row(changes, known):
            return "the edit names a column that the table does not have"
    if not all(_position(position, rows) for position in deleted):
        return "the edit deletes a row that the table does not have"
    return None


def _position(value, rows: int) -> bool:
    try:
        return not isinstance(value, bool) and 0 <= int(value) < rows and int(value) == float(value)
    except (TypeError, ValueError, OverflowError):
        return False


def _row(changes, known: set[str]) -> bool:
    return (isinstance(changes, Mapping) and set(changes) <= known
            and all(isinstance(value, SCALARS) for value in changes.values()))


def _fresh_key(key: str) -> str:
    widget_key = f"{key}__{secrets.token_hex(6)}"
    st.session_state[f"{key}_widget"] = widget_key
    return widget_key


def _read_state(widget_key: str | None) -> tuple[bool, object]:
    """Whether the server maps `widget_key` to an editor drawn in the previous run, and the
    edit state the browser sent for it (None: no edit; () if it could not be read)."""
    if widget_key is None:
        return False, None
    try:  # reading it makes Streamlit parse the JSON the browser sent
        if widget_key not in st.session_state:
            return False, None
        return True, st.session_state[widget_key]
    except Exception:  # noqa: BLE001 (not JSON, or not an editor's state: refused by the caller)
        return True, ()


def widget_key(key: str) -> str:
    """The key the editor `key` is drawn under now (tests set edits through it)."""
    return st.session_state[f"{key}_widget"]


def table_editor(key: str, default: pd.DataFrame, column_config: dict, max_rows: int) -> pd.DataFrame:
    """A guarded st.data_editor (num_rows="dynamic") whose edits survive a tab switch.

    A lazy tab drops the widgets it does not draw, so the last edited table is kept under
    <key>_saved and becomes the editor's starting table (<key>_base) when it is drawn again.
    """
    current = st.session_state.get(f"{key}_widget")
    drawn, state = _read_state(current)
    if not drawn:
        current = _fresh_key(key)
        st.session_state[f"{key}_base"] = st.session_state.get(f"{key}_saved", default)
    base = st.session_state[f"{key}_base"]
    problem = edit_problem(state, len(base), list(base.columns), max_rows)
    if problem is not None:
        current = _fresh_key(key)  # the state stays with the old id, which no widget has now
        base = st.session_state[f"{key}_base"] = st.session_state.get(f"{key}_saved", default)
        st.warning(f"That edit was undone: {problem}.", icon="↩️")
    edited = st.data_editor(base, key=current, num_rows="dynamic", hide_index=True,
                            width="stretch", column_config=column_config)
    st.session_state[f"{key}_saved"] = edited
    return edited


def reset_table(key: str) -> None:
    """Back to the page's default table (a button callback)."""
    for name in (st.session_state.get(f"{key}_widget"), f"{key}_widget", f"{key}_base", f"{key}_saved"):
        if name is not None:
            st.session_state.pop(name, None)
