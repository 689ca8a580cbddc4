"""dp.composition_table: the precomputed exact Laplace curve covers the lessons' grid and
holds what the live computation gives."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dp import composition_table as table
from dp.accounting import laplace_composition_epsilon
from ui.params import DELTAS, EPSILONS, log_options


def test_the_table_covers_every_point_the_composition_page_can_ask_for():
    # The page's sliders: ε from ui.params.EPSILONS, δ′ from DELTAS, k = 1, 2, 5, …, 10⁴
    page_ks = [int(k) for k in log_options(1, 10_000, 3)]
    assert set(EPSILONS) <= set(table.GRID_EPSILONS)
    assert set(DELTAS) <= set(table.GRID_DELTAS)
    assert set(page_ks) <= set(table.GRID_KS)
    data = json.loads(table.TABLE_PATH.read_text(encoding="utf-8"))
    assert data["epsilons"] == list(table.GRID_EPSILONS)
    assert data["deltas"] == list(table.GRID_DELTAS)
    assert data["ks"] == list(table.GRID_KS)
    for epsilon in EPSILONS:
        for delta in DELTAS:
            assert table.tabulated(epsilon, delta)
    assert not table.tabulated(0.04, 1e-6)


# Every ε and δ′ in turn, with a k drawn for each (seeded), so that every row and column of
# the table is checked against the live computation at least once, large k included.
_RNG = np.random.default_rng(20261125)
_SAMPLE = [(epsilon, table.GRID_DELTAS[i % len(table.GRID_DELTAS)],
            int(_RNG.choice(table.GRID_KS)))
           for i, epsilon in enumerate(table.GRID_EPSILONS)]
_SAMPLE += [(0.1, 1e-6, 10_000), (10.0, 1e-12, 5000)]


@pytest.mark.parametrize(("epsilon", "delta", "k"), _SAMPLE)
def test_tabulated_values_are_the_live_computation(epsilon, delta, k):
    live = laplace_composition_epsilon(1 / epsilon, k, delta)
    assert table.exact_laplace_epsilon(epsilon, k, delta) == pytest.approx(live, rel=1e-9, abs=1e-12)
    assert table._table()[(epsilon, delta, k)] == pytest.approx(live, rel=1e-9, abs=1e-12)


def test_points_off_the_grid_are_computed_and_remembered():
    before = table._computed.cache_info().hits
    value = table.exact_laplace_epsilon(0.04, 30, 1e-6)
    assert value == laplace_composition_epsilon(1 / 0.04, 30, 1e-6)
    assert table.exact_laplace_epsilon(0.04, 30, 1e-6) == value
    assert table._computed.cache_info().hits == before + 1


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="epsilon"):
        table.exact_laplace_epsilon(0.0, 10, 1e-6)
    with pytest.raises(ValueError, match="delta"):
        table.exact_laplace_epsilon(0.1, 10, 1.5)
    with pytest.raises(ValueError, match="k"):
        table.exact_laplace_epsilon(0.1, 0, 1e-6)
