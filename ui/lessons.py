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

Every lesson ends with an "instructors" section (timing, questions to pose before each
reveal, common misconceptions), shown folded on the page and never in presenter mode.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import streamlit as st

from ui.course import ROOT
from ui.presenter import presenter_mode

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
_EXPONENT = re.compile(r"^([-+]?\d(?:\.\d+)?)e([-+]\d+)$")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _no_e_notation(text: str, in_math: bool) -> str:
    """What a `g` format gives for large or small numbers, written for a reader.

    '2.22e+03' becomes 2,220 and '6.7e-05' becomes 6.7 × 10⁻⁵: never e-notation in a lesson.
    """
    match = _EXPONENT.match(text)
    if not match:
        return text
    mantissa, exponent = match.group(1), int(match.group(2))
    if 0 < exponent < 16:
        return f"{float(text):,.0f}".replace(",", "{,}" if in_math else ",")
    if in_math:
        return f"{mantissa} \\times 10^{{{exponent}}}"
    return f"{mantissa} × 10{str(exponent).translate(_SUPERSCRIPT)}"


def fill(text: str, values: dict) -> str:
    """Replace {{name}} and {{name:fmt}} by the page's live values; leave others alone."""
    math_spans = [m.span() for m in _MATH.finditer(text)]

    def replace(match: re.Match) -> str:
        name, spec = match.group(1), match.group(2)
        if name not in values:
            return match.group(0)
        in_math = any(start < match.start() < end for start, end in math_spans)
        return _no_e_notation(format(values[name], spec or ""), in_math)

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
    text = section_text(slug, name, **values)
    if presenter_mode() and name not in presenter_sections(slug):
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


def quiz(slug: str, quiz_id: str) -> None:
    """Predict, then reveal: the student commits to an answer before seeing it."""
    q = quizzes(slug)[quiz_id]
    key = f"{slug}_quiz_{quiz_id}"
    with st.container(border=True):
        st.markdown(f"**🤔 Predict first.** {q.question}")
        from ui.live import ask_the_class  # (here: ui.live imports this module)

        ask_the_class(slug, quiz_id)  # "Ask the class": only for an instructor running a live session
        choice = st.radio("Your prediction", range(len(q.options)), index=None, key=key,
                          format_func=lambda i: q.options[i], label_visibility="collapsed")
        revealed = st.toggle("Reveal the answer", key=f"{key}_reveal", disabled=choice is None,
                             help="Pick an answer first.")
        if revealed and choice is not None:
            verdict = "✅ Right." if choice == q.answer else f"❌ Not quite: the answer is *{q.options[q.answer]}*."
            st.markdown(f"{verdict} {q.explanation}")
