"""Class poll, the student's side: open the join link (or type the code), follow the protocol, answer once."""

import streamlit as st

from classroom import store
from ui import lessons, poll_answer
from ui import live as ui_live
from ui import poll as ui_poll

SLUG = ui_poll.JOIN_SLUG
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


@st.fragment(run_every=WATCH_SECONDS)
def watch_for_reset() -> None:
    """An answered phone notices within seconds when the instructor resets or closes the poll."""
    with ui_poll.database_guard():
        current = store.find_poll(ui_poll.engine(), poll.code)
        still_answered = store.has_answered(ui_poll.engine(), poll.id, token)
    if current is None or not current.open or not still_answered:
        st.rerun()


if token is not None and poll_answer.answered(poll, token):
    poll_answer.show_recorded(poll, WATCH_SECONDS)
    watch_for_reset()
    st.stop()


@st.fragment(run_every=1)
def countdown() -> None:
    """Shown instead of the buttons while a new session waits; then the whole page reruns."""
    if ui_poll.warmup_remaining() <= 0:
        st.rerun()
    st.info(poll_answer.warmup_text(), icon="⏳")


poll_answer.notice(poll)
poll_answer.answer_form(poll, token, "poll", warmup_note=countdown)
