"""What DP promises: the definition on a Laplace count, the Bayesian and testing views, a game."""

from __future__ import annotations

import functools
import math

import numpy as np
import streamlit as st

from dp import (
    group_privacy,
    laplace_mechanism,
    laplace_scale,
    max_true_positive_rate,
    posterior_bounds,
)
from dp.odds import pure_release
from dp.privacy_loss import (
    laplace_density,
    laplace_guess_accuracy,
    laplace_privacy_loss,
    laplace_roc,
    max_guess_accuracy,
    simple_posterior_bounds,
)
from ui import lessons
from ui.audit import audit_panel
from ui.charts import definition as charts
from ui.deployments import deployments_panel
from ui.numbers import number
from ui.odds import odds_panel, percent_at_least, percent_at_most
from ui.params import choice_slider, epsilon_slider, number_label, range_slider
from ui.seeds import demo_seed, resample_button
from ui.share import copy_link
from ui.show import chart

SLUG = "definition"
RUG = 20  # sampled outputs per database, as in the blog's figures
LN3 = round(math.log(3), 4)  # randomized response with fair coins
BAYES_EPSILONS = [0.05, 0.1, 0.2, 0.5, 0.7, 1.0, LN3, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0]
DELTAS = [0.0, 1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.2]
GAME_EPSILONS = [0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 5.0]
GAME_COUNT = 100  # the count without Patrick; with him it is 101
GAME_HISTORY = 2000  # rounds kept for the running-accuracy chart, per ε

st.title("What DP promises")
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson
lessons.render(SLUG, "definition")


def _epsilon(key: str, default: float, label: str = "ε (privacy-loss budget)") -> float:
    return epsilon_slider(key, default, label=label)


def _tex_number(value: float) -> str:
    """A number for KaTeX: 1.221, 22{,}026 or 1.9 \\times 10^{130}."""
    if value < 1e4:
        return f"{value:.4g}"
    if value < 1e9:
        return f"{value:,.0f}".replace(",", "{,}")
    mantissa, exponent = f"{value:.1e}".split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"


def _quiz(quiz_id: str) -> None:
    st.fragment(lessons.quiz)(SLUG, quiz_id)


# --- The definition, seen ---------------------------------------------------------------


def _blog_picture(epsilon: float) -> None:
    st.session_state.update(def_fd=5, def_fdp=10, def_sens=7, def_eps=epsilon)


def _laplace_outputs(rng: np.random.Generator, n: int, value: float, sensitivity: float,
                     epsilon: float) -> np.ndarray:
    return laplace_mechanism(np.full(n, float(value)), sensitivity, epsilon, rng)


def _beyond(outputs: np.ndarray, threshold: float, side: float) -> np.ndarray:
    return side * (outputs - threshold) > 0


@st.cache_resource(max_entries=64, show_spinner=False)
def _definition_view(epsilon: float, sensitivity: int, value_d: int, value_d_prime: int, seed: tuple):
    b = laplace_scale(sensitivity, epsilon)
    x = np.union1d(np.linspace(min(value_d, value_d_prime) - 6 * b, max(value_d, value_d_prime) + 6 * b, 801),
                   [value_d, value_d_prime])
    rng = np.random.default_rng(list(seed))
    samples_d = _laplace_outputs(rng, RUG, value_d, sensitivity, epsilon)
    samples_d_prime = _laplace_outputs(rng, RUG, value_d_prime, sensitivity, epsilon)
    loss = laplace_privacy_loss(x, value_d, value_d_prime, b)
    loss_d = laplace_privacy_loss(samples_d, value_d, value_d_prime, b)
    loss_d_prime = laplace_privacy_loss(samples_d_prime, value_d, value_d_prime, b)
    figures = (
        charts.densities(x, laplace_density(x, value_d, b), laplace_density(x, value_d_prime, b),
                         value_d, value_d_prime, samples_d=samples_d, samples_d_prime=samples_d_prime,
                         title=f"Laplace-noised f at ε = {epsilon:g}: M(D) and M(D′)"),
        charts.density_ratio(x, np.exp(loss), epsilon),
        charts.privacy_loss(x, loss, epsilon, samples_d, loss_d, samples_d_prime, loss_d_prime),
    )
    gap = abs(value_d - value_d_prime)
    numbers = {
        "b": _tex_number(b), "eps": epsilon, "sens": sensitivity, "e_eps": _tex_number(math.exp(epsilon)), "gap": gap,
        "gap_loss": gap / b, "max_ratio": _tex_number(math.exp(gap / b)),
        "closer_d_prime": int(np.count_nonzero(loss_d < 0)),
        # With f(D) = f(D′) no output is strictly closer to f(D′); otherwise ½e^{−s/(2b)} of them.
        "expected_closer": RUG * (1 - laplace_guess_accuracy(value_d, value_d_prime, b)) if gap else 0.0,
        "mean_loss": float(np.mean(loss_d)), "group": math.ceil(gap / sensitivity),
    }
    return figures, numbers


@lessons.demo
def definition_demo() -> None:
    lessons.render(SLUG, "demo-intro")
    copy_link(SLUG, "definition_demo")
    controls, plot = st.columns([1, 2.2], gap="medium")
    with controls:
        epsilon = _epsilon("def_eps", 0.2)
        sensitivity = range_slider("Δ (sensitivity of f)", 1, 20, 7, "def_sens")
        value_d = range_slider("f(D)", 0, 30, 5, "def_fd")
        value_d_prime = range_slider("f(D′)", 0, 30, 10, "def_fdp")
        left, right = st.columns(2)
        left.button("Blog: ε = 0.2", key="def_blog_small", on_click=_blog_picture, args=(0.2,),
                    help="The blog's first picture: f(D) = 5, f(D′) = 10, Δ = 7, ε = 0.2.")
        right.button("Blog: ε = 10", key="def_blog_large", on_click=_blog_picture, args=(10.0,),
                     help="The blog's second picture: f(D) = 5, f(D′) = 10, Δ = 7, ε = 10.")
        resample_button("def_rug", "🎲 Draw 20 new outputs of each")
    figures, numbers = _definition_view(epsilon, sensitivity, value_d, value_d_prime,
                                        tuple(demo_seed("def_rug")))
    with plot:  # the formulas under the chart: the sliders' column is full (one screen on a projector)
        chart(figures[0], width="stretch", key="def_densities")
        lessons.render(SLUG, "formula", **numbers)
    if numbers["gap"] > sensitivity:
        st.warning(lessons.section_text(SLUG, "not-neighbours", **numbers), icon="⚠️")
    lessons.step()
    ratio, loss = st.columns(2)
    with ratio:
        chart(figures[1], key="def_ratio")
    with loss:
        chart(figures[2], key="def_loss")
    pair = "group" if numbers["gap"] > sensitivity else "neighbours"
    lessons.render(SLUG, "notice", **numbers,
                   band=lessons.section_text(SLUG, f"notice-band-{pair}", **numbers),
                   promise=lessons.section_text(SLUG, f"notice-promise-{pair}", **numbers))
    lessons.step()
    odds_panel(pure_release(epsilon), key="def", what="this release")
    deployments_panel(epsilon, key="def", what="this demo's ε")

    with st.container(border=True):
        lessons.render(SLUG, "audit")
        side = -1.0 if value_d <= value_d_prime else 1.0
        audit_panel(
            "def_audit",
            functools.partial(_laplace_outputs, value=value_d, sensitivity=sensitivity, epsilon=epsilon),
            functools.partial(_laplace_outputs, value=value_d_prime, sensitivity=sensitivity, epsilon=epsilon),
            functools.partial(_beyond, threshold=value_d, side=side),
            promised_epsilon=epsilon,
            event_label=f"output {'<' if side < 0 else '>'} f(D) = {value_d}",
            cache_key=("laplace", epsilon, sensitivity, value_d, value_d_prime),
        )


lessons.step()
definition_demo()
lessons.step()
_quiz("exact-count")


# --- The Bayesian view --------------------------------------------------------------------


def _eps_label(epsilon: float) -> str:
    return "ln 3" if epsilon == LN3 else number_label(epsilon)


def _significant(value: float, digits: int = 3, rounding=round) -> str:
    """A positive number with `digits` significant digits, never in e-notation; `rounding`
    (math.ceil or math.floor) rounds a bound outwards. The 1e-9 keeps an exact value, such as
    the odds 3 of a 75% posterior computed as 2.9999999999999996, from moving a digit."""
    decimals = max(0, digits - 1 - math.floor(math.log10(value)))
    scaled = value * 10**decimals
    if rounding is math.ceil:
        scaled = math.ceil(scaled - 1e-9 * scaled)
    elif rounding is math.floor:
        scaled = math.floor(scaled + 1e-9 * scaled)
    value = round(scaled) / 10**decimals
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _percent(probability: float) -> str:
    """A probability as a percentage that rounds to 0 or 100 only when it is exactly 0 or 1."""
    if probability <= 0 or probability >= 1:
        return f"{100 * probability:.0f}"
    if probability > 0.99:  # enough digits to stay visibly below 100, and apart from a 99% prior
        return _significant(100 * probability, max(3, 2 + math.floor(-math.log10(1 - probability))))
    return _significant(100 * probability)


def _bound(rounding, probability: float) -> str:
    """A bound on a probability as a percentage without its sign (the lesson writes the %),
    rounded outwards by ui.odds: 62.246% as "at most 62.3", 0.6757% as "at least 0.675"."""
    return rounding(float(probability)).removesuffix("%")


def _odds(probability: float, at_most: bool = False) -> str:
    """Odds in favour, as "1 to 49" or "99 to 1". As an upper bound (`at_most`) they are
    rounded up: the 1-to-x form's x down, the x-to-1 form's x up."""
    if probability <= 0.5:
        return f"1 to {_significant((1 - probability) / probability, rounding=math.floor if at_most else round)}"
    return f"{_significant(probability / (1 - probability), rounding=math.ceil if at_most else round)} to 1"


def _bayes_example(prior: float, epsilon: float) -> None:
    st.session_state.update(def_prior=prior, def_bayes_eps=epsilon)


@st.cache_resource(max_entries=64, show_spinner=False)
def _bayes_view(prior: float, epsilon: float):
    grid = np.geomspace(0.01, 10, 121)
    lower, upper = np.array([posterior_bounds(prior, e) for e in grid]).T
    simple_lower, simple_upper = simple_posterior_bounds(prior, grid)
    low, high = posterior_bounds(prior, epsilon)
    simple_low, simple_high = simple_posterior_bounds(prior, epsilon)
    numbers = {
        # bounds are rounded outwards (an "at most" up, an "at least" down)
        "prior_pct": _percent(prior), "upper_pct": _bound(percent_at_most, high),
        "lower_pct": _bound(percent_at_least, low),
        "e_eps": _tex_number(math.exp(epsilon)), "prior_odds": _odds(prior), "post_odds": _odds(high, at_most=True),
        "eps_label": _eps_label(epsilon), "simple_lower_pct": _bound(percent_at_least, simple_low),
        "simple_upper_pct": "100" if simple_high >= 1 else _bound(percent_at_most, simple_high),
    }
    figure = charts.posterior_band(grid, lower, upper, prior, epsilon, low, high, simple_lower,
                                   simple_upper, labels=(f"{numbers['lower_pct']}%", f"{numbers['upper_pct']}%"))
    return figure, numbers


@st.fragment
def bayes_demo() -> None:
    lessons.render(SLUG, "bayes-intro")
    copy_link(SLUG, "bayes_demo")
    controls, plot = st.columns([1, 2.2], gap="medium")
    with controls:
        prior = range_slider("Prior p: how sure the attacker is beforehand", 0.01, 0.99, 0.02,
                             "def_prior", step=0.01, format="%.2f")
        epsilon = choice_slider("ε of the release", BAYES_EPSILONS, LN3, "def_bayes_eps",
                                format_func=_eps_label)
        left, right = st.columns(2)
        left.button("Tammy: 2%", key="def_tammy", on_click=_bayes_example, args=(0.02, LN3),
                    help="Tammy's prior of 2% at ε = ln 3 (randomized response with fair coins).")
        right.button("Anna: 40%", key="def_anna", on_click=_bayes_example, args=(0.4, 1.0),
                     help="Anna's prior of 40% that Patrick is in the database, at ε = 1.")
    figure, numbers = _bayes_view(prior, epsilon)
    with plot:
        chart(figure, width="stretch", key="def_bayes")
    with controls:
        lessons.render(SLUG, "bayes-notice", **numbers)


lessons.step()
bayes_demo()
lessons.step()
_quiz("tammy")


# --- The hypothesis-testing view ----------------------------------------------------------


@st.cache_resource(max_entries=64, show_spinner=False)
def _testing_view(epsilon: float, delta: float):
    fpr = np.linspace(0, 1, 401)
    tpr_max = max_true_positive_rate(fpr, epsilon, delta)
    tpr_min = 1 - max_true_positive_rate(1 - fpr, epsilon, delta)
    b = laplace_scale(1, epsilon)
    roc_fpr, roc_tpr = laplace_roc(np.linspace(-12 * b, 1 + 12 * b, 400), 1.0, b)
    figure = charts.membership_region(fpr, tpr_max, tpr_min, epsilon, delta, roc_fpr, roc_tpr)
    numbers = {
        "eps": epsilon, "delta_phrase": f", δ = {number(delta, 'g')}" if delta else " (δ = 0)",
        "tpr_at_5": _bound(percent_at_most, max_true_positive_rate(0.05, epsilon, delta)),
        "best_accuracy": _bound(percent_at_most, max_guess_accuracy(epsilon, delta)),
    }
    return figure, numbers


@st.fragment
def testing_demo() -> None:
    lessons.render(SLUG, "hypothesis-intro")
    copy_link(SLUG, "testing_demo")
    controls, plot = st.columns([1, 1.6], gap="medium")
    with controls:
        epsilon = _epsilon("def_hyp_eps", 1.0)
        delta = choice_slider("δ (the slack in the guarantee)", DELTAS, 0.0, "def_hyp_delta", format_func=number_label)
    figure, numbers = _testing_view(epsilon, delta)
    with plot:
        chart(figure, width="stretch", key="def_region")
    with controls:
        # The Laplace count's threshold tests touch the boundary only when it is the δ = 0 one.
        roc = lessons.section_text(SLUG, "roc-on-edge" if delta == 0 else "roc-below-edge")
        lessons.render(SLUG, "hypothesis-notice", roc_sentence=roc, **numbers)


lessons.step()
testing_demo()


# --- Game: In or out? ---------------------------------------------------------------------


def _game() -> dict:
    """This session's game: the round number and, per ε, the tally and recent results."""
    return st.session_state.setdefault("def_game", {"round": 0, "tally": {}, "last": None})


def _game_round(round_number: int, epsilon: float) -> tuple[int, float]:
    """The secret (0: D, Patrick out; 1: D′, Patrick in) and the released count of one round."""
    rng = np.random.default_rng([*demo_seed("def_game"), round_number])
    secret = int(rng.integers(0, 2))
    return secret, laplace_mechanism(float(GAME_COUNT + secret), 1.0, epsilon, rng)


def _guess(choice: int, epsilon: float) -> None:
    game = _game()
    secret, output = _game_round(game["round"], epsilon)
    tally = game["tally"].setdefault(epsilon, {"correct": 0, "rounds": 0, "history": []})
    tally["rounds"] += 1
    tally["correct"] += int(choice == secret)
    tally["history"] = (tally["history"] + [choice == secret])[-GAME_HISTORY:]
    game["last"] = {"choice": choice, "secret": secret, "output": output, "epsilon": epsilon}
    game["round"] += 1


def _reset(epsilon: float) -> None:
    _game()["tally"].pop(epsilon, None)
    _game()["last"] = None


@st.cache_resource(max_entries=64, show_spinner=False)
def _game_density(epsilon: float, output: float):
    b = laplace_scale(1, epsilon)
    half = max(6 * b, abs(output - GAME_COUNT - 0.5) + b)
    x = np.union1d(np.linspace(GAME_COUNT + 0.5 - half, GAME_COUNT + 0.5 + half, 601),
                   [GAME_COUNT, GAME_COUNT + 1])
    return charts.densities(x, laplace_density(x, GAME_COUNT, b), laplace_density(x, GAME_COUNT + 1, b),
                            GAME_COUNT, GAME_COUNT + 1, observed=output,
                            label_d="D: Patrick out", label_d_prime="D′: Patrick in",
                            title="Which database produced this count?", x_title="released count")


@st.fragment
def game_demo() -> None:
    lessons.render(SLUG, "game-intro")
    copy_link(SLUG, "game_demo")
    game = _game()
    controls, plot = st.columns([1, 1.6], gap="medium")
    with controls:
        epsilon = choice_slider("ε for the game", GAME_EPSILONS, 1.0, "def_game_eps", format_func=number_label)
        secret, output = _game_round(game["round"], epsilon)
        st.metric(f"Round {game['round'] + 1}: the released count", f"{output:.2f}")
        out_col, in_col = st.columns(2)
        out_col.button("Out (D)", key="def_game_out", on_click=_guess, args=(0, epsilon),
                       width="stretch", help="Guess that Patrick is not in the database.")
        in_col.button("In (D′)", key="def_game_in", on_click=_guess, args=(1, epsilon),
                      width="stretch", help="Guess that Patrick is in the database.")
        last = game["last"]
        if last is not None:
            truth = "in (D′)" if last["secret"] else "out (D)"
            verdict = "✅ Right" if last["choice"] == last["secret"] else "❌ Wrong"
            st.markdown(f"{verdict}: the count {last['output']:.2f} came from Patrick **{truth}** "
                        f"(ε = {last['epsilon']:g}).")
        tally = game["tally"].get(epsilon, {"correct": 0, "rounds": 0, "history": []})
        ceiling = max_guess_accuracy(epsilon)
        laplace_best = laplace_guess_accuracy(GAME_COUNT, GAME_COUNT + 1, laplace_scale(1, epsilon))
        mine, best = st.columns(2)
        share = f"{tally['correct'] / tally['rounds']:.0%}" if tally["rounds"] else "–"
        mine.metric("Your tally", share, f"{tally['correct']} of {tally['rounds']} right",
                    delta_color="off", delta_arrow="off",
                    help="Kept for this browser session only, per ε.")
        best.metric("Best possible", f"{ceiling:.1%}", "e^ε / (1 + e^ε)", delta_color="off",
                    delta_arrow="off")
        st.button("Reset tally at this ε", key="def_game_reset", on_click=_reset, args=(epsilon,))
    with plot:
        chart(_game_density(epsilon, output), width="stretch", key="def_game_plot")
        if tally["rounds"]:
            chart(charts.game_tally(tally["history"], ceiling, laplace_best),
                  width="stretch", key="def_game_tally")
    lessons.render(SLUG, "game-notice", ceiling=ceiling, laplace_best=laplace_best,
                   shortfall=f"{100 * (ceiling - laplace_best):.1f} points")


lessons.step()
_quiz("game")
lessons.step()
game_demo()


# --- Properties ---------------------------------------------------------------------------


@st.cache_resource(max_entries=64, show_spinner=False)
def _group_view(epsilon: float, k: int):
    group_epsilon, _ = group_privacy(epsilon, 0.0, k)
    b = laplace_scale(1, epsilon)
    x = np.union1d(np.linspace(100 - 6 * b, 100 + k + 6 * b, 601), [100, 100 + k])
    figure = charts.densities(x, laplace_density(x, 100, b), laplace_density(x, 100 + k, b), 100, 100 + k,
                              label_d="without the group", label_d_prime=f"with all {k}" if k > 1 else "with them",
                              title=f"Noise for one person, ε = {epsilon:g}, hiding a group of {k}",
                              x_title="released count")
    numbers = {"eps": epsilon, "k": k, "group_eps": group_epsilon,
               "group_ratio": _tex_number(math.exp(group_epsilon)), "count_with": 100 + k,
               "weaker": "a group of one keeps the full guarantee" if k == 1
               else f"the group's guarantee is {k} times weaker"}
    return figure, numbers


@st.fragment
def properties_demo() -> None:
    lessons.render(SLUG, "properties")
    copy_link(SLUG, "properties_demo")
    controls, plot = st.columns([1, 2.2], gap="medium")
    with controls:
        k = range_slider("k (people in the group)", 1, 10, 3, "def_group_k")
        epsilon = _epsilon("def_group_eps", 0.5, "ε per person")
    figure, numbers = _group_view(epsilon, k)
    with plot:
        chart(figure, width="stretch", key="def_group")
    with controls:
        lessons.render(SLUG, "group-notice", **numbers)


lessons.step()
properties_demo()
lessons.step()
lessons.render(SLUG, "composition")
links = st.columns(2)
links[0].page_link("app_pages/composition.py", label="Composition: how ε adds up over k queries", icon="➕")
links[1].page_link("app_pages/budget.py", label="Averaging attacks and the privacy budget", icon="🧮")

lessons.step()
lessons.render(SLUG, "takeaways")
lessons.render(SLUG, "reading")
