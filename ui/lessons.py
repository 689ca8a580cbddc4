"""Lessons as data: prose lives in lessons/<slug>.md, quizzes in lessons/<slug>.quiz.toml.

A lesson file is split into named sections by marker lines of the form

    <!-- section: hook -->

and a page renders one section at a time, next to its demo. Inside a section,
{{name}} or {{name:.2f}} is replaced by a live number the page passes in, so the
"what to notice" text follows the sliders. An instructor can reword a lesson without
touching Python.

Presenter mode hides long prose. A section that should stay on the projector (the key
formula, a one-line statement the demo needs) says so in its marker:

    <!-- section: formula present -->

A lesson's "question" section (marked `present`) is its hook in one line: on the projector
the title slide shows it in place of the hook's story, which the lecturer tells.

Every lesson ends with an "instructors" section (timing, questions to pose before each
reveal, common misconceptions), shown folded on the page and never in presenter mode.

Presenter mode is a deck. A page marks where each step begins with `step("heading")`
(in place of `st.header`); `step()` with no heading continues the part before it on a new
screen. Whatever a page draws before its first `step` is step 1, the title slide. In
presenter mode one step is shown at a time and the others are drawn nowhere: their code
still runs, so widgets keep their values and later steps can use earlier choices, but
their elements go to a container that sends nothing. Outside presenter mode `step` is
a heading and the page is the full scrolling lesson.
"""

from __future__ import annotations

import functools
import re
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.delta_generator_singletons import context_dg_stack
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.course import HOME, ROOT
from ui.numbers import readable  # the one number formatter (pages and charts use ui.numbers too)
from ui.params import note_if_ignored, url_value
from ui.presenter import presenter_mode
from ui.share import STEP_KEY, deck_link

LESSON_DIR = ROOT / "lessons"
_SECTION = re.compile(r"^<!--\s*section:\s*([\w-]+)(\s+present)?\s*-->\s*$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"\{\{(\w+)(?::([^{}]*))?\}\}")


@dataclass(frozen=True)
class Quiz:
    id: str
    question: str
    options: tuple[str, ...]
    answer: int
    explanation: str


@lru_cache(maxsize=64)
def _read_lesson(path: Path, mtime: float) -> tuple[dict[str, str], frozenset[str]]:
    parts = _SECTION.split(path.read_text(encoding="utf-8"))
    # parts = [preamble, name1, flag1, body1, name2, flag2, body2, ...]
    names, flags, bodies = parts[1::3], parts[2::3], parts[3::3]
    texts = {name: body.strip() for name, body in zip(names, bodies, strict=True)}
    return texts, frozenset(name for name, flag in zip(names, flags, strict=True) if flag)


def _lesson(slug: str) -> tuple[dict[str, str], frozenset[str]]:
    path = LESSON_DIR / f"{slug}.md"
    return _read_lesson(path, path.stat().st_mtime)


def sections(slug: str) -> dict[str, str]:
    """All named sections of lessons/<slug>.md (re-read when the file changes)."""
    return _lesson(slug)[0]


def presenter_sections(slug: str) -> frozenset[str]:
    """The sections marked `present`: what stays on screen in presenter mode."""
    return _lesson(slug)[1]


_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$", re.DOTALL)


def fill(text: str, values: dict) -> str:
    """Replace {{name}} and {{name:fmt}} by the page's live values; leave others alone."""
    math_spans = [m.span() for m in _MATH.finditer(text)]

    def replace(match: re.Match) -> str:
        name, spec = match.group(1), match.group(2)
        if name not in values:
            return match.group(0)
        in_math = any(start < match.start() < end for start, end in math_spans)
        return readable(format(values[name], spec or ""), in_math)  # never e-notation

    return _PLACEHOLDER.sub(replace, text)


def section_text(slug: str, name: str, **values) -> str:
    try:
        text = sections(slug)[name]
    except KeyError:
        raise KeyError(f"lessons/{slug}.md has no section {name!r}") from None
    return fill(text, values)


def render(slug: str, name: str, **values) -> None:
    """Show one section of a lesson, with live numbers filled in.

    In presenter mode a section not marked `present` shrinks to its headings and its
    display formulas ($$…$$): the projector keeps the structure and the maths, not the prose.
    """
    if presenter_mode() and name == "hook" and "question" in sections(slug):
        # The title slide: the hook's story is told aloud; the screen asks its question.
        with st.container(key="dplab_question"):
            st.markdown(section_text(slug, "question", **values))
        return
    text = section_text(slug, name, **values)
    # The takeaways are the deck's closing slide, so the projector shows them whole.
    if presenter_mode() and name not in presenter_sections(slug) and name != "takeaways":
        text = headings_and_formulas(text)
    if text:
        st.markdown(text)


def headings_and_formulas(text: str) -> str:
    """The Markdown headings and display-math blocks of a section, in order."""
    blocks: list[str] = []
    math: list[str] | None = None  # the lines of an open $$ block
    for line in text.splitlines():
        stripped = line.strip()
        if math is None and stripped.startswith("#"):
            blocks.append(stripped)
        elif math is None and stripped.startswith("$$"):
            math = [line]
            if len(stripped) > 2 and stripped.endswith("$$"):  # "$$…$$" on one line
                blocks.append(line)
                math = None
        elif math is not None:
            math.append(line)
            if stripped.endswith("$$"):
                blocks.append("\n".join(math))
                math = None
    return "\n\n".join(blocks)


def instructor_notes(slug: str) -> None:
    """The lesson's notes for instructors, folded; kept off the projector in presenter mode."""
    if presenter_mode():
        return
    with st.expander("🧑‍🏫 For instructors: timing, questions to pose, misconceptions"):
        st.markdown(section_text(slug, "instructors"))


# --- Presenter mode: the deck ------------------------------------------------------------------

# STEP_KEY ("step") is the URL parameter; per page, the session key is step_<page>.
_DECK = "_dplab_deck"  # this run's deck, in the session state
_SPANS: dict[str, dict] = {}  # page → {demo: (first step, last step)}, learnt on a page run


@dataclass
class _Deck:
    page: str
    current: int  # the step on screen, from 1
    count: int = 1  # steps begun so far in this run (the title slide is step 1)
    heading: str = ""  # the heading of the part the next step() continues
    # Each step() call by its call site: (step number, part heading). A demo's own rerun
    # (a fragment) does not run the page, so the steps inside it are looked up, not counted.
    sites: dict = field(default_factory=dict)
    spans: dict = field(default_factory=dict)  # demo → (first step, last step), last page run
    learnt: dict = field(default_factory=dict)  # the same, as this page run finds them
    shown: dict = field(default_factory=dict)  # demo → whether this run drew it on the page


def _sink() -> DeltaGenerator:
    """A container outside the page: what is written to it is never sent.

    It is Streamlit's own "bare mode" DeltaGenerator (no root container), what elements
    write to when no script is running; widgets in it still keep their state.
    """
    return DeltaGenerator(root_container=None)


def _in_sink() -> bool:
    return context_dg_stack.get()[-1]._root_container is None


def _show(showing: bool) -> None:
    """Send what follows to the page, or to the sink.

    Streamlit's container stack is a context variable that `with container:` pushes and
    pops; the sink goes on top of it. So step() must be called where no `with` block is
    open (at the top level of a page or of a demo function), or a `with` would pop the sink.
    """
    stack = context_dg_stack.get()
    if showing and _in_sink():
        context_dg_stack.set(stack[:-1])
    elif not showing and not _in_sink():
        context_dg_stack.set((*stack, _sink()))


def _step_key(page: str) -> str:
    return f"{STEP_KEY}_{page or 'home'}"


def begin_deck(page: str) -> None:
    """Called by app.py before a page runs in presenter mode: which step to show."""
    key = _step_key(page)
    link_value = None
    if key not in st.session_state:
        link_value = url_value(STEP_KEY)
        valid = link_value is not None and link_value.isdigit() and 0 < int(link_value) < 1000
        st.session_state[key] = int(link_value) if valid else 1
        if link_value is not None and not valid:
            st.session_state[f"{key}__bad_link"] = link_value
    deck = _Deck(page, st.session_state[key], spans=dict(_SPANS.get(page, {})))
    st.session_state[_DECK] = deck
    _show(deck.current == 1)


def _deck() -> _Deck | None:
    deck = st.session_state.get(_DECK)
    return deck if presenter_mode() and isinstance(deck, _Deck) else None


def _demo_rerun() -> bool:
    """Whether this run reruns demos (fragments) only, not the page."""
    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)


def step(heading: str | None = None, *, level: str = "header") -> None:
    """Begin a step of the deck: a part's heading, or (no heading) a new screen of the same part.

    Outside presenter mode this is the heading alone (st.header, or st.subheader with
    level="subheader"). Call it at the top level of a page or of a demo function, never
    inside a `with` block; inside a demo, only where what follows makes its own containers
    (columns made before the step belong to the step before).
    """
    deck = _deck()
    draw = st.header if level == "header" else st.subheader
    if deck is None:
        if heading:
            draw(heading)
        return
    caller = sys._getframe(1)
    site = (caller.f_code.co_filename, caller.f_lineno)
    if _demo_rerun():
        number, part = deck.sites.get(site, (0, ""))
    else:
        deck.count += 1
        if heading:
            deck.heading = heading
        number, part = deck.count, deck.heading
        deck.sites[site] = (number, part)
    _show(number == deck.current)
    if heading:
        draw(heading)
    elif part:
        st.subheader(f"{part} (continued)")


def demo(function=None, **fragment_options):
    """`@lessons.demo` in place of `@st.fragment` (same options, e.g. key=), for a demo with
    steps of its own inside.

    Streamlit draws a fragment inside a container it makes where the fragment is called,
    so a demo whose later part is on screen must be called where the page is shown, not in
    the sink; and its earlier part must then go to the sink. The steps a demo spans are
    learnt on a page run (the first page run in presenter mode, if it shows a step inside
    a demo past the demo's first step, runs twice for this).
    """
    if function is None:
        return functools.partial(demo, **fragment_options)
    name = f"{function.__module__}.{function.__qualname__}"

    @functools.wraps(function)
    def body(*args, **kwargs):
        deck = _deck()
        if deck is None:
            return function(*args, **kwargs)
        entry = context_dg_stack.get()
        rerun = _demo_rerun()
        first = deck.spans.get(name, (deck.count, deck.count))[0] if rerun else deck.count
        _show(deck.current == first)  # the part before the demo's first step()
        try:
            return function(*args, **kwargs)
        finally:
            if not rerun:
                deck.learnt[name] = (first, deck.count)
            context_dg_stack.set(entry)

    fragment = st.fragment(body, **fragment_options)

    @functools.wraps(function)
    def call(*args, **kwargs):
        deck = _deck()
        if deck is None:
            return fragment(*args, **kwargs)
        entry = context_dg_stack.get()
        first, last = deck.spans.get(name, (deck.count, deck.count))
        deck.shown[name] = first <= deck.current <= last
        if deck.shown[name]:
            _show(True)
        try:
            return fragment(*args, **kwargs)
        finally:
            context_dg_stack.set(entry)
            # What the page draws next continues the demo's last step, not its first.
            _show(deck.current == deck.count)

    return call


def showing_step() -> bool:
    """Whether what the page draws now is on screen (always, outside presenter mode)."""
    return _deck() is None or not _in_sink()


def _go(page: str, number: int) -> None:
    st.session_state[_step_key(page)] = number
    st.query_params[STEP_KEY] = str(number)


_DECK_CSS = """
<style>
/* The deck's controls float at the bottom right, so a step keeps the whole screen. */
.st-key-dplab_deck { position: fixed; right: 0.5rem; bottom: 0.3rem; z-index: 999990;
  width: auto !important; background: rgba(255, 255, 255, 0.94); padding: 0.1rem 0.3rem;
  border-radius: 0.5rem; box-shadow: 0 0 0 1px #d0d0d0; gap: 0.3rem; align-items: center; }
.st-key-dplab_deck button { min-height: 1.7rem; padding: 0 0.5rem; }
.st-key-dplab_deck p { font-size: 0.8rem; margin: 0; white-space: nowrap; }
/* The elements that load the front end's code early (_load_element_code): off screen, never
   seen or measured; hidden, so out of the tab order and the accessibility tree */
.st-key-dplab_deck_preload { position: fixed; left: -5000px; top: 0; width: 200px !important;
  visibility: hidden; pointer-events: none; }
.st-key-dplab_deck_preload * { visibility: hidden !important; }
/* Keep the bar small over a step that scrolls: the keys are in each button's tooltip. */
.st-key-dplab_deck kbd { display: none; }
</style>
"""

# Clickers send PageDown/PageUp (the buttons' shortcuts, which Streamlit ignores while an
# input such as a radio has the focus, and which a focused slider takes for itself): those
# are caught first, wherever the focus is but in a text box, so a clicker always turns the
# page. Some clickers send the arrow keys, which also move a focused slider, tab or radio,
# so arrows turn the page only when no control has the focus.
_DECK_KEYS = """
<script>
(() => {
  if (window.__dplabDeckKeys) return;
  window.__dplabDeckKeys = true;
  const CONTROLS = 'input, textarea, select, [contenteditable=""], [contenteditable="true"], ' +
    '[role=slider], [role=radio], [role=tab], [role=spinbutton], [role=listbox], [role=option], ' +
    '[role=combobox], [role=grid], [role=gridcell], canvas';
  const press = (which) => {
    const button = [...document.querySelectorAll(`.st-key-dplab_deck_${which} button`)]
      .find((b) => b.offsetParent !== null);
    if (button && !button.disabled) button.click();
  };
  window.addEventListener('keydown', (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target instanceof Element ? event.target : null;
    const inControl = !!(target && target.closest(CONTROLS));
    const inText = !!(target && target.closest('textarea, [contenteditable=""], [contenteditable="true"]'));
    let which = null;
    if (event.key === 'ArrowRight' && !inControl) which = 'next';
    if (event.key === 'ArrowLeft' && !inControl) which = 'previous';
    if (event.key === 'PageDown' && !inText) which = 'next';
    if (event.key === 'PageUp' && !inText) which = 'previous';
    if (!which) return;
    event.preventDefault();
    event.stopPropagation();
    press(which);
  }, true);
})();
</script>
"""


def _load_element_code(title_step: bool) -> None:
    """An empty chart off screen on every step, and on the title step one element of each
    other kind the decks draw, off screen and disabled: the browser loads their code with
    the deck's first step.

    Streamlit's front end fetches and compiles each kind of element's code only when a page
    first draws one: Plotly's (megabytes of JavaScript) froze a deck's first step with a
    chart for 12-30 s on a busy machine while the server had long finished, and a deck's
    first slider, metric, data frame or formula cost its step more of the browser's time
    (docs/PERFORMANCE.md, "Presenter deck"). Drawn on the title step instead, that happens
    while the lecturer speaks to it. The widgets are disabled and hidden (visibility:
    hidden), so no keyboard reaches them and no screen reader reads them; they are drawn on
    the title step only, where a deck opens, so that no later step holds a control it does
    not show (the code, once loaded, stays for the rest of the deck).
    """
    with st.container(key="dplab_deck_preload"):
        st.plotly_chart({"data": [{"type": "scatter", "x": [0], "y": [0]}],
                         "layout": {"width": 10, "height": 10}},
                        key="dplab_deck_plotly_chart", config={"staticPlot": True}, theme=None)
        if not title_step:
            return
        # No keys: tests and links read a page's keyed widgets as its parameters.
        hidden = {"disabled": True, "label_visibility": "collapsed"}
        st.slider("preload", 0, 1, **hidden)
        st.metric("preload", 0)
        st.radio("preload", ["a"], **hidden)
        st.toggle("preload", **hidden)
        st.selectbox("preload", ["a"], **hidden)
        st.segmented_control("preload", ["a"], **hidden)
        st.table({"a": [0]})
        st.dataframe({"a": [0]})
        st.latex("x")


def no_deck() -> None:
    """Outside presenter mode a step in the URL means nothing: drop it."""
    st.query_params.pop(STEP_KEY, None)


def end_deck(seed: int) -> None:
    """Called by app.py after the page ran: the step counter, the Previous/Next buttons,
    and the seed that drew the pictures (so the same link gives them again)."""
    deck = _deck()
    if deck is None:
        return
    _show(True)
    key = _step_key(deck.page)
    if deck.learnt != deck.spans and not _demo_rerun():
        # A demo spans steps this run did not know of (a page's steps are the same for every
        # session, so this happens once per page and process). Run again, now knowing, only
        # if the step on screen needed them: a demo drawn where it should not be, or not
        # drawn where it should (a step inside a demo, past its first). Else this run drew
        # the step right, and the demo's own reruns look its steps up in deck.spans.
        _SPANS[deck.page] = dict(deck.learnt)
        wrong = any(deck.shown.get(name) != (first <= deck.current <= last)
                    for name, (first, last) in deck.learnt.items())
        deck.spans = dict(deck.learnt)
        if wrong:
            st.rerun()
    bad = st.session_state.pop(f"{key}__bad_link", None)
    if deck.current > deck.count:  # a link to a step this lesson does not have
        bad = str(deck.current)
        st.session_state[f"{key}__bad_link"] = bad
        _go(deck.page, 1)
        st.rerun()
    st.html(_DECK_CSS)
    if deck.count > 1:
        _load_element_code(deck.current == 1)
    with st.container(horizontal=True, key="dplab_deck"):
        if bad is not None:
            note_if_ignored(STEP_KEY, f"step of this lesson (1 to {deck.count})", bad, "1")
        st.caption(f"Presenter mode · seed {seed}")
        if deck.count == 1:  # a page without steps (the home page, the class poll)
            st.query_params.pop(STEP_KEY, None)
            deck_link(deck.page or HOME.slug, 1)
            return
        st.button("◀ Previous", key="dplab_deck_previous", shortcut="PageUp",
                  disabled=deck.current <= 1, on_click=_go, args=(deck.page, deck.current - 1),
                  help="Previous step (PageUp, or ← when no control has the focus)")
        st.markdown(f"**{deck.current} / {deck.count}**")
        st.button("Next ▶", key="dplab_deck_next", shortcut="PageDown",
                  disabled=deck.current >= deck.count, on_click=_go,
                  args=(deck.page, deck.current + 1),
                  help="Next step (PageDown, or → when no control has the focus)")
        deck_link(deck.page or HOME.slug, deck.current)
    st.html(_DECK_KEYS, unsafe_allow_javascript=True)
    st.query_params[STEP_KEY] = str(deck.current)


@lru_cache(maxsize=64)
def _read_quizzes(path: Path, mtime: float) -> dict[str, Quiz]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    quizzes = {}
    for entry in data.get("quiz", []):
        quiz = Quiz(entry["id"], entry["question"], tuple(entry["options"]),
                    int(entry["answer"]), entry["explanation"])
        if not 0 <= quiz.answer < len(quiz.options):
            raise ValueError(f"{path.name}: quiz {quiz.id!r} has no option {quiz.answer}")
        quizzes[quiz.id] = quiz
    return quizzes


def quizzes(slug: str) -> dict[str, Quiz]:
    path = LESSON_DIR / f"{slug}.quiz.toml"
    return _read_quizzes(path, path.stat().st_mtime)


_quiz_action: Callable[[str, str], None] | None = None


def set_quiz_action(action: Callable[[str, str], None] | None) -> None:
    """What every quiz draws under its question, given (slug, quiz id): app.py passes the live
    class's "Ask the class" (ui.live.ask_the_class), which this module cannot import (ui.live
    imports it)."""
    global _quiz_action
    _quiz_action = action


def quiz(slug: str, quiz_id: str) -> None:
    """Predict, then reveal: the student commits to an answer before seeing it."""
    q = quizzes(slug)[quiz_id]
    key = f"{slug}_quiz_{quiz_id}"
    with st.container(border=True):
        st.markdown(f"**🤔 Predict first.** {q.question}")
        if _quiz_action is not None:
            _quiz_action(slug, quiz_id)
        # Once revealed, the list itself marks the answer (the toggle below, from the last run).
        shown = bool(st.session_state.get(f"{key}_reveal"))
        choice = st.radio("Your prediction", range(len(q.options)), index=None, key=key,
                          format_func=lambda i: f"✅ **{q.options[i]}**" if shown and i == q.answer
                          else q.options[i], label_visibility="collapsed")
        # On the projector the class predicts, not the instructor: the answer can be
        # revealed without a pick (a pick would be marked wrong or right in front of everyone).
        projector = presenter_mode()
        revealed = st.toggle("Reveal the answer", key=f"{key}_reveal",
                             disabled=choice is None and not projector,
                             help=None if projector else "Pick an answer first.")
        if revealed and choice is None:
            st.markdown(f"The answer: *{q.options[q.answer]}*. {q.explanation}")
        elif revealed:
            verdict = "✅ Right." if choice == q.answer else f"❌ Not quite: the answer is *{q.options[q.answer]}*."
            st.markdown(f"{verdict} {q.explanation}")
