""""What DP promises": blog presets, the neighbour warning, the Bayes examples, the quiz,
the "In or out?" game (a per-session tally), and the page's chart builders."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dp.attacks import max_true_positive_rate
from dp.privacy_loss import (
    laplace_density,
    laplace_guess_accuracy,
    laplace_privacy_loss,
    laplace_roc,
    max_guess_accuracy,
)
from tests.conftest import app_test, lesson, page_text
from ui.charts import definition as charts

LESSON = lesson("definition")


def _metric(at, label):
    return next(m for m in at.metric if m.label.startswith(label))


def _tally(at) -> tuple[str, str]:
    tally = _metric(at, "Your tally")
    return tally.value, tally.delta


@pytest.fixture(scope="module")
def session():
    """One AppTest session shared by the tests that only read or click (it is slow to start)."""
    at = app_test(LESSON)
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_defaults_reproduce_the_blog_picture_at_epsilon_0_2(session):
    values = {w.key: w.value for w in [*session.slider, *session.select_slider]}
    assert (values["def_eps"], values["def_sens"], values["def_fd"], values["def_fdp"]) == (0.2, 7, 5, 10)
    assert _metric(session, "Promised ε").value == "0.2"
    # b = 7/0.2 = 35 and the largest ratio is e^{5/35} ≈ 1.154, inside e^0.2 ≈ 1.221.
    assert "= 35" in page_text(session) and "1.154" in page_text(session)
    assert not session.warning


def test_blog_buttons_switch_to_epsilon_10_and_back(session):
    session.button(key="def_blog_large").click().run()
    assert not session.exception
    assert session.select_slider(key="def_eps").value == 10.0
    assert _metric(session, "Promised ε").value == "10"
    # The true ε of the pair is 5/0.7 ≈ 7.14 < 10; the audit certifies a lower bound below it.
    assert float(_metric(session, "Certified ε̂").value) <= 5 / 0.7
    session.button(key="def_blog_small").click().run()
    assert session.select_slider(key="def_eps").value == 0.2


def test_pair_further_apart_than_delta_warns_and_breaks_the_audit():
    at = app_test(LESSON, {"def_eps": "1", "def_sens": "1", "def_fd": "0", "def_fdp": "3"})
    assert not at.exception
    assert any("not neighbours" in w.value or "group" in w.value for w in at.warning)
    # |f(D) − f(D′)|/b = 3 at ε = 1: with 100,000 samples the audit certifies well above 1.
    assert float(_metric(at, "Certified ε̂").value) > 1
    assert any("breaks its promise" in e.value for e in at.error)


def test_bayes_examples_give_tammys_and_annas_numbers(session):
    session.button(key="def_tammy").click().run()
    # Prior 2% at ε = ln 3: odds 2:98 times 3 = 6:98, i.e. 6/104 ≈ 5.77%.
    assert "5.77% sure" in page_text(session)
    session.button(key="def_anna").click().run()
    assert session.slider(key="def_prior").value == 0.4
    # Prior 40% at ε = 1: expit(logit(0.4) ± 1) = 19.695% … 64.440%, rounded outwards.
    assert "64.5% sure" in page_text(session) and "19.6%" in page_text(session)


def test_exact_count_quiz_reveals_none(session):
    quiz = session.radio(key="definition_quiz_exact-count")
    quiz.set_value(3).run()
    session.toggle(key="definition_quiz_exact-count_reveal").set_value(True).run()
    assert "✅ Right." in page_text(session)


def test_game_guesses_update_the_tally():
    at = app_test(LESSON)
    assert _tally(at) == ("–", "0 of 0 right")
    rights = 0
    for n in range(1, 4):
        at.button(key="def_game_in").click().run()
        assert not at.exception
        feedback = next(m.value for m in at.markdown if "came from Patrick" in m.value)
        rights += feedback.startswith("✅")
        assert _tally(at)[1] == f"{rights} of {n} right"
        assert _metric(at, f"Round {n + 1}")  # a new round is on the table
    # A guess of "out" counts too, and the tally is per ε: a new ε starts from zero.
    at.button(key="def_game_out").click().run()
    assert _tally(at)[1].endswith("of 4 right")
    at.select_slider(key="def_game_eps").set_value(5.0).run()
    assert _tally(at) == ("–", "0 of 0 right")
    at.select_slider(key="def_game_eps").set_value(1.0).run()
    assert _tally(at)[1].endswith("of 4 right")
    at.button(key="def_game_reset").click().run()
    assert _tally(at) == ("–", "0 of 0 right")


def test_two_sessions_do_not_share_a_tally():
    first, second = app_test(LESSON), app_test(LESSON)
    for _ in range(2):
        first.button(key="def_game_out").click().run()
    second.button(key="def_game_in").click().run()
    first.run()
    assert _tally(first)[1].endswith("of 2 right")
    assert _tally(second)[1].endswith("of 1 right")


# --- chart builders -------------------------------------------------------------------------


def _blog_arrays(epsilon):
    b = 7 / epsilon
    x = np.linspace(5 - 6 * b, 10 + 6 * b, 801)
    return b, x


def test_density_chart_has_both_curves_and_20_rug_marks_each():
    b, x = _blog_arrays(0.2)
    rng = np.random.default_rng(0)
    fig = charts.densities(x, laplace_density(x, 5, b), laplace_density(x, 10, b), 5, 10,
                           samples_d=rng.laplace(5, b, 20), samples_d_prime=rng.laplace(10, b, 20))
    assert len(fig.data) == 4
    assert [len(trace.x) for trace in fig.data[2:]] == [20, 20]
    # Rug marks sit below the curves, inside the visible y-range.
    assert all(max(trace.y) < 0 for trace in fig.data[2:])
    assert fig.layout.yaxis.range[0] < min(fig.data[3].y)
    assert fig.layout.title.text and fig.layout.xaxis.title.text and fig.layout.yaxis.title.text


@pytest.mark.parametrize("epsilon", [0.2, 10.0])
def test_ratio_and_loss_charts_stay_inside_the_band(epsilon):
    b, x = _blog_arrays(epsilon)
    loss = laplace_privacy_loss(x, 5, 10, b)
    ratio_fig = charts.density_ratio(x, np.exp(loss), epsilon)
    ratio = np.asarray(ratio_fig.data[1].y)
    assert np.all(ratio <= math.exp(epsilon)) and np.all(ratio >= math.exp(-epsilon))
    # Both band edges are inside the log axis range (in decades).
    low, high = ratio_fig.layout.yaxis.range
    assert low < -epsilon / math.log(10) and high > epsilon / math.log(10)
    samples = np.array([0.0, 20.0])
    loss_fig = charts.privacy_loss(x, loss, epsilon, samples, laplace_privacy_loss(samples, 5, 10, b),
                                   samples, laplace_privacy_loss(samples, 5, 10, b))
    assert max(abs(v) for v in loss_fig.data[1].y) <= epsilon


def test_membership_region_is_between_the_bounds():
    fpr = np.linspace(0, 1, 101)
    upper = max_true_positive_rate(fpr, 1.0, 0.01)
    lower = 1 - max_true_positive_rate(1 - fpr, 1.0, 0.01)
    fig = charts.membership_region(fpr, upper, lower, 1.0, 0.01)
    assert np.all(np.asarray(fig.data[1].y) >= np.asarray(fig.data[0].y))
    assert "δ = 0.01" in fig.layout.title.text


def test_game_tally_chart_shows_running_accuracy():
    fig = charts.game_tally([True, False, True, True], ceiling=0.731, laplace_best=0.697)
    assert list(fig.data[0].y) == [1.0, 0.5, pytest.approx(2 / 3), 0.75]
    assert {shape.y0 for shape in fig.layout.shapes} == {0.731, 0.697, 0.5}


# --- sentences that hold only under a condition (issue 13) ------------------------------------


def _one_line(at) -> str:
    return " ".join(page_text(at).split())


def test_the_odds_bound_states_its_condition_and_the_twin_counterexample(session):
    text = _one_line(session)
    assert "This holds whatever output she sees and whatever else she knows." not in text
    assert "**when the other records are fixed** (Luthor knows them all) **or, in her beliefs, independent of Patrick's**" in text
    assert "multiplies an attacker's odds about one person by at most $e^{\\varepsilon}$, when the other records are fixed or independent" in text
    assert "any attacker's odds" not in text
    # Patrick's twin is in exactly when he is: a Δ = 1 Laplace count at ε = 1 (b = 1) then
    # compares counts c and c + 2. Far above both, Anna's 40% prior becomes:
    c, y = 100.0, 110.0
    posterior_twin = 0.4 * laplace_density(y, c + 2, 1.0) / (
        0.4 * laplace_density(y, c + 2, 1.0) + 0.6 * laplace_density(y, c, 1.0))
    posterior_alone = 0.4 * laplace_density(y, c + 1, 1.0) / (
        0.4 * laplace_density(y, c + 1, 1.0) + 0.6 * laplace_density(y, c, 1.0))
    assert f"{100 * posterior_twin:.1f}" == "83.1" and f"{100 * posterior_alone:.1f}" == "64.4"
    assert "move Anna from 40% to **83.1%** sure, past the 64.4% that the odds bound gives" in text
    assert "No free lunch" in text and "Kasiviswanathan" in text


@pytest.mark.parametrize("delta", [0.0, 1e-6, 0.01, 0.2])
def test_the_laplace_roc_touches_the_boundary_only_at_delta_zero(delta):
    epsilon = 1.0
    fpr, tpr = laplace_roc(np.linspace(-12, 13, 2001), 1.0, 1.0)
    gap = max_true_positive_rate(fpr, epsilon, delta) - tpr
    inside = (fpr > 1e-9) & (fpr < 1 - 1e-9)
    assert gap.min() >= -1e-12  # never above the boundary
    if delta == 0:
        assert np.sum(gap[inside] < 1e-12) > 100  # eager and cautious thresholds sit on it
    else:
        assert gap[inside].min() > 0  # a pure ε-DP count stays strictly below a lifted boundary
    at = app_test(LESSON, {"def_hyp_delta": str(delta) if delta else "0"})
    assert not at.exception
    text = _one_line(at)
    on_edge = "It runs along the edge for cautious and for eager thresholds" in text
    below = "its curve stays below this boundary: it follows the δ = 0 edge" in text
    assert (on_edge, below) == ((True, False) if delta == 0 else (False, True))


@pytest.mark.parametrize("epsilon", [0.1, 2.0, 5.0])
def test_the_game_notice_gives_the_laplace_shortfall_live(epsilon):
    at = app_test(LESSON, {"def_game_eps": f"{epsilon:g}"})
    shortfall = 100 * (max_guess_accuracy(epsilon) - laplace_guess_accuracy(100, 101, 1 / epsilon))
    assert f"of the time, {shortfall:.1f} points less," in _one_line(at)
    assert "a little less" not in _one_line(at)


def test_blog_pictures_are_what_the_notice_says_about_them(session):
    # "nearly half at ε = 0.2 and almost none at ε = 10", "the rug marks barely overlap".
    session.button(key="def_blog_small").click().run()
    assert "On average 9.3 of 20 would." in _one_line(session)
    session.button(key="def_blog_large").click().run()
    text = _one_line(session)
    assert "On average 0.3 of 20 would." in text
    assert "**0 of the 20 outputs of $M(D)$**" in text or "**1 of the 20 outputs of $M(D)$**" in text
    session.button(key="def_blog_small").click().run()


@pytest.mark.parametrize(("k", "phrase"), [(1, "so a group of one keeps the full guarantee."),
                                           (3, "so the group's guarantee is 3 times weaker."),
                                           (10, "so the group's guarantee is 10 times weaker.")])
def test_group_notice_at_every_group_size(k, phrase):
    at = app_test(LESSON, {"def_group_k": str(k)})
    assert phrase in _one_line(at)
    assert "hides one person well" not in _one_line(at)


# ── The Bayesian chart (issue 14 §2: labels on top of each other, the story in 6% of the axis) ──

def _bayes_spec(prior: str, epsilon: str) -> tuple[dict, str]:
    from tests.conftest import chart_specs
    from ui.plain_figure import decode_arrays

    at = app_test(LESSON, {"def_prior": prior, "def_bayes_eps": epsilon})
    assert not at.exception and not at.warning
    (spec,) = [s for s in chart_specs(at) if s["layout"]["title"]["text"].startswith("Belief after")]
    return decode_arrays(spec), page_text(at)


@pytest.mark.parametrize(("prior", "epsilon"), [("0.02", "ln 3"), ("0.01", "0.05"), ("0.01", "10"),
                                                ("0.99", "0.05"), ("0.99", "10"), ("0.5", "10")])
def test_the_belief_chart_shows_the_move_and_its_labels_apart_at_every_extreme(prior, epsilon):
    import plotly.graph_objects as go

    spec, text = _bayes_spec(prior, epsilon)
    go.Figure(spec)  # valid plotly
    axis = spec["layout"]["yaxis"]
    bottom, top = axis["range"]
    (chosen,) = [t for t in spec["data"] if t["name"] == "at the chosen ε"]
    low_y, high_y = chosen["y"]
    # Both marks inside the plot, with room for their labels (a tenth of the axis) beyond them.
    assert bottom + (top - bottom) / 10 < low_y <= high_y < top - (top - bottom) / 10
    # The lower label hangs under its mark, the upper one stands above: they cannot meet.
    assert list(chosen["textposition"]) == ["bottom left", "top left"]
    # The labels are the sentence's numbers.
    low_text, high_text = chosen["text"]
    assert f"**{high_text} sure**" in text and f"at least {low_text} sure" in text
    # Tick labels are whole percentages inside the range, in order, none crowding another.
    ticks = axis["tickvals"]
    assert len(ticks) >= 3 and all(bottom <= v <= top for v in ticks) and ticks == sorted(ticks)
    assert min(np.diff(ticks)) >= (top - bottom) / 7 - 1e-9
    assert all(label.endswith("%") and "e" not in label for label in axis["ticktext"])
    # Each tick sits where its percentage belongs on the log-odds axis.
    for value, label in zip(ticks, axis["ticktext"], strict=True):
        p = float(label[:-1]) / 100
        assert value == pytest.approx(math.log(p / (1 - p)))


def test_at_defaults_the_move_fills_a_third_of_the_belief_axis():
    """On the old 0–100% axis, Tammy's 0.7%…5.8% took 5% of the height."""
    spec, _ = _bayes_spec("0.02", "ln 3")
    bottom, top = spec["layout"]["yaxis"]["range"]
    (chosen,) = [t for t in spec["data"] if t["name"] == "at the chosen ε"]
    assert (chosen["y"][1] - chosen["y"][0]) / (top - bottom) > 1 / 3


def test_a_99_percent_prior_moves_to_a_number_that_does_not_read_as_99():
    _, text = _bayes_spec("0.99", "0.05")
    # 99·e^0.05/(99·e^0.05 + 1) = 99.048%, rounded up
    assert "**99% sure** can become at most\n**99.1% sure**" in text
