"""Class poll, the instructor's side: create a poll, project its code, watch the debiased estimate live."""

import math

import numpy as np
import streamlit as st

from classroom import store
from dp.rr_inference import rr_half_width, rr_running_estimates
from ui import lessons
from ui import poll as ui_poll
from ui.charts.poll import estimate_figure, precision_figure
from ui.params import EPSILONS, choice_slider, number_label, url_value
from ui.show import chart

SLUG = ui_poll.INSTRUCTOR_SLUG
CODE_KEY, ADMIN_LINK_KEY = "code", "admin"
EPS_OPTIONS = [e for e in EPSILONS if 0.1 <= e <= 5]
CLASS_SIZES = [10, 20, 30, 50, 100, 200, 500, 1000]
SIZE_GRID = np.unique(np.round(np.logspace(1, 3, 61)))
PLAN_EPSILONS = {"ε = 0.5": 0.5, "ε = 1": 1.0, "fair coins, ε = ln 3": math.log(3), "ε = 2": 2.0,
                 "ε = 5": 5.0}
PROTOCOL_LABELS = {
    store.PROTOCOL_COINS: "🪙 Two fair coins (ε = ln 3 ≈ 1.10)",
    store.PROTOCOL_EPSILON: "🎚️ Choose ε (the app flips for everyone)",
}

st.title("Class poll — instructor")

# An admin link's token moves from the address bar into this session at once, so that a
# projected address bar (or a screenshot of it) never shows it.
link_token = url_value(ADMIN_LINK_KEY)
if link_token is not None:
    st.session_state[ui_poll.ADMIN_KEY] = {"code": store.normalise_code(url_value(CODE_KEY)),
                                           "token": link_token[: store.MAX_LINK_VALUE_CHARS + 1]}
    del st.query_params[ADMIN_LINK_KEY]


def _start_over() -> None:
    st.session_state.pop(ui_poll.ADMIN_KEY, None)
    st.query_params.clear()


def new_poll_button() -> None:
    st.button("Create a new poll", key="poll_start_over", on_click=_start_over)


def create_form() -> None:
    lessons.render(SLUG, "create")
    question = st.text_area(
        f"Yes/no question (up to {store.QUESTION_MAX_CHARS} characters)", key="poll_question",
        max_chars=store.QUESTION_MAX_CHARS, placeholder="Have you ever copied homework?",
        help="Shown on every phone. Longer text cannot be typed: the box stops at the limit.")
    protocol = st.radio("Protocol", list(PROTOCOL_LABELS), key="poll_protocol",
                        format_func=PROTOCOL_LABELS.get, horizontal=True)
    epsilon = math.log(3)
    if protocol == store.PROTOCOL_EPSILON:
        epsilon = st.select_slider("ε for this poll", EPS_OPTIONS, value=1.0, key="poll_epsilon",
                                   format_func=number_label,
                                   help="Smaller ε: more noise per answer and a wider interval.")
    if st.button("Create the poll", type="primary", key="poll_create"):
        try:
            with ui_poll.database_guard():
                poll, token = store.create_poll(ui_poll.engine(), question, protocol, epsilon)
        except store.PollInputError as problem:
            st.error(str(problem), icon="✏️")
            return
        st.session_state[ui_poll.ADMIN_KEY] = {"code": poll.code, "token": token}
        st.query_params.clear()
        st.query_params[CODE_KEY] = poll.code
        st.rerun()


def plan_precision() -> None:
    """Before the poll: how wide the 95% interval will be, for a class size and each ε."""
    st.header("How precise will it be?")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        size = choice_slider("Class size n (people answering)", CLASS_SIZES, 30, "poll_class_size")
        widths = {label: rr_half_width(size, eps) for label, eps in PLAN_EPSILONS.items()}
        lessons.render(SLUG, "plan", n=size, coins=100 * widths["fair coins, ε = ln 3"],
                       low=100 * widths["ε = 0.5"], high=100 * widths["ε = 5"])
    with plot:
        chart(precision_figure(SIZE_GRID, {label: rr_half_width(SIZE_GRID, eps)
                                           for label, eps in PLAN_EPSILONS.items()}, size))


raw_code = url_value(CODE_KEY)
if not raw_code:
    lessons.render(SLUG, "intro")
    create_form()
    plan_precision()
    lessons.instructor_notes(SLUG)
    st.stop()

code = store.normalise_code(raw_code)
if code is None:
    st.error(f"The poll code in this link is not valid: a code is {store.CODE_LENGTH} letters "
             "and digits, like K7PQ3M. Open the admin link you saved, or create a new poll.",
             icon="⚠️")
    new_poll_button()
    st.stop()

admin = st.session_state.get(ui_poll.ADMIN_KEY) or {}
token = admin.get("token") if admin.get("code") == code else None
with ui_poll.database_guard():
    poll = store.poll_for_admin(ui_poll.engine(), code, token)
if poll is None:
    # The same answer for an unknown code and a wrong token: the page does not confirm guesses.
    st.warning(lessons.section_text(SLUG, "no-access"), icon="🔑")
    st.page_link(f"app_pages/{ui_poll.JOIN_SLUG}.py", label=f"Join poll {code} as a student",
                 icon="📱", query_params={"code": code})
    new_poll_button()
    st.stop()

# ── The poll is ours: project it ─────────────────────────────────────────────────────────────
join_url = ui_poll.page_url(SLUG, ui_poll.JOIN_SLUG, code=poll.code)
st.markdown(f"### {ui_poll.plain(poll.question)}")
share, live = st.columns([2, 3], gap="large")
with share:
    st.markdown("Join on your phone with the code")
    st.title(poll.code, anchor=False)  # the code's alphabet has no Markdown characters
    st.image(ui_poll.qr_png(join_url), width=260, caption="Scan to join", output_format="PNG")
    st.code(join_url, language=None, wrap_lines=True)


@st.fragment(run_every=2)
def live_results() -> None:
    """Re-read the answers every two seconds, without rerunning the rest of the page."""
    with ui_poll.database_guard():
        current = store.poll_for_admin(ui_poll.engine(), code, token)
        randomized = store.answers(ui_poll.engine(), poll.id) if current else []
    if current is None:
        st.warning("This poll no longer exists.")
        return
    st.markdown("🔒 **Closed**: no more answers are taken." if current.closed
                else "🟢 **Open**: answers are arriving.")
    if not randomized:
        lessons.render(SLUG, "live-few", n=0)
        return
    running = rr_running_estimates(randomized, current.epsilon)
    n = len(randomized)
    estimate, lower, upper = (100 * running[key][-1] for key in ("estimate", "lower", "upper"))
    reported = 100 * running["reported_share"][-1]
    answers, said_yes, debiased = st.columns(3)
    answers.metric("Answers", n)
    said_yes.metric("Replies saying Yes", f"{reported:.0f}%")
    debiased.metric("Debiased estimate", f"{estimate:.0f}%",
                    delta=f"95%: {lower:.0f}–{upper:.0f}%", delta_color="off", delta_arrow="off")
    chart(estimate_figure(running, ui_poll.epsilon_label(current)))
    lessons.render(SLUG, "live", n=n, reported=reported, estimate=estimate, lower=lower,
                   upper=upper, protocol=ui_poll.epsilon_label(current),
                   keep=ui_poll.keep_percent(current))
    if not 0 <= estimate <= 100:
        lessons.render(SLUG, "overshoot")
    st.download_button("⬇️ Export the randomized answers (CSV)", store.answers_csv(randomized),
                       file_name=f"poll-{poll.code}.csv", mime="text/csv", on_click="ignore",
                       key="poll_export")


with live:
    live_results()


st.divider()
close, reset, new = st.columns(3)
with close:
    if poll.closed:
        clicked = st.button("🔓 Reopen the poll", key="poll_reopen")
    else:
        clicked = st.button("🔒 Close the poll", key="poll_close", type="primary",
                            help="Stop taking answers (for example, before the reveal).")
    if clicked:
        with ui_poll.database_guard():
            store.set_closed(ui_poll.engine(), poll.id, closed=not poll.closed)
        st.rerun()
with reset, st.popover("🗑️ Reset…"):
    st.markdown("Delete **every answer** to this poll and open it again? This cannot be undone.")
    if st.button("Delete all answers", key="poll_reset"):
        with ui_poll.database_guard():
            store.reset_poll(ui_poll.engine(), poll.id)
        st.rerun()
with new:
    new_poll_button()

with st.expander("🔑 Private admin link: do not project"):
    st.markdown("Save this link: it is the only way back to these controls (close, reset, export) "
                "from another browser or after closing this tab.")
    st.code(ui_poll.page_url(SLUG, SLUG, code=poll.code, admin=token), language=None,
            wrap_lines=True)

with st.expander("How the estimate and its interval are computed"):
    st.markdown(lessons.section_text(SLUG, "how-to-read"))
    st.markdown(lessons.section_text(SLUG, "export"))
lessons.instructor_notes(SLUG)
