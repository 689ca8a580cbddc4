"""The home page: its promise covers both neighbour relations; its notes quote the poll's own numbers."""

from __future__ import annotations

import math

from dp.rr_inference import rr_half_width
from tests.conftest import app_test, assert_clean, page_text
from ui import lessons
from ui.course import HOME


def test_the_promise_names_both_neighbour_relations():
    at = app_test(HOME)
    assert_clean(at)
    text = " ".join(page_text(at).split())
    # Most pages use replace-one neighbours, some add/remove: the promise covers both.
    assert "had any single person's data been left out or changed" in text


def test_the_poll_interval_quoted_for_60_students_is_the_polls_own():
    # Fair coins are ε = ln 3; the class poll's half-width is the same for every answer pattern.
    text = " ".join(lessons.section_text(HOME.slug, "instructors").split())
    assert f"With 60 students at fair coins its 95% interval is π̂ ± {rr_half_width(60, math.log(3)):.2f}, cut to [0, 1]" in text
    assert "π̂ ± 0.24" in text
