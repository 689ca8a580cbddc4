"""Randomized response: one respondent, a survey, local versus central, Tammy, and an audit."""

import contextlib
import functools
import math

import numpy as np
import streamlit as st

from dp import rr_keep_probability, rr_simulate
from dp.local_dp import (
    alpha_epsilon,
    central_rmse,
    coin_heads_probability,
    coin_report,
    lecture_theorem_alpha,
    local_central_ratio,
    local_n_to_match_central,
    population_fraction,
    randomized_response_alpha,
    rr_alpha,
    rr_estimate_step,
    rr_posterior,
    rr_rmse,
    rr_yes_share,
    sampling_rmse,
    simulated_rmse,
    yes_rates,
)
from dp.odds import pure_release
from ui import lessons, opendp_snippets
from ui.audit import SAMPLE_SIZES, audit_panel
from ui.charts import randomized_response as charts
from ui.odds import odds_panel, percent_at_most
from ui.opendp_show import opendp_expander
from ui.params import (
    EPSILONS,
    choice_radio,
    choice_slider,
    log_options,
    number_label,
    range_slider,
    url_note_shown,
)
from ui.planner import accuracy_planner
from ui.presenter import presenter_mode
from ui.seeds import demo_seed, draw_number, resample_button, rng_for
from ui.share import copy_link, share_key
from ui.show import chart

SLUG = "randomized-response"
LN3 = math.log(3)
EPS_OPTIONS = sorted([*EPSILONS, LN3])
N_OPTIONS = [int(v) for v in log_options(10, 1e8, 3)]  # 10, 20, 50, …, 10⁸
N_GRID = np.unique(np.round(np.logspace(1, 8, 57)))  # formula curves
SIM_N = [10**k for k in range(1, 9)]  # simulated points
TRIALS = 2000  # repeated surveys in the histogram
SIM_TRIALS = 300  # surveys per simulated RMSE point: relative sd ≈ 1/√600 ≈ 4%
CENSUS_N = 330_000_000
AUDIT_CHOICES = {"right": "Right α = (e^ε−1)/(2(e^ε+1))",
                 "slide": "Slide theorem's α = (e^ε−1)/(e^ε+1) (no 2)"}


# Slider labels, which are also what the URL carries.
def _people(n) -> str:
    return f"{n:,}"


def _epsilon_label(epsilon) -> str:
    return "ln 3" if epsilon == LN3 else number_label(epsilon)


# Numbers in prose, never rounded to a certainty they are not.
def _prob(p: float, decimals: int = 4) -> str:
    """0.7500, or 0.99995 where four decimals would print 1.0000."""
    for d in range(decimals, 12):
        text = f"{p:.{d}f}"
        if float(text) not in (0.0, 0.5, 1.0) or p in (0.0, 0.5, 1.0):
            return text
    return f"{p:.12f}"


def _factor(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}g}" if x < 10 ** (digits - 1) else f"{x:,.0f}"


def _percent(p: float, other: float | None = None) -> str:
    """62.2%, or more digits where one decimal would print the same as `other`."""
    if p > 0.999:
        return "more than 99.9%"
    if p < 0.001:
        return "less than 0.1%"
    for d in (1, 2, 3, 4):
        text = f"{p:.{d}%}"
        if other is None or text != f"{other:.{d}%}":
            return text
    return f"{p:.4%}"


def _share(p: float) -> str:
    """33.80%, 100% only when every report says so, never 100.00% or 0.00% for less."""
    if p in (0.0, 1.0):
        return f"{p:.0%}"
    text = f"{p:.2%}"
    if text == "100.00%":
        return "more than 99.99%"
    if text == "0.00%":
        return "less than 0.01%"
    return text


SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _people_count(x: float) -> str:
    """45,260,586 people, or 4.5 × 10¹⁵ (more than live on Earth)."""
    if x < 1e10:
        return f"{x:,.0f}"
    mantissa, exponent = f"{x:.1e}".split("e")
    return (f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPTS)} "
            "(more than live on Earth)")


st.title("Randomized response")
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson

# ── 1. The protocol ──────────────────────────────────────────────────────────────────────────
lessons.step("The protocol")
lessons.render(SLUG, "protocol")
lessons.quiz(SLUG, "missing-two")
# The ε slider drives every demo on the page. Moving it reruns only the parts of the demos
# that read it (keyed fragments), not the page: the prose, quizzes and headings between the
# demos are not sent again (a whole-page rerun sent ~150 elements a move). Nor are a demo's
# own link popover, sliders, buttons and the columns around them: each demo is a fragment
# (its own widgets rerun it), and the parts of it that read ε are fragments inside it, which
# an ε move reruns alone (91 elements a move became 60, issue 28). Each part reads ε
# from the session state, since a fragment rerun on its own keeps the arguments of the last
# run of the code that called it; its other arguments change only when that code reruns.


def _epsilon() -> float:
    """The page's ε, as its slider holds it."""
    return st.session_state.get("rr_eps", LN3)


def _coin_step() -> int:
    """How far the respondent has flipped: 0 (no coin yet), 1 or 2, for the current draw."""
    draw, step = st.session_state.get("rr_coin_progress", (draw_number("rr_coin"), 0))
    return step if draw == draw_number("rr_coin") else 0


# demo fragment → (its link's name, the fragments inside it that read ε). A demo reruns
# whole instead when what it shows outside those parts reads ε too: its open link popover
# (the link carries ε), the coins once flipped (the first coin's odds are ε's), or the note
# under the ε slider about a link's bad value (a move takes it away).
EPSILON_PARTS = {
    "rr_protocol": ("protocol_demo", ["rr_keep_chart", "rr_conversions", "rr_missing_two",
                                      "rr_odds_panel"]),
    "rr_coin": ("coin_demo", ["rr_coin_intro", "rr_coin_after"]),
    "rr_survey": ("survey_demo", ["rr_survey_numbers", "rr_survey_plot", "rr_survey_curve",
                                  "rr_survey_notice"]),
    "rr_local_central": ("local_central_demo", ["rr_lc_notice", "rr_lc_plot",
                                                "rr_lc_deployments"]),
    # Tammy's demo reruns whole: all of it but its slider, popover and columns reads ε, and
    # the three fragments it would take cost three blocks: 10 elements sent instead of 11.
    "rr_tammy": ("tammy_demo", []),
    "rr_audit": ("audit_demo", ["rr_audit_result"]),
}


def _epsilon_scope() -> list[str]:
    """The fragments an ε move reruns."""
    scope = []
    for demo, (link, parts) in EPSILON_PARTS.items():
        whole = (not parts or st.session_state.get(share_key(link))
                 or (demo == "rr_coin" and _coin_step() > 0)
                 or (demo == "rr_protocol" and url_note_shown("rr_eps")))
        scope += [demo] if whole else parts
    return scope


def _epsilon_moved() -> None:
    st.rerun(scope=_epsilon_scope())


@st.fragment(key="rr_keep_chart")
def keep_chart() -> None:
    chart(charts.keep_probability_chart(_epsilon()), width="stretch")


@st.fragment(key="rr_conversions")
def conversions() -> None:
    epsilon = _epsilon()
    q = rr_keep_probability(epsilon)
    lessons.render(SLUG, "conversions", eps=epsilon, q=_prob(q), alpha=_prob(rr_alpha(epsilon)),
                   h=_prob(coin_heads_probability(epsilon)), ratio=_factor(math.exp(epsilon)))


@st.fragment(key="rr_missing_two")
def missing_two() -> None:
    epsilon = _epsilon()
    slide_alpha = lecture_theorem_alpha(epsilon)
    if math.isclose(epsilon, LN3):
        slide_case = "at"
    elif epsilon < LN3:
        slide_case = "below"
    else:
        slide_case = "above"
    with st.container(border=True):
        lessons.render(SLUG, f"missing-two-{slide_case}", eps=epsilon, slide_alpha=slide_alpha,
                       slide_keep=0.5 + slide_alpha,
                       slide_eps=alpha_epsilon(min(slide_alpha, 0.5)) if slide_case == "below" else 0.0)


@st.fragment(key="rr_odds_panel")
def odds() -> None:
    odds_panel(pure_release(_epsilon()), key="rr", what="each person's randomized answer")


@lessons.demo(key="rr_protocol")
def protocol_demo() -> None:
    copy_link(SLUG, "protocol_demo")
    controls, plot = st.columns([2, 3])
    with controls:
        choice_slider("ε for this page (ln 3 = fair coins)", EPS_OPTIONS, LN3, "rr_eps",
                      format_func=_epsilon_label, on_change=_epsilon_moved,
                      help="Smaller ε means more noise and stronger privacy. "
                           "It drives every demo on this page.")
    with plot:
        keep_chart()

    # The table at the page's width, one line a row (on the projector, a screen of its own).
    lessons.step()
    conversions()
    lessons.step()
    missing_two()
    lessons.step()
    odds()


lessons.step()
protocol_demo()


def _flip(step: int) -> None:
    st.session_state["rr_coin_progress"] = (draw_number("rr_coin"), step)


def _card(title: str, face: str) -> None:
    st.markdown(f"**{title}**\n\n## {face}")


@st.fragment(key="rr_coin_intro")
def coin_intro() -> None:
    epsilon = _epsilon()
    lessons.render(SLUG, "coin-intro", eps=epsilon, h=_prob(coin_heads_probability(epsilon), 3))


@st.fragment(key="rr_coin_after")
def coin_after() -> None:
    epsilon = _epsilon()
    q = rr_keep_probability(epsilon)
    lessons.render(SLUG, "coin-after", q=_prob(q, 3), one_minus_q=_prob(1 - q, 3),
                   ratio=_factor(math.exp(epsilon), 3))


@st.fragment(key="rr_coin")
def coin_demo() -> None:
    copy_link(SLUG, "coin_demo")
    coin_intro()
    truth = choice_radio("Your true answer", [1, 0], 1, "rr_coin_truth",
                         format_func=lambda b: "Yes" if b else "No")
    coins = rng_for("rr_coin").random(2)  # the respondent's two private coins, fixed per draw
    first_heads = bool(coins[0] < coin_heads_probability(_epsilon()))
    second_heads = bool(coins[1] < 0.5)
    step = _coin_step()
    done = step >= 2 or (step == 1 and first_heads)

    # Horizontal containers, not rows of st.columns: a row of three columns is four layout
    # blocks; a horizontal container is one.
    with st.container(horizontal=True):
        st.button("🪙 Flip the first coin", key="rr_coin_first", disabled=step > 0,
                  on_click=_flip, args=(1,), width="stretch")
        st.button("🪙 Flip the second coin", key="rr_coin_second",
                  disabled=step != 1 or first_heads, on_click=_flip, args=(2,), width="stretch")
        resample_button("rr_coin", "👤 Next respondent")

    # Each card's title and face are one markdown element (three fewer to send).
    cards = st.container(horizontal=True)
    with cards.container(border=True):
        if step == 0:
            _card("First coin", "?")
        else:
            _card("First coin", "Heads" if first_heads else "Tails")
            st.caption("Tell the truth." if first_heads else "Let the second coin decide.")
    with cards.container(border=True):
        if step >= 1 and first_heads:
            _card("Second coin (fair)", "—")
            st.caption("Not needed.")
        elif step < 2:
            _card("Second coin (fair)", "?")
        else:
            _card("Second coin (fair)", "Heads" if second_heads else "Tails")
            st.caption("Say Yes." if second_heads else "Say No.")
    with cards.container(border=True):
        if not done:
            _card("Reported answer", "…")
        else:
            answer = coin_report(truth, first_heads, second_heads)
            _card("Reported answer", "Yes" if answer else "No")
            st.caption("The truth." if first_heads else
                       ("Matches the truth by chance." if answer == truth else "Not the truth."))
    coin_after()


lessons.step("Step through one respondent", level="subheader")  # its own screen on the projector
coin_demo()

# ── 2. Survey simulation ─────────────────────────────────────────────────────────────────────
lessons.step("Survey simulation")
lessons.render(SLUG, "survey-intro")
lessons.quiz(SLUG, "bigger-n")


# A warm ε move used to redraw these surveys every time (12–15% of the move, bench/profile.py).
# The seed is the demo's, so a cached result is the picture a fresh draw would give.
@st.cache_data(max_entries=256, show_spinner=False)
def _survey_simulation(n: int, pi: float, epsilon: float, seed: list) -> tuple[np.ndarray, np.ndarray]:
    """The TRIALS repeated surveys, then the simulated RMSE points, from one generator."""
    rng = np.random.default_rng(seed)
    estimates = rr_simulate(n, pi, epsilon, rng, trials=TRIALS)
    return estimates, simulated_rmse(SIM_N, pi, epsilon, rng, trials=SIM_TRIALS)


@st.cache_data(max_entries=64, show_spinner=False)
def _local_central_simulation(epsilon: float, seed: list) -> tuple[np.ndarray, np.ndarray]:
    """Simulated RMSE points, local then central, from one generator."""
    rng = np.random.default_rng(seed)
    local = simulated_rmse(SIM_N, 0.5, epsilon, rng, trials=SIM_TRIALS)
    return local, simulated_rmse(SIM_N, 0.5, epsilon, rng, trials=SIM_TRIALS, model="central")


def _survey(n: int, pi: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The repeated surveys at the page's ε, the simulated RMSE points, this survey's π̂
    (the first of the repeated ones) and the true fraction."""
    estimates, sim = _survey_simulation(n, pi, _epsilon(), demo_seed("rr_survey"))
    return estimates, sim, float(estimates[0]), population_fraction(n, pi)


@st.fragment(key="rr_survey_numbers")
def survey_numbers(n: int, pi: float) -> None:
    epsilon = _epsilon()
    _, _, estimate, truth = _survey(n, pi)
    q = rr_keep_probability(epsilon)
    yes_share = rr_yes_share(estimate, epsilon)
    with st.container(horizontal=True):  # one layout block, not a row of columns
        st.metric("Reported Yes share", f"{yes_share:.2%}")
        st.metric("Debiased π̂", f"{estimate:.4f}", delta=f"{estimate - truth:+.4f} vs truth",
                  delta_color="off")
    lessons.render(SLUG, "survey-formula", n=n, yes_share=_share(yes_share),
                   expected_share=_share(rr_yes_share(truth, epsilon)),
                   yes_fraction=_prob(yes_share), one_minus_q=_prob(1 - q),
                   two_q_minus_1=_prob(2 * q - 1), estimate=estimate, truth=truth)


@st.fragment(key="rr_survey_plot")
def survey_plot(n: int, pi: float) -> None:
    epsilon = _epsilon()
    estimates, _, estimate, truth = _survey(n, pi)
    chart(charts.sampling_histogram(estimates, truth, estimate, rr_rmse(n, epsilon),
                                    step=rr_estimate_step(n, epsilon)), width="stretch")
    opendp_expander(opendp_snippets.randomized_response(epsilon, n, pi))


@st.fragment(key="rr_survey_curve")
def survey_curve(n: int, pi: float) -> None:
    epsilon = _epsilon()
    _, sim, estimate, truth = _survey(n, pi)
    chart(charts.error_vs_n_chart(N_GRID, rr_rmse(N_GRID, epsilon), np.array(SIM_N),
                                  sim, n, abs(estimate - truth)), width="stretch")


@st.fragment(key="rr_survey_notice")
def survey_notice(n: int, pi: float) -> None:
    epsilon = _epsilon()
    estimates, _, estimate, truth = _survey(n, pi)
    rmse = rr_rmse(n, epsilon)
    errors = np.asarray(estimates) - truth
    outside = float(np.mean((estimates < 0) | (estimates > 1)))
    values = {"yes_share": _share(rr_yes_share(estimate, epsilon)), "truth": truth,
              "outside": outside}
    lessons.render(SLUG, "survey-notice", trials=TRIALS,
                   sim_rmse=float(np.sqrt(np.mean(errors**2))), rmse=rmse, n=n,
                   two_rmse=2 * rmse,
                   # beyond ±0.5 the spread is wider than all of [0, 1]
                   two_rmse_note=lessons.section_text(SLUG, "survey-spread-useless")
                   if 2 * rmse > 0.5 else "",
                   bias_text=lessons.section_text(
                       SLUG, "survey-unbiased-half" if abs(truth - 0.5) < 0.005
                       else "survey-biased", **values),
                   outside_text=lessons.section_text(
                       SLUG, "survey-outside" if outside > 0 else "survey-outside-none",
                       **values))


@lessons.demo(key="rr_survey")
def survey_demo() -> None:
    copy_link(SLUG, "survey_demo")
    controls, plot = st.columns([2, 3])
    with controls:
        n = choice_slider("n (people surveyed, log scale)", N_OPTIONS, 1000, "rr_n",
                          format_func=_people)
        pi = range_slider("π (true fraction who would say Yes)", 0.0, 1.0, 0.2, "rr_pi", step=0.01)
        resample_button("rr_survey", "🎲 Resample the surveys")
        survey_numbers(n, pi)
    with plot:
        survey_plot(n, pi)
    lessons.step()
    curve, notice = st.columns([3, 2])
    with curve:
        survey_curve(n, pi)
    with notice:
        survey_notice(n, pi)


lessons.step()
survey_demo()
lessons.step()
accuracy_planner("rr", slug=SLUG, key="rr_plan")

# ── 3. Local versus central ──────────────────────────────────────────────────────────────────
lessons.step("Local versus central")
lessons.quiz(SLUG, "local-central")
lessons.render(SLUG, "local-central-intro")


@st.fragment(key="rr_lc_notice")
def local_central_notice(n: int) -> None:
    epsilon = _epsilon()
    ratio = local_central_ratio(n, epsilon)
    sampling = sampling_rmse(n, 0.5)
    versus = central_rmse(n, epsilon) / sampling
    central_vs = ("far below" if versus < 0.1 else "below" if versus < 1
                  else "above" if versus < 10 else "far above")
    # Which release is more accurate at this n and ε: at large ε and small n the coins
    # flip almost nothing and the local estimate wins (ε = 10, n = 10: 6.7 times).
    comparison = lessons.section_text(
        SLUG, "local-central-central-wins" if ratio >= 1 else "local-central-local-wins",
        n=n, ratio=f"{ratio:.2g}" if ratio < 10 else f"{ratio:,.0f}",
        inverse=f"{1 / ratio:.2g}", per_root_n=ratio / math.sqrt(n),
        n_needed=_people_count(local_n_to_match_central(n, epsilon)),
        n_even=f"{math.ceil(n / ratio**2):,}",  # ratio grows like √n: equal at n/ratio²
        flipped=percent_at_most(1 - rr_keep_probability(epsilon)))
    lessons.render(SLUG, "local-central-notice", n=n, eps=epsilon, local=rr_rmse(n, epsilon),
                   central=central_rmse(n, epsilon), comparison=comparison,
                   trials=SIM_TRIALS, central_vs=central_vs,
                   coin_factor=_factor(rr_rmse(n, epsilon) / sampling, 2),
                   large_eps=lessons.section_text(SLUG, "local-central-large-eps",
                                                  eps=epsilon, per_root_n=ratio / math.sqrt(n),
                                                  flipped=_percent(1 - rr_keep_probability(epsilon)))
                   if epsilon > 1.1 else "")


@st.fragment(key="rr_lc_plot")
def local_central_plot(n: int) -> None:
    epsilon = _epsilon()
    # The dots are RMSEs of SIM_TRIALS surveys each: a new draw would move them by about
    # 4%, less than a pixel on this log scale, so there is no resample button here.
    local_sim, central_sim = _local_central_simulation(epsilon, demo_seed("rr_lc"))
    chart(charts.local_central_chart(
        N_GRID, rr_rmse(N_GRID, epsilon), central_rmse(N_GRID, epsilon),
        sampling_rmse(N_GRID, 0.5), np.array(SIM_N), local_sim, central_sim, n),
        width="stretch")


@st.fragment(key="rr_lc_deployments")
def local_central_deployments() -> None:
    epsilon = _epsilon()
    lessons.render(SLUG, "deployments", census_ratio=local_central_ratio(CENSUS_N, epsilon),
                   eps=epsilon)


@st.fragment(key="rr_local_central")
def local_central_demo() -> None:
    copy_link(SLUG, "local_central_demo")
    controls, plot = st.columns([2, 3])
    with controls:
        n = choice_slider("n (people, log scale)", N_OPTIONS, 10_000, "rr_lc_n",
                          format_func=_people)
        local_central_notice(n)
    with plot:
        local_central_plot(n)
    local_central_deployments()


lessons.step()
local_central_demo()

# ── 4. Tammy's posterior ─────────────────────────────────────────────────────────────────────
lessons.step("Tammy's posterior")
lessons.render(SLUG, "tammy-intro")
lessons.quiz(SLUG, "tammy")


@st.fragment(key="rr_tammy")
def tammy_demo() -> None:
    epsilon = _epsilon()
    copy_link(SLUG, "tammy_demo")
    controls, plot = st.columns([2, 3])
    q = rr_keep_probability(epsilon)
    with controls:
        prior = range_slider("Tammy's prior that Bob dodged", 0.01, 0.99, 0.02, "rr_prior", step=0.01)
        post_yes = rr_posterior(prior, epsilon, report=1)
        post_no = rr_posterior(prior, epsilon, report=0)
        with st.container(horizontal=True):
            st.metric("After a Yes", f"{post_yes:.3f}")
            st.metric("After a No", f"{post_no:.3f}")
        lessons.render(SLUG, "tammy-notice", prior=_percent(prior),
                       post_yes=_percent(post_yes, other=prior), ratio=_factor(math.exp(epsilon), 3))
    with plot:
        chart(charts.posterior_chart(epsilon, prior), width="stretch")
    # On the projector the worked example sits under the numbers, beside the chart, so
    # the step fits one screen; on the page it follows the demo at full width.
    with controls if presenter_mode() else contextlib.nullcontext():
        lessons.render(SLUG, "tammy-formula", q=_prob(q, 3), eps=epsilon, prior=prior,
                       one_minus_prior=1 - prior, one_minus_q=_prob(1 - q, 3),
                       post_yes=_prob(post_yes, 3), post_no=_prob(post_no, 3))


lessons.step()
tammy_demo()

# ── 5. Check the guarantee ───────────────────────────────────────────────────────────────────
lessons.step("Check the guarantee")
lessons.render(SLUG, "audit-intro")


def _reports(rng: np.random.Generator, n: int, *, truth: int, alpha: float) -> np.ndarray:
    """n respondents who all hold `truth`, answering with keep probability ½ + α."""
    return randomized_response_alpha(np.full(n, truth), alpha, rng)


def _said_yes(reports: np.ndarray) -> np.ndarray:
    return reports == 1


@st.cache_data(max_entries=32, show_spinner=False)
def _yes_rates(alpha: float, samples: int, seed: list) -> tuple[float, float, float]:
    # The same generator and order as the audit panel, so both read the same respondents.
    rng = np.random.default_rng(seed)
    return yes_rates(_reports(rng, samples, truth=1, alpha=alpha),
                     _reports(rng, samples, truth=0, alpha=alpha))


@st.fragment(key="rr_audit_result")
def audit_result(choice: str, samples: int) -> None:
    epsilon = _epsilon()
    alpha = rr_alpha(epsilon) if choice == "right" else lecture_theorem_alpha(epsilon)
    if alpha > 0.5 and not math.isclose(alpha, 0.5):
        st.warning(lessons.section_text(SLUG, "audit-slide-invalid", eps=epsilon,
                                        slide_alpha=_prob(alpha, 3),
                                        slide_keep=_prob(0.5 + alpha, 3)))
        return
    alpha = min(alpha, 0.5)
    audit_panel("rr_audit",
                functools.partial(_reports, truth=1, alpha=alpha),
                functools.partial(_reports, truth=0, alpha=alpha),
                _said_yes, promised_epsilon=epsilon, event_label="{report = Yes}",
                cache_key=("rr", alpha), samples=samples)
    p_yes, p_no, rate_ratio = _yes_rates(alpha, samples, demo_seed("rr_audit"))
    true_eps = alpha_epsilon(alpha)
    section = ("audit-rates" if p_no > 0 else "audit-rates-never" if math.isinf(true_eps)
               else "audit-rates-none-seen")
    lessons.render(SLUG, section, samples=samples, p_yes=_prob(p_yes), p_no=_prob(p_no),
                   rate_ratio=_factor(rate_ratio) if p_no else "", log_ratio=float(np.log(rate_ratio)) if p_no else 0.0,
                   true_eps=true_eps, eps=epsilon, one_minus_q=0.5 - alpha)


@st.fragment(key="rr_audit")
def audit_demo() -> None:
    copy_link(SLUG, "audit_demo")
    controls, result = st.columns([2, 3])
    with controls:
        choice = choice_radio("Implementation under test", list(AUDIT_CHOICES), "right", "rr_audit_impl",
                              format_func=AUDIT_CHOICES.get)
        samples = choice_slider("Simulated respondents per truth", SAMPLE_SIZES, 100_000,
                                "rr_audit_samples", format_func=_people)
        resample_button("rr_audit", "🎲 Resample the respondents")
    with result:
        audit_result(choice, samples)


audit_demo()

# ── Takeaways ────────────────────────────────────────────────────────────────────────────────
lessons.step("Takeaways")
lessons.render(SLUG, "takeaways")
lessons.render(SLUG, "reading")
