"""Classroom features on every lesson page: shareable links, presenter mode, instructor notes."""

from __future__ import annotations

import ast
from urllib.parse import parse_qs, urlsplit

import plotly.graph_objects as go
import pytest

from tests.conftest import app_test, assert_clean, chart_specs
from tests.test_pages import _sliders
from ui import lessons
from ui.course import HOME, LESSONS, ROOT, Lesson
from ui.show import PRESENTER_FONT_SIZE, describe

PAGES = [lesson for lesson in LESSONS if lesson is not HOME and lesson.section != "Classroom"]
NOTE = "is not a valid"


def _other_value(widget) -> str:
    """A valid link value for the widget that is not its default (its far end)."""
    if widget.type == "select_slider":
        labels = widget.options
        shown = next((label for label in labels if _same(label, widget.value)), None)
        return labels[0] if shown == labels[-1] else labels[-1]
    far = widget.min if widget.value == widget.max else widget.max
    return str(int(far)) if float(far).is_integer() else repr(float(far))


def _same(label: str, value) -> bool:
    try:
        return float(label.replace(",", "")) == float(value)
    except (TypeError, ValueError):
        return label == str(value)


def _demos_shown(lesson: Lesson) -> int:
    """How many demos (fragments) one run shows; a page of lazy tabs runs only the open one."""
    source = (ROOT / lesson.script).read_text(encoding="utf-8")
    if "st.tabs(" in source:
        return 1
    return sum(1 for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)
               and any(ast.unparse(d).startswith("st.fragment") for d in node.decorator_list))


def _links(at) -> list[str]:
    return [code.value for code in at.get("code") if "seed=" in code.value]


@pytest.mark.parametrize("lesson", PAGES, ids=lambda lesson: lesson.slug)
def test_a_shared_link_reopens_the_same_view(lesson: Lesson):
    defaults = {w.key: w.value for w in _sliders(app_test(lesson)) if w.key != "seed"}
    first = app_test(lesson)
    link_values = {w.key: _other_value(w) for w in _sliders(first) if w.key != "seed"}
    at = app_test(lesson, {**link_values, "seed": "123"})
    assert_clean(at)
    assert not [c.value for c in at.caption if NOTE in c.value]
    opened = {w.key: w.value for w in _sliders(at)}
    moved = [key for key in link_values if opened[key] != defaults[key]]
    assert moved == list(link_values), "every link value reached its widget"
    assert opened["seed"] == 123

    links = _links(at)
    assert len(links) == _demos_shown(lesson), "one 'Copy link to this view' per demo"
    assert len(set(links)) == 1
    link = urlsplit(links[0])
    assert link.path == f"/{lesson.slug}"
    carried = {key: values[-1] for key, values in parse_qs(link.query, keep_blank_values=True).items()}
    assert carried == {**link_values, "seed": "123"}

    reopened = app_test(lesson, carried)
    assert_clean(reopened)
    assert {w.key: w.value for w in _sliders(reopened)} == opened
    assert _links(reopened) == links


def test_the_link_writes_out_the_default_seed():
    at = app_test(PAGES[0])
    assert all(link.endswith("seed=2014") for link in _links(at))


@pytest.mark.parametrize("lesson", PAGES, ids=lambda lesson: lesson.slug)
def test_presenter_mode_keeps_the_demo_and_drops_the_prose(lesson: Lesson):
    normal = app_test(lesson, {"seed": "77"})
    presenting = app_test(lesson, {"seed": "77", "present": "1"})
    assert_clean(presenting)
    assert presenting.toggle(key="present").value is True
    assert any("Presenter mode · seed 77" in c.value for c in presenting.caption)
    assert not [e for e in presenting.expander if "For instructors" in e.label]
    assert [e for e in normal.expander if "For instructors" in e.label]
    # The prose shrinks; the sections marked `present` and every demo stay.
    assert len(presenting.markdown) < len(normal.markdown)
    kept = lessons.presenter_sections(lesson.slug)
    assert kept, f"lessons/{lesson.slug}.md marks no section `present`"
    assert len(chart_specs(presenting)) == len(chart_specs(normal))
    assert len(_sliders(presenting)) == len(_sliders(normal))
    for spec in chart_specs(presenting):
        go.Figure(spec)
        assert spec["layout"]["font"]["size"] == PRESENTER_FONT_SIZE
    # Captions under charts are prose too: gone on the projector.
    assert not [c for c in presenting.caption if c.value.startswith("Chart:")]
    assert len([c for c in normal.caption if c.value.startswith("Chart:")]) == len(chart_specs(normal))


@pytest.mark.parametrize("bad", ["yes", "2", "", "1e400"])
def test_a_bad_presenter_value_is_ignored_with_a_note(bad: str):
    at = app_test(PAGES[0], {"present": bad})
    assert_clean(at)
    assert at.toggle(key="present").value is False
    if bad:
        assert any(f"present={bad!r}" in c.value for c in at.caption)


@pytest.mark.parametrize("lesson", [HOME, *PAGES], ids=lambda lesson: lesson.slug)
def test_every_lesson_has_instructor_notes(lesson: Lesson):
    notes = lessons.sections(lesson.slug).get("instructors", "")
    assert len(notes.split()) > 120, f"lessons/{lesson.slug}.md needs a full 'instructors' section"
    if lesson is not HOME:
        lowered = notes.lower()
        for topic in ("timing", "before", "misconception"):
            assert topic in lowered, f"{lesson.slug}: instructor notes say nothing about {topic}"


def test_describe_names_title_axes_and_series():
    figure = go.Figure(layout={"title": {"text": "Noise<br>added"}, "xaxis": {"title": {"text": "noise (units)"}},
                               "yaxis": {"title": {"text": "density"}}})
    figure.add_scatter(x=[0, 1], y=[1, 0], name="Laplace")
    figure.add_scatter(x=[0, 1], y=[0, 1], name="Laplace")
    figure.add_scatter(x=[0, 1], y=[0, 1], name="hidden", showlegend=False)
    assert describe(figure) == ("Chart: Noise added. Horizontal axis: noise (units). "
                                "Vertical axis: density. Series: Laplace.")
