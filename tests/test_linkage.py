"""dp.linkage: the synthetic county, the join, uniqueness in closed form, and differencing."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dp import laplace_mechanism
from dp.linkage import (
    BIRTH_FIRST,
    BIRTH_LAST,
    DIAGNOSES,
    RESOLUTIONS,
    ZIP_CODES,
    ZIP_DIGITS,
    alone_in_table,
    cell_probabilities,
    coarsen_birth,
    coarsen_zip,
    differencing_accuracy,
    differencing_counts,
    expected_unique_share,
    format_zip,
    hospital_table,
    linkage_attack,
    noisy_difference_density,
    quasi_identifier,
    voter_roll,
)

SETTINGS = settings(derandomize=True, max_examples=40, deadline=None)


def _county(n=3_000, size=500, seed=0):
    rng = np.random.default_rng(seed)
    roll = voter_roll(n, rng)
    return roll, hospital_table(roll, size, rng)


def _released(people, zip_digits, resolution):
    """The released columns as Python tuples: the reference the fast join is checked against."""
    zips = coarsen_zip(people.zip, zip_digits)
    births = coarsen_birth(people.birth, resolution)
    return list(zip(zips.tolist(), births.tolist(), people.sex.tolist(), strict=True))


# ---------------------------------------------------------------- the synthetic data


def test_same_seed_same_county_and_columns_in_range():
    roll_a, records_a = _county(seed=7)
    roll_b, records_b = _county(seed=7)
    for name in ("zip_index", "day", "sex", "first", "last"):
        np.testing.assert_array_equal(getattr(roll_a, name), getattr(roll_b, name))
    np.testing.assert_array_equal(records_a.diagnosis, records_b.diagnosis)
    assert set(np.unique(roll_a.zip)) <= set(ZIP_CODES)
    assert roll_a.birth.min() >= BIRTH_FIRST and roll_a.birth.max() <= BIRTH_LAST
    assert set(np.unique(roll_a.sex)) <= {0, 1}
    assert set(np.unique(records_a.diagnosis)) <= set(range(len(DIAGNOSES)))


def test_hospital_patients_are_distinct_voters_with_their_columns():
    roll, records = _county()
    assert len(np.unique(records.person)) == len(records) == 500
    np.testing.assert_array_equal(records.zip, roll.zip[records.person])
    np.testing.assert_array_equal(records.birth, roll.birth[records.person])
    np.testing.assert_array_equal(records.sex, roll.sex[records.person])
    assert roll.names([0])[0].count(" ") == 1
    with pytest.raises(ValueError, match="names"):
        records.names([0])


@pytest.mark.parametrize("bad", [0, -3, 2.5, "ten"])
def test_bad_sizes_are_rejected(bad):
    with pytest.raises(ValueError, match="n"):
        voter_roll(bad, np.random.default_rng(0))


def test_hospital_cannot_be_larger_than_the_county():
    roll = voter_roll(10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="size must be ≤"):
        hospital_table(roll, 11, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        voter_roll(10, 0)


# ---------------------------------------------------------------- coarsening and keys


def test_coarsening_examples():
    assert format_zip([2138], 5) == ["02138"]
    assert format_zip([2138], 4) == ["0213*"]
    assert format_zip([2138], 3) == ["021**"]
    assert format_zip([2138], 0) == ["*****"]
    assert coarsen_zip(np.array([2138, 2445]), 3).tolist() == [21, 24]
    date = np.array(["1957-03-14"], dtype="datetime64[D]")
    assert str(coarsen_birth(date, "day")[0]) == "1957-03-14"
    assert str(coarsen_birth(date, "month")[0]) == "1957-03"
    assert str(coarsen_birth(date, "year")[0]) == "1957"
    with pytest.raises(ValueError, match="zip_digits"):
        coarsen_zip([2138], 6)
    with pytest.raises(ValueError, match="resolution"):
        coarsen_birth(date, "week")


@pytest.mark.parametrize("zip_digits", ZIP_DIGITS)
@pytest.mark.parametrize("resolution", list(RESOLUTIONS))
def test_keys_agree_exactly_when_the_released_columns_agree(zip_digits, resolution):
    roll, _ = _county(n=4_000)
    cells, n_cells = quasi_identifier(roll, zip_digits, resolution)
    assert cells.min() >= 0 and cells.max() < n_cells
    released = _released(roll, zip_digits, resolution)
    # A bijection between distinct keys and distinct released tuples.
    assert len(set(zip(cells.tolist(), released, strict=True))) == len(set(released)) == len(np.unique(cells))


# ---------------------------------------------------------------- the join


@pytest.mark.parametrize("zip_digits", ZIP_DIGITS)
@pytest.mark.parametrize("resolution", list(RESOLUTIONS))
def test_join_matches_a_brute_force_count(zip_digits, resolution):
    roll, records = _county(n=3_000, size=400, seed=zip_digits)
    result = linkage_attack(roll, records, zip_digits, resolution)
    voters = Counter(_released(roll, zip_digits, resolution))
    expected = [voters[key] for key in _released(records, zip_digits, resolution)]
    np.testing.assert_array_equal(result.matches, expected)
    unique = result.matches == 1
    # Every patient is on the roll, so a unique match names the right person.
    np.testing.assert_array_equal(result.named[unique], records.person[unique])
    assert np.all(result.named[~unique] == -1)
    assert result.unique_share == pytest.approx(unique.mean())


def test_coarsening_never_shrinks_an_anonymity_set():
    roll, records = _county(n=20_000, size=1_000)
    fine = linkage_attack(roll, records, 5, "day").matches
    for zip_digits, resolution in [(5, "month"), (4, "day"), (3, "year"), (0, "year")]:
        assert np.all(linkage_attack(roll, records, zip_digits, resolution).matches >= fine)


# ---------------------------------------------------------------- uniqueness in closed form


@pytest.mark.parametrize("zip_digits", ZIP_DIGITS)
@pytest.mark.parametrize("resolution", list(RESOLUTIONS))
def test_cell_probabilities_sum_to_one(zip_digits, resolution):
    p, cells = cell_probabilities(zip_digits, resolution)
    assert np.all(p > 0) and np.all(cells >= 1)
    assert float(np.sum(p * cells)) == pytest.approx(1.0, abs=1e-12)


def test_cell_counts():
    days = int((BIRTH_LAST - BIRTH_FIRST).astype(int)) + 1
    assert cell_probabilities(5, "day")[1].sum() == 12 * days * 2
    assert cell_probabilities(5, "month")[1].sum() == 12 * 66 * 12 * 2  # 1940–2005: 66 years
    assert cell_probabilities(3, "year")[1].sum() == 2 * 66 * 2  # two 3-digit areas
    assert cell_probabilities(0, "year")[1].sum() == 66 * 2


def test_expected_share_by_hand_for_year_only():
    # No ZIP, birth year, sex: 66 years × 2 sexes, p = days in year / total days / 2.
    years = np.arange(1940, 2006)
    leap = (years % 4 == 0) & ((years % 100 != 0) | (years % 400 == 0))
    p = np.where(leap, 366, 365) / np.sum(np.where(leap, 366, 365)) / 2
    for n in [1, 2, 50, 500]:
        by_hand = 2 * np.sum(p * (1 - p) ** (n - 1))
        assert expected_unique_share(n, 0, "year") == pytest.approx(by_hand, rel=1e-12)
    assert expected_unique_share(1, 5, "day") == 1.0


def test_the_default_county_is_close_to_sweeney():
    # The page's default county (100,000 people, full columns) names about 83%; the
    # curve crosses Sweeney's 87% near 70,000 people, as the lesson says.
    assert expected_unique_share(100_000, 5, "day") == pytest.approx(0.83, abs=0.01)
    assert expected_unique_share(60_000, 5, "day") > 0.87 > expected_unique_share(80_000, 5, "day")


@SETTINGS
@given(st.integers(1, 2_000_000), st.integers(1, 1_000))
def test_share_falls_with_n_and_with_coarsening(n, extra):
    share = {(d, r): expected_unique_share(n, d, r) for d in ZIP_DIGITS for r in RESOLUTIONS}
    for (d, r), value in share.items():
        assert 0.0 <= value <= 1.0
        assert expected_unique_share(n + extra, d, r) <= value + 1e-15
    tie = 1e-12  # at n = 1 every share is 1 up to rounding
    for d in ZIP_DIGITS:
        assert share[d, "day"] >= share[d, "month"] - tie >= share[d, "year"] - 2 * tie
    for r in RESOLUTIONS:
        for finer, coarser in zip(ZIP_DIGITS, ZIP_DIGITS[1:], strict=False):
            assert share[finer, r] >= share[coarser, r] - tie


def test_vectorised_over_n_and_validated():
    n = np.array([[1, 10], [100, 1000]])
    shares = expected_unique_share(n, 4, "month")
    assert shares.shape == (2, 2)
    assert shares[1, 1] == pytest.approx(expected_unique_share(1000, 4, "month"))
    for bad in [0, 2.5, float("nan")]:
        with pytest.raises(ValueError, match="n"):
            expected_unique_share(bad, 5, "day")


@pytest.mark.parametrize(("n", "zip_digits", "resolution"),
                         [(20_000, 5, "day"), (20_000, 4, "day"), (5_000, 5, "month"),
                          (2_000, 3, "month"), (2_000, 5, "year")])
def test_simulated_share_matches_the_formula(n, zip_digits, resolution):
    # 2,000 patients: the share is a mean of 2,000 indicators, sd ≤ √(¼/2000) ≈ 0.011.
    # Patients in the same cell are correlated, but such pairs are rare; averaging four
    # seeded counties halves the sd to ≤ 0.0056. Allow 0.03 (over 5 sd).
    shares = []
    for seed in range(4):
        roll, records = _county(n=n, size=2_000, seed=seed)
        shares.append(linkage_attack(roll, records, zip_digits, resolution).unique_share)
    assert np.mean(shares) == pytest.approx(expected_unique_share(n, zip_digits, resolution), abs=0.03)


# ---------------------------------------------------------------- differencing


def test_alone_in_table_matches_brute_force():
    _, records = _county(n=2_000, size=800)
    released = _released(records, 5, "day")
    counts = Counter(released)
    np.testing.assert_array_equal(alone_in_table(records), [counts[key] == 1 for key in released])


def test_differencing_reveals_each_isolated_patients_diagnosis():
    _, records = _county(n=5_000, size=1_000)
    targets = np.flatnonzero(alone_in_table(records))[:25]
    assert len(targets) == 25
    for target in targets:
        for diagnosis in range(len(DIAGNOSES)):
            q1, q2 = differencing_counts(records, diagnosis, int(target))
            assert q1 == int(np.sum(records.diagnosis == diagnosis))
            assert q1 - q2 == int(records.diagnosis[target] == diagnosis)


@pytest.mark.parametrize(("diagnosis", "target"), [(-1, 0), (len(DIAGNOSES), 0), (0, -1), (0, 10**6), (0.5, 0)])
def test_differencing_validates(diagnosis, target):
    _, records = _county(n=100, size=20)
    with pytest.raises(ValueError):
        differencing_counts(records, diagnosis, target)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
def test_difference_density_is_the_convolution_of_two_laplaces(epsilon):
    b = 1 / epsilon
    grid = np.linspace(-60 * b, 60 * b, 240_001)
    step = grid[1] - grid[0]
    density = noisy_difference_density(grid, epsilon)
    assert np.sum(density) * step == pytest.approx(1.0, abs=1e-6)
    laplace = np.exp(-np.abs(grid) / b) / (2 * b)
    for z in [0.0, 0.7 * b, 3 * b]:
        convolution = np.sum(laplace * np.exp(-np.abs(z - grid) / b) / (2 * b)) * step
        assert noisy_difference_density(z, epsilon) == pytest.approx(convolution, rel=1e-4)


@pytest.mark.parametrize("epsilon", [0.2, 1.0, 3.0])
def test_accuracy_formula_matches_simulation(epsilon):
    # 200,000 guesses per hypothesis: the empirical accuracy has sd ≤ √(¼/400,000) ≈ 0.0008;
    # allow 0.005 (over 6 sd).
    rng = np.random.default_rng(11)
    m = 200_000
    q2 = np.full(m, 40.0)
    has = laplace_mechanism(q2 + 1, 1.0, epsilon, rng) - laplace_mechanism(q2, 1.0, epsilon, rng)
    has_not = laplace_mechanism(q2, 1.0, epsilon, rng) - laplace_mechanism(q2, 1.0, epsilon, rng)
    empirical = (np.mean(has > 0.5) + np.mean(has_not <= 0.5)) / 2
    assert differencing_accuracy(epsilon) == pytest.approx(empirical, abs=0.005)


@SETTINGS
@given(st.floats(1e-4, 50))
def test_accuracy_stays_inside_what_epsilon_dp_allows(epsilon):
    # q̃₁ alone is ε-DP for the target (q₂ does not see them), so no test beats e^ε/(1+e^ε).
    accuracy = differencing_accuracy(epsilon)
    assert 0.5 <= accuracy <= math.exp(epsilon) / (1 + math.exp(epsilon)) + 1e-12
    assert differencing_accuracy(epsilon * 1.5) >= accuracy


def test_accuracy_limits():
    assert differencing_accuracy(1e-9) == pytest.approx(0.5, abs=1e-6)
    assert differencing_accuracy(60) == pytest.approx(1.0, abs=1e-9)
    with pytest.raises(ValueError, match="epsilon"):
        differencing_accuracy(0)
