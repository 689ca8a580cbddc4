"""The instructor's admin records (a session's code and admin token) kept in this browser's own
localStorage, so that the running session belongs to the browser, not to one tab or one URL:
a reload, a second tab, the sidebar's link or a lesson's "Live on the phones" link all find
its controls again, and the token never travels in an address.

The same mechanism as the phone's device id in ui.live: an st.components.v2 component that runs
in the browser, reads (or writes) one localStorage entry and reports it to the server. The entry
holds one record per instructor page ("live_admin", "poll_admin"), as JSON.

app.py calls sync() once per run. The browser's report comes a moment after the first run and
reruns the page, which then finds the session. On the instructor pages the browser reports even
an empty storage (`known()` tells the two apart); elsewhere it reports only a record the server
does not know yet, so that a student's browser, which holds none, costs no rerun.
"""

from __future__ import annotations

import json

import streamlit as st

from classroom import store

STORAGE_KEY = "dplab-instructor"
RECORD_KEYS = ("live_admin", "poll_admin")
_STATE_KEY = "dplab_admin_store"  # the component's widget state
KNOWN_KEY = "dplab_admin_known"  # the JSON the browser last reported (None before any report)
_WRITE_KEY = "dplab_admin_write"  # JSON to store, until the browser reports it stored
_MAX_CHARS = 2_000

_JS = """
export default function (component) {
  const { setStateValue, data } = component;
  const KEY = "dplab-instructor";
  let stored = null;
  try {
    if (typeof data.write === "string") {
      if (data.write === "{}") window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, data.write);
    }
    stored = window.localStorage.getItem(KEY);
  } catch (error) {
    stored = null;
  }
  if (stored !== data.known || (data.ask && !data.reported)) {
    setStateValue("stored", { json: stored });
  }
}
"""
_component = st.components.v2.component("dplab_admin_store", js=_JS)


def _parse(raw: object) -> dict[str, dict]:
    """The records in what the browser reported; anything malformed counts as none."""
    if not isinstance(raw, str) or len(raw) > _MAX_CHARS:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    records = {}
    for key in RECORD_KEYS:
        record = data.get(key)
        if (isinstance(record, dict) and store.normalise_code(record.get("code")) is not None
                and isinstance(record.get("token"), str)
                and 0 < len(record["token"]) <= store.MAX_LINK_VALUE_CHARS):
            records[key] = {"code": store.normalise_code(record["code"]), "token": record["token"],
                            "stored": True}
    return records


def _as_json(records: dict[str, dict]) -> str:
    return json.dumps({key: records[key] for key in RECORD_KEYS if records.get(key)},
                      sort_keys=True, separators=(",", ":"))


def _on_report() -> None:
    reported = (st.session_state.get(_STATE_KEY) or {}).get("stored")
    raw = reported.get("json") if isinstance(reported, dict) else None
    st.session_state[KNOWN_KEY] = raw if isinstance(raw, str) else ""
    pending = st.session_state.get(_WRITE_KEY)
    if pending is not None:
        if (raw or "{}") == pending:
            st.session_state.pop(_WRITE_KEY, None)
        return  # this session's own change wins until the browser holds it
    records = _parse(raw)  # the browser's records are this browser's truth
    for key in RECORD_KEYS:
        current = st.session_state.get(key) or {}
        if current and not current.get("stored"):
            continue  # a token just taken from a link or the box: checked, then stored
        if key in records:
            st.session_state[key] = records[key]
        elif current:
            st.session_state.pop(key, None)  # forgotten by another tab


def sync(*, ask: bool) -> None:
    """Render the (invisible) component: apply a pending write, learn the browser's records.
    `ask`: report even an empty storage (the instructor pages wait for it)."""
    known = st.session_state.get(KNOWN_KEY)
    _component(key=_STATE_KEY, data={"known": known if known else None, "reported": known is not None,
                                     "ask": ask, "write": st.session_state.get(_WRITE_KEY)},
               default={"stored": None}, on_stored_change=_on_report, width="stretch", height="content")


def known() -> bool:
    """Whether this browser has reported its records in this session (or cannot keep any)."""
    return st.session_state.get(KNOWN_KEY) is not None


def remember(record_key: str, code: str, token: str) -> None:
    """Keep a record in this session and, from the next component render on, in the browser."""
    st.session_state[record_key] = {"code": code, "token": token, "stored": True}
    _write()


def forget(record_key: str) -> None:
    st.session_state.pop(record_key, None)
    _write()


def _write() -> None:
    records = {key: {"code": st.session_state[key]["code"], "token": st.session_state[key]["token"]}
               for key in RECORD_KEYS if (st.session_state.get(key) or {}).get("token")}
    st.session_state[_WRITE_KEY] = _as_json(records)
