"""Class poll, the student's side: open the join link (or type the code), follow the protocol, answer once."""

import math

import streamlit as st

from classroom import store
from ui import lessons
from ui import poll as ui_poll
from ui.params import url_value

SLUG = ui_poll.JOIN_SLUG
CODE_KEY = "code"
METHOD_COINS = "🪙 I flip real coins"
METHOD_SERVER = "📱 Flip for me"

st.title("Class poll")


def _go_to_code() -> None:
    typed = st.session_state.get("poll_join_code_input", "")
    code = store.normalise_code(typed)
    if code is None:
        st.session_state["poll_join_code_error"] = True
    else:
        st.session_state.pop("poll_join_code_error", None)
        st.query_params[CODE_KEY] = code


def code_form(problem: str | None = None) -> None:
    """Where a student lands without a usable code: say what is wrong, then ask for the code."""
    if problem:
        st.warning(problem, icon="⚠️")
    lessons.render(SLUG, "enter-code")
    with st.form("poll_join_form", border=False):
        st.text_input("Join code", max_chars=20, key="poll_join_code_input",
                      placeholder="e.g. K7PQ3M", autocomplete="off")
        st.form_submit_button("Join the poll", type="primary", on_click=_go_to_code)
    if st.session_state.get("poll_join_code_error"):
        st.error(f"A join code is {store.CODE_LENGTH} letters and digits, like K7PQ3M "
                 "(no 0, 1, I or O). Check the code on the projector and type it again.")
    st.stop()


raw_code = url_value(CODE_KEY)
if raw_code is None or raw_code == "":
    lessons.render(SLUG, "intro")
    code_form()

code = store.normalise_code(raw_code)
if code is None:
    code_form("The code in this link is not a poll code. "
              f"A join code is {store.CODE_LENGTH} letters and digits, like K7PQ3M.")

with ui_poll.database_guard():
    poll = store.find_poll(ui_poll.engine(), code)
if poll is None:
    code_form(f"No poll has the code {code}. Check the code on the projector; "
              "the poll may also have been created on another server.")

st.caption(f"Poll {poll.code} · {ui_poll.epsilon_label(poll)}")
st.markdown(f"### {ui_poll.plain(poll.question)}")

if poll.closed:
    st.info(lessons.section_text(SLUG, "closed"), icon="🔒")
    st.stop()

token = ui_poll.session_token()
answered_key = f"poll_answered_{poll.id}"
with ui_poll.database_guard():
    already = st.session_state.get(answered_key) is not None or store.has_answered(
        ui_poll.engine(), poll.id, token)
if already:
    st.success(lessons.section_text(SLUG, "recorded"), icon="✅")
    shown = st.session_state.get(answered_key)
    if shown is not None and shown.get("by_server"):
        st.caption(f"The app's coins gave the answer *{'Yes' if shown['answer'] else 'No'}*; "
                   "that is all it stored.")
    st.stop()


def submit(answer: int, by_server: bool) -> None:
    with ui_poll.database_guard():
        result = store.submit_answer(ui_poll.engine(), poll.id, token, answer)
    if result is store.Submission.CLOSED:
        st.info(lessons.section_text(SLUG, "closed"), icon="🔒")
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


lessons.render(SLUG, "intro")
if poll.fair_coins:
    method = st.radio("How will you randomize?", [METHOD_COINS, METHOD_SERVER],
                      key="poll_method", horizontal=True)
else:
    method = METHOD_SERVER

if method == METHOD_COINS:
    lessons.render(SLUG, "coins")
    st.markdown("**What did your coins tell you to answer?**")
    yes, no = st.columns(2)
    if yes.button("Yes", key="poll_coin_yes", type="primary", width="stretch"):
        submit(1, by_server=False)
    if no.button("No", key="poll_coin_no", type="primary", width="stretch"):
        submit(0, by_server=False)
else:
    if poll.fair_coins:
        lessons.render(SLUG, "server-coins")
    else:
        lessons.render(SLUG, "server-epsilon", eps=poll.epsilon, keep=ui_poll.keep_percent(poll))
    st.markdown("**Your true answer:**")
    yes, no = st.columns(2)
    if yes.button("My true answer is Yes", key="poll_true_yes", type="primary", width="stretch"):
        submit(ui_poll.server_flip(poll, 1), by_server=True)
    if no.button("My true answer is No", key="poll_true_no", type="primary", width="stretch"):
        submit(ui_poll.server_flip(poll, 0), by_server=True)

with st.expander("Why is this private?"):
    lessons.render(SLUG, "why")
    if poll.fair_coins:
        lessons.render(SLUG, "coins-why")
    else:
        lessons.render(SLUG, "server-epsilon-why", eps=poll.epsilon, ratio=math.exp(poll.epsilon))
    if method == METHOD_SERVER:
        lessons.render(SLUG, "server-trust")
