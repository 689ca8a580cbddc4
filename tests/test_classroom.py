"""Classroom features on every lesson page: shareable links, presenter mode, instructor notes."""

from __future__ import annotations

import ast
import re
from urllib.parse import parse_qs, urlsplit

import plotly.graph_objects as go
import pytest

from tests.conftest import app_test, assert_clean, chart_specs
from tests.links import links
from tests.test_pages import _sliders
from ui import lessons
from ui.course import HOME, LESSONS, ROOT, Lesson
from ui.show import PRESENTER_FONT_SIZE, describe

PAGES = [lesson for lesson in LESSONS if lesson is not HOME and lesson.section != "Classroom"]
NOTE = "is not a valid"
NO_CHOICES = {"definition", "machine-learning"}  # pages whose default view has no drop-down, switch or radio


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
    """How many demos (fragments with a link) one run shows; a page of lazy tabs runs only the
    open one. A part of a demo that reruns on its own (a fragment inside it) has no link."""
    source = (ROOT / lesson.script).read_text(encoding="utf-8")
    if "st.tabs(" in source:
        return 1
    return sum(1 for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)
               and any(ast.unparse(d).startswith(("st.fragment", "lessons.demo"))
                       for d in node.decorator_list)
               and any(isinstance(call, ast.Call) and ast.unparse(call.func) == "copy_link"
                       for call in ast.walk(node)))


def _links(at) -> list[str]:
    return links(at)  # opens the lazy link popovers first


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
    # one 'Copy link to this view' per demo of the page (shared panels such as the accuracy
    # planner, defined in ui/, bring their own)
    assert len(links) >= _demos_shown(lesson)
    assert len({link.split("#")[0] for link in links}) == 1, "every demo's link carries the whole page"
    # ... and ends in its own demo's name, so that it opens scrolled to that demo
    assert all(urlsplit(link).fragment for link in links)
    assert len({urlsplit(link).fragment for link in links}) == len(links)
    link = urlsplit(links[0])
    assert link.path == f"/{lesson.slug}"
    every = parse_qs(link.query, keep_blank_values=True)
    carried = {key: values[-1] for key, values in every.items()}
    assert {key: carried.get(key) for key in link_values} == link_values
    assert carried["seed"] == "123"
    assert "present" not in carried and "step" not in carried

    reopened = app_test(lesson, every)
    assert_clean(reopened)
    assert {w.key: w.value for w in _sliders(reopened)} == opened
    assert _links(reopened) == links


def test_the_link_writes_out_the_default_seed():
    at = app_test(PAGES[0])
    assert all(urlsplit(link).query.endswith("seed=2014") for link in _links(at))


@pytest.mark.parametrize("lesson", PAGES, ids=lambda lesson: lesson.slug)
def test_a_link_writes_every_setting_even_at_its_default(lesson: Lesson):
    # Streamlit keeps a setting at its default out of the address bar; the copied link must
    # not, or a later change of the default would silently change an old link's picture.
    at = app_test(lesson)
    assert_clean(at)
    links = _links(at)
    assert links
    carried = parse_qs(urlsplit(links[0]).query, keep_blank_values=True)
    for widget in _sliders(at):
        assert widget.key in carried, f"{widget.key} at its default is missing from the link"
    reopened = app_test(lesson, carried)  # every value, so pills keep all their choices
    assert_clean(reopened)
    assert not [c.value for c in reopened.caption if NOTE in c.value]
    assert {w.key: w.value for w in _sliders(reopened)} == {w.key: w.value for w in _sliders(at)}


# Choices a copied link leaves out on purpose: a student's own prediction and its reveal (a link
# must not answer a quiz), the machine-learning audit's run switch (it trains thousands of
# models: a link should not start that on open), and the sidebar's presenter and seed controls,
# which the link writes as present= and seed= itself.
NOT_LINKED = ("_quiz_", "ml_audit_on", "present", "seed", "dplab_")


@pytest.mark.parametrize("lesson", PAGES, ids=lambda lesson: lesson.slug)
def test_every_choice_on_a_page_is_in_its_link(lesson: Lesson):
    # home.md promises that the link reopens the page with the same settings: drop-downs,
    # switches and radios too, not only sliders (the differencing demo's target, diagnosis and
    # noise switch were not in its link)
    at = app_test(lesson)
    carried = parse_qs(urlsplit(_links(at)[0]).query, keep_blank_values=True)
    choices = [*at.selectbox, *at.toggle, *at.radio, *at.multiselect, *at.checkbox]
    keys = [w.key for w in choices if w.key and not any(part in w.key for part in NOT_LINKED)]
    assert keys or lesson.slug in NO_CHOICES, "the page shows choices at its defaults"
    assert [key for key in keys if key not in carried] == []


def _deck_counter(at) -> tuple[int, int]:
    """The deck's "3 / 9", as numbers."""
    counters = [m.value.strip("*") for m in at.markdown if re.fullmatch(r"\*\*\d+ / \d+\*\*", m.value)]
    assert len(counters) == 1, counters
    shown, total = counters[0].split(" / ")
    return int(shown), int(total)


@pytest.mark.parametrize("lesson", PAGES, ids=lambda lesson: lesson.slug)
def test_presenter_mode_is_a_deck_that_shows_every_demo_once(lesson: Lesson):
    normal = app_test(lesson, {"seed": "77"})
    presenting = app_test(lesson, {"seed": "77", "present": "1"})
    assert_clean(presenting)
    assert presenting.toggle(key="present").value is True
    assert any("Presenter mode · seed 77" in c.value for c in presenting.caption)
    assert not [e for e in presenting.expander if "For instructors" in e.label]
    assert [e for e in normal.expander if "For instructors" in e.label]
    assert lessons.presenter_sections(lesson.slug), f"lessons/{lesson.slug}.md marks no section `present`"
    assert _deck_counter(presenting)[0] == 1
    total = _deck_counter(presenting)[1]
    assert total >= 4, "a lesson is several steps"
    # Step by step, the deck shows every chart and every slider of the page exactly once,
    # and its prose shrinks to what the lesson marks `present`.
    charts, sliders, markdown = [], [], 0
    for number in range(1, total + 1):
        presenting.session_state[f"step_{lesson.slug}"] = number
        presenting.run()
        assert_clean(presenting)
        assert _deck_counter(presenting) == (number, total)
        specs = chart_specs(presenting)
        for spec in specs:
            go.Figure(spec)
            assert spec["layout"]["font"]["size"] == PRESENTER_FONT_SIZE
        charts += [spec["layout"]["title"]["text"] for spec in specs]
        sliders += [w.key for w in _sliders(presenting)]
        markdown += len(presenting.markdown)
        # Captions under charts are prose too: gone on the projector.
        assert not [c for c in presenting.caption if c.value.startswith("Chart:")]
    deck_sliders = sorted(key for key in sliders if key != "seed")
    page_sliders = sorted(w.key for w in _sliders(normal) if w.key != "seed")
    if "st.tabs(" in (ROOT / lesson.script).read_text(encoding="utf-8"):
        # the page runs only its open tab; the deck has every tab as steps
        assert set(page_sliders) <= set(deck_sliders) and len(set(deck_sliders)) == len(deck_sliders)
        assert len(charts) >= len(chart_specs(normal))
    else:
        assert deck_sliders == page_sliders
        assert len(charts) == len(chart_specs(normal))
    assert markdown < len(normal.markdown) + 3 * total


@pytest.mark.parametrize("bad", ["0", "abc", "999"])
def test_a_bad_step_in_a_link_opens_step_one_with_a_note(bad: str):
    at = app_test(PAGES[0], {"present": "1", "step": bad})
    assert_clean(at)
    assert _deck_counter(at)[0] == 1
    assert any(f"step={bad!r}" in c.value or f"step='{bad}'" in c.value or bad in c.value
               for c in at.caption if "step" in c.value), [c.value for c in at.caption]


def test_a_step_in_a_link_opens_the_deck_there_and_outside_presenter_mode_means_nothing():
    at = app_test(PAGES[0], {"present": "1", "step": "3"})
    assert _deck_counter(at)[0] == 3
    plain = app_test(PAGES[0], {"step": "3"})
    assert_clean(plain)
    assert "step" not in plain.query_params
    assert not [c for c in plain.caption if "step" in c.value]


def test_on_the_projector_the_answer_is_revealed_without_a_pick():
    lesson = next(page for page in PAGES if lessons.quizzes(page.slug))
    quiz_id = next(iter(lessons.quizzes(lesson.slug)))
    key = f"{lesson.slug}_quiz_{quiz_id}"
    student = app_test(lesson)
    assert student.toggle(key=f"{key}_reveal").disabled, "a student picks first"
    presenting = app_test(lesson, {"present": "1"})
    for number in range(1, _deck_counter(presenting)[1] + 1):
        presenting.session_state[f"step_{lesson.slug}"] = number
        presenting.run()
        if [t for t in presenting.toggle if t.key == f"{key}_reveal"]:
            break
    reveal = presenting.toggle(key=f"{key}_reveal")
    assert not reveal.disabled
    reveal.set_value(True).run()
    text = " ".join(m.value for m in presenting.markdown)
    answer = lessons.quizzes(lesson.slug)[quiz_id]
    assert answer.options[answer.answer] in text
    assert "Not quite" not in text and "Right." not in text


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
