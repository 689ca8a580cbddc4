"""Class poll, the instructor's side: create a poll, project its code, watch the debiased estimate live."""

import math
import time

import numpy as np
import streamlit as st

from classroom import store
from dp.odds import pure_release
from dp.rr_inference import rr_half_width, rr_running_estimates
from ui import classroom_admin, lessons
from ui import poll as ui_poll
from ui.charts.poll import estimate_figure, precision_figure
from ui.odds import odds_panel
from ui.params import EPSILONS, choice_slider, number_label
from ui.planner import poll_planner
from ui.show import chart

SLUG = ui_poll.INSTRUCTOR_SLUG
CODE_KEY = classroom_admin.CODE_KEY
DEFAULT_CLASS_SIZE = 30
SIZE_KEY = "poll_new_class_size"
RATE_WINDOW = 60.0  # seconds of answer counts behind "answers in the last minute"
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

classroom_admin.take_link_token(ui_poll.ADMIN_KEY)


def new_poll_button() -> None:
    classroom_admin.start_over_button(ui_poll.ADMIN_KEY, "Create a new poll", "poll_start_over")


def create_form() -> None:
    classroom_admin.resume_button(ui_poll.ADMIN_KEY, "Resume poll {code}")
    lessons.render(SLUG, "create")
    question = st.text_area(
        f"Yes/no question (up to {store.QUESTION_MAX_CHARS} characters)", key="poll_question",
        max_chars=store.QUESTION_MAX_CHARS, placeholder="Have you ever copied homework?",
        help="Shown on every phone. Longer text cannot be typed: the box stops at the limit.")
    class_size = classroom_admin.class_size_box(
        "poll", SIZE_KEY, DEFAULT_CLASS_SIZE, "Class size: the most answers this poll takes",
        help="Count everyone who may answer. Answers beyond it are refused, so that one script "
             "cannot flood the poll; you can raise it while the poll runs.")
    protocol = st.radio("Protocol", list(PROTOCOL_LABELS), key="poll_protocol",
                        format_func=PROTOCOL_LABELS.get, horizontal=True)
    epsilon = math.log(3)
    if protocol == store.PROTOCOL_EPSILON:
        epsilon = st.select_slider("ε for this poll", EPS_OPTIONS, value=1.0, key="poll_epsilon",
                                   format_func=number_label,
                                   help="Smaller ε: more noise per answer and a wider interval.")
    odds_panel(pure_release(epsilon), key="poll_new", what="each student's randomized answer")
    if st.button("Create the poll", type="primary", key="poll_create"):
        if classroom_admin.creation_refused(SLUG):
            return
        try:
            with ui_poll.database_guard():
                poll, token = store.create_poll(ui_poll.engine(), question, protocol, epsilon,
                                                class_size=int(class_size))
        except store.PollInputError as problem:
            st.error(str(problem), icon="✏️")
            return
        classroom_admin.open_created(ui_poll.ADMIN_KEY, poll.code, token)


def plan_precision() -> None:
    """Before the poll: how wide the 95% interval will be, for a class size and each ε."""
    st.header("How precise will it be?")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        size = choice_slider("Class size n (people answering)", CLASS_SIZES, 30, "poll_class_size")
        widths = {label: rr_half_width(size, eps) for label, eps in PLAN_EPSILONS.items()}
        def points(width: float, note: bool = True) -> str:  # ±50 either side spans 0–100%
            shown = f"{100 * width:.0f}"
            return (f"±{shown} point{'' if shown == '1' else 's'}"
                    + (wider(width) if note else ""))

        def wider(width: float) -> str:
            return ", wider than the whole 0–100% range" if width > 0.5 else ""

        coins = widths["fair coins, ε = ln 3"]
        lessons.render(SLUG, "plan", n=size, coins=points(coins, note=False),
                       coins_note=wider(coins), low=points(widths["ε = 0.5"]),
                       high=points(widths["ε = 5"]))
    with plot:
        chart(precision_figure(SIZE_GRID, {label: rr_half_width(SIZE_GRID, eps)
                                           for label, eps in PLAN_EPSILONS.items()}, size))
    poll_planner(size, {**{f"ε = {e:g}": e for e in EPS_OPTIONS}, "fair coins, ε = ln 3": math.log(3)}, key="poll_plan")


def still_open(code: str, token: str) -> bool:
    with ui_poll.database_guard():
        found = store.poll_for_admin(ui_poll.engine(), code, token)
    return found is not None and not found.expired


raw_code = classroom_admin.running_code(ui_poll.ADMIN_KEY, still_open)
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
classroom_admin.admin_or_stop(poll, prefix="poll", slug=SLUG, admin_key=ui_poll.ADMIN_KEY, code=code,
                              join_slug=ui_poll.JOIN_SLUG, join_label=f"Join poll {code} as a student",
                              new_button=new_poll_button)

# ── The poll is ours: project it ─────────────────────────────────────────────────────────────
join_url = ui_poll.page_url(SLUG, ui_poll.JOIN_SLUG, code=poll.code)
st.markdown(f"### {ui_poll.plain(poll.question)}")
share, live = st.columns([2, 3], gap="large")
with share:
    st.markdown("Join on your phone with the code")
    st.title(poll.code, anchor=False)  # the code's alphabet has no Markdown characters
    st.image(ui_poll.qr_png(join_url), width=260, caption="Scan to join", output_format="PNG")
    st.code(join_url, language=None, wrap_lines=True)


def recent_answers(n: int) -> tuple[int, float]:
    """Answers in the last minute (or since this screen began counting), and over how many
    seconds: from the counts this screen has seen, since no time of answer is stored."""
    now = time.monotonic()
    history = st.session_state.setdefault(f"poll_counts_{poll.id}", [])
    if history and n < history[-1][1]:  # a reset: start counting again
        history.clear()
    history.append((now, n))
    while len(history) > 1 and history[1][0] <= now - RATE_WINDOW:
        history.pop(0)
    since, then = history[0]
    return n - then, now - since


def status_line(current: store.Poll, n: int) -> str:
    if current.expired:
        state = f"⌛ **Ended**: polls take answers for {store.POLL_LIFETIME_HOURS} hours after they are created"
    elif current.closed:
        state = "🔒 **Closed**: no more answers are taken"
    else:
        state = "🟢 **Open**"
    recent, seconds = recent_answers(n)
    # The screen re-reads every 2 s, so "the last minute" is 60 to about 62 seconds.
    window = "the last minute" if RATE_WINDOW <= seconds <= RATE_WINDOW + 3 else f"the last {seconds:.0f} s"
    rate = (f"**{recent}** answer{'s' if recent != 1 else ''} in {window}" if seconds >= 1
            else "answers per minute from the next update")
    return (f"{state} · **{n}** of at most **{current.class_size}** answers (the class size) · "
            f"{rate}")


@st.fragment(run_every=2)
def live_results() -> None:
    """Re-read the answers every two seconds, without rerunning the rest of the page."""
    with ui_poll.database_guard():
        current = store.poll_for_admin(ui_poll.engine(), code, token)
        randomized = store.answers(ui_poll.engine(), poll.id) if current else []
        sources = store.address_summary(ui_poll.engine(), poll.id) if current else None
    if current is None:
        st.warning("This poll no longer exists.")
        return
    n = len(randomized)
    st.markdown(status_line(current, n))
    if n >= current.class_size and current.open:
        st.warning(lessons.section_text(SLUG, "class-full", n=n, size=current.class_size,
                                        refused=current.refused), icon="👥")
    elif current.refused:
        st.caption(f"{current.refused} answer(s) were refused when the poll was full.")
    with ui_poll.database_guard():
        other = store.other_device_refusals(ui_poll.engine(), poll.id)
    if other:
        st.caption(f"{other} answer(s) refused: a page claimed another device than its own "
                   "(a script, most likely).")
    if not randomized:
        lessons.render(SLUG, "live-few", n=0)
        return
    if sources.addresses > 1:
        st.caption(f"Answers came from {sources.addresses} network addresses; the busiest sent "
                   f"{sources.busiest} of them.")
    elif sources.addresses == 1:
        st.caption("Every answer came from one network address (usual when the room shares one "
                   "Wi-Fi, so this alone does not show a flood).")
    running = rr_running_estimates(randomized, current.epsilon)
    reported = 100 * running["reported_share"][-1]
    answers, said_yes, debiased = st.columns(3)
    answers.metric("Answers", f"{n} of {current.class_size}")
    said_yes.metric("Replies saying Yes", f"{reported:.0f}%")
    shown = ui_poll.estimate_metric(running, debiased)
    chart(estimate_figure(running, ui_poll.epsilon_label(current)))
    lessons.render(SLUG, "live", answers=f"{n} answer{'s' if n != 1 else ''}", reported=reported,
                   estimate=shown["shown"], lower=shown["lower"], upper=shown["upper"],
                   protocol=ui_poll.epsilon_label(current), keep=ui_poll.keep_percent(current))
    if shown["cut"]:
        lessons.render(SLUG, "overshoot", raw=shown["raw_text"], shown=shown["shown"])
    st.download_button("⬇️ Export the randomized answers (CSV)", store.answers_csv(randomized),
                       file_name=f"poll-{poll.code}.csv", mime="text/csv", on_click="ignore",
                       key="poll_export")


with live:
    live_results()


st.divider()
close, reset, size, new = st.columns(4)
with close:
    if poll.expired:
        st.caption(f"Ended: polls take answers for {store.POLL_LIFETIME_HOURS} hours.")
        clicked = False
    elif poll.closed:
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
with size, st.popover("👥 Class size…"):
    st.markdown(f"The poll takes at most **{poll.class_size}** answers. Raise it if more people "
                "are here; lower it if a flood is filling the poll.")
    new_size = st.number_input("Class size", min_value=store.CLASS_SIZE_MIN,
                               max_value=store.CLASS_SIZE_MAX, value=poll.class_size, step=1,
                               key="poll_class_size_edit")
    if st.button("Save the class size", key="poll_class_size_save"):
        with ui_poll.database_guard():
            store.set_class_size(ui_poll.engine(), poll.id, int(new_size))
        st.rerun()
with new:
    new_poll_button()

classroom_admin.private_admin_link(SLUG, poll.code, token, key="poll_show_admin_link")
with st.expander("How the estimate and its interval are computed"):
    st.markdown(lessons.section_text(SLUG, "how-to-read"))
    st.markdown(lessons.section_text(SLUG, "export"))
lessons.instructor_notes(SLUG)
