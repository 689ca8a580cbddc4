"""Laplace vs Gaussian: tails, privacy loss, and what δ pays for."""

import numpy as np
import streamlit as st

from dp import gaussian_delta, gaussian_mechanism, gaussian_sigma, laplace_scale
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
from ui import lessons
from ui.charts import gaussian as charts
from ui.params import DELTAS, bound_toggle, choice_slider, delta_slider, epsilon_slider, n_slider
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

st.title("Laplace vs Gaussian")
lessons.instructor_notes(SLUG)
lessons.render(SLUG, "hook")
lessons.quiz(SLUG, "one-count")


@st.fragment
def matched_privacy():
    st.header("Matched privacy: one count, two kinds of noise")
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
    with controls:
        lessons.render(SLUG, "formulas", b=b, sigma=sigma, lap_std=np.sqrt(2) * b,
                       eps=epsilon, delta=delta, sens=sensitivity)
        if sigma_classic is None:
            st.info(lessons.section_text(SLUG, "classic-off", eps=epsilon))
        else:
            lessons.render(SLUG, "classic-on", sigma_classic=sigma_classic,
                           excess=sigma_classic / sigma - 1,
                           delta_classic=gaussian_delta(sigma_classic, epsilon, sensitivity))
    with plot:
        chart(charts.density_chart(b, sigma, sigma_classic, log_y), key="gd_density",
              **CHART)
    lap_std = np.sqrt(2) * b
    lessons.render(SLUG, "notice-densities-laplace" if lap_std < sigma else "notice-densities-gaussian",
                   lap_std=lap_std, sigma=sigma, ratio=sigma / lap_std)

    st.subheader("Tails")
    crossover = tail_crossover(b, sigma)
    tails_plot, tails_text = st.columns([2, 1], gap="large")
    with tails_plot:
        chart(charts.tails_chart(b, sigma, crossover, sigma_classic), key="gd_tails",
              **CHART)
    with tails_text:
        if crossover > 0:
            lessons.render(SLUG, "notice-tails", crossover=crossover, crossover_b=crossover / b,
                           tail=gaussian_tail(sigma, crossover))
        else:
            lessons.render(SLUG, "notice-tails-none")

    st.subheader("Privacy loss: where the Gaussian needs δ")
    lessons.render(SLUG, "loss-intro")
    lessons.quiz(SLUG, "delta-vs-exceed")
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
                   share=delta_exact / exceeds, eps=epsilon)


matched_privacy()


st.header("What δ means: δ ≪ 1/n")
lessons.render(SLUG, "delta-intro")
lessons.quiz(SLUG, "census-leak")


@st.fragment
def what_delta_means():
    copy_link(SLUG, "what_delta_means")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        n = n_slider("gd_leak_n", 1_000_000)
        delta = delta_slider("gd_leak_delta", 1e-5)
        resample_button("gd_leak", "🎲 Run the mechanism again")
    expected, at_least_one = leaked_records(n, delta)
    this_run = int(sample_leaked_records(n, delta, rng_for("gd_leak")))
    with controls:
        left, right = st.columns(2)
        left.metric("Expected leaks, n·δ", f"{expected:,.3g}")
        right.metric("This run leaked", f"{this_run:,}")
    with plot:
        chart(charts.leak_chart(n, delta, (DELTAS[0], DELTAS[-1])), key="gd_leak_chart",
              **CHART)
    lessons.render(SLUG, "notice-delta-bad" if delta * n >= 1 else "notice-delta-ok",
                   n=n, delta=delta, expected=expected, at_least_one=at_least_one, none=1 - at_least_one,
                   this_run=this_run, one_over_n=1 / n, n_squared=1 / n**2)


what_delta_means()


st.header("Many dimensions: where the Gaussian wins")
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
        left.metric("Laplace std per count", f"{lap_std:.3g}")
        right.metric("Gaussian std per count", f"{gauss_std:.3g}")
    with plot:
        chart(charts.dimensions_chart(epsilon, delta, d, crossover), key="gd_dims",
              **CHART)
    lessons.render(SLUG, "notice-dims", d=d, l1=float(d), l2=np.sqrt(d), lap_std=lap_std,
                   gauss_std=gauss_std, crossover=crossover, eps=epsilon, delta=delta,
                   winner="Gaussian" if gauss_std < lap_std else "Laplace")


many_dimensions()

st.header("Pure versus approximate DP")
lessons.render(SLUG, "table")


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


@st.fragment
def audit():
    st.header("Check the guarantee: δ at work")
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
    values = {"eps": epsilon, "delta": delta, "z": z, "sigma": result["sigma"],
              "threshold": result["threshold"], "p": result["p"][0],
              "p_prime": result["p_prime"][0], "eps_pure": result["epsilon_pure"],
              "eps_delta": result["epsilon_delta"], "samples": AUDIT_SAMPLES,
              "ratio": result["p"][0] / result["p_prime"][0] if result["p_prime"][0] else np.inf}
    if result["epsilon_pure"] > epsilon:
        st.warning(lessons.section_text(SLUG, "audit-broken", **values))
    else:
        st.info(lessons.section_text(SLUG, "audit-not-broken", **values))
    if result["epsilon_delta"] <= epsilon:
        st.success(lessons.section_text(SLUG, "audit-delta-ok", **values))
    else:
        st.error(lessons.section_text(SLUG, "audit-delta-broken", **values))


audit()

st.header("Takeaways")
lessons.render(SLUG, "takeaways")
lessons.render(SLUG, "reading")
