import functools
import math

import numpy as np
import pandas as pd
import streamlit as st

from dp import (
    auction,
    exponential_mechanism,
    exponential_probabilities,
    medians,
    private_median,
    private_median_probabilities,
)
from dp.odds import pure_release
from ui import lessons, opendp_snippets
from ui.audit import audit_panel
from ui.charts import exponential as charts
from ui.numbers import number
from ui.odds import odds_panel
from ui.opendp_show import opendp_expander
from ui.params import (
    EPSILONS,
    bound_toggle,
    choice_radio,
    choice_slider,
    epsilon_slider,
    link_values,
    n_slider,
    note_if_ignored,
    range_slider,
)
from ui.presenter import presenter_mode
from ui.seeds import demo_seed, resample_button
from ui.share import copy_link
from ui.show import chart
from ui.tables import reset_table, table_editor

SLUG = "exponential"
TABS = ["Selection", "Most common disease", "Private median", "Auction", "Coin bias", "Check the guarantee"]

MAX_CANDIDATES, MAX_SCORE = 30, 1e9
MAX_BIDS, MAX_BID = 50, 1e6
DEFAULT_CANDIDATES = pd.DataFrame({
    "candidate": ["Influenza", "Allergy", "Asthma", "Hypertension", "Diabetes", "Migraine"],
    "score": [48.0, 45.0, 40.0, 38.0, 30.0, 22.0],
})
DEFAULT_BIDS = pd.DataFrame({"bid": [1.0, 1.0, 1.0, 3.01]})  # the notes' four bidders
SWEEP_EPSILONS = np.unique(np.concatenate((np.geomspace(0.01, 10, 61), EPSILONS)))
AUCTION_EPSILONS = np.unique(np.concatenate((np.geomspace(0.01, 100, 81), EPSILONS)))
MEDIAN_NS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000]
COIN_FLIPS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000,
              200_000, 500_000, 1_000_000]
DISPLAY_BINS = 60
RANDOM_BID_TOP = 10.0  # random bidders bid uniformly in [0, 10]
AUCTION_NS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000]


def fmt(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def of_n(x: float) -> str:
    """A share of n: "0.05%", "under 0.01%" or "0"."""
    return "0" if x == 0 else f"{x:.2%}" if x >= 1e-4 else "under 0.01%"


def small(x: float) -> str:
    """Two significant digits; whole numbers from 100, and powers of ten below 10⁻⁴."""
    return number(x, ".2g") if abs(x) < 100 else f"{x:,.0f}"


def chance(p: float, digits: int = 1) -> str:
    """A probability as a percentage that never rounds a chance below 1 up to 100%."""
    text = f"{p:.{digits}%}"
    return text if p >= 1 or text != f"{1:.{digits}%}" else f"over {1 - 10 ** -(digits + 2):.{digits}%}"


def share_of_opt(x: float) -> str:
    """A share of OPT, never rounded up to 100%."""
    return f"{x:.0%}" if x < 0.995 else "over 99%"


def money(x: float) -> str:
    """A utility or revenue to three decimals, or with thousands separators once it is large."""
    return f"{x:.3f}" if abs(x) < 1000 else f"{x:,.0f}"


def people(x: float) -> str:
    """A mean rank error in people: like fmt, but "under 0.01" rather than 4.33e-08."""
    return "under 0.01" if 0 < x < 0.005 else fmt(x)


def deck_table(key: str, default: pd.DataFrame, column_config: dict, max_rows: int) -> pd.DataFrame:
    """An editable table; in presenter mode, while another step is on screen, the last table
    edited (an editor drawn off screen would lose its edits, and start again from its first
    table the next time it is shown: ui.tables keeps that table under <key>_saved)."""
    if not lessons.showing_step():
        return st.session_state.get(f"{key}_saved", default)
    return table_editor(key, default, column_config, max_rows=max_rows)


def keep_screens(count: int, note: str) -> None:
    """A demo that stops early (a bad table, an empty range) still has its screens in presenter
    mode, each with the note, so the deck's later steps keep their numbers."""
    if presenter_mode():
        for _ in range(count):
            lessons.step()
            st.warning(note)


st.title("The exponential mechanism")
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson
st.info(lessons.section_text(SLUG, "neighbours"), icon="🤝")

# In presenter mode the tabs become steps of the deck, one after another.
if presenter_mode():
    tabs = [None] * len(TABS)
else:
    tab_link = link_values("exp_tab")
    tabs = st.tabs(TABS, key="exp_tab", bind="query-params")
    note_if_ignored("exp_tab", "tab name", tab_link, st.session_state.get("exp_tab") or TABS[0])


# --- 1. Selection in general ----------------------------------------------------------------------

@lessons.demo
def selection_demo() -> None:
    copy_link(SLUG, "selection_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        epsilon = epsilon_slider("exp_sel_eps", 1.0)
        sensitivity = choice_slider("Δu (how much one person can move any score)", [0.5, 1, 2, 5, 10],
                                    1, "exp_sel_du")
        t = range_slider("t in the utility theorem", 0.0, 5.0, 1.0, "exp_sel_t", step=0.5)
        show_notes = bound_toggle("Also show the notes' exp(εu/Δu), which is 2ε-DP in general",
                                  "exp_sel_notes")
    # In presenter mode the table of candidates is a screen of its own, next to the chart of
    # their chances against ε; the chart and the numbers above still follow it.
    lessons.step()
    editor, sweep_plot = st.columns([2, 3], gap="large")
    with editor:
        st.caption(f"Candidates and scores: edit, add or delete rows (2 to {MAX_CANDIDATES}).")
        table = deck_table("exp_sel_table", DEFAULT_CANDIDATES, {
            "candidate": st.column_config.TextColumn("candidate", max_chars=40),
            "score": st.column_config.NumberColumn("score u(r)"),
        }, max_rows=MAX_CANDIDATES)
        st.button("↺ Back to the diseases example", key="exp_sel_reset", on_click=reset_table,
                  args=("exp_sel_table",))
    try:
        names = auction.read_names("Candidates", table["candidate"], max_count=MAX_CANDIDATES)
        scores = auction.read_numbers("Scores", table["score"], minimum=-MAX_SCORE, maximum=MAX_SCORE,
                                      max_count=MAX_CANDIDATES, min_count=2)
    except ValueError as error:
        note = f"{error} The charts come back once the table of candidates is fixed."
        for place in (plot, sweep_plot):  # next to each chart it stops
            place.warning(note)
        keep_screens(1, note)  # the odds
        return
    order = np.argsort(-scores, kind="stable")
    names, scores = [names[i] for i in order], scores[order]
    probabilities = exponential_probabilities(scores, epsilon, sensitivity)
    notes = exponential_probabilities(scores, 2 * epsilon, sensitivity)  # notes' form at ε = ours at 2ε
    threshold = auction.utility_threshold(scores[0], epsilon, sensitivity, len(scores), t)
    p_below = auction.probability_below(scores, probabilities, threshold)
    sweep = np.array([exponential_probabilities(scores, e, sensitivity) for e in SWEEP_EPSILONS])
    with plot:
        chart(charts.selection_figure(names, scores, probabilities, threshold,
                                      notes if show_notes else None),
              width="stretch", key="exp_sel_chart")
    with controls:  # under the controls (under the chart, a projector's bar covered them)
        a, b = st.columns(2)
        a.metric(f"Pr[{names[0]}]", f"{probabilities[0]:.1%}")
        b.metric("Pr[below the line]", f"{p_below:.2%}", help=f"The theorem promises ≤ e^−t = {math.exp(-t):.2%}.")
    with sweep_plot:
        chart(charts.selection_sweep_figure(SWEEP_EPSILONS, names, sweep, epsilon),
              width="stretch", key="exp_sel_sweep")
    tied = int(np.sum(scores == scores[0]))
    at_max = exponential_probabilities(scores, max(EPSILONS), sensitivity)[0]
    if tied == len(scores):
        top_phrase = f"**{names[0]}**, like every candidate (all share the score {fmt(scores[0])}),"
        limits = "All scores are equal, so every bar sits on that line at every ε."
    elif tied > 1:
        top_phrase = f"**{names[0]}**, one of the {tied} candidates tied at the top score {fmt(scores[0])},"
        limits = ("As ε shrinks toward 0, every bar moves to that uniform line: the high bars sink and "
                  f"the low ones rise. As ε grows, the {tied} tied candidates share almost "
                  f"everything: at ε = {max(EPSILONS):g} each of them gets {chance(at_max)}.")
    else:
        top_phrase = f"the top candidate **{names[0]}** (score {fmt(scores[0])})"
        limits = ("As ε shrinks toward 0, every bar moves to that uniform line: the high bars sink and "
                  "the low ones rise. As ε grows, the top bar grows toward 100%: at "
                  f"ε = {max(EPSILONS):g}, the slider's end, it gets {chance(at_max)}.")
    # Under both demos, at full width; in presenter mode the formula and the odds are a screen.
    lessons.step()
    lessons.render(SLUG, "sel-formula", coef=epsilon / (2 * sensitivity),
                   step=math.exp(epsilon / (2 * sensitivity)))
    same = chance(notes[0]) == chance(probabilities[0])
    below_all = ("Here the line lies below every candidate's score, so the promise holds "
                 "trivially. " if threshold < scores[-1] else "")
    lessons.render(SLUG, "sel-notice", eps=epsilon, top=f"**{names[0]}**", opt=fmt(scores[0]),
                   p_top=chance(probabilities[0]), uniform=1 / len(scores), k=len(scores),
                   gap=fmt(scores[0] - threshold), threshold=fmt(threshold),
                   # never "0.00%" for a chance that is not 0
                   p_below=f"{p_below:.2%}" if p_below == 0 or p_below >= 5e-5
                   else "less than 0.01%",
                   below_all=below_all,
                   bound=math.exp(-t), t=t, notes_p_top=chance(notes[0]), top_phrase=top_phrase,
                   limits=limits, notes_lead="That is no better here, and" if same
                   else "That looks better, but")
    odds_panel(pure_release(epsilon), key="exp", what="this choice")
    opendp_expander(opendp_snippets.exponential_choice(names, scores, epsilon, sensitivity))


# --- 2. Most common disease -------------------------------------------------------------------------

DISEASE_LABELS = {
    "laplace_all": "1. every count + Lap(k/ε), then argmax",
    "noisy_max": "2. report-noisy-max, Lap(1/ε)",
    "exponential": "3. exponential mechanism, Δu = 1",
}


@st.cache_data(max_entries=32, show_spinner=False)
def disease_curves(gap: int, k: int, seed: list[int]) -> dict[str, np.ndarray]:
    return auction.top_choice_accuracy(gap, k, SWEEP_EPSILONS, np.random.default_rng(seed))


@st.fragment
def disease_demo() -> None:
    copy_link(SLUG, "disease_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        epsilon = epsilon_slider("exp_dis_eps", 0.5)
        k = choice_slider("k (diseases)", [2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000],
                          100, "exp_dis_k", format_func=lambda v: f"{v:,}")
        gap = range_slider("lead of the top disease (people)", 1, 50, 5, "exp_dis_gap")
    curves = disease_curves(gap, k, demo_seed("exp_dis"))
    at = int(np.searchsorted(SWEEP_EPSILONS, epsilon))
    with plot:
        chart(charts.disease_figure(SWEEP_EPSILONS, curves, DISEASE_LABELS, k, epsilon),
              width="stretch", key="exp_dis_chart")
    with controls:
        lessons.render(SLUG, "dis-formula", b_all=fmt(k / epsilon), b_nm=fmt(1 / epsilon))
    with controls:  # under the formula (under the chart, a projector's bar would cover them)
        cols = st.columns(3)
        for col, (key, label) in zip(cols, [("laplace_all", "1. Lap(k/ε)"), ("noisy_max", "2. noisy max"),
                                            ("exponential", "3. exp. mech.")], strict=True):
            col.metric(label, f"{curves[key][at]:.0%}")
    reach = {key: auction.epsilon_reaching(SWEEP_EPSILONS, curve, 0.9) for key, curve in curves.items()}
    top = f"{SWEEP_EPSILONS[-1]:g}"
    if reach["noisy_max"] is None:
        reach_text = f"neither method 1 nor report-noisy-max gets there with ε up to {top}."
    # Grid points: the first ε of the chart's grid at which a curve reaches 90%, so the ε a
    # method needs is at most that (2.51 on the grid where the exact value is 2.40).
    elif reach["laplace_all"] is None:
        reach_text = (f"method 1 needs ε above {top}, but report-noisy-max gets there by "
                      f"ε ≈ {fmt(reach['noisy_max'])} (the first ε of the chart's grid that does).")
    else:
        reach_text = (f"method 1 gets there only by ε ≈ {fmt(reach['laplace_all'])}, and "
                      f"report-noisy-max already by ε ≈ {fmt(reach['noisy_max'])} (the first ε's "
                      "of the chart's grid that do).")
    exact = auction.exponential_top_epsilon(gap, k, 0.9)
    reach_exp = (f"for 90% here, at most ε ≈ {fmt(reach['noisy_max'])} against {fmt(exact)}"
                 if reach["noisy_max"] else
                 f"for 90% here the exponential mechanism needs ε = {fmt(exact)}, and "
                 f"report-noisy-max more than {top}")

    def share(p: float) -> str:  # every method can miss, so even an estimate of 1 is "over 99%"
        return chance(min(p, 1 - 1e-9), 0) if p >= 0.01 or p == 0 else f"{p:.2%}"

    lessons.render(SLUG, "dis-notice", eps=epsilon, k=f"{k:,}",
                   gap=f"{gap} {'person' if gap == 1 else 'people'}",
                   p_all=share(curves["laplace_all"][at]), p_nm=share(curves["noisy_max"][at]),
                   p_exp=share(curves["exponential"][at]), reach=reach_text, reach_exp=reach_exp,
                   chance=1 / k)
    opendp_expander(opendp_snippets.most_common(epsilon, k, gap))  # method 2, report-noisy-max


# --- 3. Private median --------------------------------------------------------------------------

KIND_LABELS = {"continuous": "continuous", "education": "education levels"}
BOUND_ENDS = {"continuous": (-3.0, 4.0), "education": (-63, 64)}  # the bound sliders' far ends
BOUND_DEFAULTS = {"continuous": (0.0, 1.0), "education": (1, 16)}


def median_data(kind: str, n: int, seed: list[int]) -> np.ndarray:
    """The demo's data for one n: its own stream of the demo seed, so every n has its own draw."""
    return medians.synthetic_data(kind, n, np.random.default_rng([*seed, n]))


@st.cache_data(max_entries=16, show_spinner=False)
def median_view(kind: str, n: int, lower: float, upper: float, epsilon: float, seed: list[int]) -> dict:
    """Everything the median tab draws at one setting (exact where it can be, else sampled)."""
    discrete = kind == "education"
    data = median_data(kind, n, seed)
    rng = np.random.default_rng([*seed, n, 1])
    if discrete:
        bins = np.arange(lower - 0.5, upper + 1.0)
        levels, p_exp = medians.level_median_probabilities(data, lower, upper, epsilon)
        exp_mass, view_x, view_p = p_exp, levels, p_exp
        view_err = medians.rank_error(data, levels)
        draw = float(exponential_mechanism(-medians.rank_error(np.clip(data, lower, upper), levels),
                                           epsilon, 1.0, rng) + lower)
    else:
        bins = np.linspace(lower, upper, DISPLAY_BINS + 1)
        edges, p_exp = private_median_probabilities(data, lower, upper, epsilon)
        cdf = np.concatenate(([0.0], np.cumsum(p_exp)))
        exp_mass = np.diff(np.interp(bins, edges, cdf))
        ranks = np.arange(n + 1)
        keep = (cdf[1:] > 5e-4) & (cdf[:-1] < 1 - 5e-4)  # the ranks that carry the probability
        view_x, view_p = ranks[keep], p_exp[keep]
        view_err = np.abs(view_x - n / 2)
        draw = float(private_median(data, lower, upper, epsilon, rng))
    centres = (bins[:-1] + bins[1:]) / 2
    laplace_out = medians.laplace_median(data, lower, upper, epsilon, rng, size=20_000, discrete=discrete)
    hist_out = medians.histogram_median(data, medians.histogram_edges(lower, upper, discrete), epsilon,
                                        rng, size=4_000)

    def share(values):
        return np.histogram(np.clip(values, lower, upper), bins=bins)[0] / len(values)

    sweep_eps = medians.expected_rank_errors(data, lower, upper, EPSILONS, rng, discrete=discrete)
    sweep_n = {name: np.empty(len(MEDIAN_NS)) for name in charts.MEDIAN_LABELS}
    for j, size in enumerate(MEDIAN_NS):
        errors = medians.expected_rank_errors(median_data(kind, size, seed), lower, upper, [epsilon],
                                              np.random.default_rng([*seed, size, 2]), discrete=discrete)
        for name in sweep_n:
            sweep_n[name][j] = errors[name][0]
    other_bounds = {}  # the errors at the other end of each bound's slider (or at its default)
    for which, ends, default in (("lower", BOUND_ENDS[kind][0], BOUND_DEFAULTS[kind][0]),
                                 ("upper", BOUND_ENDS[kind][1], BOUND_DEFAULTS[kind][1])):
        now = lower if which == "lower" else upper
        alt = ends if now != ends else default
        alt_lower, alt_upper = (alt, upper) if which == "lower" else (lower, alt)
        if alt != now and alt_lower < alt_upper:
            errors = medians.expected_rank_errors(data, alt_lower, alt_upper, [epsilon],
                                                  np.random.default_rng([*seed, n, 3]), discrete=discrete)
            other_bounds[which] = (alt, errors["histogram"][0], errors["exponential"][0])
    return {
        "other_bounds": other_bounds,
        "centres": centres, "data_share": share(data), "true_median": float(np.median(data)),
        "outputs": {"exponential": exp_mass, "laplace": share(laplace_out), "histogram": share(hist_out)},
        "view_x": view_x, "view_p": view_p, "view_err": view_err, "draw": draw,
        "sweep_eps": sweep_eps, "sweep_n": sweep_n,
        "sensitivity": medians.median_sensitivity(lower, upper, n),
        "laplace_clipped": medians.laplace_median_clipped_share(data, lower, upper, epsilon),
        "bins": len(medians.histogram_edges(lower, upper, discrete)) - 1,
    }


@lessons.demo
def median_demo() -> None:
    copy_link(SLUG, "median_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        kind = choice_radio("Data", list(KIND_LABELS), "continuous", "exp_med_kind", format_func=KIND_LABELS.get)
        n = n_slider("exp_med_n", 100, options=MEDIAN_NS)
        epsilon = epsilon_slider("exp_med_eps", 0.5)
        if kind == "continuous":
            lower = range_slider("lower bound of the range", BOUND_ENDS[kind][0], 0.9,
                                 BOUND_DEFAULTS[kind][0], "exp_med_lo", step=0.1)
            upper = range_slider("upper bound of the range", 0.1, BOUND_ENDS[kind][1],
                                 BOUND_DEFAULTS[kind][1], "exp_med_hi", step=0.1)
        else:
            lower = range_slider("lowest level in the declared range", BOUND_ENDS[kind][0], 16,
                                 BOUND_DEFAULTS[kind][0], "exp_med_lo_level")
            upper = range_slider("highest level in the declared range", 1, BOUND_ENDS[kind][1],
                                 BOUND_DEFAULTS[kind][1], "exp_med_hi_level")
        resample_button("exp_med", "🎲 New data and draws")
    if not lower < upper:
        note = (f"The range is empty: the lower bound ({lower:g}) must be below the upper bound "
                f"({upper:g}). Move one of them.")
        plot.warning(note)
        keep_screens(2, note)  # the median's two further screens
        return
    lower, upper = round(float(lower), 6), round(float(upper), 6)
    view = median_view(kind, n, lower, upper, epsilon, demo_seed("exp_med"))
    discrete = kind == "education"
    x_title = "education level" if discrete else "value"
    at_eps = EPSILONS.index(epsilon)
    errors_now = {name: view["sweep_eps"][name][at_eps] for name in charts.MEDIAN_LABELS}
    with plot:
        chart(charts.median_outputs_figure(view["centres"], view["data_share"], view["outputs"],
                                           view["true_median"], x_title, discrete),
              width="stretch", key="exp_med_outputs")
    scale, width = view["sensitivity"] / epsilon, upper - lower
    if math.isclose(scale, width):
        compare = "exactly the width of the range"
    elif scale > width:
        compare = f"{scale / width:.3g} times the width of the range"
    else:
        compare = f"{scale / width:.0%} of the range's width"
    lessons.render(SLUG, "med-laplace" if scale >= width or math.isclose(scale, width)
                   else "med-laplace-narrow", sens=fmt(view["sensitivity"]), eps=epsilon,
                   b=fmt(scale), width=fmt(width), compare=compare,
                   ends=f"{view['laplace_clipped']:.0%}" if view["laplace_clipped"] >= 0.005 else "Under 1%",
                   parity="even" if n % 2 == 0 else "odd")
    lessons.step()
    left, right = st.columns(2, gap="large")
    with left:
        title = "Exp. mechanism: intervals by rank" if not discrete else "Exp. mechanism over the levels"
        chart(charts.median_scores_figure(
  view["view_x"], view["view_p"], view["view_err"],
  "points below the interval (rank)" if not discrete else "education level", title),
  width="stretch", key="exp_med_scores")
        # the score and each method's error at this ε, under the scores (next to the error's chart)
        lessons.render(SLUG, "med-formula")
        cols = st.columns(3)
        for col, name, label in zip(cols, charts.MEDIAN_LABELS, ["exp. mech.", "Laplace", "histogram"],
                                    strict=True):
            col.metric(label, people(errors_now[name]), help="mean rank error, in people")
    with right:
        chart(charts.rank_error_figure(EPSILONS, view["sweep_eps"], "ε (log scale)", epsilon,
                                       f"ε = {epsilon:g}", f"Rank error against ε (n = {n:,})"),
              width="stretch", key="exp_med_vs_eps")
    median = view["true_median"]
    if lower <= median <= upper:
        lap, exp = view["sweep_n"]["laplace"], view["sweep_n"]["exponential"]
        first, last = MEDIAN_NS[0], MEDIAN_NS[-1]
        growth = lessons.section_text(
            SLUG, "med-growth", lap_lo=people(lap[0]), lap_hi=people(lap[-1]),
            lap_rel_lo=of_n(lap[0] / first), lap_rel_hi=of_n(lap[-1] / last),
            lap_verdict=(": relative to n it hardly improves, so Laplace never learns the median."
                         if lap[-1] / last >= lap[0] / first / 3 else "."),
            exp_lo=people(exp[0]), exp_hi=people(exp[-1]), exp_rel_lo=of_n(exp[0] / first),
            exp_rel_hi=of_n(exp[-1] / last))
    else:
        growth = lessons.section_text(SLUG, "med-growth-outside", median=fmt(median))
    lessons.render(SLUG, "med-notice", n=f"{n:,}", eps=epsilon, median=fmt(median),
                   draw=fmt(view["draw"]), err_exp=people(errors_now["exponential"]),
                   err_lap=people(errors_now["laplace"]), err_hist=people(errors_now["histogram"]),
                   growth=growth)
    opendp_expander(opendp_snippets.median(epsilon, lower, upper, n, discrete))
    lessons.step()
    left, right = st.columns(2, gap="large")
    with left:
        chart(charts.rank_error_figure(MEDIAN_NS, view["sweep_n"], "n (log scale)", n,
                                       f"n = {n:,}", f"Rank error against n (ε = {epsilon:g})"),
              width="stretch", key="exp_med_vs_n")
    with right:
        size = view["bins"]
        effects = {}
        for which, now in (("lower", lower), ("upper", upper)):
            if which in view["other_bounds"]:
                alt, hist_alt, exp_alt = view["other_bounds"][which]
                effects[which] = lessons.section_text(
                    SLUG, "med-bound-effect", which=which, alt=fmt(alt), now=fmt(now),
                    hist_alt=people(hist_alt), exp_alt=people(exp_alt),
                    hist_now=people(errors_now["histogram"]), exp_now=people(errors_now["exponential"]))
        lessons.render(SLUG, "med-theory", size=size, log=math.log(size), sqrt=math.sqrt(size),
                       what="levels" if discrete else "bins of width 0.05",
                       lower_effect=effects.get("lower", ""), upper_effect=effects.get("upper", ""))


# --- 4. Digital goods auction -----------------------------------------------------------------------

MENUS = {"bids": "the bids (as in the notes)", "grid": "a public price menu"}
SOURCES = {"table": "the notes' bidders", "random": "random bidders"}


@st.cache_data(max_entries=16, show_spinner=False)
def random_bids(n: int, seed: list[int]) -> np.ndarray:
    return np.round(np.random.default_rng(seed).uniform(0, RANDOM_BID_TOP, n), 2)


@lessons.demo
def auction_demo() -> None:
    copy_link(SLUG, "auction_demo")
    bidders, revenue_plot = st.columns([2, 3], gap="large")
    with bidders:
        source = choice_radio("Bidders", list(SOURCES), "table", "exp_auc_source", format_func=SOURCES.get)
        if source == "table":
            st.caption(f"Bids (1 to {MAX_BIDS} rows, each between 0 and {MAX_BID:,.0f}).")
            table = deck_table("exp_auc_table", DEFAULT_BIDS, {
                "bid": st.column_config.NumberColumn("bid", format="%.2f")}, max_rows=MAX_BIDS)
            st.button("↺ Back to 1, 1, 1, 3.01", key="exp_auc_reset", on_click=reset_table,
                      args=("exp_auc_table",))
        else:
            n = n_slider("exp_auc_n", 100, options=AUCTION_NS, label="n (bidders, bids uniform in [0, 10])")
            resample_button("exp_auc", "🎲 New bidders")
    error = None
    try:
        if source == "table":
            bids = auction.read_numbers("Bids", table["bid"], minimum=0, maximum=MAX_BID, max_count=MAX_BIDS)
        else:
            bids = random_bids(n, demo_seed("exp_auc"))
        if not np.max(bids) > 0:
            raise ValueError("Bids: every bid is 0, so no price earns anything; make one bid positive.")
    except ValueError as problem:
        error = f"{problem} The charts come back once the bids are fixed."
        revenue_plot.warning(error)
    # In presenter mode: the bidders and their revenue curve; the mechanism (ε, the menu) and the
    # price it picks; its expected revenue with the caution about a menu of bids; truthfulness.
    lessons.step()
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        epsilon = epsilon_slider("exp_auc_eps", 1.0)
        menu = choice_radio("Candidate prices", list(MENUS), "bids", "exp_auc_menu", format_func=MENUS.get)
        cap = choice_slider("highest price on the public menu", [1, 2, 5, 10, 20, 50, 100], 5, "exp_auc_cap")
    if error is not None:
        if presenter_mode():  # on this screen too
            plot.warning(error)
        keep_screens(2, error)  # the expected revenue, and truthfulness
        return
    prices = np.unique(bids[bids > 0]) if menu == "bids" else auction.price_grid(cap)
    sensitivity = float(prices.max())
    revenues = auction.revenue(bids, prices)
    opt, opt_price = float(revenues.max()), float(prices[np.argmax(revenues)])
    highest = float(bids.max())
    x, y = auction.revenue_curve(bids, max(highest * 1.15, highest + 0.2))
    bid_prices = np.unique(bids[bids > 0])
    with revenue_plot:
        chart(charts.revenue_figure(x, y, bid_prices, auction.revenue(bids, bid_prices), opt_price,
                                    highest, annotate_jump=len(bid_prices) <= 60),
              width="stretch", key="exp_auc_revenue")
    probabilities = auction.price_probabilities(bids, prices, epsilon, sensitivity)
    expected = auction.expected_revenue(bids, prices, AUCTION_EPSILONS, sensitivity)
    guarantee = [auction.utility_threshold(opt, e, sensitivity, len(prices), 1.0) for e in AUCTION_EPSILONS]
    at = int(np.searchsorted(AUCTION_EPSILONS, epsilon))
    with plot:
        chart(charts.price_figure(prices, probabilities, epsilon, opt_price), width="stretch",
              key="exp_auc_prices")
    with controls:
        lessons.render(SLUG, "auc-formula", du=fmt(sensitivity), menu=f"{len(prices):,}",
                       coef=epsilon / (2 * sensitivity))
    lessons.step()
    left, right = st.columns(2, gap="large")
    with left:
        a, b = st.columns(2)
        a.metric("E[revenue]", fmt(expected[at]))
        b.metric("OPT", fmt(opt), help=f"best price on this menu: {opt_price:.2f}")
        if menu == "bids":
            public = auction.price_grid(cap)
            st.warning(lessons.section_text(
                SLUG, "auc-menu-bids", eps=epsilon, cap=fmt(cap), grid_size=f"{len(public):,}",
                bids_size=f"{len(prices):,}", bids_du=fmt(sensitivity),
                bids_loss=fmt(-auction.utility_threshold(0.0, epsilon, sensitivity, len(prices), 1.0)),
                grid_loss=fmt(-auction.utility_threshold(0.0, epsilon, float(public.max()), len(public),
                                                         1.0))), icon="⚠️")
    with right:
        chart(charts.expected_revenue_figure(AUCTION_EPSILONS, expected, opt, guarantee, epsilon),
              width="stretch", key="exp_auc_expected")
    public = auction.price_grid(cap)
    if menu == "bids":
        other = public
        other_section, other_keys = "auc-compare-bids", ("grid_expected", "grid_ratio", "grid_opt")
    else:
        other = np.unique(bids[bids > 0])
        other_section, other_keys = "auc-compare-grid", ("bids_expected", "bids_ratio", "bids_opt")
    other_expected = float(auction.expected_revenue(bids, other, [epsilon])[0])
    other_opt = float(auction.revenue(bids, other).max())
    menu_compare = lessons.section_text(
        SLUG, other_section, grid_size=f"{len(public):,}", cap=fmt(cap),
        menu_size=f"{len(np.unique(bids[bids > 0])):,}",
        **dict(zip(other_keys, (fmt(other_expected), share_of_opt(other_expected / other_opt), fmt(other_opt)),
                   strict=True)))
    many = max(AUCTION_NS)
    many_bids = random_bids(many, demo_seed("exp_auc"))
    many_prices = np.unique(many_bids[many_bids > 0]) if menu == "bids" else public
    many_ratio = (float(auction.expected_revenue(many_bids, many_prices, [epsilon])[0])
                  / float(auction.revenue(many_bids, many_prices).max()))
    copies = int(np.sum(bids >= highest))
    lessons.render(SLUG, "auc-notice", eps=epsilon, expected=fmt(expected[at]), opt=fmt(opt),
                   ratio=share_of_opt(expected[at] / opt), loss=fmt(opt - guarantee[at]),
                   guarantee=(lessons.section_text(SLUG, "auc-guarantee", guarantee=fmt(guarantee[at]))
                              if guarantee[at] > 0 else lessons.section_text(SLUG, "auc-guarantee-empty")),
                   bidders=f"{len(bids):,}", highest=highest, above=highest + 0.01,
                   copies="one copy" if copies == 1 else f"{copies:,} copies",
                   menu_compare=menu_compare, many=f"{many:,}", many_ratio=share_of_opt(many_ratio),
                   many_menu="the menu of their bids" if menu == "bids"
                   else f"the public menu up to {fmt(cap)}")
    grid = auction.price_grid(cap)
    reports = np.union1d(np.linspace(0, max(cap, highest) * 1.2, 121), [highest])  # the truth too
    bidder = int(np.argmax(bids))
    utilities = auction.bidder_utilities(bids, bidder, highest, reports, grid, epsilon)
    truthful = float(auction.bidder_utilities(bids, bidder, highest, [highest], grid, epsilon)[0])
    lessons.step()
    truth_plot, truth_text = st.columns([3, 2], gap="large")
    with truth_plot:
        chart(charts.truthfulness_figure(reports, utilities, highest, truthful,
                                         math.exp(epsilon) * truthful),
              width="stretch", key="exp_auc_truthful")
    best = int(np.argmax(utilities))
    gain = utilities[best] - truthful
    best_lie = lessons.section_text(
        SLUG, "auc-truth-best" if gain <= 1e-9 * max(1.0, abs(truthful))
        else "auc-lie-best" if money(utilities[best]) != money(truthful) else "auc-lie-shade",
        best_report=fmt(reports[best]), best_lie=money(utilities[best]),
        bound=money(math.exp(epsilon) * truthful))
    with truth_text:
        lessons.render(SLUG, "auc-truthful", value=fmt(highest), cap=fmt(cap), truthful=money(truthful),
                       best_lie=best_lie, factor=fmt(math.exp(epsilon)), grid_size=f"{len(grid):,}")
    opendp_expander(opendp_snippets.price_choice(
        epsilon, menu, cap, bids=bids.tolist() if source == "table" else None,
        n=len(bids), bid_top=RANDOM_BID_TOP))


# --- 5. A coin's bias ----------------------------------------------------------------------------------

@st.cache_data(max_entries=16, show_spinner=False)
def coin_view(theta: float, flips: int, epsilon: float, seed: list[int]) -> dict:
    rng = np.random.default_rng(seed)
    heads = int(rng.binomial(flips, theta))
    tails = flips - heads
    a, b, c = medians.coin_exponential_parameters(heads, tails, epsilon)
    mean, var = medians.truncated_beta_moments(a, b, *medians.COIN_BOUNDS)
    laplace = medians.coin_laplace_estimate(heads, tails, epsilon, rng, size=20_000)
    lo = max(medians.COIN_BOUNDS[0] - 0.02, min(mean - 5 * math.sqrt(var), np.quantile(laplace, 0.002)))
    hi = min(medians.COIN_BOUNDS[1] + 0.02, max(mean + 5 * math.sqrt(var), np.quantile(laplace, 0.998)))
    lo, hi = min(lo, heads / flips - 0.01), max(hi, heads / flips + 0.01)
    grid = np.linspace(lo, hi, 301)
    bins = np.linspace(lo, hi, 81)
    density, _ = np.histogram(laplace, bins=bins, density=False)
    return {
        "heads": heads, "a": a, "b": b, "c": c, "sd_exp": math.sqrt(var), "sd_lap": float(np.std(laplace)),
        "grid": grid, "exp_density": medians.coin_exponential_density(heads, tails, epsilon, grid),
        "centres": (bins[:-1] + bins[1:]) / 2, "lap_density": density / (len(laplace) * np.diff(bins)),
        "variances": medians.coin_variances(theta, COIN_FLIPS, epsilon, rng),
    }


@lessons.demo
def coin_demo() -> None:
    copy_link(SLUG, "coin_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        epsilon = epsilon_slider("exp_coin_eps", 0.1)
        flips = n_slider("exp_coin_n", 1000, options=COIN_FLIPS, label="N (coin flips)")
        theta = range_slider("true bias θ of the coin", 0.1, 0.9, 0.3, "exp_coin_theta", step=0.05)
        resample_button("exp_coin", "🎲 New flips and draws")
    theta = round(float(theta), 4)
    view = coin_view(theta, flips, epsilon, demo_seed("exp_coin"))
    with plot:
        chart(charts.coin_density_figure(view["grid"], view["exp_density"], view["centres"],
                                         view["lap_density"], view["heads"] / flips),
              width="stretch", key="exp_coin_density")
    with controls:
        lessons.render(SLUG, "coin-formula", c=view["c"], a=view["a"], b=view["b"], lap_b=fmt(1 / epsilon),
                       eps=epsilon)
    # In presenter mode the spread of the two estimates, here and against N, is a screen of its own.
    lessons.step()
    spread, plot = st.columns([2, 3], gap="large")
    with spread:
        a, b = st.columns(2)
        a.metric("sd, exponential", f"{view['sd_exp']:.4f}")
        b.metric("sd, Laplace", f"{view['sd_lap']:.4f}")
    with plot:
        chart(charts.coin_variance_figure(COIN_FLIPS, view["variances"], flips), width="stretch",
              key="exp_coin_variance")
    variances = view["variances"]
    ahead = variances["laplace"] < variances["exponential"]
    cross = COIN_FLIPS[int(np.argmax(ahead))] if ahead.any() else None
    if cross is None:  # never on this grid (tests check every θ and ε of the sliders)
        here = ""
    elif flips < cross:
        here = f" Here, at N = {flips:,}, the exponential mechanism is still ahead."
    else:
        here = ""
    lessons.render(SLUG, "coin-notice", n=f"{flips:,}", sd_exp=small(view["sd_exp"]),
                   sd_lap=small(view["sd_lap"]), sd_sampling=small(math.sqrt(theta * (1 - theta) / flips)),
                   inv_c=small(1 / view["c"]), effective=small(view["c"] * flips), eps=epsilon,
                   cross=f"{cross:,}" if cross else f"beyond {COIN_FLIPS[-1]:,}",
                   last=f"{COIN_FLIPS[-1]:,}",
                   margin=f"{variances['exponential'][-1] / variances['laplace'][-1]:,.0f}", here=here)
    opendp_expander(opendp_snippets.no_constructor(
        f"A coin's bias from {flips:,} flips by the exponential mechanism over θ in an interval, ε = {epsilon:g}",
        "no continuous exponential mechanism; dp.m.then_noisy_max over a grid of θ, or the page's "
        "Laplace comparison: a count of heads with dp.t.then_sum() >> dp.m.then_laplace(scale=1 / ε)"))


# --- 6. Check the guarantee ------------------------------------------------------------------------------

FORMS = {"app": "this app's exp(εu/(2Δu))", "notes": "the notes' exp(εu/Δu)"}
AUDIT_MS = [1, 2, 5, 10, 20, 50, 100, 200]


def sample_choices(scores, epsilon: float, rng, n: int) -> np.ndarray:
    return exponential_mechanism(scores, epsilon, 1.0, rng, size=n)


def picks_option_a(outputs) -> np.ndarray:
    return np.asarray(outputs) == 0


@lessons.demo
def audit_demo() -> None:
    copy_link(SLUG, "audit_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        epsilon = epsilon_slider("exp_aud_eps", 1.0, options=[e for e in EPSILONS if 0.1 <= e <= 5])
        m = choice_slider("m (options other than A)", AUDIT_MS, 20, "exp_aud_m")
        form = choice_radio("Mechanism", list(FORMS), "app", "exp_aud_form", format_func=FORMS.get)
    scores_d, scores_d_prime = auction.approval_scores(m)
    used = epsilon if form == "app" else 2 * epsilon  # the notes' form at ε is ours at 2ε
    losses = {f: [auction.privacy_loss(*auction.approval_scores(size), e, 1.0) for size in AUDIT_MS]
              for f, e in (("app", epsilon), ("notes", 2 * epsilon))}
    with plot:
        chart(charts.loss_figure(AUDIT_MS, losses["app"], losses["notes"], epsilon, m),
              width="stretch", key="exp_aud_chart")
    # In presenter mode the audit, with its button for new samples, is a screen of its own.
    lessons.step()
    sampling, verdict = st.columns([2, 3], gap="large")
    with sampling:
        st.caption("Whichever formula runs, the panel checks the claim \"ε-DP\" at the slider's ε.")
        resample_button("exp_aud", "🎲 New samples")
    with verdict:
        epsilon_hat = audit_panel("exp_aud", functools.partial(sample_choices, scores_d, used),
                                  functools.partial(sample_choices, scores_d_prime, used), picks_option_a,
                                  promised_epsilon=epsilon, event_label="{the output is option A}",
                                  cache_key=("exp_aud", epsilon, m, form),
                                  exact_loss=auction.privacy_loss(scores_d, scores_d_prime, used, 1.0))
    loss_notes = auction.privacy_loss(scores_d, scores_d_prime, 2 * epsilon, 1.0)
    values = {"eps": epsilon, "m": m, "loss_notes": loss_notes, "epsilon_hat": epsilon_hat}
    caught = epsilon_hat > epsilon
    if loss_notes <= epsilon * (1 + 1e-9):
        false_alarm = " " + lessons.section_text(SLUG, "aud-false-alarm", **values)
        notes_verdict = lessons.section_text(SLUG, "aud-notes-equal",
                                             live=false_alarm if caught and form == "notes" else "")
    else:
        live = "" if form == "app" else lessons.section_text(
            SLUG, "aud-notes-caught" if caught else "aud-notes-missed", **values)
        notes_verdict = lessons.section_text(SLUG, "aud-notes-above", live=live)
    app_verdict = lessons.section_text(
        SLUG, "aud-app-general" if form == "notes" else "aud-app-false-alarm" if caught
        else "aud-app-live", **values)
    lessons.render(SLUG, "aud-notice", eps=epsilon, m=m,
                   loss_app=auction.privacy_loss(scores_d, scores_d_prime, epsilon, 1.0),
                   loss_notes=loss_notes, two_eps=2 * epsilon, notes_verdict=notes_verdict,
                   app_verdict=app_verdict)


# --- The tabs (only the open one runs) ---------------------------------------------------------------------

SECTIONS = [
    ("sel-intro", selection_demo, ["conventions"], "epsilon-to-zero"),
    ("dis-intro", disease_demo, [], "noisy-max"),
    ("med-intro", median_demo, [], "laplace-median"),
    ("auc-intro", auction_demo, [], "price-302"),
    ("coin-intro", coin_demo, [], "coin-variance"),
    ("aud-intro", audit_demo, [], "notes-audit"),
]

def tab_section(intro: str, demo, after: list[str], quiz_id: str) -> None:
    lessons.render(SLUG, intro)
    demo()
    if after:
        lessons.step()  # in presenter mode what follows the demo is a step of its own
    for name in after:
        lessons.render(SLUG, name)
    lessons.step()  # in presenter mode the quiz is a step of its own (outside it, nothing)
    lessons.quiz(SLUG, quiz_id)


for tab, section in zip(tabs, SECTIONS, strict=True):
    if tab is None:
        lessons.step()
        tab_section(*section)
        continue
    with tab:
        if tab.open is False:
            continue
        tab_section(*section)

lessons.step()
st.divider()
lessons.render(SLUG, "takeaways")
lessons.render(SLUG, "reading")
