"""The instructor pages' shared admin side (class poll and live class): the admin token taken off
the address bar, the password box that takes it instead, the refusal when the code and token
open nothing, the start-over button, and the start form's class-size box, creation limit and
hand-over to the new session's controls.

Each page passes its widget-key prefix ("poll", "live"), its slug (whose lesson file holds the
token-wait, token-wrong and no-access sections) and the session-state key of its admin record.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import streamlit as st
from streamlit.errors import StreamlitAPIException

from classroom import store
from ui import admin_store, lessons
from ui import poll as ui_poll
from ui.params import note_if_ignored, url_value

CODE_KEY, ADMIN_LINK_KEY = "code", "admin"


def take_link_token(admin_key: str) -> None:
    """An admin link's token moves from the address bar into this session at once, so that a
    projected address bar (or a screenshot of it) never shows it."""
    link_token = url_value(ADMIN_LINK_KEY)
    if link_token is not None:
        st.session_state[admin_key] = {"code": store.normalise_code(url_value(CODE_KEY)),
                                       "token": link_token[: store.MAX_LINK_VALUE_CHARS + 1]}
        del st.query_params[ADMIN_LINK_KEY]


def start_over_button(admin_key: str, label: str, key: str) -> None:
    """A button back to the start form. The running session goes on (it ends only when asked),
    and the start form offers to resume it."""
    st.button(label, key=key, on_click=_start_over, args=(admin_key,))


def _start_over(admin_key: str) -> None:
    st.session_state[f"{admin_key}_new"] = True
    link_only()


def running_code(admin_key: str, still_open: Callable[[str, str], bool]) -> str | None:
    """The code this page shows: the link's, or else the one this browser runs (kept in its
    storage), which goes into the link. None: the start form. A stored session that has ended
    or expired is forgotten here."""
    raw = url_value(CODE_KEY)
    if raw:
        return raw
    record = st.session_state.get(admin_key) or {}
    if not record.get("token") or st.session_state.get(f"{admin_key}_new"):
        return None
    if still_open(record["code"], record["token"]):
        st.query_params[CODE_KEY] = record["code"]
        return record["code"]
    admin_store.forget(admin_key)
    return None


def resume_button(admin_key: str, label: str) -> None:
    """On the start form, when this browser runs a session: a button back to its controls."""
    record = st.session_state.get(admin_key) or {}
    if record.get("token") and st.session_state.get(f"{admin_key}_new"):
        st.button(label.format(code=record["code"]), key=f"{admin_key}_resume", type="primary",
                  icon="↩️", on_click=_resume, args=(admin_key, record["code"]))


def _resume(admin_key: str, code: str) -> None:
    st.session_state.pop(f"{admin_key}_new", None)
    link_only(**{CODE_KEY: code})


def link_only(**params: str) -> None:
    """Make the address carry exactly `params`, except for widgets' bound parameters (such as
    the class-size box's): Streamlit refuses to delete those ("bound to widgets"), and takes
    each out of the address by itself at the end of the first run that does not draw its
    widget. st.query_params.clear() would raise instead (DESIGN.md, "Known pitfalls")."""
    for key in list(st.query_params):
        if key not in params:
            with contextlib.suppress(StreamlitAPIException):  # bound: leaves with its widget
                del st.query_params[key]
    for key, value in params.items():
        st.query_params[key] = value


def creation_refused(slug: str) -> bool:
    """True, after saying how long to wait, when this session or address made too many lately."""
    wait = ui_poll.creation_wait()
    if wait > 0:
        st.warning(lessons.section_text(slug, "create-wait", wait=ui_poll.say_seconds(wait)), icon="⏳")
    return wait > 0


def open_created(admin_key: str, code: str, token: str) -> None:
    """Keep its admin token in this browser, count the creation and rerun on its code's link."""
    admin_store.remember(admin_key, code, token)
    st.session_state.pop(f"{admin_key}_new", None)
    link_only(**{CODE_KEY: code})
    ui_poll.record_creation()  # only once the new session is reachable
    st.rerun()


def class_size_box(prefix: str, size_key: str, default: int, label: str, help: str) -> int:
    """The class-size number box, bound to the link; an unusable value in the link is noted."""
    ignored_key = f"{prefix}_ignored_class_size"
    link_size = url_value(size_key)
    if link_size is not None and not (link_size.isdigit() and len(link_size) <= 4 and
                                      store.CLASS_SIZE_MIN <= int(link_size) <= store.CLASS_SIZE_MAX):
        # Streamlit's own parsing of a bound number box fails on values such as 1e400, so an
        # unusable value leaves the link before the box reads it (the note says so below).
        st.session_state[ignored_key] = link_size
        try:
            del st.query_params[size_key]
        except StreamlitAPIException:
            pass  # bound by an earlier run, so the box itself wrote this value and can read it
        else:
            st.rerun()
    ignored = st.session_state.pop(ignored_key, None)
    class_size = st.number_input(
        label, min_value=store.CLASS_SIZE_MIN, max_value=store.CLASS_SIZE_MAX, value=default,
        step=1, key=size_key, bind="query-params", help=help)
    note_if_ignored(size_key, "class size", link_size if ignored is None else ignored, str(class_size))
    return class_size


def token_from(typed: str) -> tuple[str, str | None]:
    """The token in what was pasted (a bare token, or a whole admin link), and the link's code."""
    if "admin=" not in typed:
        return typed, None
    query = parse_qs(urlsplit(typed).query if "?" in typed else typed)
    token = (query.get("admin") or [""])[-1]
    return token, store.normalise_code((query.get(CODE_KEY) or [None])[-1])


def _take_token(prefix: str, admin_key: str) -> None:
    """The admin form's callback: move the typed token into the session and empty the box."""
    typed = (st.session_state.get(f"{prefix}_admin_input") or "").strip()
    st.session_state[f"{prefix}_admin_input"] = ""
    if not typed:
        st.session_state[f"{prefix}_admin_problem"] = "empty"
        return
    if ui_poll.attempt_wait("admin") > 0:
        return  # the page says how long to wait
    token, link_code = token_from(typed[: 2 * store.MAX_LINK_VALUE_CHARS])
    target = link_code or store.normalise_code(url_value(CODE_KEY))
    if link_code and link_code != store.normalise_code(url_value(CODE_KEY)):
        st.query_params[CODE_KEY] = link_code
    st.session_state[admin_key] = {"code": target, "token": token[: store.MAX_LINK_VALUE_CHARS + 1]}
    st.session_state[f"{prefix}_admin_problem"] = "check"


def admin_token_form(prefix: str, slug: str, admin_key: str, code: str) -> None:
    """A password box for the admin token, so that it need not travel in a URL."""
    with st.form(f"{prefix}_admin_form", border=False):
        st.text_input("Admin token, or the whole admin link", type="password",
                      key=f"{prefix}_admin_input", autocomplete="off", max_chars=500,
                      help="The token is the long part after admin= in the admin link you saved.")
        st.form_submit_button("Open the controls", type="primary", on_click=_take_token,
                              args=(prefix, admin_key))
    problem = st.session_state.pop(f"{prefix}_admin_problem", None)
    wait = ui_poll.attempt_wait("admin")
    if wait > 0:
        st.warning(lessons.section_text(slug, "token-wait", wait=ui_poll.say_seconds(wait)), icon="⏳")
    elif problem == "empty":
        st.error("Paste the admin token (or the whole admin link) into the box first.", icon="✏️")
    elif problem == "wrong":
        st.error(lessons.section_text(slug, "token-wrong", code=code), icon="🔑")


def admin_or_stop(found: object | None, *, prefix: str, slug: str, admin_key: str, code: str,
                  join_slug: str, join_label: str, new_button: Callable[[], None]) -> None:
    """After looking the code and token up: when they opened nothing (`found` is None), the
    refusal, the token box, a student's link and a start-over button, then st.stop()."""
    if found is None:
        if st.session_state.get(f"{prefix}_admin_problem") == "check":  # a typed token that did not fit
            ui_poll.record_failure("admin")
            st.session_state[f"{prefix}_admin_problem"] = "wrong"
        if not admin_store.known() and not st.session_state.get(admin_key):
            # A reload: this browser's storage reports its sessions in a moment, and the page reruns.
            st.info("Looking for this session's controls in this browser…", icon="🔑")
        else:  # the same answer for an unknown code and a wrong token: no guess is confirmed
            st.warning(lessons.section_text(slug, "no-access"), icon="🔑")
        admin_token_form(prefix, slug, admin_key, code)
        st.page_link(f"app_pages/{join_slug}.py", label=join_label, icon="📱",
                     query_params={"code": code})
        new_button()
        st.stop()
    st.session_state.pop(f"{prefix}_admin_problem", None)
    record = st.session_state.get(admin_key) or {}
    if not record.get("stored"):  # a token from a link or the box, now known to open it
        admin_store.remember(admin_key, record["code"], record["token"])
        st.rerun()  # app.py draws the storage component before the page: it writes on this rerun


def private_admin_link(slug: str, code: str, token: str, key: str) -> None:
    """The private admin link, inside a panel the instructor does not project.

    A switch, not a button: a button's press lives for one run, and the live page reruns itself
    when the projector's clicker or a remote acts, so a pressed button's link could vanish before
    the instructor had copied it (seen in the lecture test). While the switch is off the page
    builds no token into its HTML."""
    with st.expander("🔑 Private admin link: do not project"):
        st.markdown(lessons.section_text(slug, "admin-link"))
        if st.toggle("Show the admin link", key=key):
            st.code(ui_poll.page_url(slug, slug, code=code, admin=token), language=None,
                    wrap_lines=True)
            st.caption("The token is the long part after admin=. Switch this off before you "
                       "project this page.")
