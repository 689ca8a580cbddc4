"""Linkage and differencing attacks on a synthetic "de-identified" hospital table.

Everything here is synthetic and seeded: a county of n people (the public voter roll:
name, ZIP, birth date, sex) and a hospital table released with names removed (ZIP,
birth date, sex, diagnosis). The attacker joins the two on the quasi-identifier
(ZIP, birth date, sex), possibly coarsened by the hospital before release.

- voter_roll, hospital_table: the seeded synthetic data.
- coarsen_zip, coarsen_birth, quasi_identifier: what the hospital releases, as join keys.
- linkage_attack: the join; how many voters share each record's key, and who a unique
  match names.
- cell_probabilities, expected_unique_share: the share of records a join singles out,
  in closed form for the generator's model; zip_group_shares: how the county splits
  over the released ZIP groups.
- differencing_counts: two innocent-looking counts whose difference is one person's bit.

Sources: Sweeney 2000, "Simple demographics often identify people uniquely" (the ≈87%
figure for 5-digit ZIP, birth date and sex in the 1990 US census); Sweeney 2002,
"k-anonymity: a model for protecting privacy" (the Weld re-identification).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dp import _checks as check

# The synthetic county: 12 ZIP codes in two 3-digit areas (021.. and 024..), unequal sizes.
ZIP_CODES = np.array([2138, 2139, 2140, 2141, 2142, 2143, 2144, 2445, 2446, 2458, 2459, 2460])
ZIP_WEIGHTS = np.array([12, 14, 7, 6, 3, 10, 9, 9, 8, 7, 8, 7], dtype=float) / 100
BIRTH_FIRST = np.datetime64("1940-01-01")  # voters are 18 to 83 on 2024-01-01
BIRTH_LAST = np.datetime64("2005-12-31")
SEXES = ("F", "M")
DIAGNOSES = ("hypertension", "asthma", "diabetes", "depression", "fracture", "migraine",
             "COPD", "cancer", "HIV")
DIAGNOSIS_WEIGHTS = np.array([25, 15, 14, 13, 10, 10, 6, 5, 2], dtype=float) / 100
FIRST_NAMES = ("Ada", "Ben", "Chloe", "Dev", "Elif", "Femi", "Grace", "Hugo", "Ines", "Jonas",
               "Kira", "Liam", "Mei", "Nils", "Olga", "Pavel", "Quinn", "Rosa", "Sami", "Tara",
               "Umar", "Vera", "Wen", "Xavi", "Yara", "Zeno")
LAST_NAMES = ("Abbott", "Brandt", "Castillo", "Dube", "Eriksen", "Fontaine", "Garcia", "Haddad",
              "Ito", "Jensen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Patel",
              "Quispe", "Rossi", "Schmidt", "Tanaka", "Umarov", "Varga", "Walsh", "Xu", "Yilmaz",
              "Zhou")

ZIP_DIGITS = (5, 4, 3, 0)  # 3 digits is what HIPAA's Safe Harbor rule keeps
RESOLUTIONS = {"day": "D", "month": "M", "year": "Y"}  # full date, month & year, year


@dataclass(frozen=True)
class People:
    """One row per person: the columns the voter roll and the hospital table share.

    zip_index indexes ZIP_CODES, day counts days since BIRTH_FIRST, sex is 0 (F) or 1 (M).
    `person` is each row's index in the voter roll (the hidden truth a join is scored
    against); `first`/`last` index the name lists (voter roll only) and `diagnosis`
    indexes DIAGNOSES (hospital rows only). Small integer columns keep a join fast.
    """

    zip_index: np.ndarray
    day: np.ndarray
    sex: np.ndarray
    person: np.ndarray
    first: np.ndarray | None = None
    last: np.ndarray | None = None
    diagnosis: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.zip_index)

    @property
    def zip(self) -> np.ndarray:
        """5-digit ZIP codes as ints (02138 → 2138)."""
        return ZIP_CODES[self.zip_index]

    @property
    def birth(self) -> np.ndarray:
        """Birth dates as numpy datetime64[D]."""
        return BIRTH_FIRST + self.day.astype("timedelta64[D]")

    def names(self, rows) -> list[str]:
        """Full names of the given rows (voter roll only)."""
        if self.first is None or self.last is None:
            raise ValueError("names are only on the voter roll")
        rows = np.asarray(rows, dtype=int)
        return [f"{FIRST_NAMES[f]} {LAST_NAMES[s]}"
                for f, s in zip(self.first[rows], self.last[rows], strict=True)]

    def rows(self, rows) -> People:
        """The given rows as a smaller table."""
        rows = np.asarray(rows, dtype=int)
        pick = {name: (None if value is None else value[rows])
                for name, value in self.__dict__.items()}
        return People(**pick)


def _birth_days() -> int:
    return int((BIRTH_LAST - BIRTH_FIRST).astype(int)) + 1


def voter_roll(n, rng) -> People:
    """A seeded synthetic county of n voters.

    Independently per person: ZIP ~ Categorical(ZIP_WEIGHTS), birth date uniform on
    [BIRTH_FIRST, BIRTH_LAST], sex uniform on {F, M}, first and last names uniform.
    Names repeat (26 × 26 combinations); the join never uses them.
    """
    n = check.count("n", n)
    rng = check.generator(rng)
    return People(
        zip_index=rng.choice(len(ZIP_CODES), size=n, p=ZIP_WEIGHTS).astype(np.int8),
        day=rng.integers(0, _birth_days(), size=n, dtype=np.int32),
        sex=rng.integers(0, 2, size=n, dtype=np.int8),
        person=np.arange(n, dtype=np.int32),
        first=rng.integers(0, len(FIRST_NAMES), size=n, dtype=np.int16),
        last=rng.integers(0, len(LAST_NAMES), size=n, dtype=np.int16),
    )


def hospital_table(roll: People, size, rng) -> People:
    """`size` distinct voters treated at the hospital, each with a diagnosis.

    Patients are a uniform sample without replacement from the roll (so every patient is
    on the roll); diagnoses are drawn independently from DIAGNOSIS_WEIGHTS. Names are
    removed: that is the "de-identification".
    """
    size = check.count("size", size)
    rng = check.generator(rng)
    if size > len(roll):
        raise ValueError(f"size must be ≤ the number of voters ({len(roll)}), got {size}")
    rows = np.sort(rng.choice(len(roll), size=size, replace=False))
    patients = roll.rows(rows)
    return People(zip_index=patients.zip_index, day=patients.day, sex=patients.sex,
                  person=patients.person,
                  diagnosis=rng.choice(len(DIAGNOSES), size=size, p=DIAGNOSIS_WEIGHTS))


def _zip_digits(digits) -> int:
    digits = check.count("zip_digits", digits, minimum=0)
    if digits > 5:
        raise ValueError(f"zip_digits must be in 0..5, got {digits}")
    return digits


def _resolution(resolution) -> str:
    if resolution not in RESOLUTIONS:
        raise ValueError(f"resolution must be one of {list(RESOLUTIONS)}, got {resolution!r}")
    return resolution


def coarsen_zip(zips, digits) -> np.ndarray:
    """Keep the first `digits` of a 5-digit ZIP: 02138 → 0213 (4 digits), 021 (3), 0 (none)."""
    return np.asarray(zips) // 10 ** (5 - _zip_digits(digits))


def format_zip(zips, digits) -> list[str]:
    """How a coarsened ZIP is printed: 02138 → '021**' with 3 digits kept."""
    digits = _zip_digits(digits)
    return [f"{z:05d}"[:digits] + "*" * (5 - digits) for z in np.asarray(zips)]


def coarsen_birth(dates, resolution) -> np.ndarray:
    """Birth dates truncated to 'day' (unchanged), 'month' or 'year' (numpy datetime64)."""
    return np.asarray(dates, dtype="datetime64[D]").astype(f"datetime64[{RESOLUTIONS[_resolution(resolution)]}]")


@lru_cache(maxsize=16)
def _cell_tables(zip_digits: int, resolution: str) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Lookup tables: ZIP index → ZIP group, day → birth period; and how many of each."""
    _, group = np.unique(coarsen_zip(ZIP_CODES, zip_digits), return_inverse=True)
    days = BIRTH_FIRST + np.arange(_birth_days()).astype("timedelta64[D]")
    _, period = np.unique(coarsen_birth(days, resolution), return_inverse=True)
    group.flags.writeable = period.flags.writeable = False
    return group, period, int(group.max()) + 1, int(period.max()) + 1


def quasi_identifier(people: People, zip_digits, resolution) -> tuple[np.ndarray, int]:
    """A cell number per row for (coarsened ZIP, coarsened birth date, sex), and the cell count.

    Two rows get the same number exactly when they agree on all three released columns.
    Cells are numbered densely, (ZIP group · periods + birth period) · 2 + sex, so a join
    counts voters per cell with one bincount instead of sorting the roll.
    """
    group, period, groups, periods = _cell_tables(_zip_digits(zip_digits), _resolution(resolution))
    cell = (group[people.zip_index].astype(np.int64) * periods + period[people.day]) * 2 + people.sex
    return cell, groups * periods * 2


@dataclass(frozen=True)
class Linkage:
    """The result of joining a released table to the voter roll.

    matches[i]: voters sharing record i's key (its anonymity set; ≥ 1 when record i's
    person is on the roll). named[i]: the voter a unique match names (an index into the
    roll), else −1.
    """

    matches: np.ndarray
    named: np.ndarray

    @property
    def unique_share(self) -> float:
        """Share of records the join singles out (exactly one voter with their key)."""
        return float(np.mean(self.matches == 1))


def linkage_attack(roll: People, records: People, zip_digits, resolution) -> Linkage:
    """Join records to the roll on (ZIP, birth date, sex), coarsened the same way.

    Voters per cell come from one bincount over the roll, O(n + cells); a cell with one
    voter names them: the sum of voter indices in that cell is that voter's index.
    """
    roll_cells, cells = quasi_identifier(roll, zip_digits, resolution)
    record_cells, _ = quasi_identifier(records, zip_digits, resolution)
    per_cell = np.bincount(roll_cells, minlength=cells)
    index_sum = np.bincount(roll_cells, weights=roll.person, minlength=cells)
    matches = per_cell[record_cells]
    named = np.where(matches == 1, index_sum[record_cells], -1).astype(np.int64)
    return Linkage(matches=matches, named=named)


def cell_probabilities(zip_digits, resolution) -> tuple[np.ndarray, np.ndarray]:
    """The distinct probabilities of the quasi-identifier cells, and how many cells have each.

    Under voter_roll's model a person falls in cell (ZIP group g, birth period t, sex s)
    with probability p = w_g · d_t / D · ½, where w_g sums ZIP_WEIGHTS over the group,
    d_t counts the days of period t inside the birth range and D is the range's length.
    Cells with the same p are merged, so 'day' (≈ 580,000 cells) needs only a few values.
    """
    group, period, _, _ = _cell_tables(_zip_digits(zip_digits), _resolution(resolution))
    zip_p = np.bincount(group, weights=ZIP_WEIGHTS)
    period_p = np.bincount(period) / _birth_days()
    # Merge equal period probabilities (all days alike; months of 28–31 days; 365/366-day years).
    period_values, period_counts = np.unique(period_p, return_counts=True)
    p = np.outer(zip_p, period_values).ravel() / 2
    cells = 2 * np.tile(period_counts, len(zip_p))  # × 2 sexes
    return p, cells


def zip_group_shares(zip_digits) -> np.ndarray:
    """The expected share of the county in each released ZIP group, in ZIP order.

    With 3 digits these are the two 3-digit areas (021·· and 024··): HIPAA's Safe Harbor
    rule keeps 3 digits only for an area of more than 20,000 people, so an area's
    population is n times its share. The shares sum to 1.
    """
    group, _, _, _ = _cell_tables(_zip_digits(zip_digits), "day")
    return np.bincount(group, weights=ZIP_WEIGHTS)


def expected_unique_share(n, zip_digits, resolution):
    """Expected share of hospital records that match exactly one of n voters.

    A patient is a uniformly random voter; their key is unique when none of the other
    n − 1 voters falls in the same cell:

        Pr[unique] = Σ_cells p_c · (1 − p_c)^(n − 1).

    (An occupancy, or "birthday problem", argument; Sweeney 2000 and Golle 2006 estimate
    the same quantity from census counts.) Vectorised over n.
    """
    n_arr = check.finite_array("n", n)
    if np.any(n_arr < 1) or np.any(n_arr != np.round(n_arr)):
        raise ValueError("n must contain integers ≥ 1")
    p, cells = cell_probabilities(zip_digits, resolution)
    # (1 − p)^(n−1) as exp((n−1)·log1p(−p)): accurate for tiny p and large n.
    share = (cells * p) @ np.exp(np.outer(np.log1p(-p), n_arr.ravel() - 1))
    share = np.clip(share.reshape(n_arr.shape), 0.0, 1.0)  # rounding can give 1 + 2e-16 at n = 1
    return share if share.ndim else float(share)


def differencing_counts(records: People, diagnosis, target) -> tuple[int, int]:
    """Two counts over the released table whose difference is one patient's diagnosis bit.

        q1 = #{patients with `diagnosis`}
        q2 = #{patients with `diagnosis`, except those with the target's exact
               (ZIP, birth date, sex)}

    When the target is the only patient with that key, q1 − q2 ∈ {0, 1} is 1 exactly when
    the target has the diagnosis: q2 is q1 on the table without the target (add/remove
    neighbours). `target` is a row of `records`; `diagnosis` an index into DIAGNOSES.
    """
    diagnosis = check.count("diagnosis", diagnosis, minimum=0)
    if diagnosis >= len(DIAGNOSES):
        raise ValueError(f"diagnosis must be in 0..{len(DIAGNOSES) - 1}, got {diagnosis}")
    target = check.count("target", target, minimum=0)
    if target >= len(records):
        raise ValueError(f"target must be a row of the table (0..{len(records) - 1}), got {target}")
    has = records.diagnosis == diagnosis
    cells, _ = quasi_identifier(records, 5, "day")
    others = cells != cells[target]
    return int(np.sum(has)), int(np.sum(has & others))


def alone_in_table(records: People) -> np.ndarray:
    """True for rows whose exact (ZIP, birth date, sex) no other row of the table shares:
    the patients a differencing attack can isolate with one extra condition."""
    cells, n_cells = quasi_identifier(records, 5, "day")
    return np.bincount(cells, minlength=n_cells)[cells] == 1


def noisy_difference_density(z, epsilon):
    """Density of L₁ − L₂ for independent L₁, L₂ ~ Lap(b), b = 1/ε (counts have Δ = 1):

        f(z) = (1 + |z|/b) · e^(−|z|/b) / (4b).

    (Convolve the two Laplace densities; it integrates to 1.) The differencing attacker
    sees q̃₁ − q̃₂ = bit + L₁ − L₂, so the two hypotheses give f(z) and f(z − 1).
    """
    epsilon = check.positive("epsilon", epsilon)
    z = check.finite_array("z", z)
    b = 1 / epsilon
    u = np.abs(z) / b
    density = (1 + u) * np.exp(-u) / (4 * b)
    return density if density.ndim else float(density)


def differencing_accuracy(epsilon) -> float:
    """How often "bit = 1 iff q̃₁ − q̃₂ > ½" is right, for a bit that is 0 or 1 with
    probability ½ each, when each count gets Lap(1/ε) noise.

    With Z = L₁ − L₂, Pr[Z > z] = ½(1 + z/(2b))·e^(−z/b) for z ≥ 0, and by symmetry the
    rule errs with probability Pr[Z > ½] either way:

        accuracy = 1 − ½(1 + ε/4)·e^(−ε/2).

    It tends to 1 as ε → ∞ (exact counts) and to ½ (a coin flip) as ε → 0.
    """
    epsilon = check.positive("epsilon", epsilon)
    return float(1 - 0.5 * (1 + epsilon / 4) * np.exp(-epsilon / 2))
