"""Privacy in machine learning: membership inference, DP-GD with exact accounting, FedAvg."""

from __future__ import annotations

import functools
import math

import numpy as np
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dp import gaussian_composition_epsilon, gaussian_sigma, max_true_positive_rate
from dp.learning import (
    accuracy,
    advantage_bound,
    bayes_accuracy,
    canary_event,
    canary_event_probabilities,
    canary_models,
    confidence,
    dp_gd_mu,
    dp_gd_sigma,
    fedavg,
    gaussian_advantage_bound,
    gaussian_tradeoff,
    mean_and_se,
    membership_scores,
    shadow_attack,
    synthetic_data,
    tpr_at_fpr,
    train_dp_gd,
    train_logistic,
)
from dp.odds import gaussian_release
from ui import heavy, lessons, opendp_snippets
from ui.audit import audit_panel
from ui.charts import machine_learning as charts
from ui.odds import odds_panel
from ui.opendp_show import opendp_expander
from ui.params import choice_slider, epsilon_slider
from ui.seeds import demo_seed, resample_button
from ui.share import copy_link
from ui.show import chart

SLUG = "machine-learning"
CHART = {"width": "stretch", "config": {"displaylogo": False}}

# The population: x ~ N(0, I_d), y ~ Bernoulli(σ(w*·x)), ‖w*‖ = SIGNAL.
SIGNAL = 3.0
DELTA = 1e-5
N_OPTIONS = [25, 50, 100, 200, 500, 1000]
D_OPTIONS = [5, 10, 20, 50]
L2_OPTIONS = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0]
POOL = 2000  # members (and as many non-members) per experiment, over all repeats
MIN_REPEATS = 8  # half shadow models, half targets

# DP-GD: the ε slider's options are also the sweep's grid, so moving ε never retrains.
DP_EPSILONS = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
CLIP_OPTIONS = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
EPOCH_OPTIONS = [1, 2, 5, 10, 20, 50]

# FedAvg: K clients with RECORDS_PER_CLIENT records each, all clients in every round.
CLIENT_OPTIONS = [10, 20, 50, 100, 200, 500]
LOCAL_EPOCH_OPTIONS = [1, 2, 5]
RECORDS_PER_CLIENT = 20
ROUNDS = 10
UPDATE_CLIP = 1.0
AUDIT_SAMPLES = 100_000  # tiny models trained on each of D and D′, on demand

FED_RECORDS = 8000  # records per FedAvg experiment, over all repeats
FED_TEST = 2000


def repeats(n: int) -> int:
    """Independent models per experiment: enough for POOL members, and at least MIN_REPEATS."""
    return max(MIN_REPEATS, math.ceil(POOL / n))


def fed_repeats(clients: int) -> int:
    """Independent FedAvg runs: 4 for up to 100 clients, fewer (never below 2) for more."""
    return max(2, min(4, FED_RECORDS // (clients * RECORDS_PER_CLIENT)))


def _population(n: int, d: int, seed: list) -> tuple[np.ndarray, ...]:
    """R data sets of 2n records: the first n train the model (members), the rest do not."""
    rng = np.random.default_rng(seed)
    X, y = synthetic_data(2 * n, d, rng, signal=SIGNAL, batch=repeats(n))
    return X[..., :n, :], y[..., :n], X[..., n:, :], y[..., n:]


def _evaluate(w, members_x, members_y, others_x, others_y) -> dict:
    """Accuracy (mean and SE over repeats) and the shadow-model attack, for weights (R, d)."""
    test, test_se = mean_and_se(accuracy(w, others_x, others_y))
    attack = shadow_attack(membership_scores(w, members_x, members_y),
                           membership_scores(w, others_x, others_y))
    return {"train": float(accuracy(w, members_x, members_y).mean()), "test": float(test),
            "test_se": float(test_se), **attack}


@heavy.cache_data(max_entries=32)
def nonprivate_run(n: int, d: int, l2: float, seed: list) -> dict:
    members_x, members_y, others_x, others_y = _population(n, d, seed)
    w = train_logistic(members_x, members_y, l2)
    half = repeats(n) // 2  # the histogram shows the target models, like the ROC
    return {**_evaluate(w, members_x, members_y, others_x, others_y),
            "conf_members": confidence(w[half:], members_x[half:], members_y[half:]),
            "conf_others": confidence(w[half:], others_x[half:], others_y[half:])}


@heavy.cache_data(max_entries=16)
def dp_sweep(n: int, d: int, clip: float, epochs: int, data_seed: list, noise_seed: list) -> dict:
    """DP-GD at every ε of the slider, plus the same steps without noise, on the same data."""
    members_x, members_y, others_x, others_y = _population(n, d, data_seed)
    sigmas = [dp_gd_sigma(eps, DELTA, clip, epochs) for eps in DP_EPSILONS] + [0.0]
    weights = train_dp_gd(members_x, members_y, np.array(sigmas), clip, epochs,
                          np.random.default_rng(noise_seed))
    runs = [_evaluate(weights[:, j], members_x, members_y, others_x, others_y)
            for j in range(len(sigmas))]
    return {"sigmas": sigmas, "runs": runs[:-1], "noiseless": runs[-1]}


@heavy.cache_data(max_entries=32)
def federated_run(d: int, clients: int, local_epochs: int, epsilon: float, seed: list) -> dict:
    rng = np.random.default_rng(seed)
    repeats = fed_repeats(clients)
    X, y = synthetic_data(RECORDS_PER_CLIENT, d, rng, signal=SIGNAL, batch=(repeats, clients))
    test_x, test_y = synthetic_data(FED_TEST, d, rng, signal=SIGNAL, batch=repeats)
    sigma = dp_gd_sigma(epsilon, DELTA, UPDATE_CLIP, ROUNDS)
    curves, spread = {}, {}
    for name, place in (("no noise", "none"), ("central DP", "central"), ("local DP", "local")):
        history = fedavg(X, y, ROUNDS, local_epochs, UPDATE_CLIP, sigma, place, rng)
        acc = accuracy(history, test_x[:, None], test_y[:, None])  # (repeats, rounds + 1)
        curves[name], spread[name] = mean_and_se(acc)
    return {"sigma": sigma, "curves": curves, "spread": spread}


def share(p: float) -> str:
    """A probability as a percentage, with a power of ten when 0.01% would round it to 0."""
    if p >= 1e-4:
        return f"{p:.2%}"
    mantissa, exponent = f"{100 * p:.1e}".split("e")
    return (f"{mantissa} × 10" + str(int(exponent)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
            + "%")


def bound_text(x: float) -> str:
    """An advantage bound to three decimals, never 1.000: at finite ε (and δ < 1) it is below 1."""
    return f"{x:.3f}" if f"{x:.3f}" != "1.000" else "just under 1"


def point_count(count: int) -> str:
    return f"{count} point{'' if count == 1 else 's'}"


def price_sentence(base_test: float, noiseless_test: float, test: float, epochs: int) -> str:
    """What clipping with early stopping, and then the noise, cost in test accuracy (as shown)."""
    base_test, noiseless_test, test = (round(100 * a) for a in (base_test, noiseless_test, test))
    steps = f"stopping after {epochs} epoch{'' if epochs == 1 else 's'}"
    clipping = noiseless_test - base_test
    if clipping < 0:
        first = f"Clipping and {steps} cost {point_count(-clipping)}"
    elif clipping == 0:
        first = f"Clipping and {steps} cost nothing here"
    else:
        first = f"Clipping and {steps} even gain {point_count(clipping)} here"
    noise = noiseless_test - test
    if noise > 0:
        return f"{first}; the noise costs {point_count(noise)}."
    if noise == 0:
        return f"{first}, and the noise costs nothing visible."
    return f"{first}, and the noisy run does {point_count(-noise)} better still."


st.title("Privacy in machine learning")
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson
lessons.quiz(SLUG, "overfit")

# --- 1. The attack ------------------------------------------------------------------------

lessons.step("1. Membership inference: the model remembers")
lessons.render(SLUG, "attack-intro")
# The training set's settings (n, d, λ) drive the demos below them. Moving one reruns only
# the demos that read them (keyed fragments, DATA_DEMOS), not the page: the prose, quizzes and
# headings between them are not sent again. Each demo reads the settings from the session
# state, since a fragment rerun on its own keeps the arguments of the last page run.
DATA_DEMOS = ["ml_attack", "ml_dp_training", "ml_federated"]
SHOWN_SEED = "ml_shown_seed"


def _data_moved() -> None:
    st.rerun(scope=DATA_DEMOS)


def _demo_rerun() -> bool:
    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)


def _settings() -> tuple[int, int, float]:
    """n, d and λ, as the attack demo's controls hold them."""
    state = st.session_state
    return state.get("ml_n", 50), state.get("ml_d", 20), state.get("ml_l2", 0.001)


@st.fragment(key="ml_attack")
def attack_demo() -> None:
    copy_link(SLUG, "attack_demo")
    controls, hist_plot, roc_plot = st.columns([2, 3, 3], gap="medium")
    with controls:
        n = choice_slider("n (training records)", N_OPTIONS, 50, "ml_n",
                          help="How many records the model is trained on.",
                          on_change=_data_moved)
        d = choice_slider("d (features = model weights)", D_OPTIONS, 20, "ml_d",
                          help="More weights let the model fit, and remember, more.",
                          on_change=_data_moved)
        l2 = choice_slider("λ (ridge penalty of the non-private model)", L2_OPTIONS, 0.001, "ml_l2",
                           help="Regularisation: larger λ keeps the weights smaller.",
                           on_change=_data_moved)
        resample_button("ml_data", "🎲 New training data")
    seed = demo_seed("ml_data")
    if _demo_rerun() and st.session_state.get(SHOWN_SEED) != seed:
        st.rerun()  # "New training data": every part of the page trains on the new data
    st.session_state[SHOWN_SEED] = seed
    base = nonprivate_run(n, d, l2, seed)
    with controls:
        # Two horizontal containers, not rows of st.columns (two layout blocks a move, not six).
        # "Train accuracy": the projector cut "Training accuracy" to "Training acc…".
        with st.container(horizontal=True):
            st.metric("Train accuracy", f"{base['train']:.0%}")
            st.metric("Test accuracy", f"{base['test']:.0%}")
        with st.container(horizontal=True):
            st.metric("Attack TPR", f"{base['tpr']:.0%}", help="Members the attack flags.")
            st.metric("Attack FPR", f"{base['fpr']:.0%}", help="Non-members it flags by mistake.")
    with hist_plot:
        chart(charts.confidence_chart(base["conf_members"], base["conf_others"]),
              key="ml_conf_chart", **CHART)
    with roc_plot:
        chart(charts.roc_chart(base["roc_fpr"], base["roc_tpr"],
                               title="Attack on the non-private model",
                               point=(base["tpr"], base["fpr"])),
              key="ml_roc_chart", **CHART)
    gap = round(100 * base["train"]) - round(100 * base["test"])  # as the two are shown, in points
    significant = base["advantage"] > 2 * base["advantage_se"]
    if gap >= 2:
        more_sure = base["conf_members"].mean() > base["conf_others"].mean()
        feeds = " " + lessons.section_text(SLUG, "attack-gap-feeds", chart_clause=(
            " " + lessons.section_text(SLUG, "attack-gap-chart") if more_sure else ""))
        gap_text = lessons.section_text(SLUG, "attack-gap", gap=gap, feeds=feeds if significant else "")
    else:
        agree = {0: "are equal", 1: "differ by a single point"}.get(
            abs(gap), f"differ by {abs(gap)} points, in favour of the fresh records")
        gap_text = lessons.section_text(SLUG, "attack-no-gap", agree=agree)
    lead = base["roc_tpr"] - base["roc_fpr"]
    tpr5 = tpr_at_fpr(base["roc_fpr"], base["roc_tpr"], 0.05)
    if lead.max() < 0.05:
        # "within N points of the diagonal" is a bound on both sides: the curve may dip below it
        points = math.ceil(100 * abs(lead).max())
        roc_text = lessons.section_text(SLUG, "attack-roc-flat", within="on" if points == 0 else
                                        f"within {points} point{'s' if points > 1 else ''} of")
    elif tpr5 < 0.10:
        roc_text = lessons.section_text(SLUG, "attack-roc-late", tpr5=100 * tpr5)
    else:
        roc_text = lessons.section_text(SLUG, "attack-roc-early", tpr5=100 * tpr5,
                                        max_lead=100 * lead.max())
    lessons.render(SLUG, "attack-notice", n=f"{n:,}", d=d, l2=l2, train=100 * base["train"],
                   test=100 * base["test"], gap_text=gap_text, roc_text=roc_text,
                   tpr=100 * base["tpr"], fpr=100 * base["fpr"], adv=base["advantage"],
                   adv_se=base["advantage_se"], models=repeats(n), half=repeats(n) // 2,
                   adv_text="" if significant else lessons.section_text(SLUG, "attack-adv-noise") + " ")


attack_demo()

# --- 2. DP-GD -----------------------------------------------------------------------------

lessons.step("2. Training with differential privacy: DP-GD")
lessons.render(SLUG, "dpgd-intro")
lessons.render(SLUG, "dpgd-accounting")


@lessons.demo(key="ml_dp_training")
def dp_training() -> None:
    n, d, l2 = _settings()
    copy_link(SLUG, "dp_training")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        epsilon = epsilon_slider("ml_eps", 1.0, DP_EPSILONS)
        clip = choice_slider("C (clip norm per example)", CLIP_OPTIONS, 1.0, "ml_clip",
                             help="Every per-example gradient is scaled down to length ≤ C.")
        epochs = choice_slider("T (epochs = full-batch steps)", EPOCH_OPTIONS, 10, "ml_epochs",
                               help="Each epoch is one noisy gradient step on all n records.")
        resample_button("ml_dp", "🎲 New noise")
    sweep = dp_sweep(n, d, clip, epochs, demo_seed("ml_data"), demo_seed("ml_dp"))
    base = nonprivate_run(n, d, l2, demo_seed("ml_data"))
    index = DP_EPSILONS.index(epsilon)
    run, sigma = sweep["runs"][index], sweep["sigmas"][index]
    mu = dp_gd_mu(sigma, epochs, clip)
    fpr = run["roc_fpr"]
    bound_x = np.union1d(fpr, [(1 - DELTA) / (math.exp(epsilon) + 1)])  # + the bound's kink
    bound = (bound_x, max_true_positive_rate(bound_x, epsilon, DELTA), f"({epsilon:g}, 10⁻⁵)-DP bound")
    grid = np.linspace(0, 1, 201)
    exact = (grid, gaussian_tradeoff(grid, mu), f"exact Gaussian limit (μ = {mu:.2f})")
    op_bound = max_true_positive_rate(run["fpr"], epsilon, DELTA)
    with controls:  # one above the other: side by side, the projector cut "Attack advantage" short
        st.metric("Test accuracy", f"{run['test']:.0%}",
                  help=f"The non-private model: {base['test']:.0%}.")
        st.metric("Attack advantage", f"{run['advantage']:.3f}",
                  help=f"TPR − FPR. (ε, δ)-DP caps it at {advantage_bound(epsilon, DELTA):.3f}; "
                       f"the non-private model gave {base['advantage']:.3f}.")
    with plot:
        chart(charts.roc_chart(fpr, run["roc_tpr"], title="Membership attack on DP-GD",
                               attack_name=f"attack on DP-GD (ε = {epsilon:g})",
                               baseline=(base["roc_fpr"], base["roc_tpr"],
                                         "attack on the non-private model"),
                               bound=bound, exact=exact,
                               point=(run["tpr"], run["fpr"])),
              key="ml_dp_roc", **CHART)
    # In presenter mode the worked calibration is a screen of its own.
    lessons.step()
    lessons.render(SLUG, "dpgd-formulas", eps=epsilon, clip=clip, epochs=epochs, n=n,
                   steps="step" if epochs == 1 else "steps",
                   sigma1=gaussian_sigma(2 * clip, epsilon, DELTA), sigma=sigma,
                   sigma_mean=sigma / n, sens=2 * clip, sens_mean=2 * clip / n,
                   check=gaussian_composition_epsilon(sigma, epochs, DELTA, 2 * clip), mu=mu)
    values = {"eps": epsilon, "tpr": 100 * run["tpr"], "fpr": 100 * run["fpr"],
              "op_bound": 100 * op_bound, "adv": run["advantage"], "adv_se": run["advantage_se"],
              "cap": bound_text(advantage_bound(epsilon, DELTA)),
              "exact_cap": bound_text(gaussian_advantage_bound(mu)),
              "base_adv": base["advantage"], "test": 100 * run["test"],
              "base_test": 100 * base["test"], "noiseless_test": 100 * sweep["noiseless"]["test"],
              "noiseless_adv": sweep["noiseless"]["advantage"], "n": n, "clip": clip,
              "epochs": epochs, "mu": mu}
    exact_cap, noiseless = gaussian_advantage_bound(mu), sweep["noiseless"]
    if run["advantage"] <= exact_cap / 2:
        versus = lessons.section_text(SLUG, "dpgd-exact-far")
    elif run["advantage"] <= exact_cap:
        versus = lessons.section_text(SLUG, "dpgd-exact-near", share=run["advantage"] / exact_cap)
    else:
        versus = lessons.section_text(SLUG, "dpgd-exact-above", excess=run["advantage"] - exact_cap,
                                      adv_se=run["advantage_se"])
    clipping = lessons.section_text(
        SLUG, "dpgd-noiseless-leaks" if noiseless["advantage"] > 2 * noiseless["advantage_se"]
        else "dpgd-noiseless-quiet", noiseless_adv=noiseless["advantage"],
        noiseless_se=noiseless["advantage_se"])
    lessons.render(SLUG, "dpgd-notice", versus=versus, clipping=clipping,
                   price=price_sentence(base["test"], noiseless["test"], run["test"], epochs),
                   **values)
    if run["tpr"] > op_bound:  # sampling noise only: say so rather than hide it
        st.info(lessons.section_text(SLUG, "dpgd-above-bound", **values))
    lessons.step()
    odds_panel(gaussian_release(epsilon, DELTA, mu, units=n), key="ml",
               what="the training (every noisy step, and so the model)")
    opendp_expander(opendp_snippets.no_constructor("DP gradient descent: clipped per-example gradients plus Gaussian noise", "none for training; DP-SGD libraries such as Opacus do it, and dp.m.make_gaussian can noise a gradient you have clipped yourself"))

    with st.container(border=True):
        p_d, p_d_prime = canary_event_probabilities(sigma, clip, epochs)
        lessons.render(SLUG, "audit", samples=AUDIT_SAMPLES, mu=mu, p_d=share(p_d),
                       p_d_prime=share(p_d_prime), event_loss=math.log(p_d / p_d_prime))
        if st.toggle("Run the audit", key="ml_audit_on",
                     help=f"Trains {AUDIT_SAMPLES:,} tiny models on each of D and D′ "
                          "with your ε, C and T."):
            audit_panel("ml_audit",
                        functools.partial(canary_models, True, sigma, clip, epochs),
                        functools.partial(canary_models, False, sigma, clip, epochs),
                        functools.partial(canary_event, sigma=sigma, steps=epochs),
                        promised_epsilon=epsilon, samples=AUDIT_SAMPLES,
                        event_label="w_T[0] < −2σ√T/4",
                        cache_key=("ml_canary", epsilon, clip, epochs))

    lessons.step("Accuracy and membership inference against ε", level="subheader")
    lessons.render(SLUG, "sweep-intro", clip=clip, epochs=epochs, n=n)
    runs = sweep["runs"]
    acc_plot, adv_plot = st.columns(2, gap="large")
    with acc_plot:
        chart(charts.accuracy_sweep_chart(
  DP_EPSILONS, [r["test"] for r in runs], [r["test_se"] for r in runs],
  nonprivate=base["test"], noiseless=sweep["noiseless"]["test"],
  bayes=bayes_accuracy(SIGNAL), current=epsilon), key="ml_sweep_acc", **CHART)
    with adv_plot:
        chart(charts.advantage_sweep_chart(
  DP_EPSILONS, [r["advantage"] for r in runs], [r["advantage_se"] for r in runs],
  cap=[advantage_bound(e, DELTA) for e in DP_EPSILONS],
  exact_cap=[gaussian_advantage_bound(dp_gd_mu(s, epochs, clip)) for s in sweep["sigmas"][:-1]],
  nonprivate=base["advantage"], current=epsilon), key="ml_sweep_adv", **CHART)
    closest = next((e for e, r in zip(DP_EPSILONS, runs, strict=True)
                    if r["test"] >= base["test"] - 0.02), None)
    caps = [advantage_bound(e, DELTA) for e in DP_EPSILONS]
    over = [(e, (r["advantage"] - c) / r["advantage_se"])
            for e, r, c in zip(DP_EPSILONS, runs, caps, strict=True) if r["advantage"] > c]
    if over:
        advantage = lessons.section_text(SLUG, "sweep-advantage-over",
                                         over=", ".join(f"{e:g}" for e, _ in over),
                                         excess=math.ceil(10 * max(z for _, z in over)) / 10)
    else:
        top = max(range(len(runs)), key=lambda i: runs[i]["advantage"])
        # "no estimate is clearly above 0" speaks of every ε, not only the largest estimate
        clear = any(r["advantage"] > 2 * r["advantage_se"] for r in runs)
        advantage = lessons.section_text(SLUG, "sweep-advantage-under" if clear
                                         else "sweep-advantage-none",
                                         max_adv=runs[top]["advantage"], max_eps=DP_EPSILONS[top])
    near_coin = round(100 * runs[0]["test"]) <= 55
    noise_blamed = sweep["noiseless"]["test"] >= base["test"] - 0.02
    more_data = ("Now **raise n** and watch the accuracy curve move left." if n < max(N_OPTIONS)
                 else "Lower n and watch the accuracy curve move right.")
    lessons.render(SLUG, "sweep-notice-reached" if closest else "sweep-notice-not-reached",
                   closest=closest or 0.0, n=f"{n:,}", base_test=100 * base["test"],
                   noiseless_test=100 * sweep["noiseless"]["test"],
                   small_test=100 * runs[0]["test"], small_eps=DP_EPSILONS[0],
                   coin=(", no better than a coin" if round(100 * runs[0]["test"]) <= 50
                         else ", little better than a coin" if near_coin else ""),
                   advantage=advantage, more_data=more_data,
                   blame=lessons.section_text(SLUG, "sweep-blame-noise" if noise_blamed
                                              else "sweep-blame-clipping"))


lessons.step()
dp_training()
lessons.step()
lessons.quiz(SLUG, "tpr-cap")
lessons.quiz(SLUG, "more-epochs")
lessons.render(SLUG, "dpgd-details")

# --- 3. Federated averaging ---------------------------------------------------------------

lessons.step("3. Federated averaging: where does the noise go?")
lessons.render(SLUG, "fed-intro", m=RECORDS_PER_CLIENT, rounds=ROUNDS, clip=UPDATE_CLIP)
lessons.quiz(SLUG, "local-vs-central")


@st.fragment(key="ml_federated")
def federated() -> None:
    d = _settings()[1]
    copy_link(SLUG, "federated")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        epsilon = epsilon_slider("ml_fed_eps", 1.0, DP_EPSILONS)
        clients = choice_slider("K (clients)", CLIENT_OPTIONS, 100, "ml_fed_k",
                                help=f"Each client holds {RECORDS_PER_CLIENT} records.")
        local_epochs = choice_slider("E (local epochs per round)", LOCAL_EPOCH_OPTIONS, 2,
                                     "ml_fed_e", help="E = 1 is FedSGD: one gradient step per round.")
        resample_button("ml_fed", "🎲 New clients and noise")
    result = federated_run(d, clients, local_epochs, epsilon, demo_seed("ml_fed"))
    curves = result["curves"]
    final = {name: float(values[-1]) for name, values in curves.items()}
    with controls:
        with st.container(horizontal=True):  # one layout block a move, not four
            for name, value in final.items():
                st.metric(name, f"{value:.0%}")
    with plot:
        chart(charts.fedavg_chart(np.arange(ROUNDS + 1), curves, result["spread"],
                                  bayes_accuracy(SIGNAL)), key="ml_fed_chart", **CHART)
    sigma = result["sigma"]
    lessons.render(SLUG, "fed-notice", eps=epsilon, k=clients, e=local_epochs, sigma=sigma,
                   central=sigma / clients, local=sigma / math.sqrt(clients),
                   ratio=math.sqrt(clients), none_acc=100 * final["no noise"],
                   central_acc=100 * final["central DP"], local_acc=100 * final["local DP"],
                   records=clients * RECORDS_PER_CLIENT, rounds=ROUNDS)


lessons.step()
federated()

lessons.step("Takeaways")
lessons.render(SLUG, "takeaways")
lessons.render(SLUG, "reading")
