"""ui.allowance: each session's token bucket of CPU seconds for heavy computations (issue 25)."""

from __future__ import annotations

import pytest

from ui import allowance
from ui.allowance import CAPACITY_SECONDS, REFILL_PER_SECOND


def test_a_fresh_session_has_the_whole_allowance():
    assert allowance.level({}, 0.0) == CAPACITY_SECONDS
    assert allowance.wait({}, 0.0) == 0


def test_spending_it_makes_the_next_computation_wait_until_it_refills():
    bucket: dict = {}
    allowance.charge(bucket, CAPACITY_SECONDS + 0.5, now=10.0)  # a first visit may overdraw it
    assert allowance.level(bucket, 10.0) == pytest.approx(-0.5)
    assert allowance.wait(bucket, 10.0) == pytest.approx(0.5 / REFILL_PER_SECOND, abs=1e-5)
    later = 10.0 + 0.5 / REFILL_PER_SECOND + 0.01
    assert allowance.wait(bucket, later) == 0
    assert allowance.level(bucket, 1e6) == CAPACITY_SECONDS  # it never holds more than that


def test_a_session_that_keeps_asking_gets_at_most_the_refill_rate():
    """A hammer: computes whenever allowed, each computation costing 0.12 s, for 100 minutes (long enough that the full bucket it starts with is a small part)."""
    bucket: dict = {}
    now, spent, cost = 0.0, 0.0, 0.12
    while now < 6000:
        now += allowance.wait(bucket, now)
        allowance.charge(bucket, cost, now)
        spent += cost
        now += cost
    # Its last computation may start just before `now`, on an allowance just above zero.
    assert spent <= CAPACITY_SECONDS + cost + REFILL_PER_SECOND * now
    assert spent / now <= REFILL_PER_SECOND * 1.05  # a twentieth of a core, give or take the start
    # Three such sessions leave most of the interpreter to everyone else.
    assert round(3 * REFILL_PER_SECOND, 9) <= 0.15


def test_a_negative_cost_is_refused():
    with pytest.raises(ValueError, match="cpu_seconds"):
        allowance.charge({}, -1.0, 0.0)
