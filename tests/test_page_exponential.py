"""The exponential-mechanism page: every tab (only the open tab runs), widgets at their extremes,
the editable candidate and bid tables with bad input, and a browser pass over the other tabs.

The generic tests in test_pages.py only see the first tab; these cover the rest.
"""

from __future__ import annotations

import json
import re
import urllib.parse

import numpy as np
import pytest

from tests.conftest import app_test, assert_clean, lesson, wait_for_app

LESSON = lesson("exponential")
NOTES_FORM = "the notes' exp(εu/Δu)"
TABS = ["Selection", "Most common disease", "Private median", "Auction", "Coin bias", "Check the guarantee"]


def _open(tab: str, **params):
    return app_test(LESSON, {**({"exp_tab": tab} if tab != TABS[0] else {}), **params})


def _option_value(label: str):
    """A select_slider's option label back to its value: "10,000" → 10000, "0.01" → 0.01."""
    text = label.replace(",", "")
    return float(text) if any(c in text for c in ".e") else int(text)


def _sliders(at):
    return [w for w in [*at.slider, *at.select_slider] if w.key]


def _set_all(at, end: int) -> None:
    """Move every keyed slider to its first (end=0) or last (end=-1) value, then rerun once."""
    for widget in _sliders(at):
        if widget.type == "select_slider":
            widget.set_value(_option_value(widget.options[end]))
        else:
            widget.set_value(widget.min if end == 0 else widget.max)
    at.run()


def _charts(at) -> int:
    """The demo's own charts, not the odds panel's icon array."""
    return sum(not json.loads(c.proto.spec)["layout"]["title"]["text"].startswith("100 people she")
               for c in at.get("plotly_chart"))


def _warnings(at) -> str:
    return " ".join(w.value for w in at.warning)


@pytest.mark.parametrize(("tab", "params"), [
    ("Selection", {}),
    ("Most common disease", {}),
    ("Private median", {}),
    ("Private median", {"exp_med_kind": "education levels"}),
    ("Auction", {}),
    ("Auction", {"exp_auc_source": "random bidders", "exp_auc_menu": "a public price menu"}),
    ("Coin bias", {}),
    ("Check the guarantee", {}),
    ("Check the guarantee", {"exp_aud_form": NOTES_FORM}),
], ids=["selection", "disease", "median", "median-education", "auction", "auction-random-grid",
        "coin", "audit", "audit-notes"])
def test_tab_runs_at_defaults_and_at_both_ends_of_every_slider(tab, params):
    at = _open(tab, **params)
    assert_clean(at)
    assert _charts(at) >= 1, "every tab draws at least one chart"
    keys = [w.key for w in _sliders(at)]
    assert keys and all(key.startswith("exp_") for key in keys)
    for end in (0, -1):
        _set_all(at, end)
        assert_clean(at)
        assert _charts(at) >= 1 or "range is empty" in _warnings(at)


def test_only_the_open_tab_runs():
    at = _open("Coin bias")
    keys = {w.key for w in _sliders(at)}
    assert keys == {"exp_coin_eps", "exp_coin_n", "exp_coin_theta"}


@pytest.mark.parametrize("bad", ["Nonsense", "selection", ""])
def test_an_unknown_tab_in_the_link_falls_back_with_a_note(bad):
    at = app_test(LESSON, {"exp_tab": bad})
    assert_clean(at)
    assert any(w.key == "exp_sel_eps" for w in _sliders(at))
    if bad:
        assert any(f"exp_tab={bad!r}" in c.value for c in at.caption)


def test_links_choose_radio_options_and_bad_ones_get_a_note():
    at = _open("Private median", exp_med_kind="education levels")
    assert at.slider(key="exp_med_hi_level").value == 16
    at = _open("Auction", exp_auc_source="random bidders")
    assert at.select_slider(key="exp_auc_n").value == 100
    at = _open("Auction", exp_auc_menu="cheap")
    assert_clean(at)
    assert any("exp_auc_menu='cheap'" in c.value for c in at.caption)


def test_the_notes_form_breaks_its_promise_in_the_audit():
    at = _open("Check the guarantee", exp_aud_form=NOTES_FORM)
    assert any("breaks its promise" in e.value for e in at.error)
    at = _open("Check the guarantee")
    assert not at.error and any("consistent with the promise" in s.value for s in at.success)


def test_an_empty_median_range_says_what_to_change():
    at = _open("Private median")
    at.slider(key="exp_med_lo").set_value(0.9)
    at.slider(key="exp_med_hi").set_value(0.5).run()
    assert_clean(at)
    assert "must be below the upper bound" in _warnings(at)


def _edit(at, key: str, edited=None, added=None, deleted=None):
    # The editor is drawn under a per-session key (ui/tables.py); edits go to that key.
    at.session_state[at.session_state[f"{key}_widget"]] = {
        "edited_rows": edited or {}, "added_rows": added or [], "deleted_rows": deleted or []}
    return at.run()


@pytest.mark.parametrize(("edit", "message"), [
    ({"edited": {1: {"score": None}}}, "Scores: row 2 is empty"),
    ({"edited": {0: {"score": "lots"}}}, "Scores: row 1 is empty"),  # a non-number arrives empty
    ({"edited": {2: {"score": 1e300}}}, "Scores: row 3 is 1e+300"),
    ({"edited": {1: {"candidate": "Influenza"}}}, "'Influenza' appears twice"),
    ({"edited": {3: {"candidate": ""}}}, "row 4 has no name"),
    ({"deleted": [1, 2, 3, 4, 5]}, "add at least 2"),
    ({"added": [{"candidate": f"d{i}", "score": 1.0} for i in range(25)]}, "31 rows is too many"),
])
def test_bad_candidate_tables_get_a_clear_message(edit, message):
    at = _edit(_open("Selection"), "exp_sel_table", **edit)
    assert_clean(at)
    assert message in _warnings(at)
    assert _charts(at) == 0
    at.button(key="exp_sel_reset").click().run()
    assert_clean(at)
    assert not _warnings(at) and _charts(at) == 2


def test_negative_and_new_candidates_are_fine():
    at = _edit(_open("Selection"), "exp_sel_table", edited={0: {"score": -3.5}},
               added=[{"candidate": "Gout", "score": 60.0}])
    assert_clean(at)
    assert not _warnings(at)
    assert any("Gout" in m.value for m in at.markdown)  # the new top candidate is named


def _deck(at) -> tuple[int, int]:
    """The presenter deck's "step / steps" label."""
    for block in at.markdown:
        if found := re.fullmatch(r"\*\*(\d+) / (\d+)\*\*", block.value):
            return int(found[1]), int(found[2])
    raise AssertionError("no deck label")


def _go(at, number: int):
    at.session_state["step_exponential"] = number
    return at.run()


def _table_on_screen(at, key: str) -> bool:
    return f"{key}_widget" in at.session_state  # ui.tables draws the editor under this key


def test_a_demo_that_stops_early_keeps_its_screens_in_the_deck():
    """A bad table or an empty range stops a demo, but not the deck: its later screens keep
    their numbers (the lesson has as many steps as before), and show the note."""
    at = app_test(LESSON, {"present": "1"})
    assert_clean(at)
    steps = _deck(at)[1]
    unbroken = {"exp_sel_table": {0: {"score": None}}, "exp_auc_table": {0: {"bid": None}}}
    for number in range(2, steps + 1):  # break each table on the screen that shows it
        at = _go(at, number)
        for key in [key for key in unbroken if _table_on_screen(at, key)]:
            at = _edit(at, key, edited=unbroken.pop(key))
            assert_clean(at)
            assert _deck(at) == (number, steps), key
    assert not unbroken
    at.session_state["exp_med_lo"], at.session_state["exp_med_hi"] = 0.9, 0.5  # not on screen
    shown = []
    for number in range(1, steps + 1):
        at = _go(at, number)
        assert_clean(at)
        assert _deck(at) == (number, steps)
        shown.append("range is empty" in _warnings(at))
    assert sum(shown) == 3  # the median's controls, and its two further screens


def test_table_edits_outlive_a_change_of_presenter_step():
    """The candidates' table is a screen after the chart it drives: edits made there still
    hold on the chart's screen, and when the table is shown again."""
    at = app_test(LESSON, {"present": "1"})
    number = next(n for n in range(2, 10) if _table_on_screen(_go(at, n), "exp_sel_table"))
    at = _edit(at, "exp_sel_table", added=[{"candidate": "Gout", "score": 60.0}])
    for step in (number - 1, number + 1, number):
        at = _go(at, step)
        assert_clean(at)
        assert at.session_state["exp_sel_table_saved"]["candidate"].iloc[-1] == "Gout", step
    at = _go(at, number - 1)
    assert [m.label for m in at.metric][0] == "Pr[Gout]"  # the chart's screen follows the edit
    at = _go(at, number)
    assert any("Gout" in block.proto.spec for block in at.get("plotly_chart"))


@pytest.mark.parametrize(("edit", "message"), [
    ({"edited": {0: {"bid": None}}}, "Bids: row 1 is empty"),
    ({"edited": {3: {"bid": "three"}}}, "Bids: row 4 is empty"),
    ({"edited": {1: {"bid": -2.0}}}, "Bids: row 2 is -2; keep every value between 0 and 1e+06"),
    ({"added": [{"bid": 1e300}]}, "Bids: row 5 is 1e+300"),
    ({"added": [{"bid": 2.0}] * 47}, "51 rows is too many; keep at most 50"),
    ({"deleted": [0, 1, 2, 3]}, "add at least 1"),
    ({"edited": {3: {"bid": 0.0}, 0: {"bid": 0.0}, 1: {"bid": 0.0}, 2: {"bid": 0.0}}}, "every bid is 0"),
])
def test_bad_bids_get_a_clear_message(edit, message):
    at = _edit(_open("Auction"), "exp_auc_table", **edit)
    assert_clean(at)
    assert message in _warnings(at)
    at.button(key="exp_auc_reset").click().run()
    assert_clean(at)
    assert "Bids:" not in _warnings(at) and _charts(at) == 4


def test_edited_bids_change_the_auction():
    at = _edit(_open("Auction"), "exp_auc_table", edited={3: {"bid": 5.0}}, added=[{"bid": 5.0}])
    assert_clean(at)
    # Bids 1, 1, 1, 5, 5: the best price is now 5 (revenue 10).
    assert any(m.label == "OPT" and m.value == "10" for m in at.metric)


# --- the browser: the tabs the generic smoke test does not open ---------------------------------------

_PLOT_DATA = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(gd => JSON.stringify((gd._fullData || []).map(t => [t.x, t.y])))"""


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
def test_every_tab_loads_and_its_first_slider_moves_a_plot(page, app_url):
    for tab in TABS[1:]:
        page.goto(f"{app_url}/exponential?exp_tab={urllib.parse.quote_plus(tab)}")
        wait_for_app(page)
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length > 0", timeout=20_000)
        assert page.locator("[data-testid=stException]").count() == 0, tab
        before = page.evaluate(_PLOT_DATA)
        slider = page.locator("[data-testid=stMain] [data-testid=stSlider] input[type=range], "
                              "[data-testid=stMain] [data-testid=stSlider] [role=slider]").first
        slider.focus()
        for _ in range(2):
            page.keyboard.press("ArrowRight")
            wait_for_app(page)
        page.wait_for_function(f"({_PLOT_DATA})().join() !== {json.dumps(before)}.join()", timeout=20_000)
        assert page.locator("[data-testid=stException]").count() == 0, tab


# --- live sentences at the settings that once broke them (issue 13) --------------------------------

def _markdown(at) -> str:
    """Every markdown block, joined, with line breaks and runs of spaces as single spaces."""
    return " ".join(" ".join(m.value for m in at.markdown).split())


@pytest.mark.parametrize(("params", "expected", "absent"), [
    ({}, "= **1**, exactly the width of the range. So the Laplace output lands almost anywhere",
     "Laplace on the median."),
    # ε = 5, n = 1000 on [0, 1]: b = 0.5/5 = 0.1, a tenth of the range (it once said "as large as").
    ({"exp_med_eps": "5", "exp_med_n": "1000"}, "= **0.1**, 10% of the range's width.",
     "lands almost anywhere"),
    ({"exp_med_eps": "0.1"}, "= **5**, 5 times the width of the range.", "Laplace on the median."),
])
def test_the_laplace_median_sentence_compares_b_with_the_live_range(params, expected, absent):
    at = _open("Private median", **params)
    assert_clean(at)
    text = _markdown(at)
    assert expected in text and absent not in text


def test_the_laplace_median_clipped_share_is_the_live_tail_probability():
    # Defaults: n = 100, range [0, 1], ε = 0.5, so b = 1. The sentence's share is
    # ½e^{−m} + ½e^{−(1 − m)} for the live median m, ≥ e^{−½} = 61% whatever m is.
    at = _open("Private median")
    share = int(re.search(r"(\d+)% of the draws fall outside it", _markdown(at)).group(1))
    assert 61 <= share <= 100


def test_the_shading_example_really_moves_the_argmax_price():
    # auc-truthful: with bids 1, 1, 3.01 the best price is 3.01; shading 3.01 to 1 drops it to 1.
    # (With the notes' 1, 1, 1, 3.01 the best price is already 1, so shading would change nothing.)
    from dp import auction

    def best_price(bids):
        bids = np.array(bids)
        prices = np.unique(bids)
        return float(prices[np.argmax(auction.revenue(bids, prices))])

    assert best_price([1, 1, 3.01]) == 3.01 and best_price([1, 1, 1]) == 1
    assert best_price([1, 1, 1, 3.01]) == best_price([1, 1, 1, 1]) == 1
    at = _open("Auction")
    text = " ".join(_markdown(at).split())
    # the table's four bidders first (best price 1), then the three-bid example, named as such
    assert "table's four bidders (1, 1, 1, 3.01) that price is 1 (revenue 4 against 3.01)" in text
    assert "leaving bids 1, 1 and 3.01, and the best price becomes 3.01" in text


def test_the_notes_formula_is_called_2eps_in_general_and_eps_for_one_way_scores():
    at = _open("Selection")
    text = _markdown(at)
    assert "in general it is only 2ε-DP" in text and "For those it is ε-DP" in text
    assert "spends twice the budget" not in text


def test_the_public_menu_caution_shows_the_live_cost_of_the_menu():
    # Defaults: bids 1, 1, 1, 3.01 at ε = 1. The loss 2Δu(ln|R| + 1)/ε is 2·3.01·(ln 2 + 1) = 10.2
    # on the menu of bids and 2·5·(ln 500 + 1) = 72.1 on the public menu up to 5.
    at = _open("Auction")
    caution = " ".join(w.value for w in at.warning if "public menu" in w.value).split()
    text = " ".join(caution)
    assert "the loss is **10.2** on this menu of bids (|R| = 2, Δu = 3.01)" in text
    assert "**72.1** on the public menu of 500 prices up to 5" in text
    assert "costs only" not in text


def test_selection_limits_say_low_bars_rise_and_respect_ties():
    at = _open("Selection")
    text = _markdown(at)
    assert "the high bars sink and the low ones rise" in text and "every bar sinks" not in text
    assert "the top candidate **Influenza** (score 48)" in text
    assert "at ε = 10, the slider's end, it gets over 99.9%" in text
    # Two candidates tied at the top: neither "takes everything"; at ε = 10 they share it.
    at = _edit(_open("Selection"), "exp_sel_table", edited={1: {"score": 48.0}})
    text = _markdown(at)
    assert "one of the 2 candidates tied at the top score 48" in text
    assert "each of them gets 50.0%" in text
    # All equal: the bars sit on the uniform line at every ε.
    at = _edit(_open("Selection"), "exp_sel_table",
               edited={i: {"score": 1.0} for i in range(6)})
    text = _markdown(at)
    assert "every bar sits on that line at every ε" in text and "That is no better here" in text


def test_quiz_options_do_not_give_the_answer_away():
    # Issue 14: the right option must not be the long one with its reason built in. Options are
    # short and alike in form; the reasons belong in the explanation shown at the reveal.
    from ui.lessons import quizzes

    for quiz_id, q in quizzes("exponential").items():
        others = [len(option) for i, option in enumerate(q.options) if i != q.answer]
        assert len(q.options[q.answer]) <= max(others) + 5, quiz_id
        for option in q.options:
            assert not any(word in option for word in ("because", "since", ", so", "so that")), option


def test_a_utility_line_below_every_score_is_called_trivial_and_big_numbers_stay_readable():
    # ε = 0.02, Δu = 5, t = 5: the gap is 2·5·(ln 6 + 5)/0.02 = 3,396, so the line is far below 22.
    text = _markdown(_open("Selection", exp_sel_eps="0.02", exp_sel_du="5", exp_sel_t="5"))
    assert "48 − 3,396 = **-3,348**" in text and "e+03" not in text
    assert "the promise holds trivially" in text
    assert "promise holds trivially" not in _markdown(_open("Selection"))


def test_disease_tab_has_no_resample_button_that_changes_nothing_visible():
    # Issue 14: 200,000 draws leave a standard error ≤ 0.11 points, below a pixel; the button went.
    at = _open("Most common disease")
    assert not [b for b in at.button if b.key and b.key.startswith("exp_dis")]
    assert "0.11$ percentage points" in _markdown(at)


@pytest.mark.parametrize(("params", "expected"), [
    ({}, "method 1 needs ε above 10, but report-noisy-max gets there by ε ≈ 1.41 (the first ε"),
    ({}, "for 90% here, at most ε ≈ 1.41 against 2.72"),  # 2·ln(9·99)/5 = 2.72, exactly
    ({"exp_dis_gap": "1"}, "a lead of 1 person,"),
    # k = 10,000 with a lead of 1: neither reaches 90% on the slider; the exponential mechanism
    # would need 2·ln(9·9,999)/1 = 22.8.
    ({"exp_dis_gap": "1", "exp_dis_k": "10,000"},
     "neither method 1 nor report-noisy-max gets there with ε up to 10."),
    ({"exp_dis_gap": "1", "exp_dis_k": "10,000"},
     "the exponential mechanism needs ε = 22.8, and report-noisy-max more than 10"),
    ({"exp_dis_k": "2"}, "method 1 gets there only by ε ≈ 1, and report-noisy-max already by ε ≈ 0.5"),
])
def test_disease_notice_reads_the_live_race(params, expected):
    assert expected in _markdown(_open("Most common disease", **params))


def test_disease_notice_shows_small_chances_instead_of_0_percent():
    # k = 10,000 at ε = 0.5: the chances are a few in 10,000, not "0%".
    text = _markdown(_open("Most common disease", exp_dis_k="10,000"))
    assert re.search(r"is 0\.0\d% \(method 1\), 0\.\d\d% \(method 2\)", text), text[:400]


def test_median_notice_reads_growth_from_the_chart_and_says_when_the_range_misses_the_median():
    text = _markdown(_open("Private median"))
    assert "On the chart of rank error against n, from n = 10 to n = 10,000" in text
    assert "so Laplace never learns the median" in text
    assert "barely changes with n" not in text  # false at small ε (3.8 → 198 people at ε = 0.01)
    # ε = 0.01: the exponential mechanism's error grows with n too, but slower than n.
    text = _markdown(_open("Private median", exp_med_eps="0.01"))
    assert re.search(r"The exponential mechanism's goes from [\d.]+ to 1\d\d people", text)
    # A range above the data's median: no method can find it.
    text = _markdown(_open("Private median", exp_med_lo="0.9"))
    assert "This range leaves out the data's median (0.301)" in text
    assert "so Laplace never learns the median" not in text


def test_median_theory_shows_what_moving_each_bound_would_do():
    # Defaults: the lower bound at −3 instead of 0 triples the histogram's error (11.4 → 33.5);
    # the exponential mechanism stays at about 4.5. At ε = 0.01 it does not "barely notice".
    text = _markdown(_open("Private median"))
    assert re.search(r"With the lower bound at -3 instead of 0, the mean rank errors would be 3\d\.\d "
                     r"\(histogram\) and 4\.5\d \(exponential mechanism\), against 11\.4 and 4\.53 now",
                     text)
    assert "With the upper bound at 4 instead of 1" in text
    text = _markdown(_open("Private median", exp_med_eps="0.01"))
    assert re.search(r"would be [\d.]+ \(histogram\) and 4\d\.\d \(exponential mechanism\), "
                     r"against [\d.]+ and 34\.2 now", text)


def test_tiny_median_errors_and_shares_are_not_printed_as_exponents_or_zero_percent():
    text = _markdown(_open("Private median", exp_med_eps="10"))
    assert "e-0" not in text and "Under 1% of the draws fall outside the range" in text


def test_auction_notice_reads_the_live_auction():
    text = _markdown(_open("Auction"))
    assert "Price 3.01 sells one copy, and 3.02 sells none." in text
    assert "Here the loss is at least OPT itself, so the bound is below zero" in text
    # the same four bidders on the public menu up to 5: 1.35 in expectation (instructors' notes)
    assert "On the public menu of 500 prices up to 5, the same bidders would get 1.35" in text
    assert "With four bidders" not in text and "every cent up to the cap" not in text
    text = _markdown(_open("Auction", exp_auc_source="random bidders"))
    assert "Here that bound is 122." in text and "bound is below zero" not in text
    assert "the mechanism keeps over 99% of OPT" in text  # never "100%" for a share below 1
    # Two bidders at the top: the cliff sells two copies.
    text = _markdown(_edit(_open("Auction"), "exp_auc_table", edited={2: {"bid": 3.01}}))
    assert "Price 3.01 sells 2 copies" in text


def test_chances_below_one_are_never_shown_as_100_percent():
    text = _markdown(_open("Most common disease", exp_dis_eps="10"))
    assert "100%" not in text.split("**What to notice**")[1].split("- To be right")[0]


def test_coin_notice_says_when_the_exponential_mechanism_is_still_ahead():
    text = _markdown(_open("Coin bias"))
    assert "on the chart they are ahead from N = 50 on" in text and "still ahead" not in text
    # N = 10 at ε = 0.1: Laplace's sd (0.37) is above the exponential mechanism's (0.23).
    text = _markdown(_open("Coin bias", exp_coin_n="10"))
    assert "Here, at N = 10, the exponential mechanism is still ahead." in text
    assert "$cN$ ≈ 0.22 flips instead of N" in text
    # ε = 10, N = 1,000,000: c > 1, tiny sds in powers of ten, no "only" or "≈ 0 times".
    text = _markdown(_open("Coin bias", exp_coin_eps="10", exp_coin_n="1e+06"))
    assert "≈ 0.46 times the sampling variance" in text and "× 10⁻" in text
    assert "e-0" not in text and "e+0" not in text


def test_noisy_counts_overtake_the_exponential_mechanism_on_the_coin_chart_for_every_setting():
    # The coin notice names the N from which noisy counts are ahead; on the page's grid of N that
    # point exists for every θ and ε of the sliders, and they stay ahead after it.
    from dp import medians
    from ui.params import EPSILONS

    flips = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000,
             200_000, 500_000, 1_000_000]
    for theta in np.arange(0.1, 0.91, 0.05):
        for eps in EPSILONS:
            v = medians.coin_variances(round(theta, 2), flips, eps, np.random.default_rng(1))
            ahead = v["laplace"] < v["exponential"]
            first = int(np.argmax(ahead))
            assert ahead.any() and ahead[first:].all(), (theta, eps)


def test_audit_notice_reports_the_live_verdict():
    text = _markdown(_open("Check the guarantee", exp_aud_form=NOTES_FORM))
    assert re.search(r"Here it certifies ε̂ = 1\.\d+ > ε = 1\.", text)
    assert "use m ≥ 5 or so" not in text
    text = _markdown(_open("Check the guarantee"))
    assert re.search(r"Here, with this app's formula, ε̂ = 0\.\d+ stays at or below ε = 1\.", text)
    # m = 1: the notes' loss equals ε on this pair, so there is nothing to catch.
    text = _markdown(_open("Check the guarantee", exp_aud_m="1"))
    assert "the notes' loss on this pair is exactly ε" in text
    # ε = 0.1, m = 200: option A is too rare for 100,000 samples to separate 0.199 from 0.1.
    text = _markdown(_open("Check the guarantee", exp_aud_form=NOTES_FORM, exp_aud_eps="0.1",
                           exp_aud_m="200"))
    assert "Here it certifies only ε̂ = 0" in text and "too wide to separate 0.199" in text


def test_a_certified_epsilon_just_above_the_promise_is_not_printed_equal_to_it():
    # ε = 5, m = 1, the notes' formula: ε̂ lands just above 5 and once read "ε ≥ 5, more than 5".
    at = _open("Check the guarantee", exp_aud_form=NOTES_FORM, exp_aud_eps="5", exp_aud_m="1")
    for error in at.error:
        shown = re.search(r"certify ε ≥ ([\d.]+), more than the promised ([\d.]+)", error.value)
        assert shown and float(shown.group(1)) > float(shown.group(2)), error.value


def test_an_audit_false_alarm_on_a_pair_with_nothing_to_catch_is_called_one():
    # m = 1, ε = 5: the notes' loss is exactly ε, yet this seed's ε̂ is 5.005 (a 2%-of-runs miss).
    text = _markdown(_open("Check the guarantee", exp_aud_form=NOTES_FORM, exp_aud_eps="5",
                           exp_aud_m="1"))
    assert "an audit flags it only in the 5% of runs" in text
    assert "Here ε̂ = 5.005 lands above ε = 5 all the same: these samples are one of those runs." in text


def test_candidate_names_are_slanted_once_there_are_more_than_a_few():
    # Issue 14: "Hypertension" and "Diabetes" ran together at 1440 px under six bars.
    from ui.charts import exponential as charts

    six = charts.selection_figure(list("abcdef"), np.arange(6.0), np.full(6, 1 / 6), 2.0)
    assert six.layout.xaxis.tickangle == -45 and six.layout.xaxis.automargin
    three = charts.selection_figure(list("abc"), np.arange(3.0), np.full(3, 1 / 3), 1.0)
    assert three.layout.xaxis.tickangle is None
