"""A deck learns which steps each demo spans on its first page run in a process (ui/lessons.py):
that run must draw its step right, and it runs the page a second time only when the step
on screen needed the spans it did not yet know (a step inside a demo, past its first).
Opening a deck at its title slide, as a lecturer does, costs one run, not two (issue 27)."""

from __future__ import annotations

import pytest
import streamlit as st

from tests.conftest import app_test, assert_clean, chart_specs
from tests.test_classroom import PAGES, _deck_counter
from tests.test_pages import _sliders
from ui import lessons


def _drawn(at) -> tuple:
    """What the step shows: its counter, charts, sliders and text."""
    return (_deck_counter(at), [spec["layout"]["title"]["text"] for spec in chart_specs(at)],
            [w.key for w in _sliders(at)], [m.value for m in at.markdown])


@pytest.mark.parametrize("lesson", PAGES, ids=lambda lesson: lesson.slug)
def test_a_fresh_process_draws_its_step_right_and_reruns_only_inside_a_demo(lesson, monkeypatch):
    """The title slide, and the second step of the lesson's first demo of several steps (the
    step that needs the spans), each opened on a fresh process and on a warm one."""
    query = {"seed": "5", "present": "1"}
    warm_title = app_test(lesson, query)  # learns the spans
    spans = dict(lessons._SPANS.get(lesson.slug, {}))  # noqa: SLF001
    inside = next((start + 1 for start, end in spans.values() if end > start), None)
    reruns = []
    real_rerun = st.rerun

    def counted_rerun(*args, **kwargs):
        reruns.append(1)
        return real_rerun(*args, **kwargs)

    monkeypatch.setattr(lessons.st, "rerun", counted_rerun)
    for number in (1, inside) if inside else (1,):
        step_query = {**query, "step": str(number)}
        known = warm_title if number == 1 else app_test(lesson, step_query)
        assert not reruns, f"step {number}: the spans were known, yet the page ran twice"
        monkeypatch.setitem(lessons._SPANS, lesson.slug, {})  # noqa: SLF001 - a fresh process
        fresh = app_test(lesson, step_query)
        assert_clean(fresh)
        assert _drawn(fresh) == _drawn(known), f"step {number} drawn differently on a fresh process"
        assert len(reruns) == (number > 1), f"step {number}: {len(reruns)} extra runs"
        assert lessons._SPANS.get(lesson.slug, {}) == spans  # noqa: SLF001 - learnt again, the same
        reruns.clear()
