"""Lesson text has no stray control characters.

A backslash escape eaten on the way ("\\varepsilon" in a Python or TOML string becomes a
vertical tab and "arepsilon"; "\\frac" a form feed, "\\beta" a backspace) leaves a control
byte that renders as nothing or as garbage. This scans the lesson files as stored, the
quizzes as TOML decodes them, and every string literal in the page and ui code.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # everything but tab and newline
LESSON_FILES = sorted((ROOT / "lessons").glob("*.md")) + sorted((ROOT / "lessons").glob("*.toml"))
CODE_FILES = sorted((ROOT / "app_pages").glob("*.py")) + sorted((ROOT / "ui").rglob("*.py")) + [ROOT / "app.py"]


def _bad(text: str) -> list[str]:
    """Each control character with a little context, as repr so it shows."""
    return [repr(text[max(0, m.start() - 20):m.end() + 20]) for m in CONTROL.finditer(text)]


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_the_scan_finds_an_eaten_backslash():
    assert _bad("the lecture's $p\\,e^{\varepsilon}$")  # "\\v" eaten on purpose
    assert _bad(tomllib.loads('x = "$\\frac{1}{2}$"')["x"])
    assert not _bad("line one\nline two\twith a tab")


@pytest.mark.parametrize("path", LESSON_FILES, ids=lambda p: p.name)
def test_lesson_files_have_no_control_characters(path):
    assert not _bad(path.read_text(encoding="utf-8")), path.name


@pytest.mark.parametrize("path", sorted((ROOT / "lessons").glob("*.toml")), ids=lambda p: p.name)
def test_quiz_strings_decode_without_control_characters(path):
    decoded = _strings(tomllib.loads(path.read_text(encoding="utf-8")))
    assert decoded
    assert not [bad for text in decoded for bad in _bad(text)], path.name


@pytest.mark.parametrize("path", CODE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_string_literals_in_page_code_have_no_control_characters(path):
    literals = [node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    assert not [bad for text in literals for bad in _bad(text)], path.name


# A quiz is also asked on the phones and the projector of a live class, where there is no
# demo "below" or "above" it: an explanation names the demo it points to instead.
POSITIONAL = re.compile(r"\b(demo|chart|slider|sliders|table|figure)s? (below|above)\b|\b(below|above) (this|the) "
                        r"(demo|chart|quiz)", re.IGNORECASE)


def test_quiz_explanations_point_to_demos_by_name_not_by_place():
    paths = sorted((ROOT / "lessons").glob("*.quiz.toml"))
    quizzes = [(path.name, entry) for path in paths
               for entry in tomllib.loads(path.read_text(encoding="utf-8"))["quiz"]]
    assert len(quizzes) > 20
    for name, entry in quizzes:
        for field in ("question", "explanation"):
            assert not POSITIONAL.search(entry[field]), (name, entry["id"], field)
