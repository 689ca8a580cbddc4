"""Why anonymisation fails: linkage, differencing and reconstruction attacks."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import streamlit as st

from dp import laplace_mechanism, reconstruction_attack
from dp.linkage import (
    DIAGNOSES,
    RESOLUTIONS,
    ZIP_DIGITS,
    alone_in_table,
    differencing_accuracy,
    differencing_counts,
    expected_unique_share,
    format_zip,
    hospital_table,
    linkage_attack,
    voter_roll,
    zip_group_shares,
)
from dp.odds import pure_release
from ui import heavy, lessons, opendp_snippets
from ui.charts import anonymisation as charts
from ui.odds import odds_panel
from ui.opendp_show import opendp_expander
from ui.params import (
    EPSILONS,
    bound_toggle,
    choice_select,
    choice_slider,
    epsilon_slider,
    number_label,
)
from ui.seeds import demo_seed, resample_button, rng_for
from ui.share import copy_link
from ui.show import chart

SLUG = "anonymisation"
TITLE = "Why anonymisation fails"

HOSPITAL_SIZE = 2_000
POPULATIONS = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000]
DEFAULT_POPULATION = 100_000
CURVE_POPULATIONS = np.unique(np.round(np.logspace(3, np.log10(POPULATIONS[-1]), 60)))
ZIP_LABELS = {5: "all 5", 4: "first 4", 3: "first 3", 0: "none"}
ZIP_NAMES = {5: "full ZIP", 4: "4-digit ZIP", 3: "3-digit ZIP", 0: "no ZIP"}
ZIP_WITH = {5: "the full ZIP", 4: "4 ZIP digits", 3: "3 ZIP digits", 0: "no ZIP"}
BIRTH_LABELS = {"full date": "day", "month & year": "month", "year": "year"}
BIRTH_RELEASED = {"full date": "the full birth date", "month & year": "the birth month and year",
                  "year": "the birth year"}
SAFE_HARBOR_AREA = 20_000  # Safe Harbor keeps 3 ZIP digits only for areas of more people
VILLAGE, TOWN = 1_000, 100_000
DIFFERENCING_POPULATION = 20_000

RECON_N = [25, 50, 100, 150, 200]
RECON_K = [25, 50, 100, 200, 400]
RECON_E = [0, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30]
SWEEP_RATIOS = (0.0, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5)  # E / √n: 9 LPs, ≤ 1 s at n = 200, k = 400
RECOVERS_DESPITE_ROOT_N = 90  # % at E = √n above which the notice says the attack shrugs √n off


# ---------------------------------------------------------------- cached computations


def _read_only(table):
    for column in vars(table).values():
        if isinstance(column, np.ndarray):
            column.flags.writeable = False
    return table


# One shared object per setting for the whole process (st.cache_resource: no copy per
# rerun, which for a county of 500,000 was a 7 MB unpickling on every move), read-only so
# that no session can change another's. With the default seed the slider's nine counties
# all stay (about 12 MB together), and a few resampled ones beside them: a class moving
# the slider at once no longer evicts them (max_entries was 4).
@heavy.cache_resource(max_entries=16)
def _county(n: int, seed: tuple):
    """The synthetic voter roll of n people and the 2,000-patient hospital table.

    About 14 bytes a person: at most 16 counties of up to 500,000 people, under 112 MB."""
    rng = np.random.default_rng(list(seed))
    roll = voter_roll(n, rng)
    return _read_only(roll), _read_only(hospital_table(roll, min(HOSPITAL_SIZE, n), rng))


@heavy.cache_resource(max_entries=128)
def _linkage(n: int, zip_digits: int, resolution: str, seed: tuple):
    roll, records = _county(n, seed)
    return _read_only(linkage_attack(roll, records, zip_digits, resolution))


@st.cache_data(max_entries=8, show_spinner=False)
def _curves(zip_digits: int) -> dict[str, np.ndarray]:
    return {label: expected_unique_share(CURVE_POPULATIONS, zip_digits, resolution)
            for label, resolution in BIRTH_LABELS.items()}


@heavy.cache_data(max_entries=32)
def _reconstruct(n: int, k: int, noise_bounds: tuple[float, ...], seed: list):
    """Secret bits and the LP attack's guesses, one row per noise bound E.

    Every E reuses the same queries and the same uniform draws (the noise is E times
    them), so the sweep shows one attack under growing noise.
    """
    bits_seed, attack_seed = np.random.SeedSequence(seed).spawn(2)
    bits = np.random.default_rng(bits_seed).integers(0, 2, size=n)
    guesses = np.array([reconstruction_attack(bits, k, e, np.random.default_rng(attack_seed))
                        for e in noise_bounds])
    return bits, guesses


def _sentence(section: str, **values) -> str:
    """A lesson section chosen in code, on one line so it can sit inside a list item."""
    return " ".join(lessons.section_text(SLUG, section, **values).split())


# ---------------------------------------------------------------- page

st.title(TITLE)
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson

lessons.step("1. Linkage: join on ZIP, birth date and sex")
lessons.render(SLUG, "weld")
lessons.quiz(SLUG, "county")
lessons.step()
lessons.render(SLUG, "linkage-setup")


@lessons.demo
def linkage_demo() -> None:
    copy_link(SLUG, "linkage_demo")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        n = choice_slider("People in the county, n", POPULATIONS, DEFAULT_POPULATION, "anon_n",
                          format_func=lambda v: f"{v:,}",
                          help="Everyone is on the public voter roll; 2,000 of them are patients "
                               "(all of them when n is 1,000).")
        zip_digits = choice_slider("ZIP digits released", ZIP_DIGITS, 5, "anon_zip",
                                   format_func=ZIP_LABELS.get,
                                   help="HIPAA's Safe Harbor rule keeps at most the first 3, and "
                                        "only for areas of more than 20,000 people.")
        birth = choice_slider("Birth date released as", list(BIRTH_LABELS), "full date",
                              "anon_birth", format_func=str)
        resample_button("anon_linkage", "🎲 New county")
    resolution = BIRTH_LABELS[birth]
    seed = tuple(demo_seed("anon_linkage"))
    roll, records = _county(n, seed)
    result = _linkage(n, zip_digits, resolution, seed)
    curves = _curves(zip_digits)
    expected = expected_unique_share(n, zip_digits, resolution)
    named = int(np.sum(result.matches == 1))
    with controls:
        st.metric("Patients named by the join", f"{named:,} of {len(records):,}",
                  f"{100 * result.unique_share:.1f}%", delta_color="off", delta_arrow="off")
    with plot:
        chart(charts.uniqueness_chart(CURVE_POPULATIONS, curves, birth, n,
                                      result.unique_share, ZIP_NAMES[zip_digits]),
              width="stretch", key="anon_uniqueness_chart")
    released = (f"{ZIP_WITH[zip_digits]}, {BIRTH_RELEASED[birth]} and sex" if zip_digits
                else f"only {BIRTH_RELEASED[birth]} and sex (no ZIP)")
    smallest_area = n * float(zip_group_shares(3).min())
    safe_note = ("" if smallest_area > SAFE_HARBOR_AREA else " " + _sentence(
        "safe-harbor-too-small", small_area=f"{smallest_area:,.0f}"))
    lessons.render(SLUG, "linkage-notice", n=f"{n:,}", records=f"{len(records):,}", named=f"{named:,}",
                   share=100 * result.unique_share, expected=100 * expected, released=released,
                   per_zip=f"{n / 12:,.0f}", alone=100 * expected_unique_share(n, 5, "day"),
                   zip_with=ZIP_WITH[zip_digits],
                   year=100 * expected_unique_share(n, zip_digits, "year"),
                   safe=100 * expected_unique_share(n, 3, "year"), safe_note=safe_note,
                   village=100 * expected_unique_share(VILLAGE, 3, "month"),
                   town=100 * expected_unique_share(TOWN, 3, "month"))

    lessons.step()
    sets, join = st.columns([2, 3], gap="large")
    with sets:
        chart(charts.anonymity_chart(result.matches), width="stretch",
              key="anon_sets_chart")
    join_rows, hospital_rows, roll_rows = _tables(n, zip_digits, resolution, seed)
    with join:
        st.subheader("The join, row by row")
        st.dataframe(join_rows, hide_index=True, width="stretch")
        lessons.render(SLUG, "join-caption")
    with st.expander("See the two tables the attacker joins"):
        left, right = st.columns(2)
        with left:
            st.caption(f"Hospital release: first 6 of {len(records):,} rows (names removed)")
            st.dataframe(hospital_rows, hide_index=True, width="stretch")
        with right:
            st.caption(f"Public voter roll: first 6 of {n:,} rows")
            st.dataframe(roll_rows, hide_index=True, width="stretch")


# As Arrow, built once per setting and shared: given dicts, st.dataframe converted these
# three small tables through pandas on every send (19% of a warm move in bench/profile.py).
@st.cache_resource(max_entries=128, show_spinner=False)
def _tables(n: int, zip_digits: int, resolution: str, seed: tuple) -> tuple[pa.Table, ...]:
    """The join's example rows, and the first six rows of the hospital release and the roll."""
    roll, records = _county(n, seed)
    result = _linkage(n, zip_digits, resolution, seed)
    shown = _example_rows(result.matches)
    names = [roll.names([person])[0] if person >= 0 else None for person in result.named[shown]]
    join = charts.join_table(_released(records, shown, zip_digits, resolution),
                             result.matches[shown], names)
    voters = {"name": roll.names(np.arange(6)), "ZIP": format_zip(roll.zip[:6], 5),
              "birth date": [str(d) for d in roll.birth[:6]], "sex": ["FM"[s] for s in roll.sex[:6]]}
    return (pa.table(join), pa.table(_released(records, np.arange(6), zip_digits, resolution)),
            pa.table(voters))


def _example_rows(matches: np.ndarray, total: int = 6, ambiguous: int = 2) -> np.ndarray:
    """A few uniquely named records and a few ambiguous ones, in table order."""
    unique = np.flatnonzero(matches == 1)
    several = np.flatnonzero(matches > 1)
    take_several = min(len(several), max(ambiguous, total - len(unique)))
    take_unique = min(len(unique), total - take_several)
    return np.sort(np.concatenate([unique[:take_unique], several[:take_several]]))


def _released(records, rows, zip_digits: int, resolution: str) -> dict[str, list]:
    """Rows of the hospital table as released: coarsened ZIP and birth date, sex, diagnosis."""
    births = records.birth[rows].astype(f"datetime64[{RESOLUTIONS[resolution]}]")
    return {"ZIP": format_zip(records.zip[rows], zip_digits),
            "birth": [str(b) for b in births],
            "sex": ["FM"[s] for s in records.sex[rows]],
            "diagnosis": [DIAGNOSES[d] for d in records.diagnosis[rows]]}


linkage_demo()

lessons.step("2. Differencing: two harmless counts")
lessons.render(SLUG, "differencing-intro")


@lessons.demo
def differencing_demo() -> None:
    copy_link(SLUG, "differencing_demo")
    roll, records = _county(DIFFERENCING_POPULATION, tuple(demo_seed("anon_diff_county")))
    alone = np.flatnonzero(alone_in_table(records))
    # Six patients the two counts can isolate; the first one has the default diagnosis.
    first = alone[records.diagnosis[alone] == DIAGNOSES.index("diabetes")][:1]
    candidates = np.concatenate([first, alone[~np.isin(alone, first)]])[:6]
    names = roll.names(records.person[candidates])
    left, right = st.columns([1, 2], gap="large")
    with left:
        pick = choice_select("Target (you know they were a patient)", range(len(candidates)), 0,
                             "anon_diff_target", format_func=lambda i: names[i])
        diagnosis = choice_select("Does the target have …", range(len(DIAGNOSES)),
                                  DIAGNOSES.index("diabetes"), "anon_diff_diagnosis",
                                  format_func=lambda d: DIAGNOSES[d])
    target = int(candidates[pick])
    q1, q2 = differencing_counts(records, diagnosis, target)
    person = records.rows([target])
    facts = {"target": names[pick], "diag": DIAGNOSES[diagnosis],
             "zip": format_zip(person.zip, 5)[0], "date": str(person.birth[0]),
             "sex": "women" if person.sex[0] == 0 else "men", "patients": f"{len(records):,}"}
    with right:
        lessons.render(SLUG, "differencing-queries", **facts)
        a, b, c = st.columns(3)
        a.metric("q₁", q1)
        b.metric("q₂", q2)
        c.metric("q₁ − q₂", q1 - q2)
    verdict = "has" if q1 - q2 == 1 else "does not have"
    lessons.render(SLUG, "differencing-result", diff=q1 - q2, verdict=verdict, **facts)
    lessons.step()  # in presenter mode the prediction is a screen of its own, the noise the next
    lessons.quiz(SLUG, "size-limit")
    lessons.step()
    noisy = bound_toggle("Answer each count with Laplace noise (a preview of DP)", "anon_diff_noise")
    if not noisy:  # on the projector this step would be a switch alone: say what it will show
        lessons.render(SLUG, "differencing-noise-off", **facts)
        return
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        epsilon = epsilon_slider("anon_diff_eps", default=1.0, options=EPSILONS,
                                 label="ε per count (noise scale b = 1/ε)")
        resample_button("anon_diff")
        noisy_q1, noisy_q2 = laplace_mechanism(np.array([q1, q2]), 1.0, epsilon, rng_for("anon_diff"))
        st.metric("q̃₁ − q̃₂", f"{noisy_q1 - noisy_q2:.2f}",
                  help=f"q̃₁ = {noisy_q1:.2f}, q̃₂ = {noisy_q2:.2f}")
    with plot:
        chart(charts.differencing_chart(epsilon, noisy_q1 - noisy_q2), width="stretch",
              key="anon_diff_chart")
    lessons.render(SLUG, "differencing-noise", eps=epsilon, b=1 / epsilon, total=2 * epsilon,
                   accuracy=100 * differencing_accuracy(epsilon))
    lessons.step()
    odds_panel(pure_release(2 * epsilon), key="anon", what="the two noisy counts together")
    # the target is in both counts: two counts at ε each are k = 2 counts at 2ε in total
    opendp_expander(opendp_snippets.k_counts(2 * epsilon, 2, "add/remove", len(records)))


differencing_demo()

lessons.step("3. Reconstruction: many noisy counts")
lessons.render(SLUG, "reconstruction-intro")
lessons.quiz(SLUG, "reconstruction")


@lessons.demo
def reconstruction_demo() -> None:
    copy_link(SLUG, "reconstruction_demo")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        n = choice_slider("n (people, one secret bit each)", RECON_N, 100, "anon_rec_n",
                          format_func=number_label)
        k = choice_slider("k (random subset-count queries)", RECON_K, 200, "anon_rec_k",
                          format_func=number_label)
        noise = choice_slider("E (each answer off by at most E)", RECON_E, 2, "anon_rec_e",
                              format_func=number_label)
        resample_button("anon_recon")
    seed = demo_seed("anon_recon")
    sqrt_n = float(np.sqrt(n))
    grid = tuple(float(r * sqrt_n) for r in SWEEP_RATIOS)
    bits, sweep = _reconstruct(n, k, grid, seed)
    _, now = _reconstruct(n, k, (float(noise),), seed)
    wrong_on_sweep = (sweep != bits).sum(axis=1)
    recovered = 1 - wrong_on_sweep / n
    recovered_now = float((now[0] == bits).mean())
    baseline = max(bits.mean(), 1 - bits.mean())
    with controls:
        st.metric("Secret bits recovered", f"{100 * recovered_now:.0f}%",
                  f"{int((now[0] != bits).sum())} wrong of {n}", delta_color="off",
                  delta_arrow="off")
    with plot:
        chart(charts.reconstruction_chart(np.array(grid), recovered, sqrt_n, noise,
                                          recovered_now, baseline),
              width="stretch", key="anon_recon_chart")
    numbers = dict(n=n, k=k, E=noise, ratio=noise / sqrt_n, sqrt_n=sqrt_n,
                   recovered=100 * recovered_now, wrong=int((now[0] != bits).sum()),
                   at_zero=100 * recovered[SWEEP_RATIOS.index(0.0)],
                   at_fifth=100 * recovered[SWEEP_RATIOS.index(0.2)],
                   at_sqrt=100 * recovered[SWEEP_RATIOS.index(1.0)],
                   at_far=100 * recovered[-1], baseline=100 * baseline, typical=n / 4,
                   wrong_exact=int(wrong_on_sweep[SWEEP_RATIOS.index(0.0)]),
                   wrong_sqrt=int(wrong_on_sweep[SWEEP_RATIOS.index(1.0)]), k_over_n=k / n)
    # Pick each live sentence from what this sweep actually did.
    exact = ("recon-exact-wrong" if numbers["wrong_exact"] else
             "recon-exact-all-fewer" if k < n else "recon-exact-all")
    scale = ("recon-scale-many-queries" if numbers["at_sqrt"] >= RECOVERS_DESPITE_ROOT_N
             else "recon-scale-patchy")
    lessons.render(SLUG, "reconstruction-notice", **numbers,
                   exact_sentence=_sentence(exact, **numbers), scale_sentence=_sentence(scale, **numbers))
    lessons.step()
    chart(charts.people_grid_chart(bits, now[0]), width="stretch",
          key="anon_people_chart")


lessons.step()
reconstruction_demo()

lessons.step("The fundamental law of information recovery")
lessons.render(SLUG, "law")
lessons.quiz(SLUG, "laplace-per-query")

lessons.step("Takeaways")
lessons.render(SLUG, "takeaways")
lessons.render(SLUG, "reading")
