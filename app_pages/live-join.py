"""Live class, the student's side: join once, then follow the instructor's current question."""

import math
import time

import streamlit as st

from classroom import game, limits, live, store
from ui import lessons, poll_answer
from ui import live as ui_live
from ui import poll as ui_poll
from ui.charts.live import option_letter
from ui.odds import percent_at_most

SLUG = ui_live.JOIN_SLUG
VOTES_KEY = "live_my_votes"  # {question id: {round: choice}}, read from the database once per question
NOTICE_KEY = "live_notice"  # a refusal to show once, next to the question
DEALS_KEY = "live_game_dealt"  # ids of the games whose deal this session has recorded

st.title("Live class")
ui_poll.session_started()  # a new session's wait before voting starts now


def code_form(problem: str | None = None) -> None:
    """Where a student lands without a usable code: say what is wrong, then ask for the code."""
    ui_poll.join_code_form("live", SLUG, "Join", problem)


# Codes that match no open session slow down, as on the poll's join page (shared counters).
code, address = ui_poll.join_code("live", SLUG, "Join", "a live-class code")
with ui_live.database_guard():
    session = live.find_session(ui_live.engine(), code)
if session is None or not session.open:
    if session is None or session.expired:
        ui_poll.record_failed_join(address)
    if session is None:
        code_form(lessons.section_text(SLUG, "no-such-code", code=code))
    code_form(lessons.section_text(SLUG, "ended", code=code, hours=live.SESSION_LIFETIME_HOURS))

device = ui_live.device_id()
st.caption(f"Live session {session.code} · " + lessons.section_text(SLUG, "anonymous"))
if device is None:
    ui_live.wait_for_device()
    st.stop()


def my_votes(question: live.Question) -> dict[int, int]:
    """This device's votes on the question, read from the database the first time it is shown
    (so a reload or a second tab knows them) and kept in the session after that."""
    known = st.session_state.setdefault(VOTES_KEY, {})
    if question.id not in known:
        with ui_live.database_guard():
            known[question.id] = live.device_votes(ui_live.engine(), session.id, question.id, device)
    return known[question.id]


REFUSALS = {
    live.Vote.CLOSED: ("closed", "🔒"),
    live.Vote.NOT_CURRENT: ("moved-on", "⏭️"),
    live.Vote.WRONG_ROUND: ("moved-on", "⏭️"),
    live.Vote.CLASS_FULL: ("class-full", "👥"),
    live.Vote.ADDRESS_FULL: ("address-full", "👥"),
    live.Vote.ENDED: ("session-ended", "🏁"),
}


def cast(question: live.Question, choice: int) -> None:
    if ui_live.claims_another_device():  # a session is one device: refused, and counted
        with ui_live.database_guard():
            live.refuse_other_device(ui_live.engine(), session.id, question.id)
        st.session_state[NOTICE_KEY] = (question.id, "other-device", "🪪")
        return
    ui_live.answering()
    with ui_live.database_guard():
        result = live.vote(ui_live.engine(), session.id, question.id, question.round,
                           ui_live.current_device(), choice, address=ui_poll.client_address())
    known = st.session_state.setdefault(VOTES_KEY, {})
    if result is live.Vote.RECORDED and question.id in known:
        known[question.id][question.round] = choice
        return
    if result in (live.Vote.RECORDED, live.Vote.DUPLICATE):
        known.pop(question.id, None)  # re-read: the first vote stands
        return
    if result in REFUSALS:
        st.session_state[NOTICE_KEY] = (question.id, *REFUSALS[result])
    else:  # UNKNOWN, WRONG_SESSION, INVALID_CHOICE, NOT_VOTABLE: a stale or forged click
        st.session_state[NOTICE_KEY] = (question.id, "moved-on", "⏭️")
    ui_live.session_cache().invalidate(session.id)  # show the state the refusal found


def notice(question: live.Question) -> None:
    shown = st.session_state.pop(NOTICE_KEY, None)
    if shown is not None and shown[0] == question.id:
        _, section, icon = shown
        st.info(lessons.section_text(SLUG, section, size=session.class_size), icon=icon)


def vote_buttons(question: live.Question, labels: list[str]) -> None:
    left = question.seconds_left
    if left is not None:
        st.caption(f"⏱️ Voting closes in about {math.ceil(left)} s")
    remaining = ui_poll.warmup_remaining()
    if remaining > 0:  # the buttons are not drawn at all: clicks from a replayed id are dropped
        st.info(lessons.section_text(SLUG, "wait-to-answer", wait=ui_poll.say_seconds(remaining),
                                     warmup=f"{limits.SESSION_WARMUP_SECONDS:g}"), icon="⏳")
        return
    for i, label in enumerate(labels):
        st.button(label, key=f"live_vote_{question.id}_{question.round}_{i}", width="stretch",
                  on_click=cast, args=(question, i))


def show_quiz(question: live.Question) -> None:
    votes = my_votes(question)
    if question.round == 2 and not question.revealed:
        lessons.render(SLUG, "round-two")
    st.markdown(f"#### {question.prompt}")
    labels = [f"{option_letter(i)}. {option}" for i, option in enumerate(question.options)]
    mine = votes.get(question.round)
    if question.revealed:
        right = labels[question.answer]
        for i, label in enumerate(labels):
            st.markdown(f"{'✅ **' + label + '**' if i == question.answer else label}")
        said = [f"round {r}: {option_letter(c)}" for r, c in sorted(votes.items())]
        if said:
            st.caption("Your votes: " + ", ".join(said))
        last = votes.get(max(votes)) if votes else None
        if last is not None:
            verdict = "right" if last == question.answer else "wrong"
            st.markdown(lessons.section_text(SLUG, verdict, answer=right))
        if question.explanation:
            st.markdown(question.explanation)
        return
    notice(question)
    if mine is not None:
        st.success(lessons.section_text(SLUG, "voted", choice=labels[mine]), icon="✅")
    elif question.accepts_votes:
        vote_buttons(question, labels)
    else:
        st.info(lessons.section_text(SLUG, "closed"), icon="🔒")


def shown_deal(question: live.Question) -> game.Deal:
    """This device's count. While voting is open it is recorded before it is drawn (once per
    question and browser session), so that every phone that saw a count is counted on the
    projector, voter or not: staying silent is part of a strategy (classroom.game). Once voting
    has closed the projector shows its verdict, so a phone that opens the game then is shown
    its count but not counted: the verdict must not move under it."""
    recorded = st.session_state.setdefault(DEALS_KEY, set())
    if not question.accepts_votes or question.id in recorded:
        return live.deal_for(question, device)
    # The count is drawn from the device id: recorded, it fixes the id, as an answer does. A
    # stand-in id replaced by a late report would show the phone a second count and deal it
    # twice (two phones on the projector, one of them silent).
    ui_live.answering()
    with ui_live.database_guard():
        dealt = live.record_deal(ui_live.engine(), question, device)
    recorded.add(question.id)
    return dealt


def show_game(question: live.Question) -> None:
    dealt = shown_deal(question)
    eps = question.epsilon
    st.markdown(f"#### {question.prompt}")
    lessons.render(SLUG, "game-count", output=dealt.output, scale=1 / eps, eps=eps)
    mine = my_votes(question).get(1)
    if question.revealed:
        best = game.best_guess(dealt.output)
        st.markdown(lessons.section_text(
            SLUG, "game-reveal", world="D (Alex in)" if dealt.in_data else "D′ (Alex out)",
            threshold=game.THRESHOLD, best="“in”" if best == game.GUESS_IN else "“out”",
            best_accuracy=game.best_accuracy(eps), ceiling=percent_at_most(game.accuracy_ceiling(eps)),
            eps=eps))
        with ui_live.database_guard():
            counted = mine is not None or live.was_dealt(ui_live.engine(), question, device)
        if not counted:
            st.markdown(lessons.section_text(SLUG, "game-not-counted"))
            return
        said = "You guessed" if mine is not None else "You stayed silent, which counts as"
        guess = game.GUESS_OUT if mine is None else mine  # silence is the guess "out"
        right = (guess == game.GUESS_IN) == dealt.in_data
        st.markdown(f"{said} **{question.options[guess]}**: " + ("right." if right else "wrong."))
        return
    notice(question)
    if mine is not None:
        st.success(lessons.section_text(SLUG, "voted", choice=question.options[mine]), icon="✅")
    elif question.accepts_votes:
        vote_buttons(question, list(question.options))
    else:
        st.info(lessons.section_text(SLUG, "closed"), icon="🔒")


POLL_RECHECK_SECONDS = 10  # how often a phone on a class poll re-reads it (closed? reset?)


def poll_state(question: live.Question) -> tuple[store.Poll | None, bool]:
    """The poll and whether this device has answered it: read from the database at most every
    POLL_RECHECK_SECONDS (and at once after a press), not at every tick of every phone."""
    key = f"live_poll_{question.id}"
    now = time.monotonic()
    kept = st.session_state.get(key)
    if kept is None or now - kept[0] >= POLL_RECHECK_SECONDS or poll_answer.pressed(kept[1]):
        with ui_live.database_guard():
            poll = store.find_poll(ui_live.engine(), question.ref)
        kept = (now, poll, poll is not None and poll_answer.answered(poll, device))
        st.session_state[key] = kept
    return kept[1], kept[2]


def show_poll(question: live.Question) -> None:
    """A randomized-response poll, answered here: the phone keeps following the instructor."""
    poll, answered = poll_state(question)
    if poll is None or poll.expired:
        st.info("This class poll is no longer open. Wait for the next question.", icon="⌛")
        return
    lessons.render(SLUG, "poll")
    st.caption(f"Class poll {poll.code} · {ui_poll.epsilon_label(poll)}")
    st.markdown(f"#### {ui_poll.plain(poll.question)}")
    if answered:
        poll_answer.show_recorded(poll, POLL_RECHECK_SECONDS)
        return
    if poll.closed:
        st.info(lessons.section_text(ui_poll.JOIN_SLUG, "closed"), icon="🔒")
        return
    poll_answer.notice(poll)
    poll_answer.answer_form(poll, device, "live_poll",
                            warmup_note=lambda: st.info(poll_answer.warmup_text(), icon="⏳"))


def redraw_in(question: live.Question | None) -> float | None:
    """Seconds until this phone's drawing changes with no instructor action (which would move
    the session's version): a countdown's seconds, the end of the new-session wait, a class
    poll's own state (closed or reset on its page, read every POLL_RECHECK_SECONDS). None: the
    drawing stands until the version moves."""
    if question is None:
        return None
    waits = []
    if question.kind == live.KIND_POLL:
        waits.append(POLL_RECHECK_SECONDS)
    elif question.seconds_left is not None:
        waits.append(ui_live.FOLLOW_SECONDS)
    remaining = ui_poll.warmup_remaining()
    if remaining > 0 and (question.accepts_votes or question.kind == live.KIND_POLL):
        waits.append(remaining)
    return min(waits, default=None)


# Looked up once per page run, not at every run of the fragment (ui.poll.engine reads the
# secrets each time).
db, views = ui_live.engine(), ui_live.session_cache()


@st.fragment(run_every=ui_live.SAFETY_SECONDS)
def follow() -> None:
    """The session's current question, from the process's shared cache (one cheap read per
    process and half second, whatever the number of phones).

    The phone's browser reruns this fragment when the session's version moves (it asks the
    version route every FOLLOW_SECONDS: ui_live.follow_changes), and when the drawing changes
    by itself (redraw_in); the server's own tick every SAFETY_SECONDS is a safety net. Rendering
    the question here, inside the fragment, keeps a push cheap: each phone reruns only this
    function, not app.py and the page, when a new question appears."""
    with ui_live.database_guard():
        current = views.view(db, session.id)
    question = current.question if current is not None else None
    ui_live.follow_changes(db, views, session.id, current, redraw_in(question))
    if current is None or not current.session.open:
        st.info(lessons.section_text(SLUG, "session-ended"), icon="🏁")
        return
    if question is None:
        st.info(lessons.section_text(SLUG, "waiting"), icon="⏳")
    elif question.kind == live.KIND_QUIZ:
        show_quiz(question)
    elif question.kind == live.KIND_GAME:
        show_game(question)
    else:
        show_poll(question)


follow()

with st.expander("One vote per device: what this page can and cannot stop"):
    st.markdown(lessons.section_text(SLUG, "integrity"))
