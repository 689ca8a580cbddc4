"""The "Privacy for graphs" page: its branches, radios, buttons and quizzes, and its charts."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dp import graphs as g
from tests.conftest import (
    ODDS_ICONS,
    app_test,
    assert_clean,
    chart_by_title,
    chart_titles,
    lesson,
    page_text,
)
from ui.charts import graphs as charts

LESSON = lesson("graphs")


@pytest.fixture(scope="module")
def default_run():
    return app_test(LESSON)


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_defaults_show_every_section(default_run):
    at = default_run
    assert_clean(at)
    assert at.title[0].value == "Privacy for graphs"
    assert [t for t in chart_titles(at) if not t.startswith(ODDS_ICONS)] == [
        "The network: 200 people, 594 ties", "Friends per person: a few hubs, many with few",
        "Edge privacy: one tie flipped", "Node privacy: one person rewired",
        "How much one neighbour can change each count",
        "Where the released triangle count lands", "Expected error as the network grows"]
    text = page_text(at)
    assert "both graphs always have the same n people" in text  # the neighbouring relations
    assert "the best-connected person (the star) has" in text  # the star is drawn
    assert "add or remove" in text  # and the other convention, resolved
    assert at.success and "consistent with the promise" in at.success[0].value


def test_table_and_metrics_match_dp(default_run):
    # The page's network is dp's generator at N_MAX with the page's seed, cut to n = 200.
    import zlib

    from ui.seeds import DEFAULT_SEED

    seed = [DEFAULT_SEED, zlib.crc32(b"graphs_net"), 0]
    edges = g.prefix(g.preferential_attachment(2000, 3, np.random.default_rng(seed), 0.5), 200)
    stats = g.graph_stats(200, edges)
    table = g.sensitivity_table(stats)
    assert _metric(default_run, "Max degree, d") == str(stats.max_degree)
    assert _metric(default_run, "Triangles, T") == f"{stats.triangles:,}"
    shown = default_run.table[0].value
    row = shown[shown["query q"] == "number of triangles"].iloc[0]
    assert row["LS edge"] == f"{table['triangles']['ls_edge']:,}"
    assert row["GS node"] == "19,701"
    # the side-by-side metrics are the local sensitivities of the triangle count
    changes = [m.value for m in default_run.metric if m.label == "number of triangles: G → G′"]
    before_after = [tuple(int(x.replace(",", "")) for x in c.split(" → ")) for c in changes]
    assert [abs(a - b) for a, b in before_after] == [table["triangles"]["ls_edge"],
                                                     table["triangles"]["ls_node"]]


def test_each_count_has_its_side_by_side_and_the_radio_moves_only_that_demo():
    # A link carries a radio's label (Streamlit binds the formatted option).
    at = app_test(LESSON, {"graphs_query": charts.QUERY_NAMES["edges"]})
    release = chart_by_title(at, "Where the released")["data"][0]["y"]
    markers = {"edges": "Flipping one tie changes the number of ties",
               "max_degree": "One tie moves the max degree",
               "triangles": "friends they have in common"}
    for query in g.QUERIES:
        if query != "edges":
            at.radio(key="graphs_query").set_value(query).run()
        assert_clean(at)
        assert sum(m.label.startswith(charts.QUERY_NAMES[query]) for m in at.metric) == 2
        assert markers[query] in page_text(at)
        assert chart_by_title(at, "Where the released")["data"][0]["y"] == release


def test_tighter_bound_and_large_delta():
    at = app_test(LESSON, {"graphs_bound": "max common friends (tighter)", "graphs_delta": "0.1"})
    assert_clean(at)
    table = at.table[0].value
    ls = table[table["query q"] == "number of triangles"].iloc[0]["LS edge"]
    names = [t["name"] for t in chart_by_title(at, "Where the released")["data"]]
    assert names[0] == f"(2ε, δ) mechanism, B = {ls}"  # the bound is LS_edge itself
    # δ = 0.1: each run falls below the bound with probability 0.05, about 1,000 of 20,000.
    count = int(re.search(r"simulated runs,\s+\*\*([\d,]+)\*\*", page_text(at)).group(1).replace(",", ""))
    assert 850 < count < 1150  # ± 5 standard errors of Binomial(20000, 0.05) (σ ≈ 31)


def test_large_network_is_summarised_not_drawn():
    at = app_test(LESSON, {"graphs_n": "1000"})
    assert_clean(at)
    titles = chart_titles(at)
    assert not any(t.startswith(("Edge privacy", "Node privacy", "The network")) for t in titles)
    # with no drawings, the levels are headings (the drawings' titles name them otherwise)
    assert [h.value for h in at.subheader if "privacy:" in h.value] == [
        "Edge privacy: one tie flipped", "Node privacy: one person rewired"]
    # and no sentence points at a star that is not drawn
    assert "(the star)" not in page_text(at) and "the best-connected person has" in page_text(at)
    assert titles.count("Friends per person: a few hubs, many with few") == 1
    assert any("drawing stops at 200 people" in info.value for info in at.info)


def test_small_epsilon_small_network_lets_naive_noise_win():
    # n = 20, ε = 0.05: the shift ln(10⁶)/0.05 ≈ 276 dwarfs n − 2 = 18.
    at = app_test(LESSON, {"graphs_n": "20", "graphs_eps": "0.05"})
    assert_clean(at)
    assert "naive mechanism wins" in page_text(at)


def test_resample_buttons_redraw_only_their_own_randomness(default_run):
    at = app_test(LESSON)
    # the same seed gives the same page
    assert [m.value for m in at.metric] == [m.value for m in default_run.metric]
    triangles = _metric(at, "Triangles, T")
    releases = chart_by_title(at, "Where the released")["data"][0]["y"]
    at.button(key="graphs_noise_resample").click().run()
    assert_clean(at)
    assert _metric(at, "Triangles, T") == triangles
    assert chart_by_title(at, "Where the released")["data"][0]["y"] != releases
    before = (_metric(at, "Triangles, T"), _metric(at, "Max degree, d"))
    at.button(key="graphs_net_resample").click().run()
    assert_clean(at)
    assert (_metric(at, "Triangles, T"), _metric(at, "Max degree, d")) != before


def test_bad_radio_link_values_are_harmless():
    assert_clean(app_test(LESSON, {"graphs_query": "nonsense", "graphs_bound": "nonsense"}))


def test_extreme_corners_run_cleanly():
    # Smallest and densest networks with the extreme privacy settings and the tighter bound.
    for query in ({"graphs_n": "20", "graphs_ties": "8", "graphs_triad": "1.0", "graphs_eps": "5",
                   "graphs_delta": "0.1", "graphs_bound": "max common friends (tighter)",
                   "graphs_query": "number of ties"},
                  {"graphs_n": "20", "graphs_ties": "1", "graphs_triad": "0.0",
                   "graphs_eps": "0.05", "graphs_delta": "1e-12"}):
        at = app_test(LESSON, query)
        assert_clean(at)


QUIZ_ANSWERS = {"who-is-protected": 1, "triangle-gs": 2, "why-noisy-bound": 1, "delta-role": 1}


def test_quizzes_reveal_after_a_guess():
    at = app_test(LESSON)
    for quiz_id, answer in QUIZ_ANSWERS.items():
        at.radio(key=f"graphs_quiz_{quiz_id}").set_value(answer)
    at.run()
    for quiz_id in QUIZ_ANSWERS:
        at.toggle(key=f"graphs_quiz_{quiz_id}_reveal").set_value(True)
    at.run()
    assert_clean(at)
    assert page_text(at).count("✅ Right.") == len(QUIZ_ANSWERS)


# --- chart builders ---------------------------------------------------------------------------


def _network(n=60, ties=2):
    edges = g.preferential_attachment(n, ties, np.random.default_rng(1), 0.5)
    return g.graph_stats(n, edges)


def test_spring_layout_is_deterministic_and_keeps_friends_closer():
    stats = _network()
    pos = charts.spring_layout(stats.n, stats.edges)
    assert pos.shape == (60, 2) and np.all(np.isfinite(pos))
    assert np.array_equal(pos, charts.spring_layout(stats.n, stats.edges))
    tie_length = np.linalg.norm(pos[stats.edges[:, 0]] - pos[stats.edges[:, 1]], axis=1).mean()
    all_pairs = np.linalg.norm(pos[:, None] - pos[None, :], axis=2).sum() / (60 * 59)
    assert tie_length < 0.7 * all_pairs


def test_graph_chart_draws_each_change_once():
    stats = _network()
    pos = charts.spring_layout(stats.n, stats.edges)
    plain = charts.graph_chart(pos, stats.edges, stats.degrees, "G")
    assert len(plain.data) == 2  # ties as one polyline, people as one marker trace
    assert np.isnan(plain.data[0].x).sum() == stats.m  # one break after each tie
    removed = [tuple(stats.edges[0])]
    fig = charts.graph_chart(pos, stats.edges, stats.degrees, "G′", highlight=list(removed[0]),
                             highlight_name="whose ties change", removed=removed, added=[(5, 50)],
                             context=[7], context_name="common friend")
    names = [t.name for t in fig.data]
    assert names[2:] == ["tie removed (1)", "tie added (1)", "common friend", "whose ties change"]
    assert np.isnan(fig.data[0].x).sum() == stats.m - 1  # the removed tie left the background


def test_charts_send_little_data_and_label_their_axes():
    stats = _network(200, 3)
    table = g.sensitivity_table(stats)
    edges = np.linspace(0, 100, 71)
    counts = np.ones(70, dtype=int)
    figures = [
        charts.degree_chart(stats.degrees),
        charts.sensitivity_chart(table),
        charts.release_chart(edges, counts, counts, 50, "mechanism", "naive"),
        charts.error_chart([20, 200, 2000], np.geomspace(20, 2000, 60), np.geomspace(9, 999, 60),
                           [20, 40, 90], [15, 18, 25], 200, 40),
    ]
    for fig in figures:
        assert fig.layout.title.text
        assert fig.layout.yaxis.title.text
        assert sum(len(trace.x) for trace in fig.data if trace.x is not None) <= 5000
    drawing = charts.graph_chart(charts.spring_layout(200, stats.edges), stats.edges,
                                 stats.degrees, "G")
    assert sum(len(trace.x) for trace in drawing.data) <= 3 * stats.m + stats.n


def test_release_chart_is_a_density():
    edges = np.linspace(-10, 10, 41)
    counts = np.arange(40)
    fig = charts.release_chart(edges, counts, counts[::-1], 0, "a", "b")
    for trace in fig.data:
        assert np.sum(trace.y) * 0.5 == pytest.approx(1.0)  # bin width 0.5


def test_sensitivity_rows_show_the_table():
    stats = _network(200, 3)
    rows = charts.sensitivity_rows(g.sensitivity_table(stats), 200, stats.max_degree)
    assert rows["query q"] == ["number of ties", "max degree d", "number of triangles"]
    assert rows["GS edge"] == ["1", "1", "198"]
    assert rows["GS node"] == ["199", "199", "19,701"]


# --- live sentences at the settings that broke them (issue 13) ---------------------------------


def _flat(at) -> str:
    return " ".join(page_text(at).split())


def test_small_network_does_not_claim_sparsity_or_far_below():
    # n = 20: d = 12 is 60% of n, and one tie can move T by 6 of the worst case 18.
    at = app_test(LESSON, {"graphs_n": "20"})
    assert_clean(at)
    text = _flat(at)
    assert "The graph is sparse" not in text and "Here d is 60% of n = 20, not far below it" in text
    assert "far below the worst case" not in text
    assert "it is 33% of the worst case n − 2 = 18" in text
    assert "times more pessimistic" not in text and "only 3.0 times the local value" in text
    # the naive mechanism wins here, and the page says which term is to blame
    assert "each of them alone is too large" in text


def test_default_network_keeps_the_sparse_sentences(default_run):
    text = _flat(default_run)
    assert "The graph is sparse: d is only 18% of n = 200." in text
    assert "far below the worst case n − 2 = 198" in text
    assert "the worst case is 28 times more pessimistic" in text
    assert "Leaving δ out matters little here" in text and "Expect ε̂ far below the promise" in text


def test_large_delta_audit_does_not_claim_delta_is_invisible():
    # δ = 0.1: about 1,000 of 20,000 runs have a low bound, which 100,000 samples can see.
    at = app_test(LESSON, {"graphs_delta": "0.1"})
    assert_clean(at)
    text = _flat(at)
    assert "too little to show" not in text and "matters little" not in text
    assert "At δ = 0.1 that check is stricter than the promise" in text
    assert "The δ = 0.1 set now is not." in text and "Try δ = 0.1" not in text


def test_dense_network_max_degree_and_a_bound_that_is_too_large():
    # n = 20 with 8 ties each: d = 18 of 19 possible, so no hub can lift it and the node-level
    # change is small; the max-degree bound B = 18 ≥ (n − 2)/2 loses whatever ε is.
    at = app_test(LESSON, {"graphs_n": "20", "graphs_ties": "8", "graphs_triad": "0.9",
                           "graphs_eps": "0.7", "graphs_delta": "0.1",
                           "graphs_query": charts.QUERY_NAMES["max_degree"]})
    assert_clean(at)
    text = _flat(at)
    assert "close to n." not in text.split("On a large sparse network")[0]
    assert "of the most it could ever be, n − 1 = 19, and here d = 18 is itself 95% of n − 1" in text
    assert "the bound alone is too large" in text and "Raising ε cannot make it win" in text
    assert "Expect ε̂ below the promise, though not far below it here." in text


def test_a_near_tie_lost_to_clipping_is_not_blamed_on_the_sum():
    # B + ln(1/δ)/ε = 16 + 32.9 is below (n − 2)/2 = 49, yet the naive release wins: the exact
    # error adds e^(−εμ)/(2ε²) for a noisy bound clipped at 0. The page used to say "each is
    # below (n − 2)/2 on its own, but together they are not", and "1.0 times larger".
    n, epsilon, delta = 100, 0.07, 0.1
    at = app_test(LESSON, {"graphs_n": str(n), "graphs_ties": "4", "graphs_triad": "0",
                           "graphs_bound": "max common friends (tighter)",
                           "graphs_eps": str(epsilon), "graphs_delta": str(delta)})
    assert_clean(at)
    text = page_text(at)
    bound = int(re.search(r"Here B = (\d+) and the shift", text).group(1))
    mu = bound + np.log(1 / delta) / epsilon
    mechanism = (mu + np.exp(-epsilon * mu) / (2 * epsilon)) / epsilon
    naive = (n - 2) / (2 * epsilon)
    assert mu < (n - 2) / 2 and mechanism > naive  # the setting is the near tie it means to be
    assert "naive mechanism wins" in text
    assert "together they are not" not in text
    assert f"together they come to {mu:.1f}, below {(n - 2) / 2:.1f}" in text
    assert "times larger" not in text and "within 5% of it" in text
    assert mechanism / naive < 1.05


def test_no_green_diamonds_are_named_when_the_network_is_not_drawn():
    at = app_test(LESSON, {"graphs_n": "500"})  # the default count is triangles
    assert_clean(at)
    text = page_text(at)
    assert "friends they have in common" in text
    assert "green diamonds" not in text
