"""The "Why anonymisation fails" page: its demos respond to their controls, and its charts."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dp.accounting import laplace_composition_epsilon
from dp.attacks import _lp_reconstruct, _random_subset_queries
from dp.linkage import expected_unique_share, zip_group_shares
from tests.conftest import app_test, assert_clean, lesson
from ui import lessons
from ui.charts import anonymisation as charts

LESSON = lesson("anonymisation")


def _metric(at, label: str):
    return next(m for m in at.metric if m.label == label)


def _named_share(at) -> float:
    """The % in the delta of the 'Patients named by the join' metric."""
    return float(_metric(at, "Patients named by the join").delta.rstrip("%"))


@pytest.fixture(scope="module")
def anon():
    at = app_test(LESSON)
    assert_clean(at)
    return at


def test_defaults_show_every_demo(anon):
    charts_shown = {chart.proto.id for chart in anon.get("plotly_chart")}
    assert len(charts_shown) == 4  # uniqueness, anonymity sets, reconstruction sweep, people grid
    text = " ".join(md.value for md in anon.markdown)
    assert "Weld" in text and "87%" in text and "add/remove" in text and "replace-one" in text
    assert "fundamental law of information recovery" in text
    assert "{{" not in text, "every live number in the lesson is filled in"
    # Default county of 100,000: the formula says about 83% are named; 2,000 patients.
    assert _metric(anon, "Patients named by the join").value.endswith("of 2,000")
    assert 78 < _named_share(anon) < 88
    # n = 100, k = 200, E = 2 (0.2·√n): nearly every bit comes back.
    assert float(_metric(anon, "Secret bits recovered").value.rstrip("%")) >= 90


def test_population_and_coarsening_move_the_named_share():
    at = app_test(LESSON, {"anon_n": "1,000"})  # the slider's own label is a valid link value
    assert_clean(at)
    assert not any("⚠️" in c.value for c in at.caption)
    small = _named_share(at)
    at.select_slider(key="anon_n").set_value(500_000).run()
    assert_clean(at)
    large = _named_share(at)
    assert small > 95 > 50 > large  # formula: 99.8% and 40%
    at.select_slider(key="anon_birth").set_value("year").run()
    at.select_slider(key="anon_zip").set_value(3).run()
    assert_clean(at)
    assert _named_share(at) < 1


def test_the_differencing_attack_always_reads_off_the_bit(anon):
    at = anon
    targets = at.selectbox(key="anon_diff_target").options
    assert len(targets) == 6
    for target in range(len(targets)):
        for diagnosis in (0, 2, 8):
            at.selectbox(key="anon_diff_target").set_value(target)
            at.selectbox(key="anon_diff_diagnosis").set_value(diagnosis).run()
            assert_clean(at)
            q1, q2 = int(_metric(at, "q₁").value), int(_metric(at, "q₂").value)
            assert q1 - q2 in (0, 1)
            verdict = "does not have" if q1 == q2 else "has"
            assert any(f"**{verdict}" in md.value for md in at.markdown)


def test_noise_preview_and_its_resample_button(anon):
    at = anon
    at.toggle(key="anon_diff_noise").set_value(True).run()
    assert_clean(at)
    assert len({c.proto.id for c in at.get("plotly_chart")}) == 5 + 1  # + the odds panel's icons
    first = _metric(at, "q̃₁ − q̃₂").value
    at.button(key="anon_diff_resample").click().run()
    assert_clean(at)
    assert _metric(at, "q̃₁ − q̃₂").value != first
    for extreme in (0.01, 10.0):
        at.select_slider(key="anon_diff_eps").set_value(extreme).run()
        assert_clean(at)
    at.toggle(key="anon_diff_noise").set_value(False).run()
    assert_clean(at)


def test_reconstruction_extremes_and_resample(anon):
    at = anon
    at.select_slider(key="anon_rec_e").set_value(0).run()
    assert_clean(at)
    assert _metric(at, "Secret bits recovered").value == "100%"  # k = 2n exact answers
    at.select_slider(key="anon_rec_e").set_value(30).run()
    assert_clean(at)
    assert float(_metric(at, "Secret bits recovered").value.rstrip("%")) < 85  # E = 3·√n
    at.button(key="anon_recon_resample").click().run()
    assert_clean(at)
    at.button(key="anon_linkage_resample").click().run()
    assert_clean(at)


def test_quiz_reveals_after_a_prediction(anon):
    at = anon
    at.radio(key="anonymisation_quiz_county").set_value(3).run()
    at.toggle(key="anonymisation_quiz_county_reveal").set_value(True).run()
    assert_clean(at)
    assert any(md.value.startswith("✅ Right.") for md in at.markdown)


# ---------------------------------------------------------------- chart builders


def test_uniqueness_chart_marks_this_county():
    populations = np.array([1_000, 10_000, 100_000])
    curves = {"full date": np.array([1.0, 0.9, 0.8]), "year": np.array([0.5, 0.1, 0.0])}
    fig = charts.uniqueness_chart(populations, curves, "year", 10_000, 0.12, "full ZIP")
    star = fig.data[-1]
    assert list(star.x) == [10_000] and list(star.y) == pytest.approx([12.0])
    assert fig.layout.xaxis.type == "log"
    assert any(trace.name.startswith("87%") for trace in fig.data)
    assert "(chosen)" in fig.data[1].name and "(chosen)" not in fig.data[0].name


def test_anonymity_chart_bins_every_record_once():
    matches = np.array([1, 1, 2, 3, 5, 6, 20, 21, 100, 101, 5000])
    bars = charts.anonymity_chart(matches).data[0]
    assert sum(bars.y) == pytest.approx(100)
    assert list(np.array(bars.y) * len(matches) / 100) == pytest.approx([2, 1, 2, 2, 2, 2])


def test_reconstruction_chart_marks_root_n_and_your_e():
    fig = charts.reconstruction_chart(np.array([0.0, 5.0, 10.0]), np.array([1.0, 0.8, 0.6]),
                                      10.0, 2.0, 0.95, 0.52)
    names = [trace.name for trace in fig.data]
    assert "E = √n = 10.0" in names
    assert any(name.startswith("your E = 2: 95%") for name in names)
    assert list(fig.data[0].y) == pytest.approx([100, 80, 60])


def test_people_grid_draws_every_person_once():
    secret = np.array([1, 0, 1, 1, 0, 0, 1])
    guess = np.array([1, 0, 0, 1, 1, 0, 1])
    fig = charts.people_grid_chart(secret, guess, columns=3)
    assert sum(len(trace.x) for trace in fig.data) == len(secret)
    assert fig.data[-1].name == "wrong (2)"


def test_differencing_chart_centres_the_hypotheses_at_0_and_1():
    fig = charts.differencing_chart(2.0, observed=0.8)
    truth0, truth1 = fig.data[0], fig.data[1]
    assert truth0.x[int(np.argmax(truth0.y))] == pytest.approx(0.0, abs=0.05)
    assert truth1.x[int(np.argmax(truth1.y))] == pytest.approx(1.0, abs=0.05)


def test_join_table_names_unique_matches_only():
    released = {"ZIP": ["02138", "02139"], "birth": ["1957-03-14", "1960-01-02"],
                "sex": ["M", "F"], "diagnosis": ["asthma", "HIV"]}
    table = charts.join_table(released, np.array([1, 3]), ["Ada Brandt", None])
    assert table["name (voter roll)"] == ["Ada Brandt", "? (3 candidates)"]
    assert table["matches"] == [1, 3]
    assert list(table) == ["name (voter roll)", "diagnosis", "matches", "ZIP", "birth", "sex"]


# ---------------------------------------------------------------- live sentences (issue 13)


def _text(at) -> str:
    return " ".join(" ".join(md.value for md in at.markdown).split())


def _pct(text: str, before: str) -> float:
    """The percentage printed just before `before`, e.g. _pct(t, "at E = √n") → 66.0."""
    head = text.split(before)[0]
    return float(head.rsplit("%", 1)[0].split()[-1])


def test_a_county_of_1000_has_all_of_them_in_hospital():
    at = app_test(LESSON, {"anon_n": "1,000"})
    assert_clean(at)
    assert _metric(at, "Patients named by the join").value.endswith("of 1,000")
    text = _text(at)
    assert "The hospital treated 2,000 of them (all of them when n is 1,000)." in text
    # 3 digits and the birth year name 2.6% here; Safe Harbor would not even allow the digits.
    assert f"name {100 * expected_unique_share(1000, 3, 'year'):.1f}%." in text
    assert "name 2.6%." in text
    assert "Safe Harbor would not allow 3 digits everywhere: the smaller 3-digit area has about 390 people" in text


def test_crowd_sentence_at_half_a_million_people():
    at = app_test(LESSON, {"anon_n": "500,000"})
    assert_clean(at)
    text = _text(at)
    assert "most people are alone" not in text
    assert "the formula leaves 39.9% of people alone in their cell at this n" in text
    # Both 3-digit areas hold more than 20,000 people, so no Safe Harbor caveat.
    assert "Safe Harbor would not allow" not in text
    assert min(zip_group_shares(3)) * 500_000 > 20_000 > min(zip_group_shares(3)) * 50_000


def test_month_coarsening_contrast_uses_the_same_release_in_both_places(anon):
    text = _text(anon)
    village = 100 * expected_unique_share(1000, 3, "month")
    town = 100 * expected_unique_share(100_000, 3, "month")
    assert f"3 ZIP digits name {village:.0f}% of a village of 1,000 people but {town:.1f}% of a county of 100,000" in text
    assert village > 70 > 1 > town
    assert "well within 1% of n" in text and '"accurate to within 1%"' not in text


def test_zip_group_shares_are_the_two_3_digit_areas():
    assert list(zip_group_shares(3)) == pytest.approx([0.61, 0.39])
    assert zip_group_shares(5).sum() == pytest.approx(1.0) and len(zip_group_shares(5)) == 12
    assert list(zip_group_shares(0)) == pytest.approx([1.0])


def test_exact_answers_with_fewer_queries_than_people_recover_every_bit():
    # n = 150, k = 100, E = 0: k < n, but above n/2, and the 0/1 box pins x down.
    at = app_test(LESSON, {"anon_rec_n": "150", "anon_rec_k": "100", "anon_rec_e": "0"})
    assert_clean(at)
    assert _metric(at, "Secret bits recovered").value == "100%"
    text = _text(at)
    assert "Here exact answers (E = 0) to k = 100 queries give back all 150 bits, with fewer equations than unknowns." in text
    assert "once k is above roughly n/2" in text
    assert "because there are fewer equations than unknowns" not in text


def test_too_few_exact_answers_leave_bits_wrong():
    at = app_test(LESSON, {"anon_rec_n": "100", "anon_rec_k": "25", "anon_rec_e": "0"})
    assert_clean(at)
    wrong = int(_metric(at, "Secret bits recovered").delta.split()[0])
    assert wrong > 10  # k = n/4: far below the n/2 threshold
    assert f"Here exact answers (E = 0) to k = 25 queries still leave {wrong} of the 100 bits wrong." in _text(at)


@pytest.mark.parametrize(("n", "k"), [("25", "400"), ("100", "200"), ("200", "25")])
def test_the_root_n_sentence_matches_this_sweep(n, k):
    at = app_test(LESSON, {"anon_rec_n": n, "anon_rec_k": k})
    assert_clean(at)
    text = _text(at)
    at_sqrt = _pct(text, "at E = √n =")
    assert "√n is the scale when k is a few times n." in text
    assert "almost every bit comes back" not in text and "well short of a reconstruction" not in text
    if at_sqrt >= 90:  # k ≫ n: noise of √n no longer stops the attack
        assert f"Here k = {k} is {int(k) / int(n):.3g} times n, and the attack still recovers {at_sqrt:.0f}% at E = √n" in text
    else:
        match = re.search(rf"Here (\d+) of the {n} bits are wrong at E = √n, and the attacker cannot tell which\.", text)
        assert match and round(100 * (1 - int(match.group(1)) / int(n))) == at_sqrt
    if (n, k) == ("25", "400"):
        assert at_sqrt >= 90 and _pct(text, "at 2.5·√n") >= 90  # 100% at E = 2.5√n (default seed)


def test_laplace_quiz_numbers():
    quiz = lessons.quizzes("anonymisation")["laplace-per-query"]
    # With the LP's assumed bound E = 1, Laplace(1) breaks it with probability e⁻¹ ≈ 37%.
    assert f"about {100 * np.exp(-1):.0f}% of the answers break it" in quiz.explanation
    # The slack LP still recovers about 98% of the bits (seeded, so it cannot flake).
    recovered = []
    for seed in range(30):
        rng = np.random.default_rng([seed, 13])
        bits = rng.integers(0, 2, 100)
        queries = _random_subset_queries(100, 200, rng)
        answers = queries @ bits + rng.laplace(0, 1, 200)
        recovered.append(np.mean(_lp_reconstruct(queries, answers, 1.0) == bits))
    assert "about 98% of the bits on average" in quiz.explanation
    assert 0.965 <= np.mean(recovered) < 0.995
    # Scale 53 is what exact Laplace accounting needs for 200 answers at ε = 1, δ = 10⁻⁵.
    assert "down to about 53" in quiz.explanation
    assert laplace_composition_epsilon(53, 200, 1e-5) == pytest.approx(1.0, abs=0.02)


@pytest.mark.parametrize("slug", ["anonymisation", "definition"])
def test_no_quiz_gives_itself_away_by_length(slug):
    # The right option must not be the one long answer with its reason built in.
    for quiz in lessons.quizzes(slug).values():
        others = [len(o) for i, o in enumerate(quiz.options) if i != quiz.answer]
        assert len(quiz.options[quiz.answer]) <= max(others), quiz.id
