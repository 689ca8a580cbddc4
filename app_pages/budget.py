import functools

import numpy as np
import streamlit as st

from dp import averaging_attack_queries, laplace_mechanism, laplace_scale
from dp.budget import (
    GAME_N,
    QUESTIONS,
    BudgetExceeded,
    BudgetGame,
    GameOver,
    advanced_split_crossover,
    at_least,
    attack_threshold,
    average_sd,
    averaged_laplace_samples,
    combine_answers,
    disclosure_budget,
    first_inside,
    laplace_disclosure_budget,
    laplace_half_width,
    per_query_epsilon,
    pooling_penalty,
    question_sensitivity,
    running_mean_band,
    settled_from,
    simulate_averaging_attack,
    true_answer,
    z_value,
)
from dp.odds import pure_release
from ui import lessons, opendp_snippets
from ui.audit import audit_panel
from ui.charts import budget as charts
from ui.numbers import number
from ui.odds import odds_panel
from ui.opendp_show import opendp_expander
from ui.params import DELTAS, EPSILONS, choice_select, choice_slider, range_slider
from ui.seeds import demo_seed, resample_button, rng_for
from ui.share import copy_link
from ui.show import chart

SLUG = "budget"
CORRIDOR = 0.5  # rounding a mean within ±0.5 of an integer count gives the count
CONFIDENCE = 0.95
BLOG_EPS, BLOG_COUNT = 0.5, 4
ATTACK_EPSILONS = [0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0]
SIM_RUNS = 400
AUDIT_COUNTS = (4, 3)  # D with the patient, D′ without (Δ = 1)
TOTALS = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
GAMES_KEY = "budget_games"
MAX_GAMES = 20  # games kept per session, one per hidden dataset
# Every k up to 100 (where advanced composition overtakes basic), then log-spaced to 1000.
SPLIT_KS = np.unique(np.concatenate([np.arange(1, 101),
                                     np.geomspace(100, 1000, 25).round().astype(int)]))
BLOG_QUERIES = 130  # the blog post's "at least (about) 130 queries"
SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def readable(x: float) -> str:
    """A large number for prose: 22,026 or 5.1 × 10²⁶."""
    if x < 1e6:
        return f"{x:,.0f}"
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPTS)}"


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def attack_horizon(m_star: int) -> int:
    """How many answers the attack demo draws: three times the formula's m*, at least 30."""
    return max(30, 3 * m_star)


@st.cache_data(max_entries=32, show_spinner=False)
def attack_runs(seed: list[int], epsilon: float, queries: int) -> np.ndarray:
    return simulate_averaging_attack(np.random.default_rng(seed), epsilon, queries, SIM_RUNS,
                                     corridor=CORRIDOR, confidence=CONFIDENCE)


def run_summary(runs: np.ndarray) -> dict:
    hit = runs[runs > 0]
    q1, median, q3 = np.percentile(hit, [25, 50, 75]) if hit.size else (0, 0, 0)
    return {"sim_median": float(median), "sim_q1": float(q1), "sim_q3": float(q3),
            # 398 of 400 is not "100%": below all of them, never print more than 99%
            "sim_fit": min(100 * float(np.mean(runs > 0)), 99.4) if np.any(runs == 0) else 100.0,
            "runs": SIM_RUNS,
            "sim_by_blog": 100 * float(np.mean((runs > 0) & (runs <= BLOG_QUERIES))),
            "blog_queries": BLOG_QUERIES}


st.title("Averaging attacks and the budget")
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson

# --- 1. The averaging attack -------------------------------------------------------------------

lessons.step("1. The averaging attack")
lessons.render(SLUG, "attack-intro")


@lessons.demo
def attack_demo() -> None:
    copy_link(SLUG, "attack_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        epsilon = choice_slider("ε per answer", ATTACK_EPSILONS, BLOG_EPS, "budget_avg_eps",
                                help="Each answer alone is ε-DP.")
        truth = range_slider("true count (patients)", 0, 50, BLOG_COUNT, "budget_avg_count")
        resample_button("budget_avg")
    b = laplace_scale(1.0, epsilon)
    m_star = averaging_attack_queries(epsilon, half_width=CORRIDOR, confidence=CONFIDENCE)
    horizon = attack_horizon(m_star)
    answers = laplace_mechanism(np.full(horizon, float(truth)), 1.0, epsilon, rng_for("budget_avg"))
    means, half_widths = running_mean_band(answers, b, CONFIDENCE)
    disclosed = first_inside(means, half_widths, truth, CORRIDOR)
    settled = settled_from(means, truth, CORRIDOR)
    runs = run_summary(attack_runs(demo_seed("budget_avg"), epsilon, horizon))
    with plot:
        chart(charts.attack_figure(means, half_widths, truth, epsilon, m_star, disclosed,
                                   CORRIDOR, y_span=max(1.5, half_widths[3])),
              width="stretch", key="budget_avg_chart")
    with controls:
        left, right = st.columns(2)
        left.metric("formula: m*", f"{m_star:,}",
                    help="dp.averaging_attack_queries: the first m with a band narrower than ±0.5")
        right.metric("this run", f"{disclosed:,}" if disclosed else f"> {horizon:,}",
                     help="The first m at which the whole 95% band lies inside the corridor")
    # Under the demo, at full width; in presenter mode the formula and the odds are the next screen.
    lessons.step()
    lessons.render(SLUG, "attack-formula", eps=epsilon, b=b, z=z_value(CONFIDENCE),
                   raw=attack_threshold(epsilon, 1.0, CORRIDOR, CONFIDENCE), m_star=m_star)
    disclosed_text = (f"query **{disclosed:,}**" if disclosed
                      else f"no query among the {horizon:,} drawn")
    settled_text = (f"from query {settled:,} on" if settled
                    else "only now and then: it was outside again at the last query")
    first_points = lessons.section_text(
        SLUG, "attack-first-wide" if b >= CORRIDOR else "attack-first-narrow", b=b)
    lessons.render(SLUG, "attack-notice", eps=epsilon, b=b, truth=truth, m_star=m_star,
                   first_points=first_points,
                   disclosed_text=disclosed_text, settled_text=settled_text,
                   spent=m_star * epsilon, e_spent=readable(float(np.exp(min(m_star * epsilon, 700)))),
                   raw=attack_threshold(epsilon, 1.0, CORRIDOR, CONFIDENCE),
                   raw_half=attack_threshold(epsilon / 2, 1.0, CORRIDOR, CONFIDENCE),
                   horizon=horizon, **runs)
    if epsilon == BLOG_EPS:
        lessons.render(SLUG, "blog-compare", m_star=m_star, spent=m_star * epsilon, **runs)
    else:
        lessons.render(SLUG, "blog-hint", blog_eps=BLOG_EPS)
    odds_panel(pure_release(epsilon), key="budget", what="one answer")
    opendp_expander(opendp_snippets.repeated_count(epsilon, m_star, truth))


attack_demo()
lessons.step()
lessons.quiz(SLUG, "attack-epsilon")

lessons.step("Check the guarantee: k answers leak more than one", level="subheader")
lessons.render(SLUG, "audit-intro", c1=AUDIT_COUNTS[0], c2=AUDIT_COUNTS[1])


@st.fragment
def audit_demo() -> None:
    copy_link(SLUG, "audit_demo")
    controls, result = st.columns([2, 3], gap="large")
    with controls:
        epsilon = choice_slider("ε per answer", [0.1, 0.2, 0.5, 1.0], 0.5, "budget_audit_eps")
        k = choice_slider("k (answers averaged)", [1, 2, 5, 10, 20, 50], 10, "budget_audit_k")
        resample_button("budget_audit")
    threshold = AUDIT_COUNTS[0] + 2 * average_sd(epsilon, k)
    with result:
        certified = audit_panel(
            "budget_audit",
            functools.partial(averaged_laplace_samples, value=AUDIT_COUNTS[0], epsilon=epsilon, k=k),
            functools.partial(averaged_laplace_samples, value=AUDIT_COUNTS[1], epsilon=epsilon, k=k),
            functools.partial(at_least, threshold=threshold),
            promised_epsilon=k * epsilon,
            event_label=f"{{mean of the {k} answers ≥ {threshold:.2f}}}",
            cache_key=("budget-averaged", epsilon, k, AUDIT_COUNTS),
        )
    values = {"eps": epsilon, "k": k, "total": k * epsilon, "certified": certified,
              "threshold": threshold, "ratio": certified / epsilon}
    values["result"] = lessons.section_text(
        SLUG, ("audit-result-one" if k == 1 else "audit-result-many")
        + ("" if certified <= k * epsilon else "-over"), **values)
    lessons.render(SLUG, "audit-notice", **values)
    opendp_expander(opendp_snippets.repeated_count(epsilon, k, AUDIT_COUNTS[0]))


audit_demo()

# --- 2. The privacy-budget game ----------------------------------------------------------------

lessons.step("2. The privacy-budget game")
lessons.render(SLUG, "game-intro", n=GAME_N)
lessons.render(SLUG, "game-rules", n=GAME_N)


def current_game(total: float) -> BudgetGame:
    """This session's game for the current hidden dataset (one per seed and 'New game' draw).

    The accountant belongs to the dataset: coming back to a dataset brings back its spent
    budget. The total can still change while nothing has been spent.
    """
    games = st.session_state.setdefault(GAMES_KEY, {})
    seed = tuple(demo_seed("budget_game"))
    game = games.get(seed)
    if game is None or (not game.log and not game.revealed and game.total != total):
        game = BudgetGame(total, rng_for("budget_game"))
        games[seed] = game
        while len(games) > MAX_GAMES:
            games.pop(next(iter(games)))
    return game


def show_answer(key: str, value, exact: bool = False) -> str:
    """A released (one decimal) or exact (whole counts) answer as text; buckets with labels."""
    q = QUESTIONS[key]
    spec = ".0f" if exact and q.kind != "mean" else ".1f"
    if q.categories is None:
        return format(value, spec)
    return " · ".join(f"{c} {v:{spec}}" for c, v in zip(q.categories, value, strict=True))


def log_table(game: BudgetGame) -> list[dict]:
    rows = []
    for entry in game.log:
        row = {"#": entry.number, "question": QUESTIONS[entry.question].short,
               "ε": entry.epsilon, "noisy answer": show_answer(entry.question, entry.answer),
               "± (95%)": round(entry.half_width, 2), "ε spent so far": round(entry.spent, 4)}
        if game.revealed:
            row["true answer"] = show_answer(entry.question, true_answer(game.data, entry.question),
                                             exact=True)
        rows.append(row)
    return rows


@st.cache_data(max_entries=32, show_spinner=False)
def split_curves(total: float, delta_prime: float) -> dict[str, np.ndarray]:
    each_basic = np.array([laplace_half_width(1 / per_query_epsilon(total, k)) for k in SPLIT_KS])
    each_advanced = np.array([laplace_half_width(1 / per_query_epsilon(total, k, delta_prime))
                              for k in SPLIT_KS])
    average = np.array([z_value(CONFIDENCE) * average_sd(per_query_epsilon(total, k), k)
                        for k in SPLIT_KS])
    return {"each_basic": each_basic, "each_advanced": each_advanced, "average_basic": average}


@st.cache_data(max_entries=128, show_spinner=False)
def split_crossover(total: float, delta_prime: float) -> int | None:
    return advanced_split_crossover(total, delta_prime, int(SPLIT_KS[-1]))


@lessons.demo
def game_demo() -> None:
    copy_link(SLUG, "game_demo")
    setup, board = st.columns([2, 3], gap="large")
    with setup:
        total = choice_slider("ε_T (your total budget)", TOTALS, 1.0, "budget_game_total")
        delta_prime = choice_slider("δ′ (for the advanced-composition bound)", DELTAS, 1e-6,
                             "budget_game_dprime", help="δ should be much smaller than 1/n.")
        game = current_game(total)
        if game.total != total:
            st.info(lessons.section_text(SLUG, "game-total-locked", total=game.total, wanted=total))
        st.divider()
        question = choice_select("Question", list(QUESTIONS), next(iter(QUESTIONS)), "budget_game_q",
                                 format_func=lambda key: QUESTIONS[key].label)
        epsilon = choice_slider("ε for this query", EPSILONS, 0.1, "budget_game_eps",
                         help="Smaller ε means more noise and stronger privacy.")
        ask_col, repeat_col = st.columns(2)
        ask = ask_col.button("Ask", key="budget_game_ask", type="primary", width="stretch")
        repeat = repeat_col.button("Repeat until refused", key="budget_game_repeat",
                                   width="stretch",
                                   help="The averaging attack: ask this question again and "
                                        "again at this ε until the accountant says no.")
        resample_button("budget_game", "🆕 New game (new hidden data)")

    refusal = None
    repeated = 0
    if ask or repeat:
        try:
            if repeat:
                repeated = len(game.ask_until_refused(question, epsilon))
            game.ask(question, epsilon)  # after a repeat this is the query that is refused
        except (BudgetExceeded, GameOver) as error:
            refusal = str(error)

    accountant = game.accountant
    with board:
        st.progress(min(1.0, accountant.spent / accountant.total),
                    text=f"Budget spent: {accountant.spent:.4g} of ε_T = {accountant.total:g}")
        spent_col, left_col, adv_col = st.columns(3)
        spent_col.metric("spent (basic)", f"{accountant.spent:.4g}",
                         help="Σ ε over the answered queries (basic composition)")
        left_col.metric("remaining", f"{accountant.remaining:.4g}")
        advanced = accountant.advanced(delta_prime)
        adv_col.metric(f"advanced, δ′ = {number(delta_prime, 'g')}",
                       f"{advanced[0]:.4g}" if advanced else "–",
                       help="Advanced composition of the answers so far, each counted at the "
                            "largest ε used (for comparison; the accountant refuses by the "
                            "basic total)")
        if repeated:
            st.success(lessons.section_text(SLUG, "game-repeated", times=repeated, eps=epsilon))
        if refusal:
            st.error(refusal, icon="🛑")
        lessons.render(SLUG, "game-status", eps=epsilon,
                       left=plural(accountant.affordable(epsilon), "more answer"),
                       questions=len(game.log))
        if game.log:
            st.dataframe(log_table(game), hide_index=True, width="stretch", height=260)
        else:
            st.caption("The log of your answers appears here after your first question.")

    same = game.answers_to(question)
    if len(same) >= 2:
        sensitivity = question_sensitivity(question, game.n)
        estimate, half = combine_answers([e.answer for e in same],
                                         [laplace_scale(sensitivity, e.epsilon) for e in same],
                                         CONFIDENCE)
        epsilons = [e.epsilon for e in same]
        pooled_eps = sum(epsilons)
        factor = pooling_penalty(epsilons)
        if factor < 1.1:
            single_section = "game-pooled-single-close"
        elif max(epsilons) - min(epsilons) <= 1e-9 * pooled_eps:
            single_section = "game-pooled-single-equal"
        else:
            single_section = "game-pooled-single-mixed"
        # one answer at the pooled ε, in the pooled band's own approximation and exactly
        single = lessons.section_text(SLUG, single_section, k=len(same), factor=factor,
                                      best_normal=half / factor,
                                      best=laplace_half_width(sensitivity / pooled_eps))
        lessons.render(SLUG, "game-pooled", k=len(same), question=QUESTIONS[question].label,
                       estimate=show_answer(question, estimate), half=half, pooled=pooled_eps,
                       single=single)
        if QUESTIONS[question].kind == "count":
            needed = laplace_disclosure_budget(sensitivity, CORRIDOR, CONFIDENCE)
            if half <= CORRIDOR:  # needs √(Σε²) > 5.54, so ε_T > 5.54 as well
                section = "game-pooled-leaks"
            elif game.total < needed:
                section = "game-pooled-stopped"
            else:
                section = "game-pooled-could-leak"
            lessons.render(SLUG, section, needed=needed, total=game.total, half=half,
                           band_needed=disclosure_budget(sensitivity, CORRIDOR, CONFIDENCE),
                           root=float(np.sqrt(np.sum(np.square(epsilons)))))

    asked = QUESTIONS[question]
    opendp_expander(opendp_snippets.game_question(
        asked.kind, epsilon, game.n, what=f"{asked.short.removeprefix('mean ')} values",
        bounds=asked.bounds, categories=asked.categories))

    lessons.step("Splitting the budget", level="subheader")
    text, plot = st.columns([2, 3], gap="large")
    curves = split_curves(game.total, delta_prime)
    with plot:
        chart(charts.split_figure(SPLIT_KS, curves["each_basic"],
                                  curves["each_advanced"], curves["average_basic"],
                                  game.total, delta_prime, CORRIDOR,
                                  asked=len(game.log)),
              width="stretch", key="budget_split_chart")
    crossover = split_crossover(game.total, delta_prime)
    with text:
        lessons.render(SLUG, "split-notice", total=game.total, dprime=delta_prime,
                       one=curves["each_basic"][0], ten=curves["each_basic"][SPLIT_KS == 10][0],
                       hundred=curves["each_basic"][SPLIT_KS == 100][0],
                       avg_hundred=curves["average_basic"][SPLIT_KS == 100][0],
                       crossover=f"{crossover:,}" if crossover else "more than 1,000",
                       needed=laplace_disclosure_budget(1.0, CORRIDOR, CONFIDENCE))
        st.page_link("app_pages/composition.py", label="Composition: basic, advanced and exact",
                     icon="➕")

    lessons.step("The end of the game", level="subheader")
    if not game.revealed:
        lessons.render(SLUG, "reveal-intro")
        st.button("🔓 Reveal the data (ends this game)", key="budget_game_reveal",
                  on_click=game.reveal)
    else:
        lessons.render(SLUG, "revealed" if game.log else "revealed-empty",
                       spent=accountant.spent, total=accountant.total,
                       questions=plural(len(game.log), "question"))
        truths = [{"question": q.label,
                   "true answer": show_answer(key, true_answer(game.data, key), exact=True),
                   "Δ (replace-one)": round(question_sensitivity(key, game.n), 3)}
                  for key, q in QUESTIONS.items()]
        st.dataframe(truths, hide_index=True, width="stretch",
                     column_config={"true answer": st.column_config.TextColumn(width="large")})
        with st.expander(f"All {game.n} patients"):
            st.dataframe({"age": game.data["age"],
                          "region": [QUESTIONS["regions"].categories[r] for r in game.data["region"]],
                          "smoker": game.data["smoker"],
                          "blood pressure (mmHg)": game.data["blood_pressure"],
                          "heart attack": game.data["heart_attack"]},
                         width="stretch", height=300)


lessons.step()
game_demo()
lessons.step()
lessons.quiz(SLUG, "split")

# --- 3. The fundamental law of information recovery --------------------------------------------

lessons.step("3. Why a budget at all: the fundamental law")
lessons.render(SLUG, "law", n=GAME_N, sqrt_n=float(np.sqrt(GAME_N)), b_basic=GAME_N / 1.0)
st.page_link("app_pages/anonymisation.py", label="Why anonymisation fails: the reconstruction attack",
             icon="🕵️")
lessons.quiz(SLUG, "law")

lessons.step("Takeaways")
lessons.render(SLUG, "takeaways")
st.subheader("Read more")
lessons.render(SLUG, "reading")
st.page_link("app_pages/composition.py", label="Composition: how the bounds compare", icon="➕")
