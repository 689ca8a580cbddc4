"""bench/load.py lecture's vote → projector matching: the k-th vote of a push to finish is on the
projector at the first projector run, at or after its tap, that shows at least k votes for that
same push (a count for another push never counts)."""

from __future__ import annotations

import pytest

from bench.load import vote_to_projector


def test_each_vote_is_matched_within_its_own_push():
    votes = [  # (push, sent, finished, confirmed)
        (0, 10.0, 10.2, True),
        (0, 11.0, 11.1, True),
        (1, 70.0, 70.3, True),
    ]
    shown = [  # projector runs: (time, push, count)
        (10.5, 0, 1),
        (11.5, 0, 1),  # the second vote is not counted yet
        (12.5, 0, 2),
        (70.1, 0, 2),  # still the old question: not the push-1 vote's
        (71.0, 1, 1),
    ]
    delays, missing = vote_to_projector(votes, shown)
    assert delays == pytest.approx([0.5, 1.5, 1.0])
    assert missing == 0


def test_a_count_shown_before_the_tap_does_not_count_and_an_unshown_vote_is_missing():
    votes = [(0, 5.0, 5.1, True), (0, 6.0, 6.4, True)]
    shown = [(4.0, 0, 2), (5.5, 0, 1)]  # 2 at 4.0 is before either tap; the second never shows
    delays, missing = vote_to_projector(votes, shown)
    assert delays == pytest.approx([0.5])
    assert missing == 1
