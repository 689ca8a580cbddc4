"""Every registered page runs through app.py: at defaults, at widget extremes, with bad links."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from tests.conftest import app_test, assert_clean, chart_specs
from tests.test_security import as_read
from ui.course import LESSONS, ROOT, Lesson
from ui.plain_figure import spec_mismatches

BAD_VALUES = ["abc", "nan", "-1e999", "", "1e400", "0x1F"]


def _sliders(at):
    """Every slider-like widget with a key: these are the page's main parameters."""
    return [w for w in [*at.slider, *at.select_slider, *at.number_input] if w.key]


def _extremes(widget) -> tuple[str, str]:
    """The widget's lowest and highest value, written as a link would carry them."""
    if widget.type == "select_slider":  # AppTest holds the formatted option labels
        return widget.options[0], widget.options[-1]
    def as_link(v) -> str:
        return str(int(v)) if float(v).is_integer() else repr(float(v))

    return as_link(widget.min), as_link(widget.max)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.slug)
def test_page_runs_at_defaults(lesson: Lesson):
    at = app_test(lesson)
    assert_clean(at)
    assert at.title, "every page shows a title"
    # Charts are built without plotly's validation (it costs milliseconds per rerun), so
    # validate every figure the page actually sends: a misspelt property fails here.
    for spec in chart_specs(at):
        # and what the browser gets is what plotly validated: no property that plotly would
        # rewrite on the way (a magic underscore such as line_width, a title as a bare string)
        problems = spec_mismatches(spec, go.Figure(spec).to_dict())
        assert not problems, problems
        assert spec["data"], "no empty plots"
        assert isinstance(spec["layout"].get("template"), dict), "the theme reaches the browser"
        _assert_labelled(spec)
    captions = [c.value for c in at.caption if c.value.startswith("Chart: ")]
    assert len(captions) == len(chart_specs(at)), "every chart has a text caption"


def _assert_labelled(spec: dict) -> None:
    """A title, and a title on every visible axis (the units are checked by reading them)."""
    layout = spec["layout"]
    title = layout.get("title", {}).get("text")
    assert title, f"a chart without a title: {spec['data'][0].get('name')}"
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")) and axis.get("visible", True):
            assert axis.get("title", {}).get("text"), f"{title!r}: {name} has no title"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.slug)
def test_page_survives_every_widget_at_its_extremes(lesson: Lesson):
    # Every keyed slider goes to its minimum and its maximum, all together and in an
    # alternating mix, through the same URL binding a shared link uses.
    extremes = {w.key: _extremes(w) for w in _sliders(app_test(lesson))}
    keys = sorted(extremes)
    mixes = [
        {key: extremes[key][0] for key in keys},
        {key: extremes[key][1] for key in keys},
        {key: extremes[key][i % 2] for i, key in enumerate(keys)},
        {key: extremes[key][1 - i % 2] for i, key in enumerate(keys)},
    ]
    for query in mixes:
        at = app_test(lesson, query)
        assert_clean(at)
        notes = [c.value for c in at.caption if "is not a valid" in c.value]
        assert not notes, notes  # the extremes themselves are valid link values


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.slug)
@pytest.mark.parametrize("bad", BAD_VALUES)
def test_bad_link_values_fall_back_with_a_note(lesson: Lesson, bad: str):
    first = app_test(lesson)
    # Every other URL-bound widget: radios, toggles (not the presenter switch, its own test
    # covers it) and pills.
    bound = [w.key for w in [*first.radio, *first.toggle, *first.get("button_group")]
             if w.proto.query_param_key and w.key != "present"]
    keys = [w.key for w in _sliders(first)] + bound
    at = app_test(lesson, {key: bad for key in keys})
    assert_clean(at)
    notes = as_read(" ".join(c.value for c in at.caption))
    for key in keys:
        if bad:  # an empty ?key= is a cleared value, not a wrong one
            assert f"{key}={bad!r}" in notes, f"no note for {key}={bad!r}"


def test_pages_live_outside_a_legacy_pages_folder():
    # A folder named pages/ next to app.py switches on Streamlit's legacy file-name
    # navigation (visible in the browser until app.py runs, and broken reruns in
    # AppTest). The lesson scripts therefore live in app_pages/; see README.
    assert not (ROOT / "pages").exists()
    for lesson in LESSONS:
        assert (ROOT / lesson.script).is_file(), lesson.script
        assert (ROOT / "lessons" / f"{lesson.slug}.md").is_file(), lesson.slug


def test_registry_has_unique_slugs_and_known_sections():
    from ui.course import SECTIONS

    slugs = [lesson.slug for lesson in LESSONS]
    assert len(slugs) == len(set(slugs))
    assert all(lesson.section in SECTIONS for lesson in LESSONS)


def test_readme_course_map_lists_every_lesson():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for lesson in LESSONS[1:]:
        assert f"| {lesson.section} | {lesson.title} |" in readme, lesson.title
