"""Laplace vs Gaussian: tails, privacy loss, and what δ pays for."""

import numpy as np
import streamlit as st

from dp import gaussian_delta, gaussian_mechanism, gaussian_sigma, laplace_scale
from dp.odds import gaussian_release
from dp.tails import (
    audit_with_delta,
    dimension_crossover,
    gaussian_loss_exceeds,
    gaussian_loss_threshold,
    gaussian_tail,
    leaked_records,
    noise_std_in_d_dimensions,
    sample_leaked_records,
    tail_crossover,
)
from ui import lessons, opendp_snippets
from ui.charts import gaussian as charts
from ui.numbers import number
from ui.odds import odds_panel
from ui.opendp_show import opendp_expander
from ui.params import (
    DELTAS,
    bound_toggle,
    choice_slider,
    delta_slider,
    epsilon_slider,
    n_slider,
)
from ui.planner import accuracy_planner
from ui.seeds import demo_seed, resample_button, rng_for
from ui.share import copy_link
from ui.show import chart

SLUG = "gaussian"
SENSITIVITIES = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
DIMENSIONS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]
AUDIT_EPSILONS = [0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0]
AUDIT_DELTAS = [1e-4, 1e-3, 1e-2, 0.05, 0.1]
AUDIT_Z = [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]
AUDIT_SAMPLES = 200_000
CHART = {"width": "stretch", "config": {"displaylogo": False}}
FAR_TAIL = 0.01  # an error past the crossing in at least 1% of releases "matters"
RARE_HITS = 200  # fewer samples than this in the audit's event: the intervals are too wide


def fmt(x: float) -> str:
    return f"{x:,.3g}" if abs(x) < 1e4 else f"{x:,.0f}"


def above(value: float, bound: float) -> str:
    """value to 3 digits, or more if 3 would print it equal to the bound it exceeds."""
    for digits in (3, 4, 5, 6):
        text = f"{value:.{digits}g}"
        if float(text) != float(f"{bound:.{digits}g}"):
            return text
    return f"{value:.6g}"


def share_text(share: float) -> str:
    """A share as a percentage with two significant digits: 6%, 0.14%."""
    return f"{100 * share:.2g}%" if share < 0.1 else f"{share:.0%}"

st.title("Laplace vs Gaussian")
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson
lessons.step()
lessons.quiz(SLUG, "one-count")


@lessons.demo
def matched_privacy():
    lessons.step("Matched privacy: one count, two kinds of noise")
    lessons.render(SLUG, "matched-intro")
    copy_link(SLUG, "matched_privacy")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        epsilon = epsilon_slider("gd_eps", 1.0)
        delta = delta_slider("gd_delta", 1e-5)
        sensitivity = choice_slider("Δ (sensitivity of the query)", SENSITIVITIES, 1.0, "gd_sens")
        log_y = bound_toggle("Log-scale density axis", "gd_logy",
                             help="On a log axis the Laplace density is a tent of straight "
                                  "lines and the Gaussian a parabola.")
    b = laplace_scale(sensitivity, epsilon)
    sigma = gaussian_sigma(sensitivity, epsilon, delta)
    try:  # proved only for ε < 1: dp raises, and the page says what to change
        sigma_classic = gaussian_sigma(sensitivity, epsilon, delta, method="classic")
    except ValueError:
        sigma_classic = None
    with plot:  # the formulas under the chart, the classic σ under the sliders (1280×720)
        chart(charts.density_chart(b, sigma, sigma_classic, log_y), key="gd_density",
              **CHART)
        lessons.render(SLUG, "formulas", b=b, sigma=sigma, lap_std=np.sqrt(2) * b,
                       eps=epsilon, delta=delta, sens=sensitivity)
    with controls:
        if sigma_classic is None:
            st.info(lessons.section_text(SLUG, "classic-off", eps=epsilon))
        else:
            lessons.render(SLUG, "classic-on", sigma_classic=sigma_classic,
                           excess=sigma_classic / sigma - 1,
                           delta_classic=gaussian_delta(sigma_classic, epsilon, sensitivity))
    lap_std = np.sqrt(2) * b
    lessons.render(SLUG, "notice-densities-laplace" if lap_std < sigma else "notice-densities-gaussian",
                   lap_std=lap_std, sigma=sigma, ratio=sigma / lap_std)
    lessons.step()
    odds_panel(gaussian_release(epsilon, delta, sensitivity / sigma), key="gd", what="this release")
    opendp_expander(opendp_snippets.gaussian_sum(epsilon, delta, sensitivity, sigma))

    lessons.step("Tails", level="subheader")
    crossover = tail_crossover(b, sigma)
    tails_plot, tails_text = st.columns([2, 1], gap="large")
    with tails_plot:
        chart(charts.tails_chart(b, sigma, crossover, sigma_classic), key="gd_tails",
              **CHART)
    with tails_text:
        if crossover > 0:
            tail = gaussian_tail(sigma, crossover)
            where = lessons.section_text(SLUG, "tails-far" if tail < FAR_TAIL else "tails-near",
                                         delta=delta, tail=tail, share=share_text(tail))
            lessons.render(SLUG, "notice-tails", crossover=crossover, crossover_b=crossover / b,
                           tail=tail, where=where)
        else:
            lessons.render(SLUG, "notice-tails-none")

    lessons.step("Privacy loss: where the Gaussian needs δ", level="subheader")
    lessons.render(SLUG, "loss-intro")
    lessons.quiz(SLUG, "delta-vs-exceed")
    lessons.step()  # predict on one screen, the two charts that answer it on the next
    threshold = gaussian_loss_threshold(sigma, epsilon, sensitivity)
    exceeds = gaussian_loss_exceeds(sigma, epsilon, sensitivity)
    delta_exact = gaussian_delta(sigma, epsilon, sensitivity)
    loss_plot, tail_plot = st.columns(2, gap="large")
    with loss_plot:
        chart(charts.loss_chart(b, sigma, sensitivity, epsilon, threshold),
              key="gd_loss", **CHART)
    with tail_plot:
        chart(charts.loss_tail_chart(sigma, sensitivity, epsilon, exceeds, delta_exact),
              key="gd_loss_tail", **CHART)
    lessons.render(SLUG, "notice-loss", threshold=threshold, threshold_sigma=threshold / sigma,
                   exceeds=exceeds, delta_exact=delta_exact, delta=delta,
                   share=share_text(delta_exact / exceeds), eps=epsilon)


matched_privacy()


lessons.step("What δ means: δ ≪ 1/n")
lessons.render(SLUG, "delta-intro")
lessons.quiz(SLUG, "census-leak")


@st.fragment
def what_delta_means():
    copy_link(SLUG, "what_delta_means")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        n = n_slider("gd_leak_n", 1_000_000, thousands=True)
        delta = delta_slider("gd_leak_delta", 1e-5)
        resample_button("gd_leak", "🎲 Run the mechanism again")
    expected, at_least_one = leaked_records(n, delta)
    this_run = int(sample_leaked_records(n, delta, rng_for("gd_leak")))
    with controls:
        left, right = st.columns(2)
        left.metric("Expected leaks, n·δ", number(expected, ",.3g"))
        right.metric("This run leaked", f"{this_run:,}")
    with plot:
        chart(charts.leak_chart(n, delta, (DELTAS[0], DELTAS[-1])), key="gd_leak_chart",
              **CHART)
    records = f"{expected:,.0f}" if expected >= 100 else f"{expected:.3g}"
    records += " whole record" + ("" if records == "1" else "s")
    none = 1 - at_least_one
    none_text = f"{none:.2g}" if none >= 1e-6 else f"e^(−{expected:,.0f}), essentially zero"
    lessons.render(SLUG, "notice-delta-bad" if delta * n >= 1 else "notice-delta-ok",
                   n=n, delta=delta, expected=records if delta * n >= 1 else expected,
                   at_least_one=at_least_one, none=none_text,
                   this_run=this_run, one_over_n=1 / n, n_squared=1 / n**2)


lessons.step()
what_delta_means()
lessons.step()
accuracy_planner("gaussian", slug=SLUG, key="gd_plan")


lessons.step("Many dimensions: where the Gaussian wins")
lessons.render(SLUG, "dims-intro")
lessons.quiz(SLUG, "hundred-counts")


@st.fragment
def many_dimensions():
    copy_link(SLUG, "many_dimensions")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        d = choice_slider("d (counts released together)", DIMENSIONS, 100, "gd_dim_d")
        epsilon = epsilon_slider("gd_dim_eps", 1.0)
        delta = delta_slider("gd_dim_delta", 1e-5)
    lap_std, gauss_std = noise_std_in_d_dimensions(float(d), epsilon, delta)
    crossover = dimension_crossover(epsilon, delta)
    with controls:
        left, right = st.columns(2)
        left.metric("Laplace std per count", number(lap_std, ",.3g"))
        right.metric("Gaussian std per count", number(gauss_std, ",.3g"))
    with plot:
        chart(charts.dimensions_chart(epsilon, delta, d, crossover), key="gd_dims",
              **CHART)
    lessons.render(SLUG, "notice-dims", d=d, l1=float(d), l2=np.sqrt(d), lap_std=fmt(lap_std),
                   gauss_std=fmt(gauss_std), crossover=crossover, eps=epsilon, delta=delta,
                   winner="Gaussian" if gauss_std < lap_std else "Laplace",
                   below_one=(", below one count: at this δ the Gaussian wins even for d = 1"
                              if crossover < 1 else ""))


lessons.step()
many_dimensions()

lessons.step("Pure versus approximate DP")
lessons.render(SLUG, "table")
lessons.step()  # the table's second half: a screen of its own on the projector
lessons.render(SLUG, "table-more")
lessons.render(SLUG, "table-after")


@st.cache_data(max_entries=32, show_spinner=False)
def run_audit(epsilon: float, delta: float, z: float, seed: list[int]) -> dict:
    """Sample the real dp.gaussian_mechanism on f(D) = 0 and f(D′) = 1, audit S = {y < −zσ}."""
    rng = np.random.default_rng(seed)
    sigma = gaussian_sigma(1.0, epsilon, delta)
    outputs_d = gaussian_mechanism(np.zeros(AUDIT_SAMPLES), 1.0, epsilon, delta, rng)
    outputs_d_prime = gaussian_mechanism(np.ones(AUDIT_SAMPLES), 1.0, epsilon, delta, rng)
    threshold = -z * sigma
    result = audit_with_delta(outputs_d, outputs_d_prime, lambda y: y < threshold, delta)
    return {**result, "sigma": sigma, "threshold": threshold}


@lessons.demo
def audit():
    lessons.step("Check the guarantee: δ at work")
    lessons.render(SLUG, "audit-intro", samples=AUDIT_SAMPLES)
    copy_link(SLUG, "audit")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        epsilon = epsilon_slider("gd_aud_eps", 1.0, AUDIT_EPSILONS)
        delta = delta_slider("gd_aud_delta", 1e-2, AUDIT_DELTAS)
        z = choice_slider("Event S: output below −z·σ, with z =", AUDIT_Z, 3.0, "gd_aud_z")
        resample_button("gd_audit", "🎲 Draw new samples")
    result = run_audit(epsilon, delta, z, demo_seed("gd_audit"))
    with plot:
        chart(charts.audit_chart(result["p"], result["p_prime"], epsilon, delta),
              key="gd_audit_chart", **CHART)
    with controls:
        left, right = st.columns(2)
        left.metric("ε̂ with δ = 0", f"{result['epsilon_pure']:.3g}",
                    help="Certified lower bound on ε if the mechanism were pure ε-DP (95%).")
        right.metric("ε̂ with your δ", f"{result['epsilon_delta']:.3g}",
                     help="Certified lower bound on ε after subtracting δ (95%).")
    ystar = gaussian_loss_threshold(result["sigma"], epsilon, 1.0)
    broken = result["epsilon_pure"] > epsilon
    values = {"eps": epsilon, "delta": delta, "z": z, "sigma": result["sigma"],
              "threshold": result["threshold"], "p": result["p"][0],
              "p_prime": result["p_prime"][0], "eps_pure": above(result["epsilon_pure"], epsilon),
              "eps_delta": result["epsilon_delta"],
              "eps_delta_text": above(result["epsilon_delta"], epsilon), "samples": AUDIT_SAMPLES,
              "hits": round(result["p"][0] * AUDIT_SAMPLES), "ystar": ystar,
              "ystar_z": ystar / result["sigma"],
              "or_delta": ", or a larger δ (which lowers σ)" if delta < AUDIT_DELTAS[-1] else ""}
    values["likelier"] = (f"{result['p'][0] / result['p_prime'][0]:.3g}× its probability under $D'$"
                          if result["p_prime"][0] else
                          f"while not one of the {AUDIT_SAMPLES:,} samples from $D'$ landed in it")
    # The verdicts under the demo, at the page's width (on the projector, a screen of their own).
    lessons.step()
    if broken:
        st.warning(lessons.section_text(SLUG, "audit-broken", **values))
    else:
        if values["hits"] < RARE_HITS:
            advice = "audit-advice-rare"
        elif -z * result["sigma"] > ystar:
            advice = "audit-advice-inside"
        else:
            advice = "audit-advice-slight"
        values["advice"] = lessons.section_text(SLUG, advice, **values)
        st.info(lessons.section_text(SLUG, "audit-not-broken", **values))
    if result["epsilon_delta"] <= epsilon:
        values["delta_work"] = lessons.section_text(
            SLUG, "audit-delta-work" if broken else "audit-delta-idle")
        st.success(lessons.section_text(SLUG, "audit-delta-ok", **values))
    else:
        st.error(lessons.section_text(SLUG, "audit-delta-broken", **values))


audit()

lessons.step("Takeaways")
lessons.render(SLUG, "takeaways")
lessons.render(SLUG, "reading")
