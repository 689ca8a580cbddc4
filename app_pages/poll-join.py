"""Class poll, the student's side: open the join link (or type the code), follow the protocol, answer once."""

import math

import streamlit as st

from classroom import limits, store
from ui import lessons
from ui import live as ui_live
from ui import poll as ui_poll

SLUG = ui_poll.JOIN_SLUG
METHOD_COINS = "🪙 I flip real coins"
METHOD_SERVER = "📱 Flip for me"
WATCH_SECONDS = 10  # how often an answered phone checks whether the poll was reset or closed

st.title("Class poll")
ui_poll.session_started()  # a new session's wait before answering starts now


def code_form(problem: str | None = None) -> None:
    """Where a student lands without a usable code: say what is wrong, then ask for the code."""
    ui_poll.join_code_form("poll", SLUG, "Join the poll", problem)


code, address = ui_poll.join_code("poll", SLUG, "Join the poll", "a poll code")
with ui_poll.database_guard():
    poll = store.find_poll(ui_poll.engine(), code)
if poll is None or poll.expired:
    ui_poll.record_failed_join(address)
    if poll is None:
        code_form(lessons.section_text(SLUG, "no-such-code", code=code))
    code_form(lessons.section_text(SLUG, "ended", code=code, hours=store.POLL_LIFETIME_HOURS))

if poll.closed:  # the question is not shown once the poll is closed
    st.caption(f"Poll {poll.code}")
    st.info(lessons.section_text(SLUG, "closed"), icon="🔒")
    st.stop()

st.caption(f"Poll {poll.code} · {ui_poll.epsilon_label(poll)}")
st.markdown(f"### {ui_poll.plain(poll.question)}")

# One answer per device, not per page load: the browser's device id (kept in its localStorage by
# ui.live, so a reload or a second tab is the same device), fixed for this session once known.
# None until the browser reports it (its first run; the answer buttons wait 5 s anyway); once
# the buttons may show, a browser that has not reported one gets an id for this session alone.
token = ui_live.device_id(settle=ui_poll.warmup_remaining() <= 0)
answered_key = f"poll_answered_{poll.id}"


@st.fragment(run_every=WATCH_SECONDS)
def watch_for_reset() -> None:
    """An answered phone notices within seconds when the instructor resets or closes the poll."""
    with ui_poll.database_guard():
        current = store.find_poll(ui_poll.engine(), poll.code)
        still_answered = store.has_answered(ui_poll.engine(), poll.id, token)
    if current is None or not current.open or not still_answered:
        st.rerun()


# Whether this session has answered is read from the database, never from a flag in the
# session: after the instructor's Reset, everyone can answer again.
with ui_poll.database_guard():
    already = token is not None and store.has_answered(ui_poll.engine(), poll.id, token)
if already:
    st.success(lessons.section_text(SLUG, "recorded", seconds=WATCH_SECONDS), icon="✅")
    shown = st.session_state.get(answered_key)
    if shown is not None and shown.get("by_server"):
        st.caption(f"The app's coins gave the answer *{'Yes' if shown['answer'] else 'No'}*; "
                   "that is all it stored.")
    watch_for_reset()
    st.stop()


REFUSALS = {
    store.Submission.CLOSED: ("closed", "🔒"),
    store.Submission.EXPIRED: ("ended-while-open", "⌛"),
    store.Submission.CLASS_FULL: ("class-full", "👥"),
    store.Submission.ADDRESS_FULL: ("address-full", "👥"),
}


def submit(answer: int, by_server: bool) -> None:
    if ui_live.claims_another_device():  # a session is one device: refused, and counted
        with ui_poll.database_guard():
            store.refuse_other_device(ui_poll.engine(), poll.id)
        st.info(lessons.section_text(SLUG, "other-device"), icon="🪪")
        st.stop()
    ui_live.answering()
    with ui_poll.database_guard():
        result = store.submit_answer(ui_poll.engine(), poll.id, token, answer,
                                     address=ui_poll.client_address())
    if result in REFUSALS:
        section, icon = REFUSALS[result]
        st.info(lessons.section_text(SLUG, section, size=poll.class_size,
                                     hours=store.POLL_LIFETIME_HOURS), icon=icon)
        st.stop()
    if result is store.Submission.UNKNOWN_POLL:
        st.warning("This poll has just been removed. Ask your instructor for the new code.")
        st.stop()
    # RECORDED, or DUPLICATE (a double tap that raced the first): either way this session is done.
    if result is store.Submission.RECORDED:
        st.session_state[answered_key] = {"answer": answer, "by_server": by_server}
    else:
        st.session_state[answered_key] = {"answer": None, "by_server": False}
    st.rerun()


@st.fragment(run_every=1)
def countdown() -> None:
    """Shown instead of the buttons while a new session waits; then the whole page reruns."""
    remaining = ui_poll.warmup_remaining()
    if remaining <= 0:
        st.rerun()
    st.info(lessons.section_text(SLUG, "wait-to-answer", wait=ui_poll.say_seconds(remaining),
                                 warmup=f"{limits.SESSION_WARMUP_SECONDS:g}"), icon="⏳")


def buttons(method: str) -> None:
    if method == METHOD_COINS:
        st.markdown("**What did your coins tell you to answer?**")
        yes, no = st.columns(2)
        if yes.button("Yes", key="poll_coin_yes", type="primary", width="stretch"):
            submit(1, by_server=False)
        if no.button("No", key="poll_coin_no", type="primary", width="stretch"):
            submit(0, by_server=False)
    else:
        st.markdown("**Your true answer:**")
        yes, no = st.columns(2)
        if yes.button("My true answer is Yes", key="poll_true_yes", type="primary", width="stretch"):
            submit(ui_poll.server_flip(poll, 1), by_server=True)
        if no.button("My true answer is No", key="poll_true_no", type="primary", width="stretch"):
            submit(ui_poll.server_flip(poll, 0), by_server=True)


lessons.render(SLUG, "intro")
if poll.fair_coins:
    method = st.radio("How will you randomize?", [METHOD_COINS, METHOD_SERVER],
                      key="poll_method", horizontal=True)
else:
    method = METHOD_SERVER

if method == METHOD_COINS:
    lessons.render(SLUG, "coins")
elif poll.fair_coins:
    lessons.render(SLUG, "server-coins")
else:
    lessons.render(SLUG, "server-epsilon", eps=poll.epsilon, keep=ui_poll.keep_percent(poll))

# While a new session waits, the buttons are not drawn at all, so Streamlit discards any click
# on them, including one a script sends with a button id it learnt from another session.
if ui_poll.warmup_remaining() > 0:
    countdown()
else:
    buttons(method)

with st.expander("Why is this private?"):
    lessons.render(SLUG, "why")
    if poll.fair_coins:
        lessons.render(SLUG, "coins-why")
    else:
        lessons.render(SLUG, "server-epsilon-why", eps=poll.epsilon, ratio=math.exp(poll.epsilon))
    if method == METHOD_SERVER:
        lessons.render(SLUG, "server-trust")
