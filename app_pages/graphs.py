"""Privacy for graphs: edge versus node privacy, the sensitivity table, a private triangle count."""

from __future__ import annotations

import functools

import numpy as np
import pyarrow as pa
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dp import laplace_mechanism, laplace_scale
from dp.graphs import (
    QUERIES,
    bound_failure_probability,
    global_sensitivity,
    graph_stats,
    preferential_attachment,
    prefix,
    sensitivity_table,
    triangle_bound,
    triangle_mechanism,
    triangle_mechanism_error,
    triangle_releases,
    worst_neighbour,
)
from dp.odds import bad_event_release
from ui import heavy, lessons, opendp_snippets
from ui.audit import audit_panel
from ui.charts import graphs as charts
from ui.numbers import number
from ui.odds import odds_panel
from ui.opendp_show import opendp_expander
from ui.params import (
    DELTAS,
    EPSILONS,
    choice_radio,
    choice_slider,
    delta_slider,
    epsilon_slider,
    range_slider,
)
from ui.presenter import presenter_mode
from ui.seeds import demo_seed, resample_button
from ui.share import copy_link
from ui.show import chart

SLUG = "graphs"
TITLE = "Privacy for graphs"
N_MAX = 2000  # the network is grown once to N_MAX; smaller n are its first n people
POPULATIONS = [20, 50, 100, 200, 500, 1000, 2000]
DRAW_MAX = 200  # the force layout is O(n²) per step, and a larger hairball says nothing
TRIAD = [round(0.1 * i, 1) for i in range(11)]
MECH_EPSILONS = [e for e in EPSILONS if 0.05 <= e <= 5]
RUNS = 20_000  # releases of each mechanism per histogram
BINS = 70
NETWORK = "graphs_net"  # seed names (ui.seeds): the network, and the mechanism's noise
NOISE = "graphs_noise"
BOUND_NAMES = {"max_degree": "max degree d (the notes)", "max_common": "max common friends (tighter)"}
BOUND_TEXT = {"max_degree": "the max degree d", "max_common": "the most friends any pair shares"}
LEVEL_TITLES = {"edge": "Edge privacy: one tie flipped", "node": "Node privacy: one person rewired"}
CHART = {"width": "stretch", "config": {"displaylogo": False}}
AUDIT_SAMPLES = 100_000  # per graph, in the audit panel
SPARSE = 0.2  # "far below": at most this share of the largest possible value
# px, the side-by-side drawings of G′ (on the projector: room for a three-line legend under a
# 200 px plot, so that both drawings, and the numbers under them, line up)
SIDE_HEIGHT, SIDE_HEIGHT_PROJECTOR = 480, 450


# ---------------------------------------------------------------- cached computations
# The views are cache_resource: one shared object per setting, never mutated (st.plotly_chart
# only reads a figure), so a rerun that changes nothing they show costs neither maths nor plotly.


@heavy.cache_data(max_entries=8)
def _network(ties: int, triad_p: float, seed: list) -> np.ndarray:
    """The whole grown network (N_MAX people); every n on the page is a prefix of it."""
    return preferential_attachment(N_MAX, ties, np.random.default_rng(seed), triad_p)


@st.cache_resource(max_entries=16, show_spinner=False)
def _graph(n: int, ties: int, triad_p: float, seed: list) -> dict:
    """The network on n people: its statistics, sensitivity table, layout and figures."""
    stats = graph_stats(n, prefix(_network(ties, triad_p, seed), n))
    table = sensitivity_table(stats)
    hubs = np.flatnonzero(stats.degrees == stats.max_degree)
    layout = charts.spring_layout(n, stats.edges) if n <= DRAW_MAX else None
    drawing = None if layout is None else charts.graph_chart(
        layout, stats.edges, stats.degrees, f"The network: {n:,} people, {stats.m:,} ties",
        highlight=hubs, highlight_name=f"max degree d = {stats.max_degree}")
    return {"stats": stats, "table": table, "hubs": hubs, "layout": layout, "drawing": drawing,
            # As Arrow, built once: given the dict, st.table converted it through pandas on
            # every send (6-8% of a warm move in bench/profile.py).
            "rows": pa.table(charts.sensitivity_rows(table, n, stats.max_degree)),
            "degrees": charts.degree_chart(stats.degrees),
            "sensitivities": charts.sensitivity_chart(table)}


@heavy.cache_data(max_entries=8)
def _bounds_by_n(ties: int, triad_p: float, seed: list) -> dict[str, list[int]]:
    """B(G) for each bound, on the network at each n of POPULATIONS."""
    network = _network(ties, triad_p, seed)
    stats = [graph_stats(n, prefix(network, n)) for n in POPULATIONS]
    return {bound: [triangle_bound(s, bound) for s in stats] for bound in BOUND_NAMES}


@st.cache_resource(max_entries=48, show_spinner=False)
def _neighbour(n: int, ties: int, triad_p: float, seed: list, query: str, level: str,
               height: int) -> dict:
    """The neighbour of the current graph that moves `query` the most, what changed, and G′
    drawn over G (a figure `height` pixels tall, titled by the level of privacy)."""
    graph = _graph(n, ties, triad_p, seed)
    stats = graph["stats"]
    new_edges, change = worst_neighbour(stats, query, level)
    after = graph_stats(n, new_edges)
    people = [change[1], change[2]] if change[0] == "flip" else [change[1]]
    context = []
    if change[0] == "flip" and query == "triangles":  # the common friends: one triangle each
        rows = stats.adjacency[people]
        context = sorted(set(rows[[0]].indices.tolist()) & set(rows[[1]].indices.tolist()))
    old = {tuple(e) for e in stats.edges.tolist()}
    new = {tuple(e) for e in np.sort(new_edges, axis=1).tolist()}
    added, removed = sorted(new - old), sorted(old - new)
    figure = None if graph["layout"] is None else charts.graph_chart(
        graph["layout"], stats.edges, stats.degrees, LEVEL_TITLES[level], highlight=people,
        highlight_name="whose ties change", added=added, removed=removed, context=context,
        context_name="common friend (one triangle each)", height=height)
    return {"change": change, "before": stats.value(query), "after": after.value(query),
            "added": added, "removed": removed, "figure": figure,
            "bounds": {bound: triangle_bound(after, bound) for bound in BOUND_NAMES}}


@st.cache_resource(max_entries=48, show_spinner=False)
def _mechanism(n: int, ties: int, triad_p: float, seed: list, bound: str, epsilon: float,
               delta: float, noise_seed: list) -> dict:
    """RUNS releases of the (2ε, δ) mechanism and of naive Laplace at the same total 2ε, summarised."""
    stats = _graph(n, ties, triad_p, seed)["stats"]
    triangles, b_value = stats.triangles, triangle_bound(stats, bound)
    rng = np.random.default_rng(noise_seed)
    d_hat, release = triangle_mechanism(triangles, b_value, epsilon, delta, rng, size=RUNS)
    sensitivity = global_sensitivity("triangles", "edge", n)  # n − 2
    naive = laplace_mechanism(np.full(RUNS, float(triangles)), sensitivity, 2 * epsilon, rng)
    naive_b = laplace_scale(sensitivity, 2 * epsilon)
    spread = max(np.quantile(np.abs(release - triangles), 0.99),
                 np.quantile(np.abs(naive - triangles), 0.99), 1.0)
    edges = np.linspace(triangles - spread, triangles + spread, BINS + 1)
    bounds = _bounds_by_n(ties, triad_p, seed)
    naive_n = np.geomspace(POPULATIONS[0], POPULATIONS[-1], 60)
    return {
        "bound": b_value, "d_hat": float(d_hat[0]), "release": float(release[0]),
        "naive": float(naive[0]), "naive_b": naive_b,
        "mech_error": float(np.mean(np.abs(release - triangles))),
        "naive_error": float(np.mean(np.abs(naive - triangles))),
        "failures": int(np.sum(d_hat < b_value)),
        "releases": charts.release_chart(
            edges, np.histogram(release, edges)[0], np.histogram(naive, edges)[0], triangles,
            f"(2ε, δ) mechanism, B = {b_value}", f"naive Laplace, b = {number(naive_b, ',.3g')}"),
        "errors": charts.error_chart(
            POPULATIONS, naive_n, (naive_n - 2) / (2 * epsilon),
            [triangle_mechanism_error(b, epsilon, delta) for b in bounds["max_degree"]],
            [triangle_mechanism_error(b, epsilon, delta) for b in bounds["max_common"]],
            n, triangle_mechanism_error(b_value, epsilon, delta)),
    }


def _beyond(outputs: np.ndarray, start: float, direction: float) -> np.ndarray:
    """The audit's event: releases past `start`, on the side `direction` points to."""
    return (np.asarray(outputs) - start) * direction > 0


# ---------------------------------------------------------------- page

st.title(TITLE)
lessons.render(SLUG, "hook")
lessons.instructor_notes(SLUG)  # after the hook: a phone opens on the lesson

lessons.step("1. A social network")
lessons.render(SLUG, "network-intro")
# The network's settings drive every demo below it. Moving one reruns only the demos that
# read them (keyed fragments, NETWORK_DEMOS), not the page: the prose, quizzes and headings
# between them are not sent again. Each demo reads the settings from the session state, since
# a fragment rerun on its own keeps the arguments of the last page run.
NETWORK_DEMOS = ["graphs_network", "graphs_side_by_side", "graphs_table", "graphs_triangle"]
SHOWN_SEED = "graphs_shown_seed"


def _network_moved() -> None:
    st.rerun(scope=NETWORK_DEMOS)


def _demo_rerun() -> bool:
    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)


def _settings() -> tuple[int, int, float, list]:
    """n, ties, triad closure and the network's seed, as the network demo's controls hold them."""
    state = st.session_state
    return (state.get("graphs_n", 200), state.get("graphs_ties", 3),
            state.get("graphs_triad", 0.5), demo_seed(NETWORK))


@lessons.demo(key="graphs_network")
def network_demo() -> None:
    copy_link(SLUG, "network_demo")
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        n = choice_slider("n (people in the network)", POPULATIONS, 200, "graphs_n",
                          help="Each step adds newcomers to the same network.",
                          on_change=_network_moved)
        ties = range_slider("Ties each newcomer makes", 1, 8, 3, "graphs_ties",
                            help="The average degree is about twice this.",
                            on_change=_network_moved)
        triad_p = choice_slider("Chance a further tie goes to a friend of a friend", TRIAD, 0.5,
                                "graphs_triad", help="Triad closure: each such tie closes a triangle.",
                                on_change=_network_moved)
        resample_button(NETWORK, "🎲 Grow a new network")
    seed = demo_seed(NETWORK)
    if _demo_rerun() and st.session_state.get(SHOWN_SEED) != seed:
        st.rerun()  # "Grow a new network": every part of the page shows the new one
    st.session_state[SHOWN_SEED] = seed
    graph = _graph(n, ties, triad_p, seed)
    stats, hubs = graph["stats"], graph["hubs"]
    d = stats.max_degree
    drawn = graph["drawing"] is not None
    with plot:
        if drawn:
            chart(graph["drawing"], key="graphs_network", **CHART)
        else:
            st.info(lessons.section_text(SLUG, "too-big-to-draw", n=n, limit=DRAW_MAX))
        with st.container(horizontal=True, gap="medium"):  # one row under the drawing; wraps on a phone
            st.metric("Ties, m", f"{stats.m:,}")
            st.metric("Max degree, d", f"{d:,}")
            st.metric("Triangles, T", f"{stats.triangles:,}")
            st.metric("Mean degree", f"{2 * stats.m / n:.1f}")
    network_values = {"n": n, "m": stats.m, "d": d, "T": stats.triangles, "hubs": len(hubs),
                      "mean": 2 * stats.m / n, "ratio": d / (2 * stats.m / n), "ties": ties,
                      "lonely": int(stats.degrees.min()), "star": " (the star)" if drawn else ""}
    network_values["sparsity"] = lessons.section_text(
        SLUG, "network-sparse" if d <= SPARSE * n else "network-dense", n=n, d_share=d / n)
    # In presenter mode the degree distribution is a screen of its own.
    lessons.step()
    left, right = st.columns([2, 1], gap="large")
    with left:
        chart(graph["degrees"], key="graphs_degrees", **CHART)
    with right:
        lessons.render(SLUG, "notice-network", **network_values)


network_demo()

lessons.step("2. Edge privacy versus node privacy")
lessons.render(SLUG, "neighbours")
lessons.quiz(SLUG, "who-is-protected")


def _side_height() -> int:
    """G′ drawn over G: lower on the projector, where both drawings, their numbers and the
    radio above them share one 720 px screen."""
    return SIDE_HEIGHT_PROJECTOR if presenter_mode() else SIDE_HEIGHT


@st.fragment(key="graphs_side_by_side")
def side_by_side() -> None:
    n, ties, triad_p, seed = _settings()
    lessons.render(SLUG, "side-by-side-intro")
    copy_link(SLUG, "side_by_side")
    query = choice_radio("Count to move as far as possible", QUERIES, QUERIES[2], "graphs_query",
                         format_func=charts.QUERY_NAMES.get)
    stats = _graph(n, ties, triad_p, seed)["stats"]
    changes = {level: _neighbour(n, ties, triad_p, seed, query, level, _side_height())
               for level in ("edge", "node")}
    for column, (level, change) in zip(st.columns(2, gap="large"), changes.items(), strict=True):
        with column:
            if change["figure"] is not None:  # the drawing's title names the level
                chart(change["figure"], key=f"graphs_neighbour_{level}", **CHART)
            else:
                st.subheader(LEVEL_TITLES[level])
            # On the projector the radio above names the count, and the change is read from
            # the arrow: the metric shows its numbers alone (a row less on a 720 px screen).
            presenting = presenter_mode()
            st.metric(f"{charts.QUERY_NAMES[query]}: G → G′",
                      f"{change['before']:,} → {change['after']:,}",
                      None if presenting else f"{change['after'] - change['before']:+,}", delta_color="off",
                      label_visibility="collapsed" if presenting else "visible")
    if changes["edge"]["figure"] is None:
        st.caption(lessons.section_text(SLUG, "side-by-side-undrawn", limit=DRAW_MAX))
    edge, node = changes["edge"], changes["node"]
    d = stats.max_degree
    values = {"n": n, "d": d, "gs": n - 2, "top": n - 1, "d_share": d / (n - 1),
              "edge_change": abs(edge["after"] - edge["before"]),
              "node_change": abs(node["after"] - node["before"]),
              "node_added": len(node["added"]), "node_removed": len(node["removed"]),
              "person": node["change"][1], "u": edge["change"][1], "v": edge["change"][2]}
    values["diamonds"] = (" (the green diamonds are those common friends)"
                          if edge["figure"] is not None else "")
    values["node_share"] = values["node_change"] / (n - 1)
    values["ls_share"] = values["edge_change"] / max(n - 2, 1)
    if query == "max_degree":
        values["hub"] = lessons.section_text(
            SLUG, "max-degree-sparse" if d <= SPARSE * (n - 1) else "max-degree-dense", **values)
    if query == "triangles":
        values["versus_worst"] = lessons.section_text(
            SLUG, "triangles-far-below" if values["ls_share"] <= SPARSE else "triangles-not-far-below",
            **values)
    lessons.render(SLUG, f"notice-{query}", **values)


lessons.step()
side_by_side()


lessons.step("3. The sensitivity table")
lessons.render(SLUG, "table-intro")
lessons.quiz(SLUG, "triangle-gs")
lessons.step()
@lessons.demo(key="graphs_table")
def table_demo() -> None:
    n, ties, triad_p, seed = _settings()
    copy_link(SLUG, "table_demo")
    graph = _graph(n, ties, triad_p, seed)
    stats, table, d = graph["stats"], graph["table"], graph["stats"].max_degree
    st.table(graph["rows"], hide_index=True)
    lessons.step()  # in presenter mode the table, then its chart, a screen each
    left, right = st.columns([3, 2], gap="large")
    with left:
        chart(graph["sensitivities"], key="graphs_sensitivities", **CHART)
    with right:
        tri = table["triangles"]
        times = tri["gs_edge"] / max(tri["ls_edge"], 1)
        lessons.render(SLUG, "notice-table", n=n, d=d, ls_edge=tri["ls_edge"], gs_edge=tri["gs_edge"],
                       ls_node=tri["ls_node"], gs_node=tri["gs_node"], m=stats.m,
                       edges_node=table["edges"]["ls_node"], maxdeg_node=table["max_degree"]["ls_node"],
                       pessimism=lessons.section_text(
                           SLUG, "table-pessimistic" if times >= 1 / SPARSE else "table-not-pessimistic",
                           times=times))


table_demo()

lessons.step("4. A private triangle count")
lessons.render(SLUG, "mechanism-intro")
lessons.quiz(SLUG, "why-noisy-bound")


@lessons.demo(key="graphs_triangle")
def triangle_demo() -> None:
    n, ties, triad_p, seed = _settings()
    copy_link(SLUG, "triangle_demo")
    graph = _graph(n, ties, triad_p, seed)
    stats, table = graph["stats"], graph["table"]
    controls, plot = st.columns([1, 2], gap="large")
    with controls:
        epsilon = epsilon_slider("graphs_eps", 1.0, MECH_EPSILONS,
                                 label="ε for each step (total 2ε)")
        delta = delta_slider("graphs_delta", 1e-6)
        bound = choice_radio("Bound B(G) on how much one tie moves T", list(BOUND_NAMES),
                             next(iter(BOUND_NAMES)), "graphs_bound", format_func=BOUND_NAMES.get)
        resample_button(NOISE, "🎲 Release again")
    draws = _mechanism(n, ties, triad_p, seed, bound, epsilon, delta, demo_seed(NOISE))
    b_value = draws["bound"]
    shift = np.log(1 / delta) / epsilon
    values = {"n": n, "T": stats.triangles, "d": stats.max_degree, "B": b_value, "eps": epsilon,
              "eps2": 2 * epsilon, "delta": delta, "shift": shift, "d_hat": draws["d_hat"],
              "scale": max(draws["d_hat"], 0) / epsilon, "release": draws["release"],
              "naive": draws["naive"], "naive_b": draws["naive_b"], "gs": n - 2,
              "bound_name": BOUND_TEXT[bound],
              "mech_error": triangle_mechanism_error(b_value, epsilon, delta),
              "naive_error": draws["naive_b"], "mech_seen": draws["mech_error"],
              "naive_seen": draws["naive_error"], "runs": RUNS, "failures": draws["failures"],
              "fail_p": bound_failure_probability(epsilon, delta), "ls": table["triangles"]["ls_edge"],
              "shift_per_decade": np.log(10) / epsilon, "one_over_m": 1 / max(stats.m, 1)}
    with plot:  # the numbers under the chart: the controls' column is full on a projector
        chart(draws["releases"], key="graphs_releases", **CHART)
        lessons.render(SLUG, "mechanism-numbers", **values)
    lessons.step()
    left, right = st.columns([3, 2], gap="large")
    with left:
        chart(draws["errors"], key="graphs_errors", **CHART)
    with right:
        better = values["mech_error"] < values["naive_error"]
        half = (n - 2) / 2
        # B + shift below (n − 2)/2 is necessary, not enough: the exact error adds the cost of a
        # noisy bound clipped at 0, e^(−εμ)/(2ε²), which can tip a near tie (n = 100, ε = 0.07)
        culprit = ("both" if min(b_value, shift) >= half else "bound" if b_value >= half
                   else "shift" if shift >= half else "sum" if b_value + shift >= half else "clip")
        ratio = (max(values["mech_error"], values["naive_error"])
                 / min(values["mech_error"], values["naive_error"]))
        # "1.0 times smaller" for a ratio of 1.008 says nothing: below 1.05 say how close
        ratio_words = ("within 5% of it" if ratio < 1.05 else
                       f"{ratio:.1f} times {'smaller' if better else 'larger'}")
        lessons.render(SLUG, "notice-mechanism-wins" if better else "notice-mechanism-loses",
                       ratio_words=ratio_words, half_gs=half,
                       culprit=lessons.section_text(SLUG, f"loses-{culprit}", half_gs=half,
                                                    total=b_value + shift),
                       **values)
    lessons.render(SLUG, "why-it-works", **values)
    notes = ([lessons.section_text(SLUG, "delta-not-small", delta=delta)]
             if delta >= 0.1 * values["one_over_m"] else [])
    if delta < max(DELTAS):
        notes.append(lessons.section_text(SLUG, "delta-try-large"))
    lessons.render(SLUG, "role-of-delta", delta_note=" ".join(notes), **values)
    lessons.step()
    # the two steps exceed 2ε only when the noisy bound d̂ falls below B(G): chance δ/2
    release = bad_event_release(2 * epsilon, delta, bound_failure_probability(epsilon, delta),
                                unit="tie", units=stats.m or None, degree=stats.max_degree or None)
    odds_panel(release, key="graphs", what="the whole release (both steps, 2ε)")
    opendp_expander(opendp_snippets.no_constructor("A (2ε, δ)-DP triangle count under edge privacy", "none: OpenDP 0.16 has no graph transformations (the page's mechanism is dp/graphs.py)"))
    lessons.step()
    lessons.quiz(SLUG, "delta-role")

    with st.container(border=True):
        st.subheader("Check the guarantee")
        neighbour = _neighbour(n, ties, triad_p, seed, "triangles", "edge", _side_height())
        t, t_prime = stats.triangles, neighbour["after"]
        direction = float(np.sign(t_prime - t))
        typical = b_value + shift  # the median of d̂
        c = abs(t_prime - t)
        rough = c * epsilon / typical
        # What the audit's samples can resolve of a probability near ½: two standard errors.
        resolution = 2 * np.sqrt(0.25 / AUDIT_SAMPLES)
        delta_text = lessons.section_text(
            SLUG, "audit-delta-small" if values["fail_p"] < resolution else "audit-delta-large",
            resolution=resolution, samples=AUDIT_SAMPLES, **values)
        expect = lessons.section_text(
            SLUG, "audit-expect-far" if rough <= SPARSE * 2 * epsilon else "audit-expect-below")
        lessons.render(SLUG, "audit", T=t, T_prime=t_prime, u=neighbour["change"][1],
                       v=neighbour["change"][2], c=c, eps2=2 * epsilon, B=b_value, shift=shift,
                       friends=f"{c} common friend" + ("" if c == 1 else "s"),
                       verb="adds" if t_prime >= t else "removes", typical=typical,
                       rough=rough, delta_text=delta_text, expect=expect)
        audit_panel(
            "graphs_audit",
            functools.partial(triangle_releases, triangles=t_prime,
                              bound=neighbour["bounds"][bound], epsilon=epsilon, delta=delta),
            functools.partial(triangle_releases, triangles=t, bound=b_value, epsilon=epsilon,
                              delta=delta),
            functools.partial(_beyond, start=float(t_prime), direction=direction),
            promised_epsilon=2 * epsilon, samples=AUDIT_SAMPLES,
            event_label=f"release {'>' if direction >= 0 else '<'} T(G′) = {t_prime:,}",
            cache_key=("triangles", n, ties, triad_p, tuple(seed), bound, epsilon, delta),
        )


lessons.step()
triangle_demo()

lessons.step()
lessons.render(SLUG, "takeaways")
lessons.render(SLUG, "reading")
