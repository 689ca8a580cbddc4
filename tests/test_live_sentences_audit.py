"""Issue 13, the audit after the rewrite: live sentences read at the settings where they broke.

Each test opens a page at a setting where a sentence used to print nonsense (e-notation, a
chance rounded to 100%, "1 patients", a half-width wider than the whole range) or a claim that
was false there, and checks the sentence the page now chooses.
"""

from __future__ import annotations

import re

from tests.conftest import app_test, assert_clean, lesson
from ui.lessons import fill

E_NOTATION = re.compile(r"\d[eE][-+]\d")


def _flat(at) -> str:
    assert_clean(at)
    return " ".join(" ".join(m.value for m in at.markdown).split())


# --- the filler itself -------------------------------------------------------------------------


def test_fill_never_prints_e_notation():
    text = fill("RMSE {{a:.3g}}, variance {{v:.3g}}, δ = {{d:g}}; $x = {{a:.2g}}$ and {{big:.3g}}",
                {"a": 6.7e-05, "v": 2.22e3, "d": 1e-05, "big": 1.2e20})
    assert not E_NOTATION.search(text), text
    assert "RMSE 6.7 × 10⁻⁵" in text and "variance 2,220" in text and "δ = 1 × 10⁻⁵" in text
    assert "$x = 6.7 \\times 10^{-5}$" in text  # inside maths, LaTeX rather than superscripts
    assert "1.2 × 10²⁰" in text
    assert fill("{{n:,}} and {{p:.1%}}", {"n": 12345, "p": 0.25}) == "12,345 and 25.0%"


# --- randomized response ----------------------------------------------------------------------


def test_rr_large_epsilon_prints_no_false_certainty():
    text = _flat(app_test(lesson("randomized-response"), {"rr_eps": "10", "rr_n": "100,000,000",
                                                          "rr_pi": "1"}))
    assert not E_NOTATION.search(text)
    assert "heads with probability h = 0.9999;" in text  # was "h = 1.000"
    assert "more than 99.99% of reports say *Yes*" in text and "100.00%" not in text
    assert "q = 0.99995 (ε = 10)" in text and "q = 1.000" not in text
    assert "falls to 0.000 " not in text and "falls to 0.000." not in text
    assert "the coins change less than 0.1% of the answers" in text  # not "rarely lie" at ε = 2


def test_rr_spread_wider_than_the_range_is_said_so():
    text = _flat(app_test(lesson("randomized-response"), {"rr_eps": "0.01", "rr_n": "10"}))
    assert "(two RMSEs), wider than the whole range [0, 1]" in text
    fair = _flat(app_test(lesson("randomized-response")))
    assert "(two RMSEs)." in fair and "wider than the whole range" not in fair  # ±0.055


# --- Laplace ----------------------------------------------------------------------------------


def test_laplace_union_bound_and_rounding_sentences():
    small = _flat(app_test(lesson("laplace"), {"lap_hist_eps": "10"}))
    assert "= **1.23** people" in small and "**1** people" not in small  # b = 0.1, k = 10
    wide = _flat(app_test(lesson("laplace"), {"lap_hist_eps": "0.01", "lap_hist_n": "100"}))
    assert "bucket is 1,230% of n" in wide and not E_NOTATION.search(wide)
    default = _flat(app_test(lesson("laplace")))
    assert "Rounding leaves the average bucket error at 9.9" in default
    assert "from 9.9 to 9.9" not in default
    sharp = _flat(app_test(lesson("laplace"), {"lap_pp_eps": "10"}))
    assert "Rounding takes the average bucket error from 0.099 to 0.0067" in sharp


# --- composition ------------------------------------------------------------------------------


def test_composition_single_person_bound_is_a_number_not_more_than():
    text = _flat(app_test(lesson("composition"), {"comp_grp_eps": "10"}))
    assert "in the data to at most 99.996%" in text  # e^10/(1 + e^10), rounded up
    assert "at most more than" not in text


# --- budget -----------------------------------------------------------------------------------


def test_budget_attack_notice_has_no_plural_slip():
    text = _flat(app_test(lesson("budget"), {"budget_avg_eps": "1"}))
    assert "a single answer misses the count by b = 1 on average" in text
    assert "1 patients" not in text


# --- exponential ------------------------------------------------------------------------------


def test_exponential_selection_never_prints_a_zero_chance_that_is_not_zero():
    text = _flat(app_test(lesson("exponential"), {"exp_sel_eps": "10"}))
    assert "bars) is **less than 0.01%**" in text and "**0.00%**" not in text
    slow = _flat(app_test(lesson("exponential"), {"exp_sel_eps": "0.02", "exp_sel_du": "5"}))
    assert "multiplies a candidate's odds by $e^{\\varepsilon/(2\\Delta u)} = 1.002$" in slow


# --- local sensitivity ------------------------------------------------------------------------


def test_local_sensitivity_ptr_chance_and_units():
    large = _flat(app_test(lesson("local-sensitivity"), {"ls_n": "2001"}))
    assert "PTR answers with probability **over 99.9%**" in large
    assert "**100.0%**" not in large
    small = _flat(app_test(lesson("local-sensitivity"), {"ls_n": "51", "ls_eps": "0.01"}))
    assert "PTR answers with probability **less than 0.01%**" in small
    assert "**0.00%**" not in small
    two = _flat(app_test(lesson("local-sensitivity"), {"ls_n": "51", "ls_eps": "2"}))
    assert " points" not in two.split("**Typical errors**, in points")[1].split("Laplace")[0]


# --- graphs -----------------------------------------------------------------------------------


def test_graphs_large_numbers_and_small_losses():
    big = _flat(app_test(lesson("graphs"), {"graphs_n": "2000"}))
    assert re.search(r"gains 1,99\d and loses", big)
    tiny = _flat(app_test(lesson("graphs"), {"graphs_eps": "0.05"}))
    assert "\\approx$ 0.00." not in tiny and "\\approx$ 0.0011." in tiny  # 7·0.05/312


# --- machine learning -------------------------------------------------------------------------


def test_machine_learning_coin_and_caps():
    default = _flat(app_test(lesson("machine-learning")))
    assert "At ε = 0.1 it manages 50%, no better than a coin." in default
    sure = _flat(app_test(lesson("machine-learning"), {"ml_eps": "50"}))
    assert "caps it at just under 1," in sure and "caps it at 1.000" not in sure
    assert "against 4.7 × 10⁻⁶%" in sure  # Pr[S | D′] = 4.7e-8, as a percentage


# --- class poll -------------------------------------------------------------------------------


def test_poll_plan_says_when_the_interval_is_wider_than_the_range():
    small = _flat(app_test(lesson("poll-instructor"), {"poll_class_size": "10"}))
    assert "**±64 points, wider than the whole 0–100% range**" in small
    assert "±143 points, wider than the whole 0–100% range" in small
    large = _flat(app_test(lesson("poll-instructor"), {"poll_class_size": "1000"}))
    assert "With **1,000 people**" in large and "wider than" not in large


def test_local_sensitivity_notes_quote_the_page():
    from ui.lessons import section_text

    notes = " ".join(section_text("local-sensitivity", "instructors").split())
    assert "PTR answers over 99.9% of the time at n = 1,001" in notes
    assert "at n = 51, almost never (less than 0.01%)" in notes
    assert "PTR answers with probability **over 99.9%**" in _flat(app_test(lesson("local-sensitivity")))
    assert "PTR answers with probability **less than 0.01%**" in _flat(
        app_test(lesson("local-sensitivity"), {"ls_n": "51"}))
