"""Live class, the instructor's side: one session per lecture; push quizzes, the game or a poll."""

import math
import time

import streamlit as st

from classroom import game, live, store
from dp.odds import pure_release
from dp.rr_inference import rr_running_estimates
from ui import admin_store, classroom_admin, lessons
from ui import live as ui_live
from ui import poll as ui_poll
from ui.charts.live import game_figure, option_letter, votes_figure
from ui.charts.poll import estimate_figure
from ui.course import LESSONS
from ui.odds import odds_panel, percent_at_most
from ui.params import url_value
from ui.show import chart

SLUG = ui_live.INSTRUCTOR_SLUG
CODE_KEY = classroom_admin.CODE_KEY
DEFAULT_CLASS_SIZE = 30
SIZE_KEY = "live_new_class_size"
PROJECTED_CHART_HEIGHT = 330  # px: the chart under the status line, with the reveal below it
RATE_WINDOW = 60.0  # seconds behind "votes in the last minute"
TITLES = {lesson.slug: lesson.title for lesson in LESSONS}

VIEW_KEY, PROJECTOR_VIEW = "view", "projector"
# The projector view (?view=projector): what the class sees, fitted to one 1280×720 screen, with
# no controls on it; the controls stay on the laptop (this page without view=) and on the
# instructor's phone (the remote: the same page, opened through the private link's QR code).
PROJECTING = url_value(VIEW_KEY) == PROJECTOR_VIEW
if not PROJECTING:
    st.title("Live class — instructor")

classroom_admin.take_link_token(ui_live.ADMIN_KEY)


def new_session_button() -> None:
    classroom_admin.start_over_button(ui_live.ADMIN_KEY, "Start a new live session", "live_start_over")


def start_form() -> None:
    classroom_admin.resume_button(ui_live.ADMIN_KEY, "Resume live session {code}")
    lessons.render(SLUG, "start")
    class_size = classroom_admin.class_size_box(
        "live", SIZE_KEY, DEFAULT_CLASS_SIZE, "Class size: the most votes a question takes per round",
        help="Count everyone who may vote. Votes beyond it are refused; you can raise it later.")
    if st.button("Start the live session", type="primary", key="live_create"):
        if classroom_admin.creation_refused(SLUG):
            return
        try:
            with ui_live.database_guard():
                session, token = live.create_session(ui_live.engine(), class_size=int(class_size))
        except live.LiveInputError as problem:
            st.error(str(problem), icon="✏️")
            return
        classroom_admin.open_created(ui_live.ADMIN_KEY, session.code, token)


def still_open(code: str, token: str) -> bool:
    with ui_live.database_guard():
        found = live.session_for_admin(ui_live.engine(), code, token)
    return found is not None and found.open


raw_code = classroom_admin.running_code(ui_live.ADMIN_KEY, still_open)
if not raw_code:
    lessons.render(SLUG, "intro")
    start_form()
    with st.expander("How the phones follow, and what is stored"):
        st.markdown(ui_live.how_it_works())
    lessons.instructor_notes(SLUG)
    st.stop()

code = store.normalise_code(raw_code)
if code is None:
    st.error(f"The session code in this link is not valid: a code is {store.CODE_LENGTH} letters "
             "and digits, like K7PQ3M. Open the admin link you saved, or start a new session.",
             icon="⚠️")
    new_session_button()
    st.stop()


admin = ui_live.admin_record()
token = admin.get("token") if admin.get("code") == code else None
with ui_live.database_guard():
    session = live.session_for_admin(ui_live.engine(), code, token)
classroom_admin.admin_or_stop(session, prefix="live", slug=SLUG, admin_key=ui_live.ADMIN_KEY, code=code,
                              join_slug=ui_live.JOIN_SLUG, join_label=f"Join live session {code} as a student",
                              new_button=new_session_button)
if not session.open:  # ended (only when asked) or expired: this browser no longer runs it
    if ui_live.admin_record().get("code") == session.code:
        admin_store.forget(ui_live.ADMIN_KEY)
    st.info(lessons.section_text(SLUG, "ended"), icon="🏁")
    new_session_button()
    st.stop()

engine = ui_live.engine()
join_url = ui_poll.page_url(SLUG, ui_live.JOIN_SLUG, code=session.code)
with ui_live.database_guard():
    shown = live.view(engine, session.id)
current = shown.question if shown else None


def join_panel(big: bool) -> None:
    """The join code, link and QR code: large before the first question, a strip after."""
    if big:
        share, qr = st.columns([3, 2], gap="large")
        with share:
            lessons.render(SLUG, "join", code=session.code)
            st.title(session.code, anchor=False)  # the code's alphabet has no Markdown characters
            st.code(join_url, language=None, wrap_lines=True)
        qr.image(ui_poll.qr_png(join_url), width=260, caption="Scan to join", output_format="PNG")
        return
    if PROJECTING:
        st.markdown(f"📱 Join: **{session.code}** · `{join_url}`")
        return
    strip, qr = st.columns([4, 1], vertical_alignment="center")
    strip.markdown(f"📱 Join: **{session.code}** · `{join_url}`")
    with qr.popover("QR code"):
        st.image(ui_poll.qr_png(join_url), width=260, caption="Scan to join", output_format="PNG")


def views_row() -> None:
    """On the laptop (not projected): the projector view to drag to the projector's screen, and
    the remote: this page on the instructor's own phone, through a private QR code."""
    projector_link, remote = st.columns(2)
    projector_link.link_button("📽️ Open the projector view", width="stretch",
                               url=ui_poll.page_url(SLUG, SLUG, code=session.code, view=PROJECTOR_VIEW),
                               help="A new tab with only what the class should see, for one "
                                    "1280×720 screen. Its clicker keys: PageDown shows the votes, "
                                    "then reveals; PageUp hides the votes. Keep this tab for the controls.")
    with remote.popover("📱 Remote on your phone (private)", width="stretch"):
        st.markdown(lessons.section_text(SLUG, "remote"))
        if st.button("Show the remote's QR code", key="live_show_remote"):
            remote_url = ui_poll.page_url(SLUG, SLUG, code=session.code, admin=token)
            st.image(ui_poll.qr_png(remote_url), width=260, output_format="PNG",
                     caption="Scan with your own phone, not a student's")


if not PROJECTING:
    views_row()
join_panel(big=current is None and not live.history(engine, session.id))


# ── The projector: the current question, re-read every second ─────────────────────────────────

def recent(question: live.Question, n: int) -> str:
    """'12 votes in the last minute', from the counts this screen has seen (no vote time is stored)."""
    now = time.monotonic()
    history = st.session_state.setdefault(f"live_counts_{question.id}_{question.round}", [])
    history.append((now, n))
    while len(history) > 1 and history[1][0] <= now - RATE_WINDOW:
        history.pop(0)
    since, then = history[0]
    seconds = now - since
    if seconds < 1:
        return "votes per minute from the next update"
    window = "the last minute" if RATE_WINDOW <= seconds <= RATE_WINDOW + 3 else f"the last {seconds:.0f} s"
    return f"{n - then} vote{'s' if n - then != 1 else ''} in {window}"


def status(question: live.Question, n: int) -> None:
    state = ("✅ **Revealed**" if question.revealed else "🔒 **Voting closed**" if question.closed
             else "🟢 **Voting open**")
    rounds = f"round {question.round} · " if question.kind == live.KIND_QUIZ else ""
    # After the class size was lowered, a round can hold more votes than it now takes.
    size = (f"**{n}** of at most {session.class_size} votes" if n <= session.class_size
            else f"**{n}** votes (the class size is now {session.class_size})")
    left = question.seconds_left
    timer = f" · ⏱️ **{math.ceil(left)} s** left" if left is not None else ""
    st.markdown(f"{state}{timer} · {rounds}{size} · {recent(question, n)}")
    if n >= session.class_size and question.accepts_votes:
        st.warning(lessons.section_text(SLUG, "class-full", n=n, size=session.class_size,
                                        refused=question.refused), icon="👥")
    elif question.refused:
        st.caption(f"{question.refused} vote(s) refused on this question: the round was full.")
    other = live.other_device_refusals(engine, question.id)
    if other:
        st.caption(f"{other} vote(s) refused on this question: a page claimed another device "
                   "than its own (a script, most likely).")


def side_by_side():
    """Two columns on the projector, so that a question and its chart share one 1280×720
    screen; one column on the instructor's laptop."""
    return st.columns([1, 1], gap="large") if PROJECTING else (st.container(), st.container())


def project_quiz(question: live.Question) -> None:
    """The question and its options on the left, the votes on the right: one 1280×720 screen."""
    slug = question.ref.split("/", 1)[0]
    words, votes = side_by_side()
    with words, st.container(key="live_projected_question"):
        st.caption(f"Quiz from “{TITLES.get(slug, slug)}”")
        st.markdown(f"### {question.prompt}")
        for i, option in enumerate(question.options):
            right = question.revealed and i == question.answer
            st.markdown(f"{'✅ ' if right else ''}**{option_letter(i)}.** {option}")
    tally = live.tally(engine, question.id, len(question.options))
    with votes:
        status(question, sum(tally.get(question.round, [])))
        if question.round == 2 and not question.revealed:
            lessons.render(SLUG, "round-two")
        if question.show_votes or question.revealed:
            figure = votes_figure(len(question.options), tally,
                                  question.answer if question.revealed else None)
            chart(figure.update_layout(height=PROJECTED_CHART_HEIGHT) if PROJECTING else figure,
                  projected=PROJECTING)
        else:
            lessons.render(SLUG, "votes-hidden")
        if question.revealed and question.explanation:
            st.markdown(f"**Why:** {question.explanation}")


def phones(n: int, one: str = "phone", many: str = "phones") -> str:
    return f"{n} {one if n == 1 else many}"


def at_least(value: float, below: float | None = None) -> str:
    """`value` rounded down to two decimals, or to as many more as keep it above `below`
    (a lower bound printed as "ε ≥ …" is never larger than the computed one)."""
    for decimals in range(2, 9):
        shown = math.floor(value * 10**decimals) / 10**decimals
        if below is None or shown > below:
            break
    return f"{shown:.{decimals}f}"


def project_game(question: live.Question) -> None:
    """The game and its verdict on the left, the class's point on the right on the projector."""
    eps = question.epsilon
    words, picture = side_by_side()
    with words, st.container(key="live_projected_game"):
        project_game_words(question, eps, picture)


def project_game_words(question: live.Question, eps: float, picture) -> None:
    st.markdown(f"### In or out? (ε = {eps:g})")
    shown = question.show_votes or question.revealed
    if not (PROJECTING and shown):  # projected beside the chart, the verdict needs the room
        st.markdown(question.prompt)
    result = live.game_result(engine, question.id)
    status(question, result.guesses)
    if not shown:
        lessons.render(SLUG, "votes-hidden")
        return
    point = (result.fpr, result.tpr) if result.guesses and result.dealt_in and result.dealt_out else None
    with picture:
        chart(game_figure(eps, game.bound_curves(eps), game.laplace_curve(eps), point, result.n),
              projected=PROJECTING)
    if point is None:
        if result.guesses:  # every phone so far was dealt the same world
            lessons.render(SLUG, "game-one-world", guesses=phones(result.guesses, "guess", "guesses"),
                           dealt=phones(result.n), world="D" if result.dealt_in else "D′")
        else:
            lessons.render(SLUG, "game-none")
        return
    lessons.render(SLUG, "game-result", guesses=phones(result.guesses, "guess", "guesses"),
                   dealt=phones(result.n), dealt_in=result.dealt_in, dealt_out=result.dealt_out,
                   silent=result.silent, tpr=result.tpr, fpr=result.fpr, accuracy=result.accuracy,
                   best=game.best_accuracy(eps), ceiling=percent_at_most(game.accuracy_ceiling(eps)),
                   eps=eps)
    if question.accepts_votes:
        lessons.render(SLUG, "game-verdict-later")
        return
    lessons.render(SLUG, "game-inside" if game.inside_bound(result.fpr, result.tpr, eps) else "game-outside",
                   dealt=phones(result.n))
    bound = result.epsilon_lower_bound()
    confidence = f"{game.CONFIDENCE:.0%}"
    if bound:
        over = bound > eps
        lessons.render(SLUG, "game-bound-over" if over else "game-bound", confidence=confidence,
                       bound=at_least(bound, eps if over else None), eps=eps,
                       times=f"{round(1 / (1 - game.CONFIDENCE))}")
    else:
        lessons.render(SLUG, "game-no-bound", confidence=confidence)
    (picture if PROJECTING else st).caption(lessons.section_text(SLUG, "game-assumes"))


def project_poll(question: live.Question) -> None:
    lessons.render(SLUG, "game-poll", code=question.ref)
    poll = store.find_poll(engine, question.ref)
    if poll is None:
        st.warning("This poll no longer exists.")
        return
    st.markdown(f"### {ui_poll.plain(poll.question)}")
    randomized = store.answers(engine, poll.id)
    state = "🔒 closed" if poll.closed else "⌛ ended" if poll.expired else "🟢 open"
    st.markdown(f"Poll **{poll.code}** ({ui_poll.epsilon_label(poll)}) · {state} · "
                f"**{len(randomized)}** of at most {poll.class_size} answers")
    if randomized:
        running = rr_running_estimates(randomized, poll.epsilon)
        ui_poll.estimate_metric(running)
        chart(estimate_figure(running, ui_poll.epsilon_label(poll)), projected=PROJECTING)
    st.page_link(f"app_pages/{ui_poll.INSTRUCTOR_SLUG}.py", icon="📊",
                 label=f"Open poll {poll.code}'s controls", query_params={"code": poll.code})


@st.fragment(run_every=ui_live.PROJECTOR_SECONDS)
def projector() -> None:
    with ui_live.database_guard():
        now = live.view(engine, session.id)
        if now is not None and (not now.session.open or (
                not PROJECTING and shown is not None and now.session.version != shown.session.version)):
            st.rerun()  # ended, or the remote or the clicker acted: redraw the page to match
        question = now.question if now else None
        if question is None:
            lessons.render(SLUG, "no-question-projected" if PROJECTING else "no-question")
        elif question.kind == live.KIND_QUIZ:
            project_quiz(question)
        elif question.kind == live.KIND_GAME:
            project_game(question)
        else:
            project_poll(question)


def act(action, *args) -> None:
    """Run an instructor action, tell this process's phones at once, and redraw."""
    try:
        with ui_live.database_guard():
            action(engine, session.id, *args)
    except live.LiveInputError as problem:
        st.session_state["live_problem"] = str(problem)
    ui_live.published(session.id)


# The projector view: fitted to one screen, the type large enough for the back row, and no
# controls but a clicker's keys (PageDown: show the votes, then reveal; PageUp: hide them).
PROJECTOR_CSS = """<style>
[data-testid=stSidebar], [data-testid=stSidebarCollapsedControl], [data-testid=stHeader],
.st-key-live_clicker { display: none !important; }
[data-testid=stMainBlockContainer] { padding-top: 1rem !important; padding-bottom: 0 !important; }
.st-key-live_projected_question p { font-size: 26px !important; line-height: 1.3; }
.st-key-live_projected_question h3 { font-size: 34px !important; }
.st-key-live_projected_game p { font-size: 20px !important; line-height: 1.3; }
.st-key-live_projected_game h3 { font-size: 30px !important; padding-top: 0 !important; }
</style>"""


def clicker_step(forward: bool) -> None:
    """A clicker's key on the projector: one step through hidden → shown → revealed."""
    with ui_live.database_guard():
        now = live.view(engine, session.id)
    question = now.question if now else None
    if question is None or question.kind == live.KIND_POLL:
        return
    if forward and not question.show_votes:
        act(live.set_show_votes, question.id, True)
    elif forward and not question.revealed:
        act(live.reveal, question.id)
    elif not forward and question.show_votes and not question.revealed:
        act(live.set_show_votes, question.id, False)


if PROJECTING:
    st.html(PROJECTOR_CSS)
    with st.container(key="live_clicker"):
        st.button("Back", key="live_clicker_back", shortcut="PageUp", on_click=clicker_step, args=(False,))
        st.button("Forward", key="live_clicker_forward", shortcut="PageDown", on_click=clicker_step,
                  args=(True,))
    projector()
    st.stop()

projector()


# ── The controls for the current question ────────────────────────────────────────────────────

if current is not None:
    controls = st.columns(5)
    votable = current.kind != live.KIND_POLL
    if votable and not current.revealed:
        controls[0].button("🙈 Hide votes" if current.show_votes else "👁️ Show votes",
                           key="live_show_votes", on_click=act,
                           args=(live.set_show_votes, current.id, not current.show_votes))
    if current.kind == live.KIND_QUIZ and current.round == 1 and not current.revealed:
        controls[1].button("🔁 Vote again (round 2)", key="live_round_two", on_click=act,
                           args=(live.start_round_two, current.id),
                           help="After the discussion: a second round; round 1's votes stay.")
    if votable and not current.revealed:
        controls[2].button("🔓 Reopen voting" if current.closed else "🔒 Close voting",
                           key="live_close", on_click=act,
                           args=(live.set_closed, current.id, not current.closed))
        controls[3].button("✅ Reveal", key="live_reveal", type="primary", on_click=act,
                           args=(live.reveal, current.id),
                           help="The right answer and its explanation, here and on every phone.")
    controls[4].button("⏭️ Next (clear the phones)", key="live_next", on_click=act,
                       args=(live.clear,),
                       help="Close this question; the phones wait for the next one.")
COUNTDOWNS = (15, 30, 60, 120)  # seconds


def start_countdown() -> None:
    act(live.start_countdown, current.id, int(st.session_state.get("live_countdown_seconds") or 30))


if current is not None and current.accepts_votes:
    timer, _ = st.columns([2, 3])
    with timer.popover("⏱️ Countdown…"):
        st.segmented_control("Close voting in", COUNTDOWNS, default=30, key="live_countdown_seconds",
                             format_func=lambda seconds: f"{seconds} s")
        st.button("Start the countdown", key="live_countdown", type="primary", on_click=start_countdown,
                  help="Voting closes by itself when it reaches 0; phones and projector show the seconds left.")
problem = st.session_state.pop("live_problem", None)
if problem:
    st.error(problem, icon="✏️")


# ── What to ask next ─────────────────────────────────────────────────────────────────────────

def push(kind: str) -> None:
    try:
        with ui_live.database_guard():
            if kind == live.KIND_QUIZ:
                slug = st.session_state["live_pick_lesson"]
                ui_live.push_lesson_quiz(session.id, slug, st.session_state["live_pick_quiz"])
            elif kind == live.KIND_GAME:
                live.push_game(engine, session.id, float(st.session_state["live_game_eps"]))
            else:
                live.push_poll(engine, session.id, st.session_state.get("live_poll_code") or "")
    except live.LiveInputError as problem:
        st.session_state["live_problem"] = str(problem)
    ui_live.published(session.id)


st.divider()
ask_quiz, play, poll_tab = st.tabs(["📝 Ask a lesson quiz", "🎲 Play “In or out?”", "🪙 Send phones to a class poll"])
with ask_quiz:
    quiz_lessons = ui_live.quiz_lessons()
    slug = st.selectbox("Lesson", [lesson.slug for lesson in quiz_lessons], key="live_pick_lesson",
                        format_func=TITLES.get)
    quizzes = lessons.quizzes(slug)
    st.selectbox("Quiz", list(quizzes), key="live_pick_quiz",
                 format_func=lambda quiz_id: quizzes[quiz_id].question[:140]
                 + ("…" if len(quizzes[quiz_id].question) > 140 else ""))
    st.button("📣 Ask the class", key="live_push_quiz", type="primary", on_click=push,
              args=(live.KIND_QUIZ,))
    st.caption("Each lesson's quizzes also have an *Ask the class* button on the lesson page, "
               "shown only in this browser while this session runs.")
with play:
    game_eps = st.select_slider("ε for this game", list(game.EPSILONS), value=1.0, key="live_game_eps",
                                format_func=lambda e: f"{e:g}")
    odds_panel(pure_release(float(game_eps)), key="live_game", what="each phone's count")
    st.button("🎲 Deal the counts", key="live_push_game", type="primary", on_click=push,
              args=(live.KIND_GAME,))
with poll_tab:
    mine = (st.session_state.get(ui_poll.ADMIN_KEY) or {}).get("code")
    st.text_input("Poll code", value=mine or "", key="live_poll_code", max_chars=20,
                  placeholder="e.g. K7PQ3M", help="The code of a poll made on “Class poll — instructor”.")
    st.button("🪙 Send the phones to this poll", key="live_push_poll", type="primary",
              on_click=push, args=(live.KIND_POLL,))
    st.page_link(f"app_pages/{ui_poll.INSTRUCTOR_SLUG}.py", icon="📊",
                 label="Create a poll first (opens Class poll — instructor)")


# ── The session ──────────────────────────────────────────────────────────────────────────────

# on_click="ignore": a download that also reran the page raced that run, which drops the file
# it replaces (Streamlit's docs say as much); the lecture test saw the download cancelled.
st.download_button("⬇️ Results as CSV", key="live_results_csv", file_name=f"live-{session.code}-results.csv",
                   mime="text/csv", data=lambda: live.results_csv(engine, session.id), on_click="ignore",
                   help="Votes per question, round and option (no device ids, no times).")
with st.expander("Questions so far"):
    with ui_live.database_guard():
        asked = live.history(engine, session.id)
    if not asked:
        st.caption("None yet.")
    for number, question in enumerate(asked, start=1):
        left, right = st.columns([5, 1], vertical_alignment="center")
        label = {"quiz": "Quiz", "game": f"Game, ε = {question.epsilon or 0:g}", "poll": f"Poll {question.ref}"}
        flags = "revealed" if question.revealed else "closed" if question.closed else "live"
        left.markdown(f"{number}. **{label[question.kind]}** ({flags}): {ui_poll.plain(question.prompt[:90])}")
        if current is None or question.id != current.id:
            right.button("Show again", key=f"live_again_{question.id}", on_click=act,
                         args=(live.show_again, question.id))

def save_class_size() -> None:
    act(live.set_class_size, int(st.session_state["live_class_size_edit"]))


st.divider()
size, end, new = st.columns(3)
with size, st.popover("👥 Class size…"):
    st.markdown(f"A question takes at most **{session.class_size}** votes per round.")
    st.number_input("Class size", min_value=store.CLASS_SIZE_MIN,
                               max_value=store.CLASS_SIZE_MAX, value=session.class_size, step=1,
                               key="live_class_size_edit")
    st.button("Save the class size", key="live_class_size_save", on_click=save_class_size)
with end, st.popover("🏁 End the session…"):
    st.markdown("End the session? The phones say it has ended, and it takes no more questions.")
    st.button("End the live session", key="live_end", on_click=act, args=(live.end_session,))
with new:
    new_session_button()

classroom_admin.private_admin_link(SLUG, session.code, token, key="live_show_admin_link")
with st.expander("How the phones follow, and what is stored"):
    st.markdown(ui_live.how_it_works())
lessons.instructor_notes(SLUG)
