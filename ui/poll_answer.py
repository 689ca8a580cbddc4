"""Answering a randomized-response class poll on a phone: the protocol's explanation, the
method (own coins, or the app flips), the buttons, and "your answer is in". One code path for
the class poll's own join page and for the live class's join page, which shows the poll in place
(issue 24: one join for the whole lecture; the phone keeps following the instructor after it).
"""

from __future__ import annotations

import math

import streamlit as st

from classroom import limits, store
from ui import lessons
from ui import live as ui_live
from ui import poll as ui_poll

SLUG = ui_poll.JOIN_SLUG
METHOD_COINS = "🪙 I flip real coins"
METHOD_SERVER = "📱 Flip for me"

REFUSALS = {
    store.Submission.CLOSED: ("closed", "🔒"),
    store.Submission.EXPIRED: ("ended-while-open", "⌛"),
    store.Submission.CLASS_FULL: ("class-full", "👥"),
    store.Submission.ADDRESS_FULL: ("address-full", "👥"),
}


def _answered_key(poll: store.Poll) -> str:
    return f"poll_answered_{poll.id}"


def _notice_key(poll: store.Poll) -> str:
    return f"poll_notice_{poll.id}"


def submit(poll: store.Poll, token: str, answer: int, by_server: bool) -> None:
    """A button's callback: store the (randomized) answer once; a refusal is said next run."""
    st.session_state[f"poll_pressed_{poll.id}"] = True
    if ui_live.claims_another_device():  # a session is one device: refused, and counted
        with ui_poll.database_guard():
            store.refuse_other_device(ui_poll.engine(), poll.id)
        st.session_state[_notice_key(poll)] = ("other-device", "🪪")
        return
    ui_live.answering()
    token = ui_live.current_device() or token  # a slow browser's late report may have replaced it
    with ui_poll.database_guard():
        result = store.submit_answer(ui_poll.engine(), poll.id, token, answer,
                                     address=ui_poll.client_address())
    if result in REFUSALS:
        st.session_state[_notice_key(poll)] = REFUSALS[result]
    elif result is store.Submission.UNKNOWN_POLL:
        st.session_state[_notice_key(poll)] = ("removed", "⚠️")
    elif result is store.Submission.RECORDED:
        st.session_state[_answered_key(poll)] = {"answer": answer, "by_server": by_server}
    else:  # DUPLICATE: a double tap that raced the first; the first answer stands
        st.session_state[_answered_key(poll)] = {"answer": None, "by_server": False}


def pressed(poll: store.Poll | None) -> bool:
    """Whether a press on this poll's buttons was handled since the last call (once per press)."""
    return poll is not None and st.session_state.pop(f"poll_pressed_{poll.id}", False)


def answered(poll: store.Poll, token: str) -> bool:
    """Read from the database, never from a flag in the session: after the instructor's Reset,
    everyone can answer again."""
    with ui_poll.database_guard():
        return store.has_answered(ui_poll.engine(), poll.id, token)


def show_recorded(poll: store.Poll, seconds: float) -> None:
    st.success(lessons.section_text(SLUG, "recorded", seconds=f"{seconds:g}"), icon="✅")
    shown = st.session_state.get(_answered_key(poll))
    if shown is not None and shown.get("by_server"):
        st.caption(f"The app's coins gave the answer *{'Yes' if shown['answer'] else 'No'}*; "
                   "that is all it stored.")


def notice(poll: store.Poll) -> bool:
    """A refusal from the last press, said once; True when there was one."""
    shown = st.session_state.pop(_notice_key(poll), None)
    if shown is None:
        return False
    section, icon = shown
    if section == "removed":
        st.warning("This poll has just been removed. Ask your instructor for the new code.")
    else:
        st.info(lessons.section_text(SLUG, section, size=poll.class_size,
                                     hours=store.POLL_LIFETIME_HOURS), icon=icon)
    return True


def _buttons(poll: store.Poll, token: str, method: str, prefix: str) -> None:
    if method == METHOD_COINS:
        st.markdown("**What did your coins tell you to answer?**")
        choices = (("Yes", 1, False), ("No", 0, False))
    else:
        st.markdown("**Your true answer:**")
        choices = (("My true answer is Yes", 1, True), ("My true answer is No", 0, True))
    yes, no = st.columns(2)
    for column, (label, truth, by_server) in zip((yes, no), choices, strict=True):
        # The server's coin is flipped in the callback, at the press, never before.
        column.button(label, key=f"{prefix}_{'true' if by_server else 'coin'}_{'yes' if truth else 'no'}",
                      type="primary", width="stretch", on_click=_press,
                      args=(poll, token, truth, by_server))


def _press(poll: store.Poll, token: str, truth: int, by_server: bool) -> None:
    if ui_poll.warmup_remaining() > 0:
        return  # a click before this page may answer (e.g. replayed by a script) counts for nothing
    submit(poll, token, ui_poll.server_flip(poll, truth) if by_server else truth, by_server)


def answer_form(poll: store.Poll, token: str, prefix: str, *, warmup_note) -> None:
    """The protocol, the method and the buttons (or, while a new page waits, `warmup_note()`,
    and no buttons at all: Streamlit then discards any click, including a replayed one)."""
    lessons.render(SLUG, "intro")
    if poll.fair_coins:
        method = st.radio("How will you randomize?", [METHOD_COINS, METHOD_SERVER],
                          key=f"{prefix}_method", horizontal=True)
    else:
        method = METHOD_SERVER
    if method == METHOD_COINS:
        lessons.render(SLUG, "coins")
    elif poll.fair_coins:
        lessons.render(SLUG, "server-coins")
    else:
        lessons.render(SLUG, "server-epsilon", eps=poll.epsilon, keep=ui_poll.keep_percent(poll))
    if ui_poll.warmup_remaining() > 0:
        warmup_note()
    else:
        _buttons(poll, token, method, prefix)
    with st.expander("Why is this private?"):
        lessons.render(SLUG, "why")
        if poll.fair_coins:
            lessons.render(SLUG, "coins-why")
        else:
            lessons.render(SLUG, "server-epsilon-why", eps=poll.epsilon, ratio=math.exp(poll.epsilon))
        if method == METHOD_SERVER:
            lessons.render(SLUG, "server-trust")


def warmup_text() -> str:
    return lessons.section_text(SLUG, "wait-to-answer", wait=ui_poll.say_seconds(ui_poll.warmup_remaining()),
                                warmup=f"{limits.SESSION_WARMUP_SECONDS:g}")
