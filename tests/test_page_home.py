"""The home page: its one-sentence promise covers both neighbour relations the course uses."""

from __future__ import annotations

from tests.conftest import app_test, assert_clean, page_text
from ui.course import HOME


def test_the_promise_names_both_neighbour_relations():
    at = app_test(HOME)
    assert_clean(at)
    text = " ".join(page_text(at).split())
    # Most pages use replace-one neighbours, some add/remove: the promise covers both.
    assert "had any single person's data been left out or changed" in text
