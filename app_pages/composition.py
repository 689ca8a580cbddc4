"""Composition: how privacy loss adds up over k queries, groups, and post-processing."""

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import streamlit as st

from dp import basic_composition, group_privacy, laplace_mechanism, posterior_bounds
from dp.accounting import gaussian_zcdp_rho
from dp.composition_curves import (
    advanced_crossover,
    advanced_terms,
    gaussian_curves,
    laplace_curve,
    pure_dp_curves,
)
from dp.composition_table import tabulated
from dp.odds import gaussian_release, laplace_sum_release
from dp.postprocessing import STEPS, post_process
from ui import lessons
from ui.charts import composition as charts
from ui.deployments import deployments_panel
from ui.numbers import number
from ui.odds import odds_panel, percent_at_least, percent_at_most
from ui.params import (
    choice_pills,
    choice_radio,
    choice_slider,
    delta_slider,
    epsilon_slider,
    log_options,
    range_slider,
)
from ui.seeds import resample_button, rng_for
from ui.share import copy_link
from ui.show import chart

SLUG = "composition"
CHART = {"width": "stretch", "config": {"displaylogo": False}}
K_MAX = 10_000
K_OPTIONS = [int(k) for k in log_options(1, K_MAX, 3)]  # 1, 2, 5, 10, …, 10⁴
# The cheap bounds on ~45 log-spaced k; they include every k the slider offers.
DENSE_KS = tuple(sorted({*np.unique(np.round(np.logspace(0, 4, 41))).astype(int).tolist(),
                         *K_OPTIONS}))
# The exact Laplace accountant works on ~100·k grid points beyond k ≈ 650 (k = 10⁴ alone
# takes ~0.1 s), so it runs on a sparse grid: the points up to 1000 are drawn first, the
# costly ones second. k = 5000 (another ~0.05 s) is only computed when it is your k.
LAPLACE_FAST = tuple(k for k in K_OPTIONS if k <= 1000)
LAPLACE_SLOW = (2000, K_MAX)
SIGMAS = log_options(0.5, 200, 6)
PURE, GAUSS = "ε-DP queries (Laplace)", "Gaussian queries (σ)"
GROUP_SIZES = list(range(1, 21))
PRIOR = 0.5
VILLAGE, TRUE_COUNT = 200, 3
STEP_LABELS = {"round": "Round", "clamp": "Clamp to [0, n]", "percent": "As % of n"}
STEP_ACTIONS = {"round": "round to a whole number", "clamp": "clamp into [0, n]",
                "percent": "turn into a % of n"}


def fmt(x: float) -> str:
    return f"{x:,.4g}" if abs(x) < 1e4 else f"{x:,.0f}"


def advanced_vs_basic(curves: dict, k: int, values: dict) -> str:
    """Advanced against basic composition for Gaussian queries, at this k and over the slider:
    at σ ≤ 3 advanced loses at every k up to 10⁴, at σ = 10 it wins only from k = 500 on
    (δ′ = 10⁻⁶); so no "for small k" without the numbers behind it."""
    advanced, basic = np.asarray(curves["advanced"]), np.asarray(curves["basic"])
    if at_k(DENSE_KS, advanced, k) < at_k(DENSE_KS, basic, k):
        return lessons.section_text(SLUG, "advanced-beats", **values)
    losing = np.flatnonzero(advanced >= basic)  # on the grid of every k the slider offers
    if losing[-1] == len(DENSE_KS) - 1:
        return lessons.section_text(SLUG, "advanced-never", **values)
    return lessons.section_text(SLUG, "advanced-later", advanced_from=DENSE_KS[losing[-1] + 1],
                                **values)


def belief_ceiling(p: float) -> str:
    """The most a belief can rise to, rounded up; past 99.9% the digits stop meaning anything."""
    return f"at most {percent_at_most(p)}" if p <= 0.999 else "more than 99.9%, all but certainty"


def belief_floor(p: float) -> str:
    """The least a belief can fall to, rounded down."""
    return f"no less than {percent_at_least(p)}" if p >= 0.001 else "less than 0.1%"


@st.cache_data(max_entries=256, show_spinner=False)
def pure_curves(epsilon: float, delta: float) -> dict:
    return pure_dp_curves(epsilon, DENSE_KS, delta)


@st.cache_data(max_entries=256, show_spinner=False)
def laplace_values(epsilon: float, delta: float, ks: tuple[int, ...]) -> np.ndarray:
    """The points are independent: run them on two threads, largest k first (numpy and
    scipy's FFT release the GIL, so two free cores halve the wait)."""
    order = sorted(ks, reverse=True)
    with ThreadPoolExecutor(2) as pool:
        values = dict(zip(order, pool.map(lambda k: laplace_curve(epsilon, [k], delta)[0], order),
                          strict=True))
    return np.array([values[k] for k in ks])


@st.cache_data(max_entries=256, show_spinner=False)
def gauss_curves(sigma: float, delta: float) -> dict:
    return gaussian_curves(sigma, DENSE_KS, delta)


def laplace_points(epsilon: float, delta: float, k: int) -> tuple[list[int], np.ndarray]:
    """The exact Laplace curve on its grid, plus your k if it is not on the grid."""
    ks = sorted({*LAPLACE_FAST, *LAPLACE_SLOW, k})
    values = {**dict(zip(LAPLACE_FAST, laplace_values(epsilon, delta, LAPLACE_FAST), strict=True)),
              **dict(zip(LAPLACE_SLOW, laplace_values(epsilon, delta, LAPLACE_SLOW), strict=True))}
    if k not in values:
        values[k] = laplace_values(epsilon, delta, (k,))[0]
    return ks, np.array([values[x] for x in ks])


def at_k(ks, values, k: int) -> float:
    return float(np.asarray(values)[list(ks).index(k)])


# Figures are cached as objects (st.cache_resource; nothing mutates them), so a rerun that
# changes nothing in a demo rebuilds nothing.
@st.cache_resource(max_entries=64, show_spinner=False)
def pure_figure(epsilon: float, delta: float, k: int, complete: bool):
    """The ε-DP comparison; without `complete`, the exact Laplace curve stops at k = 1000."""
    base = pure_curves(epsilon, delta)
    if complete:
        laplace_ks, laplace = laplace_points(epsilon, delta, k)
    else:
        laplace_ks, laplace = LAPLACE_FAST, laplace_values(epsilon, delta, LAPLACE_FAST)
    crossover = advanced_crossover(epsilon, delta)
    ks = np.array(DENSE_KS)
    return charts.composition_chart([
        charts.Curve("basic: kε", ks, base["basic"], charts.BASIC),
        charts.Curve("advanced (DRV)", ks, base["advanced"], charts.ADVANCED),
        charts.Curve("optimal (KOV)", ks, base["optimal"], charts.OPTIMAL),
        charts.Curve("exact Laplace" + ("" if complete else " (computing k > 1000…)"),
                     np.array(laplace_ks), laplace, charts.EXACT, markers=True),
    ], k, f"Total ε after k queries of ε = {epsilon:g}",
        crossover if np.isfinite(crossover) else None, K_MAX)


@st.cache_resource(max_entries=64, show_spinner=False)
def gauss_figure(sigma: float, delta: float, k: int):
    curves, ks = gauss_curves(sigma, delta), np.array(DENSE_KS)
    return charts.composition_chart([
        charts.Curve("basic (δ′ split)", ks, curves["basic"], charts.BASIC),
        charts.Curve("advanced (δ′ split)", ks, curves["advanced"], charts.ADVANCED),
        charts.Curve("zCDP, converted", ks, curves["zcdp"], charts.ZCDP),
        charts.Curve("exact Gaussian", ks, curves["exact"], charts.EXACT),
    ], k, f"Total ε after k queries, σ = {sigma:g}", None, K_MAX)


@st.cache_resource(max_entries=64, show_spinner=False)
def group_view(epsilon: float, delta: float, g: int) -> dict:
    """Group ε and δ for g people, the attacker's belief band for every group size, the chart."""
    group_eps = [group_privacy(epsilon, delta, size)[0] for size in GROUP_SIZES]
    bounds = [posterior_bounds(PRIOR, e) for e in group_eps]
    lower, upper = np.array([b[0] for b in bounds]), np.array([b[1] for b in bounds])
    eps_g, delta_g = group_privacy(epsilon, delta, g)
    figure = charts.group_chart(np.array(GROUP_SIZES), lower, upper, g, epsilon, PRIOR)
    return {"lower": lower, "upper": upper, "eps_g": eps_g, "delta_g": delta_g, "figure": figure}


@st.cache_resource(max_entries=64, show_spinner=False)
def ledger_figure(epsilon: float, extra: int, steps: tuple[str, ...]):
    """One row per action; only answers from the database spend budget."""
    ledger = [(f"answer {i + 1} from the database", True) for i in range(1 + extra)]
    if extra:
        ledger.append((f"average the {1 + extra} answers", False))
    ledger += [(STEP_ACTIONS[s], False) for s in STEPS if s in steps]
    return charts.ledger_chart([a for a, _ in ledger], [epsilon if t else 0.0 for _, t in ledger],
                               [t for _, t in ledger])


st.title("Composition")
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson
lessons.step()
lessons.quiz(SLUG, "advanced-small-k")


@lessons.demo
def compare():
    lessons.step("Composition, compared")
    lessons.render(SLUG, "compare-intro")
    copy_link(SLUG, "compare")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        mode = choice_radio("The queries are", [PURE, GAUSS], PURE, "comp_mode")
        if mode == PURE:
            epsilon = epsilon_slider("comp_eps", 0.1, label="ε per query")
        else:
            sigma = choice_slider("σ (Gaussian noise per query, Δ₂ = 1)", SIGMAS, 10.0, "comp_sigma")
        delta = delta_slider("comp_delta", 1e-6, label="δ′ (total δ you accept)")
        k = choice_slider("k (your number of queries)", K_OPTIONS, 10, "comp_k")
    with plot:
        slot = st.empty()
    if mode == PURE:
        seen = st.session_state.setdefault("comp_laplace_seen", set())
        # cold and off the precomputed grid: draw what is ready, then the rest
        if (epsilon, delta) not in seen and not tabulated(epsilon, delta):
            with slot.container():
                chart(pure_figure(epsilon, delta, k, False), key="comp_chart_partial", **CHART)
        with slot.container():
            chart(pure_figure(epsilon, delta, k, True), key="comp_chart", **CHART)
        seen.add((epsilon, delta))
        base = pure_curves(epsilon, delta)
        laplace_ks, laplace = laplace_points(epsilon, delta, k)
        crossover = advanced_crossover(epsilon, delta)
        terms = advanced_terms(epsilon, k, delta)
        values = {"k": f"{k:,}", "queries": "query" if k == 1 else "queries", "eps": epsilon,
                  "delta": f"{delta:g}", "kstar": crossover,
                  "basic": fmt(at_k(DENSE_KS, base["basic"], k)),
                  "advanced": fmt(at_k(DENSE_KS, base["advanced"], k)),
                  "optimal": fmt(at_k(DENSE_KS, base["optimal"], k)),
                  "laplace": fmt(at_k(laplace_ks, laplace, k)),
                  "first": fmt(terms["first"]), "second": fmt(terms["second"]),
                  "root": terms["root"], "slope": terms["slope"],
                  "linear_from": terms["linear_from"]}
        shown = ["numbers-pure"]
        if not np.isfinite(crossover):
            if values["optimal"] != values["basic"]:
                never = "never-optimal-under"
            elif values["laplace"] == values["basic"]:
                never = "never-optimal-same"
            else:
                never = "never-optimal-same-laplace-under"
            values["optimal_text"] = lessons.section_text(SLUG, never, **values)
            shown.append("notice-pure-never")
        elif k < crossover:
            same = values["laplace"] == values["optimal"]
            values["optimal_text"] = lessons.section_text(
                SLUG, "optimal-same-laplace" if same else "optimal-below-laplace", **values)
            shown.append("notice-pure-below")
        else:
            values["growth"] = lessons.section_text(
                SLUG, "growth-linear" if terms["second"] > terms["first"] else "growth-sqrt",
                **values)
            shown.append("notice-pure-above")
    else:
        with slot.container():
            chart(gauss_figure(sigma, delta, k), key="comp_chart_gauss", **CHART)
        curves = gauss_curves(sigma, delta)
        exact = at_k(DENSE_KS, curves["exact"], k)
        zcdp = at_k(DENSE_KS, curves["zcdp"], k)
        rho = k * gaussian_zcdp_rho(sigma)
        four_ln = 4 * np.log(1 / delta)
        values = {"k": f"{k:,}", "queries": "query" if k == 1 else "queries", "sigma": sigma,
                  "delta": f"{delta:g}",
                  "eps0": fmt(at_k(DENSE_KS, curves["exact"], 1)),
                  "basic": fmt(at_k(DENSE_KS, curves["basic"], k)),
                  "advanced": fmt(at_k(DENSE_KS, curves["advanced"], k)),
                  "zcdp": fmt(zcdp), "exact": fmt(exact), "rho": rho, "four_ln": four_ln}
        if exact > 0:
            ratio = zcdp / exact
            values["zcdp_gap"] = (f"{ratio - 1:.0%} above it" if ratio < 2
                                  else f"{ratio:.1f} times as much")
        values["eps_basic"] = fmt(at_k(DENSE_KS, curves["basic"], k) / k)  # ε₀ at δ′/k
        values["advanced_text"] = advanced_vs_basic(curves, k, values)
        values["rho_text"] = lessons.section_text(
            SLUG, "rho-small" if rho < 0.1 * four_ln else "rho-medium" if rho < four_ln
            else "rho-large", **values)
        shown = ["numbers-gauss", "notice-gauss" if exact > 0 else "notice-gauss-zero"]
    # On the projector the numbers behind the chart are the next screen.
    lessons.step()
    for name in shown:
        lessons.render(SLUG, name, **values)
    total = float(at_k(laplace_ks, laplace, k)) if mode == PURE else float(exact)
    lessons.step()  # what the total means: a screen of its own on the projector
    if total > 0:  # a Gaussian total of 0: δ alone covers it
        release = (laplace_sum_release(total, delta, epsilon, k) if mode == PURE
                   else gaussian_release(total, delta, math.sqrt(k) / sigma))
        odds_panel(release, key="comp", what=f"the release of all {k:,} answers" if k > 1 else "the one query")
    deployments_panel(total or None, key="comp", what=f"the total ε for k = {k:,}")


compare()

lessons.step("Which bound to use when", level="subheader")
lessons.render(SLUG, "which-bound")

lessons.step("Group privacy: a family of g")
lessons.render(SLUG, "group-intro")
lessons.quiz(SLUG, "family")


@st.fragment
def groups():
    copy_link(SLUG, "groups")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        epsilon = epsilon_slider("comp_grp_eps", 0.5, label="ε per person")
        g = range_slider("g (people in the group)", 1, GROUP_SIZES[-1], 4, "comp_grp_g")
        delta = delta_slider("comp_grp_delta", 1e-6, label="δ per person")
    view = group_view(epsilon, delta, g)
    with controls:
        left, right = st.columns(2)
        left.metric("ε for the group", number(view["eps_g"]))
        right.metric("δ for the group", number(view["delta_g"], ".2g"))
    with plot:
        chart(view["figure"], key="comp_grp_chart", **CHART)
    if g == 1:
        notice, delta_text = "group-notice-one", "group-delta-exception"
    else:  # a group δ of 1 promises nothing: no ceiling at all, whatever ε says
        notice = "group-notice"
        delta_text = "group-delta-below-one" if view["delta_g"] < 1 else "group-delta-one"
    values = {"eps": epsilon, "g": g, "eps_g": view["eps_g"], "delta": delta,
              "delta_g": view["delta_g"]}
    lessons.render(SLUG, notice, **values,
                   delta_text=lessons.section_text(SLUG, delta_text, **values),
                   upper=belief_ceiling(view["upper"][g - 1]),
                   lower=belief_floor(view["lower"][g - 1]),
                   single=percent_at_most(view["upper"][0]))


lessons.step()
groups()

lessons.step("Post-processing never spends budget")
lessons.render(SLUG, "post-intro", n=VILLAGE, true_count=TRUE_COUNT)
lessons.quiz(SLUG, "post-free")


@st.fragment
def post_processing():
    copy_link(SLUG, "post_processing")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        epsilon = epsilon_slider("comp_pp_eps", 0.5, label="ε per answer")
        steps = choice_pills("Post-process the released number", list(STEPS), ["round", "clamp"],
                             "comp_pp_steps", format_func=STEP_LABELS.get)
        extra = range_slider("Ask the database again, this many times", 0, 9, 0, "comp_pp_asks")
        resample_button("comp_pp", "🎲 New noise")
    answers = np.atleast_1d(laplace_mechanism(np.full(1 + extra, float(TRUE_COUNT)), 1.0, epsilon,
                                              rng_for("comp_pp")))
    shown = post_process(float(answers.mean()), VILLAGE, steps)
    total, _ = basic_composition([epsilon] * (1 + extra))
    unit = "%" if "percent" in steps else ""
    with controls:
        left, right = st.columns(2)
        left.metric("Published value", f"{shown:.2f}{unit}")
        right.metric("Budget spent", f"ε = {total:.3g}")
    with plot:
        chart(ledger_figure(epsilon, extra, tuple(steps)), key="comp_pp_chart", **CHART)
    lessons.render(SLUG, "post-notice", first=float(answers[0]), eps=epsilon, asks=1 + extra,
                   total=total, shown=f"{shown:.2f}{unit}")


lessons.step()
post_processing()

lessons.step("Why a budget at all: the fundamental law")
lessons.render(SLUG, "law")
links = st.columns(2)
links[0].page_link("app_pages/anonymisation.py", label="Why anonymisation fails: the reconstruction "
                   "attack", icon="🕵️")
links[1].page_link("app_pages/budget.py", label="Next: averaging attacks and the privacy budget",
                   icon="🧮")

lessons.step("Takeaways")
lessons.render(SLUG, "takeaways")
lessons.render(SLUG, "reading")
