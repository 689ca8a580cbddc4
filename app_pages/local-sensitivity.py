"""Local sensitivity and its traps: local against global sensitivity of a median, why noise
scaled to local sensitivity leaks (with an audit that catches it), and the safe fixes:
propose-test-release and smooth sensitivity, against the exponential mechanism."""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

from dp import private_median
from dp.local_sensitivity import (
    EXAMPLE_SCORES,
    SCORE_RANGE,
    TRAP_CENTRE,
    accuracy_sweep,
    best_single_guess,
    clipped_laplace_lowest_loss,
    clipped_laplace_max_loss,
    clipped_median,
    distance_to_instability,
    local_sensitivity_median,
    median_after_replacing,
    median_local_sensitivity,
    median_sensitivity_at_distance,
    median_smooth_sensitivity,
    ptr_median,
    ptr_pass_probability,
    ptr_threshold,
    reachable_medians,
    smooth_sensitivity_median,
    synthetic_scores,
    trap_pair,
)
from dp.odds import bad_event_release
from dp.privacy_loss import laplace_density
from ui import lessons, opendp_snippets
from ui.audit import audit_panel
from ui.charts import local_sensitivity as charts
from ui.odds import odds_panel
from ui.opendp_show import opendp_expander
from ui.params import (
    EPSILONS,
    choice_radio,
    choice_slider,
    delta_slider,
    epsilon_slider,
    range_slider,
)
from ui.seeds import demo_seed, resample_button
from ui.share import copy_link
from ui.show import chart

SLUG = "local-sensitivity"
LO, HI = SCORE_RANGE
DATASETS = {"spread": "Spread out", "bunched": "Bunched at the pass mark", "camps": "Two camps"}
TRAP_SPREADS = [0, 0.5, 1, 2, 5, 10]
TRAP_EPSILONS = [0.1, 0.2, 0.5, 1.0, 2.0, 3.0]
TRAP_LS_PRIME = 28.0  # LS(D′) of dp.local_sensitivity.trap_pair, for every spread
EVENT_SCALES, EVENT_CAP = 8, 35.0  # the audit's S: within 8 of D's noise scales of 60, at most 35
RUG = 20  # sampled outputs per dataset under the trap chart
AUDIT_MECHANISMS = {
    "local": "the trap: Laplace noise scaled to LS",
    "smooth": "smooth sensitivity with Cauchy noise",
    "ptr": "propose-test-release",
    "exponential": "exponential mechanism",
}
AUDIT_BOUND, AUDIT_DELTA = 5.0, 1e-6  # PTR's proposed bound and δ in the audit
CLASS_SIZES = [51, 101, 201, 501, 1001, 2001]
SAFE_DELTAS = [1e-10, 1e-8, 1e-6, 1e-4, 1e-2]
BOUNDS = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
SWEEP_EPSILONS = np.unique(np.concatenate((np.geomspace(0.01, 10, 31), EPSILONS)))
CHART = {"width": "stretch", "config": {"displaylogo": False}}


def _scores(values) -> str:
    return " ".join(f"{v:g}" for v in values)


st.title("Local sensitivity and its traps")
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson
st.info(lessons.section_text(SLUG, "neighbours"), icon="🤝")


# --- 1. Local versus global sensitivity -----------------------------------------------------

lessons.step("Local versus global sensitivity")
lessons.render(SLUG, "local-intro")


# Views are cached as objects (st.cache_resource; nothing mutates the figures), so a rerun
# that changes nothing in a demo rebuilds nothing.
@st.cache_resource(max_entries=64, show_spinner=False)
def _local_view(name: str, person: int, new_score: int) -> dict:
    """Class `name` with student `person` (by rank) re-marked to `new_score`: charts and numbers."""
    data = np.array(EXAMPLE_SCORES[name])
    index = person - 1  # the example scores are sorted, so rank = position
    changed = data.copy()
    changed[index] = new_score
    median, new_median = clipped_median(data, LO, HI), clipped_median(changed, LO, HI)
    reach = reachable_medians(data, LO, HI)
    local = median_local_sensitivity(data, LO, HI)
    values = np.linspace(LO, HI, 201)
    medians = median_after_replacing(data, index, values, LO, HI)
    return {
        "strip": charts.strip_chart(data, changed, index, LO, HI, median, new_median, reach),
        "ramp": charts.replacement_chart(values, medians, new_score, new_median, median, reach, LO, HI),
        "facts": {"median": median, "new_median": new_median, "low": reach[0], "high": reach[1],
                  "local": local, "glob": HI - LO, "old": data[index], "new": new_score, "rank": person,
                  "own_low": float(medians.min()), "own_high": float(medians.max()),
                  "moved": abs(new_median - median), "ratio": (HI - LO) / local if local else 0.0},
    }


@lessons.demo
def local_vs_global() -> None:
    copy_link(SLUG, "local_vs_global")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        name = choice_radio("Eleven exam scores", list(DATASETS), "spread", "ls_data", format_func=DATASETS.get)
        person = range_slider("Which student changes (1 = lowest score)", 1, 11, 6, "ls_person")
        new_score = range_slider("Their new score", 0, 100, 90, "ls_new")
    view = _local_view(name, person, new_score)
    facts = view["facts"]
    with plot:
        chart(view["strip"], key="ls_strip", **CHART)
    with controls:  # two rows of two under the controls (under the chart, a projector's bar covered them)
        (median_d, median_d_prime), (local, global_) = st.columns(2), st.columns(2)
        median_d.metric("Median of D", f"{facts['median']:g}")
        median_d_prime.metric("Median of D′", f"{facts['new_median']:g}",
                              delta=f"{facts['new_median'] - facts['median']:+g}", delta_color="off")
        local.metric("Local LS(D)", f"{facts['local']:g}", help="The most one changed score can move the "
                                                               "median of this dataset.")
        global_.metric("Global Δ", f"{HI - LO:g}", help="The most one changed score can move the median "
                                                       "of any dataset of scores in 0–100.")
    # In presenter mode the second chart is a screen of its own.
    lessons.step()
    chart(view["ramp"], key="ls_ramp", **CHART)
    lessons.render(SLUG, "local-notice-zero" if facts["local"] == 0 else "local-notice", **facts)


lessons.step()  # in presenter mode the two formulas are a screen of their own, the demo the next
local_vs_global()


# --- 2. The trap ------------------------------------------------------------------------------

lessons.step("The trap: noise scaled to local sensitivity")
lessons.render(SLUG, "trap-intro")
lessons.quiz(SLUG, "zero-noise")


def _trap_outputs(mechanism: str, data: tuple, epsilon: float, rng, n: int) -> np.ndarray:
    """n outputs of one of the page's median mechanisms on `data` (a module-level sampler,
    so ui.audit can cache on it)."""
    data = np.asarray(data)
    if mechanism == "local":
        return local_sensitivity_median(data, LO, HI, epsilon, rng, size=n)
    if mechanism == "smooth":
        return smooth_sensitivity_median(data, LO, HI, epsilon, rng, size=n)
    if mechanism == "ptr":
        return ptr_median(data, LO, HI, epsilon, AUDIT_DELTA, AUDIT_BOUND, rng, size=n)
    return private_median(data, LO, HI, epsilon, rng, size=n)


def _within(radius: float, outputs) -> np.ndarray:
    return np.abs(np.asarray(outputs) - TRAP_CENTRE) <= radius


@st.cache_resource(max_entries=64, show_spinner=False)
def _trap_view(spread: float, epsilon: float, seed: tuple) -> dict:
    """The trap pair at spread s: densities of median + Lap(LS/ε), 20 releases each, the loss."""
    d, d_prime = trap_pair(spread)
    local_d, local_d_prime = (median_local_sensitivity(x, LO, HI) for x in (d, d_prime))
    b_d, b_d_prime = local_d / epsilon, local_d_prime / epsilon
    radius = min(EVENT_SCALES * b_d, EVENT_CAP)
    x = np.union1d(np.linspace(LO, HI, 801), [TRAP_CENTRE])
    density_d = laplace_density(x, TRAP_CENTRE, b_d) if b_d > 0 else None
    density_d_prime = laplace_density(x, TRAP_CENTRE, b_d_prime)
    rng = np.random.default_rng(list(seed))
    samples_d = local_sensitivity_median(d, LO, HI, epsilon, rng, size=RUG)
    samples_d_prime = local_sensitivity_median(d_prime, LO, HI, epsilon, rng, size=RUG)
    facts = {"d": _scores(np.sort(d)), "d_prime": _scores(np.sort(d_prime)), "s": spread, "eps": epsilon,
             "ls_d": local_d, "ls_d_prime": local_d_prime, "b_d": b_d, "b_d_prime": b_d_prime,
             "low_s": TRAP_CENTRE - spread, "high_s": TRAP_CENTRE + spread,
             "exact_d": int(np.sum(samples_d == TRAP_CENTRE)), "rug": RUG,
             "success": best_single_guess(TRAP_CENTRE, b_d, b_d_prime, LO, HI),
             "max_loss": clipped_laplace_max_loss(TRAP_CENTRE, b_d, b_d_prime, LO, HI),
             "smooth_d": median_smooth_sensitivity(d, LO, HI, epsilon / 6),
             "smooth_d_prime": median_smooth_sensitivity(d_prime, LO, HI, epsilon / 6),
             "smooth_factor": float(np.exp(epsilon / 6)),
             "spread_d": float(np.ptp(samples_d)), "spread_d_prime": float(np.ptp(samples_d_prime))}
    view = {"d": d, "d_prime": d_prime, "radius": radius, "facts": facts, "loss": None,
            "chart": charts.trap_chart(x, density_d, density_d_prime, TRAP_CENTRE, b_d, b_d_prime,
                                       samples_d, samples_d_prime, radius)}
    if density_d is not None:
        loss = np.log(density_d / density_d_prime)
        ratio = local_d_prime / local_d
        view["loss"] = charts.trap_loss_chart(x, loss, epsilon)
        # the lowest loss is the clipping atom at 0, below the density's value at the edge
        facts.update(ratio=ratio, log_ratio=float(np.log(ratio)), loss_edge=float(loss.min()),
                     loss_far=clipped_laplace_lowest_loss(TRAP_CENTRE, b_d, b_d_prime, LO, HI))
    return view


@lessons.demo
def trap() -> None:
    copy_link(SLUG, "trap")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        spread = choice_slider("s: how far D's middle scores sit from 60", TRAP_SPREADS, 1, "ls_trap_s")
        epsilon = choice_slider("ε claimed by the mechanism", TRAP_EPSILONS, 1.0, "ls_trap_eps")
        resample_button("ls_trap", "🎲 Release 20 more from each")
    view = _trap_view(spread, epsilon, tuple(demo_seed("ls_trap")))
    d, d_prime, radius, facts = view["d"], view["d_prime"], view["radius"], view["facts"]
    with controls:
        lessons.render(SLUG, "trap-data", **facts)
    with plot:
        chart(view["chart"], key="ls_trap_chart", **CHART)
    lessons.step()  # in presenter mode the privacy loss is a screen of its own
    if view["loss"] is not None:
        loss_plot, loss_text = st.columns([2, 1], gap="large")
        with loss_plot:
            chart(view["loss"], key="ls_trap_loss", **CHART)
        over_centre = facts["log_ratio"] > epsilon
        with loss_text:
            lessons.render(
                SLUG, "trap-notice",
                centre_text=lessons.section_text(
                    SLUG, "trap-centre-over" if over_centre else "trap-centre-within", **facts),
                # the atom at 0 has loss −60·ε·(1/s − 1/28) < −ε for every s ≤ 10 offered
                tail_text=lessons.section_text(SLUG, "trap-tail", **facts),
                guess_text=lessons.section_text(
                    SLUG, "trap-guess-easy" if facts["success"] >= 0.9 else "trap-guess-hard", **facts),
                **facts)
    else:
        lessons.render(SLUG, "trap-notice-zero", **facts)

    lessons.step("Check the guarantee", level="subheader")
    event_text = lessons.section_text(
        SLUG, "audit-event-point" if radius == 0
        else "audit-event-capped" if radius == EVENT_CAP else "audit-event-scales")
    lessons.render(SLUG, "audit-intro", radius=radius, eps=epsilon, s=spread, event_text=event_text,
                   event="{y = 60 exactly}" if radius == 0 else f"{{|y − 60| ≤ {radius:.3g}}}")
    mechanism = choice_radio("Mechanism to audit", list(AUDIT_MECHANISMS), "local", "ls_aud_mech",
                             format_func=AUDIT_MECHANISMS.get)
    resample_button("ls_audit", "🎲 Draw new audit samples")
    sampler = functools.partial(_trap_outputs, mechanism)
    certified = audit_panel(
        "ls_audit", functools.partial(sampler, tuple(d), epsilon), functools.partial(sampler, tuple(d_prime), epsilon),
        functools.partial(_within, radius), promised_epsilon=epsilon,
        event_label=f"{{|y − 60| ≤ {radius:.3g}}}", cache_key=("ls_audit", mechanism, spread, epsilon))
    outcome = "caught" if certified > epsilon else "passed"
    true_loss = lessons.section_text(
        SLUG, "true-loss-infinite" if np.isinf(facts["max_loss"]) else "true-loss-finite", **facts)
    lessons.render(SLUG, f"audit-{mechanism}-{outcome}", eps=epsilon, certified=certified, s=spread,
                   bound=AUDIT_BOUND, delta=AUDIT_DELTA, true_loss=true_loss,
                   **{key: facts[key] for key in ("smooth_d", "smooth_d_prime", "smooth_factor")})


lessons.step()
trap()


# --- 3. Safe alternatives ---------------------------------------------------------------------

lessons.step("Safe alternatives: propose-test-release and smooth sensitivity")
lessons.render(SLUG, "safe-intro")
lessons.quiz(SLUG, "ptr-small")


@st.cache_data(max_entries=32, show_spinner=False)
def _class_view(n: int, delta: float, bound: float, seed: list) -> dict:
    """The seeded class of n scores, its A⁽ᵏ⁾ curve and the accuracy of every mechanism."""
    data = synthetic_scores(n, np.random.default_rng(seed))
    return {"data": data, "reach": median_sensitivity_at_distance(data, LO, HI),
            "sweep": accuracy_sweep(data, LO, HI, SWEEP_EPSILONS, delta, bound)}


@st.cache_data(max_entries=64, show_spinner=False)
def _class_releases(n: int, delta: float, bound: float, epsilon: float, seed: list) -> dict:
    """Everything at one ε: smooth sensitivity, PTR's distance and odds, one release of each."""
    data = _class_view(n, delta, bound, seed)["data"]
    distance = distance_to_instability(data, LO, HI, bound)
    # an independent child of the stream that drew the class
    rng = np.random.default_rng(seed).spawn(1)[0]
    return {"median": clipped_median(data, LO, HI), "distance": distance,
            "smooth": median_smooth_sensitivity(data, LO, HI, epsilon / 6),
            "answers": ptr_pass_probability(distance, epsilon, delta),
            "released": {"exponential": float(private_median(data, LO, HI, epsilon, rng)),
                         "smooth": float(smooth_sensitivity_median(data, LO, HI, epsilon, rng)),
                         "ptr": float(ptr_median(data, LO, HI, epsilon, delta, bound, rng))}}


@st.cache_resource(max_entries=64, show_spinner=False)
def _distance_figure(n: int, delta: float, bound: float, epsilon: float, seed: tuple):
    at_epsilon = _class_releases(n, delta, bound, epsilon, list(seed))
    return charts.distance_chart(_class_view(n, delta, bound, list(seed))["reach"], epsilon / 6,
                                 at_epsilon["smooth"], bound, at_epsilon["distance"],
                                 ptr_threshold(epsilon, delta))


@st.cache_resource(max_entries=64, show_spinner=False)
def _accuracy_figure(n: int, delta: float, bound: float, epsilon: float, seed: tuple):
    return charts.accuracy_chart(SWEEP_EPSILONS, _class_view(n, delta, bound, list(seed))["sweep"], epsilon)


@lessons.demo
def safe_alternatives() -> None:
    copy_link(SLUG, "safe_alternatives")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        n = choice_slider("n (students in the class)", CLASS_SIZES, 1001, "ls_n",
                          format_func=lambda v: f"{v:,}")
        epsilon = epsilon_slider("ls_eps", 1.0)
        delta = delta_slider("ls_delta", 1e-6, SAFE_DELTAS, label="δ (for PTR only)")
        bound = choice_slider("Δ̂: PTR's proposed bound on LS (points)", BOUNDS, 2.0, "ls_bound")
        resample_button("ls_safe", "🎲 New class and new releases")
    seed = tuple(demo_seed("ls_safe"))
    view = _class_view(n, delta, bound, list(seed))
    reach, sweep = view["reach"], view["sweep"]
    at_epsilon = _class_releases(n, delta, bound, epsilon, list(seed))
    median, smooth, distance = at_epsilon["median"], at_epsilon["smooth"], at_epsilon["distance"]
    answers, released = at_epsilon["answers"], at_epsilon["released"]
    threshold = ptr_threshold(epsilon, delta)
    at = int(np.argmin(np.abs(SWEEP_EPSILONS - epsilon)))
    errors = {key: float(sweep[key][at]) for key in ("exponential", "smooth", "ptr", "global", "local")}
    with plot:
        chart(_distance_figure(n, delta, bound, epsilon, seed), key="ls_distance", **CHART)
    lessons.step()  # in presenter mode this release's numbers and its odds are the next screen
    with st.container(horizontal=True, gap="medium"):  # one row under the demo; wraps on a phone
        st.metric("True median", f"{median:.2f}")
        st.metric("Local LS", f"{reach[0]:.2g}")
        st.metric("Smooth S", f"{smooth:.2g}", help="S = max over k of e^(−kε/6)·A⁽ᵏ⁾")
        st.metric("PTR answers", f"{answers:.1%}",
                  help=f"distance {distance:g} against the threshold {threshold:.3g}")
    facts = {"n": f"{n:,}", "eps": epsilon, "delta": delta, "bound": bound, "median": median,
             "local": reach[0], "smooth": smooth, "beta": epsilon / 6, "noise": 2 * smooth / epsilon,
             "distance": distance, "threshold": threshold,
             # a chance as text, never 100.0% or 0.00% unless it is exactly that
             "answers": (f"{answers:.1%}" if answers >= 0.5 and (answers == 1 or answers < 0.9995)
                         else "over 99.9%" if answers >= 0.5
                         else f"{answers:.2%}" if answers == 0 or answers >= 5e-5
                         else "less than 0.01%"),
             "ptr_noise": 2 * bound / epsilon,
             "exceeds": lessons.section_text(
                 SLUG, "ptr-exceeds-after" if distance > 0 else "ptr-exceeds-already",
                 bound=bound, distance=distance),
             "rel_exponential": released["exponential"], "rel_smooth": released["smooth"],
             "rel_ptr": "⊥ (no answer)" if np.isnan(released["ptr"]) else f"{released['ptr']:.2f}",
             **{f"err_{key}": value for key, value in errors.items()}}
    lessons.render(SLUG, "safe-notice-ptr-answers" if answers >= 0.5 else "safe-notice-ptr-refuses", **facts)
    # PTR exceeds ε only when its test passes where LS is above Δ̂: chance δ/2 (ptr_pass_probability)
    odds_panel(bad_event_release(epsilon, delta, ptr_pass_probability(0, epsilon, delta), units=n), key="ls",
               what="each release (the δ exception: PTR only)")
    opendp_expander(opendp_snippets.median(epsilon, LO, HI, n))  # the exponential-mechanism median
    lessons.step("Accuracy against the exponential mechanism", level="subheader")
    lessons.quiz(SLUG, "which-wins")
    lessons.step()  # predict on one screen, see the chart on the next
    acc_plot, acc_text = st.columns([2, 1], gap="large")
    with acc_plot:
        chart(_accuracy_figure(n, delta, bound, epsilon, seed), key="ls_accuracy", **CHART)
    with acc_text:
        trap_line = lessons.section_text(
            SLUG, "releases-trap-tempting" if errors["local"] < errors["exponential"]
            else "releases-trap-not-even", **facts)
        lessons.render(SLUG, "releases", trap_line=trap_line, **facts)
        contenders = ["exponential", "smooth"] + (["ptr"] if answers >= 0.5 else [])
        lessons.render(SLUG, f"accuracy-{min(contenders, key=errors.get)}", **facts)


lessons.step()
safe_alternatives()

lessons.step("Takeaways")
lessons.render(SLUG, "takeaways")
lessons.render(SLUG, "reading")
