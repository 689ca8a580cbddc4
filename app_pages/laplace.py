import functools

import numpy as np
import streamlit as st

from dp import laplace_mechanism, laplace_scale
from dp.laplace_accuracy import (
    POSTPROCESSING,
    QUERIES,
    RELATIONS,
    both_move_event,
    bucket_counts,
    clipped_mean_decomposition,
    epsilon_for_error,
    histogram_errors,
    laplace_interval,
    laplace_samples,
    laplace_variance,
    per_coordinate_shift,
    postprocess,
    postprocessing_errors,
    private_clipped_mean,
    query_sensitivity,
    synthetic_age_counts,
    synthetic_incomes,
    union_bound_error,
    zipf_distribution,
)
from dp.odds import pure_release
from ui import lessons, opendp_snippets
from ui.audit import audit_panel
from ui.charts import laplace as charts
from ui.deployments import deployments_panel
from ui.odds import odds_panel
from ui.opendp_show import opendp_expander
from ui.params import (
    EPSILONS,
    choice_radio,
    choice_slider,
    epsilon_slider,
    log_options,
    n_slider,
    range_slider,
)
from ui.planner import accuracy_planner
from ui.seeds import demo_seed, resample_button, rng_for
from ui.share import copy_link
from ui.show import chart

SLUG = "laplace"
CENSUS_K, CENSUS_EPS = 10_000, 0.1
CENSUS_POPULATIONS = (10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 300_000_000)
PP_BUCKETS = 20  # post-processing demo: 5-year age buckets
AUDIT_COUNTS = (120, 80)  # D; D′ moves one person from bucket 1 to bucket 2
BLUE, NOT_BLUE = 10_400_000, 29_600_000  # made-up counts for the blue-eyes example
BLUE_RELEASES = 5


def coordinates(count: int) -> str:
    return "one coordinate of the output" if count == 1 else f"{count} coordinates of the output, each"


def percent(c) -> str:
    """0.95 → "95%"."""
    return f"{c:.1%}".replace(".0%", "%")


def fmt(x: float) -> str:
    return f"{x:,.3g}" if abs(x) < 1e4 else f"{x:,.0f}"


ERROR_KEYS = ("raw", "rounded", "clamped", "consistent", "raw_total", "clamped_total")


def error_text(x: float) -> str:
    """An average error for prose: 0.0067, 9.9, 56, 938."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.2g}"


def ratio_text(x: float) -> str:
    """A factor e^a: 1.001, 2.718, 22,026."""
    return f"{x:.4g}" if x < 1e4 else f"{x:,.0f}"


st.title("The Laplace mechanism")
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson

# --- 1. Sensitivity ----------------------------------------------------------------------------

lessons.step("1. Sensitivity sets the noise")
lessons.render(SLUG, "sensitivity-intro")
lessons.quiz(SLUG, "histogram-sensitivity")
lessons.step()
relation_column, table_column = st.columns([2, 3], gap="large")
with relation_column:
    relation = choice_radio("Neighbouring datasets (for the whole page)", RELATIONS, "add/remove",
                     "lap_relation")
    lessons.render(SLUG, "relation", relation=relation,
                   hist_delta=query_sensitivity("histogram", relation))
with table_column:
    lessons.render(SLUG, "sensitivity-table")
lessons.render(SLUG, "sensitivity-try")


@lessons.demo
def sensitivity_demo(relation: str) -> None:
    copy_link(SLUG, "sensitivity_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        epsilon = epsilon_slider("lap_eps", 1.0)
        query = choice_radio("Query", QUERIES, "histogram", "lap_query")
        k, n, lower, upper = 1, 1, 0, 100
        if query == "k counts":
            k = choice_slider("k (number of counting queries)", [1, 2, 5, 10, 20, 50, 100], 10,
                              "lap_k")
        if query == "bounded mean":
            n = n_slider("lap_n", 100, [10, 20, 50, 100, 200, 500, 1000, 10_000], thousands=True)
            lower = range_slider("lower bound (years)", 0, 50, 0, "lap_lower", step=5)
            upper = range_slider("upper bound (years)", 60, 150, 100, "lap_upper", step=5)
    used = relation
    if query == "bounded mean" and relation == "add/remove":
        used = "replace-one"
    delta = query_sensitivity(query, used, k=k, lower=lower, upper=upper, n=n)
    b = laplace_scale(delta, epsilon)
    shift = per_coordinate_shift(query, delta)
    f_d = 40.0 if query == "bounded mean" else 100.0
    unit = "mean age (years)" if query == "bounded mean" else "released count (people)"
    with plot:
        chart(charts.neighbours_figure(f_d, f_d + shift, b, unit), width="stretch",
              key="lap_sens_chart")
    with controls:
        a, c = st.columns(2)
        a.metric("Δ (L1 sensitivity)", fmt(delta))
        c.metric("b = Δ/ε", fmt(b))
        if used != relation:
            st.info(lessons.section_text(SLUG, "mean-add-remove"))
    lessons.render(SLUG, "sensitivity-notice", delta=delta, eps=epsilon, b=b, shift=shift,
                   coord_ratio=ratio_text(float(np.exp(shift / b))), coord_eps=shift / b,
                   coords_text=coordinates(round(delta / shift)),
                   total_ratio=ratio_text(float(np.exp(epsilon))),
                   relation=used, var=laplace_variance(b))
    lessons.step()
    odds_panel(pure_release(epsilon), key="lap", what="this release")
    deployments_panel(epsilon, key="lap")
    opendp_expander(opendp_snippets.laplace_query(query, epsilon, used, k=k, lower=lower, upper=upper, n=n))


lessons.step()
sensitivity_demo(relation)

# --- 2. A noisy histogram ----------------------------------------------------------------------

lessons.step("2. A noisy histogram of ages")
lessons.render(SLUG, "histogram-intro", relation=relation,
               delta=query_sensitivity("histogram", relation))
lessons.quiz(SLUG, "census-n")
BAR_CHOICES = ("95% for each bucket", "every bucket at once")


def bucket_labels(k: int) -> list[str]:
    width = 100 // k
    return [f"{lo}–{lo + width - 1}" if width > 1 else str(lo) for lo in range(0, 100, width)]


@lessons.demo
def histogram_demo(relation: str) -> None:
    copy_link(SLUG, "histogram_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        epsilon = epsilon_slider("lap_hist_eps", 0.1)
        k = choice_slider("k (age buckets)", [2, 5, 10, 20, 50, 100], 10, "lap_hist_k")
        n = n_slider("lap_hist_n", 1000, [100, 200, 500, 1000, 2000, 5000, 10_000,
                                          100_000, 1_000_000], thousands=True)
        bars = choice_radio("Error bars", BAR_CHOICES, BAR_CHOICES[0], "lap_hist_bars")
        resample_button("lap_hist")
    rng = rng_for("lap_hist")
    counts = bucket_counts(synthetic_age_counts(rng, n), k)
    delta = query_sensitivity("histogram", relation)
    b = laplace_scale(delta, epsilon)
    noisy = laplace_mechanism(counts, delta, epsilon, rng)
    per_bucket, union = laplace_interval(b, 0.95), union_bound_error(b, k)
    worst = float(np.max(np.abs(noisy - counts)))
    half, label = (per_bucket, "95% per bucket") if bars == BAR_CHOICES[0] else (union, "b·(10 + ln k)")
    with plot:
        chart(charts.histogram_figure(bucket_labels(k), counts, noisy, half, label),
              width="stretch", key="lap_hist_chart")
        opendp_expander(opendp_snippets.histogram(epsilon, k, relation, n))
    lessons.step()
    text, tail = st.columns([2, 3], gap="large")
    with tail:
        chart(charts.tail_figure(k, worst / b), width="stretch", key="lap_tail_chart")
    with text:
        lessons.render(SLUG, "histogram-notice", eps=epsilon, delta=delta, b=b, k=k, n=n,
                       per_bucket=per_bucket, ln_k=float(np.log(k)), union=union, worst=worst,
                       worst_t=worst / b, covered=int(np.sum(np.abs(noisy - counts) <= per_bucket)),
                       relative=f"{100 * union / n:,.2g}%" if union < n else f"{100 * union / n:,.0f}%")


lessons.step()
histogram_demo(relation)

lessons.step("The census first-names example", level="subheader")


@st.cache_data(max_entries=16, show_spinner=False)
def census_errors(seed: list[int], scale: float):
    rng = np.random.default_rng(seed)
    return histogram_errors(rng, CENSUS_POPULATIONS, zipf_distribution(CENSUS_K), scale)


@st.fragment
def census_demo(relation: str) -> None:
    copy_link(SLUG, "census_demo")
    delta = query_sensitivity("histogram", relation)
    b = laplace_scale(delta, CENSUS_EPS)
    bound = union_bound_error(b, CENSUS_K)
    max_errors, top_counts = census_errors(demo_seed("lap_census"), b)
    text, plot = st.columns([2, 3], gap="large")
    with plot:
        chart(charts.census_figure(CENSUS_POPULATIONS, bound, max_errors, top_counts),
              width="stretch", key="lap_census_chart")
    with text:
        lessons.render(SLUG, "census", delta=delta, b=b, bound=bound, ln_k=float(np.log(CENSUS_K)),
                       relation=relation, share_ppm=bound / 300,
                       err_small=float(max_errors[0]), err_big=float(max_errors[-1]),
                       top_big=float(top_counts[-1]))
        resample_button("lap_census")


census_demo(relation)

# --- 3. Post-processing --------------------------------------------------------------------------

lessons.step("3. Post-processing is free")
lessons.quiz(SLUG, "clamping")
lessons.render(SLUG, "postprocessing-intro")


@st.cache_data(max_entries=32, show_spinner=False)
def pp_errors(seed: list[int], n: int, scale: float, public_total: int | None):
    rng = np.random.default_rng(seed)
    counts = bucket_counts(synthetic_age_counts(rng, n), PP_BUCKETS)
    return counts, postprocessing_errors(rng, counts, scale, 400, public_total)


@st.fragment
def postprocessing_demo(relation: str) -> None:
    copy_link(SLUG, "postprocessing_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        epsilon = epsilon_slider("lap_pp_eps", 0.1)
        n = n_slider("lap_pp_n", 200, [50, 100, 200, 500, 1000, 2000, 5000], thousands=True)
        resample_button("lap_pp")
    delta = query_sensitivity("histogram", relation)
    b = laplace_scale(delta, epsilon)
    public_total = n if relation == "replace-one" else None
    counts, errors = pp_errors(demo_seed("lap_pp"), n, b, public_total)
    with plot:
        chart(charts.postprocessing_figure(errors, epsilon), width="stretch",
              key="lap_pp_chart")
    values = {"eps": epsilon, "b": b, "raw": errors[POSTPROCESSING[0]][0],
              "rounded": errors[POSTPROCESSING[1]][0], "clamped": errors[POSTPROCESSING[2]][0],
              "consistent": errors[POSTPROCESSING[4]][0], "raw_total": errors[POSTPROCESSING[0]][1],
              "clamped_total": errors[POSTPROCESSING[2]][1],
              "total_source": "the public n" if public_total else "the noisy counts' own sum"}
    if values["clamped"] > 0.95 * values["raw"]:
        clamp = "pp-clamp-idle"
    elif values["clamped_total"] > 1.05 * values["raw_total"]:
        clamp = "pp-clamp-drifts"
    else:
        clamp = "pp-clamp-helps"
    shown = {key: error_text(value) if key in ERROR_KEYS else value for key, value in values.items()}
    with controls:
        lessons.render(SLUG, "postprocessing-notice",
                       round_text=lessons.section_text(
                           SLUG, "pp-round-same" if shown["raw"] == shown["rounded"] else "pp-round",
                           **shown),
                       clamp_text=lessons.section_text(SLUG, clamp, **shown), **shown)
    with st.expander("One release, step by step"):
        rng = rng_for("lap_pp_example")
        noisy = laplace_mechanism(counts, delta, epsilon, rng)
        total = public_total if public_total else max(0.0, float(np.rint(noisy.sum())))
        table = {"age bucket": bucket_labels(PP_BUCKETS), "true": counts.astype(int)}
        for variant in POSTPROCESSING:
            table[variant] = np.round(postprocess(noisy, variant, total), 1)
        st.dataframe(table, hide_index=True, width="stretch")
    opendp_expander(opendp_snippets.histogram(epsilon, PP_BUCKETS, relation, n, clamp=True))


lessons.step()
postprocessing_demo(relation)

# --- 4. Bounded mean and clipping --------------------------------------------------------------

lessons.step("4. A bounded mean, and where to clip")
lessons.render(SLUG, "clipping-intro")


@lessons.demo
def clipping_demo() -> None:
    copy_link(SLUG, "clipping_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        epsilon = epsilon_slider("lap_clip_eps", 1.0)
        upper = choice_slider("upper clipping bound U (thousands)", log_options(50, 10_000, 6),
                              200, "lap_clip_upper")
        lower = choice_slider("lower clipping bound L (thousands)", [0, 5, 10, 20], 0,
                              "lap_clip_lower")
        n = n_slider("lap_clip_n", 500, [100, 200, 500, 1000, 2000, 5000, 10_000], thousands=True)
        resample_button("lap_clip")
    rng = rng_for("lap_clip")
    incomes = synthetic_incomes(rng, n)
    grid = np.geomspace(max(2 * lower, 30), 20_000, 120)
    curve = clipped_mean_decomposition(incomes, lower, grid, epsilon)
    mine = clipped_mean_decomposition(incomes, lower, upper, epsilon)
    release = private_clipped_mean(incomes, lower, upper, epsilon, rng)
    with plot:
        chart(charts.clipping_figure(grid, curve["bias"], curve["noise_sd"], curve["rmse"],
                                     upper, float(mine["rmse"]),
                                     "upper clipping bound U (thousands, log scale)"),
              width="stretch", key="lap_clip_chart")
    true_mean = float(incomes.mean())
    richest = float(incomes.max())
    b = (upper - lower) / (n * epsilon)
    with controls:
        a, c = st.columns(2)
        a.metric("true mean (thousands)", f"{true_mean:.1f}")
        c.metric("private release", f"{release:.1f}", f"{release - true_mean:+.1f}",
                 delta_color="off")
    best_at = int(np.argmin(curve["rmse"]))
    best_text = (f"about {grid[best_at]:,.0f}" if 0 < best_at < grid.size - 1
                 else f"at most about {grid[0]:,.0f}, the lowest U on the chart" if best_at == 0
                 else f"at least about {grid[-1]:,.0f}, the highest U on the chart")
    lessons.render(SLUG, "clipping-notice", eps=epsilon, n=n, lower=lower, upper=upper, b=b,
                   bias=float(mine["bias"]), noise_sd=float(mine["noise_sd"]),
                   rmse=float(mine["rmse"]), best_text=best_text,
                   clipped=int(np.sum((incomes > upper) | (incomes < lower))))
    lessons.step()
    leak_b = (richest - lower) / (n * epsilon)
    rich_b = (20_000 - lower) / (n * epsilon)
    st.warning(lessons.section_text(SLUG, "clipping-leak", richest=richest, leak_b=leak_b,
                                    rich_b=rich_b, factor=rich_b / leak_b))
    opendp_expander(opendp_snippets.mean(epsilon, lower, upper, n))


clipping_demo()

# --- 5. Accuracy ---------------------------------------------------------------------------------

lessons.step("5. Accuracy, and the ε you need for it")
lessons.render(SLUG, "accuracy-intro")
lessons.quiz(SLUG, "halve-error")
CONFIDENCES = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999]


@st.fragment
def accuracy_demo() -> None:
    copy_link(SLUG, "accuracy_demo")
    controls, plot = st.columns([2, 3], gap="large")
    with controls:
        error = choice_slider("error you can tolerate, ±α (people)", log_options(1, 1000, 6), 10,
                              "lap_acc_error")
        confidence = choice_slider("how often it must hold", CONFIDENCES, 0.95, "lap_acc_conf",
                                   format_func=percent)
        delta = choice_slider("Δ (sensitivity of the query)", [1, 2, 5, 10, 100], 1,
                              "lap_acc_delta")
    epsilon = epsilon_for_error(delta, error, confidence)
    b = laplace_scale(delta, epsilon)
    errors = np.geomspace(1, 1000, 60)
    curves = {c: delta * np.log(1 / (1 - c)) / errors for c in (0.9, 0.95, 0.99)}
    with plot:
        chart(charts.accuracy_figure(errors, delta, curves, error, epsilon, confidence),
              width="stretch", key="lap_acc_chart")
    with controls:
        lessons.render(SLUG, "accuracy-notice", error=error, conf=confidence * 100,
                       delta=delta, eps=epsilon, b=fmt(b), var=fmt(laplace_variance(b)),
                       sd=fmt(float(np.sqrt(laplace_variance(b)))),
                       half95=fmt(laplace_interval(b, 0.95)),
                       log_term=float(np.log(1 / (1 - confidence))))


lessons.step()
accuracy_demo()
lessons.step()
accuracy_planner("laplace", slug=SLUG, key="lap_plan")

# --- 6. Blue eyes --------------------------------------------------------------------------------

lessons.step("6. The blue-eyes histogram")


@st.fragment
def blue_eyes_demo(relation: str) -> None:
    copy_link(SLUG, "blue_eyes_demo")
    delta = query_sensitivity("histogram", relation)
    epsilon = 0.1
    b = laplace_scale(delta, epsilon)
    rng = rng_for("lap_blue")
    true = np.array([BLUE, NOT_BLUE])
    releases = laplace_mechanism(np.tile(true, (BLUE_RELEASES, 1)), delta, epsilon, rng)
    noise = releases - true
    half = laplace_interval(b, 0.95)
    shares = 100 * releases[:, 0] / releases.sum(axis=1)
    text, plot = st.columns([2, 3], gap="large")
    with plot:
        chart(charts.interval_figure(b, half, 0.95, {"blue-eyed count": noise[:, 0],
                                                     "other count": noise[:, 1]}),
              width="stretch", key="lap_blue_chart")
    total = BLUE + NOT_BLUE
    with text:
        scale_note = lessons.section_text(SLUG, "blue-scale-" + relation.replace("/", "-"))
        lessons.render(SLUG, "blue-eyes", delta=delta, b=b, relation=relation, total=total,
                       scale_note=scale_note,
                       releases=BLUE_RELEASES, noisy_blue=releases[0, 0],
                       noisy_other=releases[0, 1], true_share=100 * BLUE / total,
                       share=shares[0], share_error=float(np.max(np.abs(shares - 100 * BLUE / total))),
                       median=b * np.log(2), half=half,
                       worst=float(np.max(np.abs(noise))))
        resample_button("lap_blue")
    with st.expander(f"The {BLUE_RELEASES} releases"):
        st.dataframe({"release": np.arange(1, BLUE_RELEASES + 1),
                      "noisy blue-eyed": np.round(releases[:, 0], 1),
                      "noisy other": np.round(releases[:, 1], 1),
                      "blue-eyed share (%)": np.round(shares, 6)},
                     hide_index=True, width="stretch")


blue_eyes_demo(relation)

# --- 7. Check the guarantee -----------------------------------------------------------------------

lessons.step("7. Check the guarantee")
lessons.render(SLUG, "audit-intro", c1=AUDIT_COUNTS[0], c2=AUDIT_COUNTS[1])
CALIBRATIONS = ("Δ = 2 (right for replace-one)", "Δ = 1 (the add/remove value, wrong here)")


@st.fragment
def audit_demo() -> None:
    copy_link(SLUG, "audit_demo")
    controls, result = st.columns([2, 3], gap="large")
    with controls:
        epsilon = choice_slider("ε promised", [e for e in EPSILONS if 0.1 <= e <= 3], 1.0,
                                "lap_audit_eps")
        calibration = choice_radio("Noise calibrated with", CALIBRATIONS, CALIBRATIONS[0],
                            "lap_audit_calib")
        resample_button("lap_audit")
    used = 2.0 if calibration == CALIBRATIONS[0] else 1.0
    d, d_prime = np.array(AUDIT_COUNTS), np.array([AUDIT_COUNTS[0] - 1, AUDIT_COUNTS[1] + 1])
    with result:
        certified = audit_panel(
            "lap_audit",
            functools.partial(laplace_samples, value=d, sensitivity=used, epsilon=epsilon),
            functools.partial(laplace_samples, value=d_prime, sensitivity=used, epsilon=epsilon),
            functools.partial(both_move_event, first=AUDIT_COUNTS[0], second=AUDIT_COUNTS[1]),
            promised_epsilon=epsilon,
            event_label=f"{{bucket 1 ≥ {AUDIT_COUNTS[0]} and bucket 2 ≤ {AUDIT_COUNTS[1]}}}",
            cache_key=("laplace-histogram", epsilon, used, AUDIT_COUNTS),
        )
        true_eps = 2 * epsilon / used
        bound_text = lessons.section_text(
            SLUG, "audit-bound-below" if certified <= true_eps else "audit-bound-above",
            certified=certified)
        lessons.render(SLUG, "audit-notice", eps=epsilon, true_eps=true_eps, used=used,
                       bound_text=bound_text)


audit_demo()

# --- Takeaways ---------------------------------------------------------------------------------

lessons.step("Takeaways")
lessons.render(SLUG, "takeaways")
st.subheader("Read more")
lessons.render(SLUG, "reading")
st.page_link("app_pages/gaussian.py", icon="🔔",
             label="Next in this course: Laplace vs Gaussian, where Δ₂ replaces Δ₁ and δ enters")
