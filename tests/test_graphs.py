"""dp.graphs: the network generator, graph counts, local and global sensitivities against
brute force over every small graph, and the (2ε, δ) triangle mechanism (error, δ, audit)."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dp import audit_epsilon
from dp import graphs as g

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)


# ---------------------------------------------------------------- brute-force references


def dense(n: int, edges) -> np.ndarray:
    a = np.zeros((n, n), dtype=np.int64)
    for u, v in np.asarray(edges, dtype=np.int64).reshape(-1, 2):
        a[u, v] = a[v, u] = 1
    return a


def dense_values(a: np.ndarray) -> dict[str, int]:
    """The three queries straight from the definitions: trace(A³)/6 for triangles."""
    return {"edges": int(a.sum()) // 2, "max_degree": int(a.sum(axis=1).max()),
            "triangles": int(np.trace(a @ a @ a)) // 6}


def edge_neighbours(a: np.ndarray):
    n = len(a)
    for u, v in itertools.combinations(range(n), 2):
        b = a.copy()
        b[u, v] = b[v, u] = 1 - a[u, v]
        yield b


def node_neighbours(a: np.ndarray):
    n = len(a)
    for v in range(n):
        others = [u for u in range(n) if u != v]
        for bits in itertools.product((0, 1), repeat=n - 1):
            b = a.copy()
            b[v, others] = b[others, v] = bits
            yield b


def brute_local(a: np.ndarray, level: str) -> dict[str, int]:
    base = dense_values(a)
    worst = dict.fromkeys(g.QUERIES, 0)
    for b in (edge_neighbours(a) if level == "edge" else node_neighbours(a)):
        for q, value in dense_values(b).items():
            worst[q] = max(worst[q], abs(value - base[q]))
    return worst


def all_graphs(n: int):
    pairs = list(itertools.combinations(range(n), 2))
    for mask in range(2 ** len(pairs)):
        yield [pair for i, pair in enumerate(pairs) if mask >> i & 1]


@functools.lru_cache(maxsize=8)
def brute_tables(n: int) -> dict[tuple[str, str], np.ndarray]:
    """LS of each query at each level for every graph on n people (graph i = bitmask i over
    the pairs), by looking up every neighbour's value: a flip is an XOR with one pair's bit;
    a rewiring of v keeps the bits of pairs without v and sets those with v freely."""
    pairs = list(itertools.combinations(range(n), 2))
    masks = np.arange(2 ** len(pairs))
    a = np.zeros((len(masks), n, n), dtype=np.int64)
    for i, (u, v) in enumerate(pairs):
        a[:, u, v] = a[:, v, u] = masks >> i & 1
    values = {"edges": a.sum(axis=(1, 2)) // 2, "max_degree": a.sum(axis=2).max(axis=1),
              "triangles": np.einsum("gij,gjk,gki->g", a, a, a) // 6}
    neighbours = {"edge": [masks ^ (1 << i) for i in range(len(pairs))], "node": []}
    for v in range(n):
        at_v = [i for i, pair in enumerate(pairs) if v in pair]
        keep = masks & ~sum(1 << i for i in at_v)
        for bits in itertools.product((0, 1), repeat=len(at_v)):
            neighbours["node"].append(keep | sum(b << i for b, i in zip(bits, at_v, strict=True)))
    return {(q, level): np.max([np.abs(values[q][nb] - values[q]) for nb in neighbours[level]]
                               or [np.zeros_like(masks)], axis=0)
            for q in g.QUERIES for level in g.LEVELS}


def edge_lists(max_n: int = 7):
    @st.composite
    def strategy(draw):
        n = draw(st.integers(1, max_n))
        pairs = list(itertools.combinations(range(n), 2))
        keep = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
        return n, [pair for pair, k in zip(pairs, keep, strict=True) if k]
    return strategy()


# ---------------------------------------------------------------- the generator


def test_generator_is_seeded_and_has_the_promised_size():
    a = g.preferential_attachment(200, 3, np.random.default_rng(7), triad_p=0.5)
    b = g.preferential_attachment(200, 3, np.random.default_rng(7), triad_p=0.5)
    assert np.array_equal(a, b)
    # a clique on ties + 1 = 4 people (6 ties), then 3 ties for each of the other 196
    assert len(a) == 6 + 196 * 3
    n, checked = g.check_graph(200, a)  # no self-loops, no tie twice
    assert n == 200 and len(checked) == len(a)
    assert not np.array_equal(a, g.preferential_attachment(200, 3, np.random.default_rng(8), 0.5))


def test_growing_n_grows_the_same_network():
    big = g.preferential_attachment(500, 4, np.random.default_rng(3), triad_p=0.7)
    for n in (1, 2, 5, 50, 499):
        small = g.preferential_attachment(n, 4, np.random.default_rng(3), triad_p=0.7)
        assert np.array_equal(small, g.prefix(big, n))


def test_small_and_tree_cases():
    assert len(g.preferential_attachment(1, 3, np.random.default_rng(0))) == 0
    assert len(g.preferential_attachment(3, 5, np.random.default_rng(0))) == 3  # a triangle
    tree = g.preferential_attachment(300, 1, np.random.default_rng(0), triad_p=1.0)
    stats = g.graph_stats(300, tree)
    assert stats.m == 299 and stats.triangles == 0  # one tie per newcomer: a tree


def test_triad_closure_makes_triangles():
    # Each triad step closes at least one new triangle, so p = 1 must beat p = 0 on every seed.
    for seed in range(5):
        counts = [g.triangle_count(300, g.preferential_attachment(300, 3, np.random.default_rng(seed), p))
                  for p in (0.0, 1.0)]
        assert counts[1] > 2 * counts[0]


def test_attachment_is_proportional_to_degree():
    # ties = 1: people 0–1 start, person 2 joins one of them, so the degrees are (2, 1, 1) in
    # some order. Person 3 then joins the degree-2 person with probability 2/4 = 1/2 (uniform
    # would be 1/3). 4,000 seeds: standard error √(¼/4000) ≈ 0.008, so 0.04 is 5 standard errors.
    hits = 0
    for seed in range(4000):
        edges = g.preferential_attachment(4, 1, np.random.default_rng(seed))
        hub = int(np.argmax(g.degrees(3, edges[:2])))
        hits += int(hub in edges[2])
    assert abs(hits / 4000 - 0.5) < 0.04


def test_generator_rejects_bad_parameters():
    rng = np.random.default_rng(0)
    for kwargs, name in [({"n": 0, "ties": 1}, "n"), ({"n": 5, "ties": 0}, "ties"),
                         ({"n": 5, "ties": 1, "triad_p": 1.5}, "triad_p")]:
        with pytest.raises(ValueError, match=name):
            g.preferential_attachment(rng=rng, **kwargs)
    with pytest.raises(ValueError, match="rng"):
        g.preferential_attachment(5, 1, 42)


def test_check_graph_rejects_bad_edges():
    with pytest.raises(ValueError, match="self-loops"):
        g.check_graph(3, [(1, 1)])
    with pytest.raises(ValueError, match="twice"):
        g.check_graph(3, [(0, 1), (1, 0)])
    with pytest.raises(ValueError, match="0..2"):
        g.check_graph(3, [(0, 3)])
    with pytest.raises(ValueError, match="shape"):
        g.check_graph(3, [("a", "b")])


# ---------------------------------------------------------------- counts


@SETTINGS
@given(edge_lists(8))
def test_counts_match_the_dense_definitions(graph):
    n, edges = graph
    stats = g.graph_stats(n, edges)
    a = dense(n, edges)
    assert {q: stats.value(q) for q in g.QUERIES} == dense_values(a)
    assert np.array_equal(stats.triangles_per_node, np.diagonal(a @ a @ a) // 2)
    common = a @ a
    np.fill_diagonal(common, 0)
    u, v, c = stats.max_common
    assert c == common.max() and (c == 0 or common[u, v] == c)
    assert stats.triangles == g.triangle_count(n, edges) == g.query_value(n, edges, "triangles")


def test_counts_on_named_graphs():
    k5 = list(itertools.combinations(range(5), 2))
    stats = g.graph_stats(5, k5)
    assert (stats.m, stats.max_degree, stats.triangles) == (10, 4, 10)
    star = [(0, v) for v in range(1, 6)]
    stats = g.graph_stats(6, star)
    assert (stats.m, stats.max_degree, stats.triangles, stats.max_common[2]) == (5, 5, 0, 1)


# ---------------------------------------------------------------- sensitivities


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_local_sensitivity_matches_brute_force_on_every_graph(n):
    brute = brute_tables(n)
    for i, edges in enumerate(all_graphs(n)):
        stats = g.graph_stats(n, edges)
        for level in g.LEVELS:
            for q in g.QUERIES:
                assert g.local_sensitivity(stats, q, level) == brute[q, level][i], (edges, q, level)


@SETTINGS
@given(edge_lists(7))
def test_local_sensitivity_matches_brute_force_on_random_graphs(graph):
    n, edges = graph
    stats = g.graph_stats(n, edges)
    a = dense(n, edges)
    for level in g.LEVELS:
        assert {q: g.local_sensitivity(stats, q, level) for q in g.QUERIES} == brute_local(a, level)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_global_sensitivity_is_the_largest_local_one(n):
    # GS = max over every graph on n people of LS(G), by brute force over all 2^C(n,2) graphs.
    worst = {key: int(ls.max()) for key, ls in brute_tables(n).items()}
    assert worst == {(q, level): g.global_sensitivity(q, level, n)
                     for q in g.QUERIES for level in g.LEVELS}


def test_global_sensitivity_closed_forms():
    assert [g.global_sensitivity(q, "edge", 200) for q in g.QUERIES] == [1, 1, 198]
    assert [g.global_sensitivity(q, "node", 200) for q in g.QUERIES] == [199, 199, 19701]
    with pytest.raises(ValueError, match="query"):
        g.global_sensitivity("diameter", "edge", 5)
    with pytest.raises(ValueError, match="level"):
        g.global_sensitivity("edges", "person", 5)


@SETTINGS
@given(edge_lists(8))
def test_worst_neighbour_is_a_neighbour_and_attains_the_local_sensitivity(graph):
    n, edges = graph
    stats = g.graph_stats(n, edges)
    a = dense(n, edges)
    base = dense_values(a)
    for level in g.LEVELS:
        for q in g.QUERIES:
            if level == "edge" and n == 1:
                with pytest.raises(ValueError, match="n must be ≥ 2"):
                    g.worst_neighbour(stats, q, level)
                continue
            new_edges, change = g.worst_neighbour(stats, q, level)
            b = dense(n, g.check_graph(n, new_edges)[1])
            changed = np.argwhere(np.triu(a != b))
            if level == "edge":
                assert change[0] == "flip" and len(changed) == 1
            else:
                v = change[1]
                assert change[0] == "rewire" and all(v in pair for pair in changed)
            assert abs(dense_values(b)[q] - base[q]) == g.local_sensitivity(stats, q, level)


def test_sensitivity_table_on_a_generated_network():
    edges = g.preferential_attachment(200, 3, np.random.default_rng(2014), triad_p=0.5)
    stats = g.graph_stats(200, edges)
    table = g.sensitivity_table(stats)
    d = stats.max_degree
    assert table["edges"]["ls_edge"] == table["edges"]["gs_edge"] == 1
    assert table["max_degree"]["ls_edge"] == 1
    # edge level: triangles' LS is far below GS = n − 2, and at most the max degree
    assert table["triangles"]["ls_edge"] <= d < table["triangles"]["gs_edge"] == 198
    # node level: one person befriending everyone makes LS nearly as bad as GS
    assert table["edges"]["ls_node"] == 199 - int(stats.degrees.min())
    assert table["max_degree"]["ls_node"] == 199 - d
    for row in table.values():
        assert row["ls_edge"] <= row["gs_edge"] and row["ls_node"] <= row["gs_node"]


def test_neighbour_edges_flips_and_rewires():
    edges = [(0, 1), (1, 2)]
    assert g.neighbour_edges(3, edges, ("flip", 0, 1)).tolist() == [[1, 2]]
    assert g.neighbour_edges(3, edges, ("flip", 2, 0)).tolist() == [[0, 1], [1, 2], [0, 2]]
    assert sorted(map(tuple, g.neighbour_edges(3, edges, ("rewire", 1, (0,))).tolist())) == [(0, 1)]
    with pytest.raises(ValueError, match="two different"):
        g.neighbour_edges(3, edges, ("flip", 1, 1))
    with pytest.raises(ValueError, match="change"):
        g.neighbour_edges(3, edges, ("swap", 1, 2))


# ---------------------------------------------------------------- the triangle mechanism


def test_bounds_are_valid_for_the_mechanism():
    edges = g.preferential_attachment(150, 4, np.random.default_rng(5), triad_p=0.6)
    stats = g.graph_stats(150, edges)
    ls = g.local_sensitivity(stats, "triangles", "edge")
    assert g.triangle_bound(stats, "max_common") == ls <= g.triangle_bound(stats, "max_degree")
    with pytest.raises(ValueError, match="bound"):
        g.triangle_bound(stats, "median")


@SETTINGS
@given(edge_lists(7))
def test_both_bounds_move_by_at_most_one_between_edge_neighbours(graph):
    # Requirement (2) of the mechanism: B has edge-level sensitivity 1, so Lap(1/ε) hides it.
    n, edges = graph
    stats = g.graph_stats(n, edges)
    for u, v in itertools.combinations(range(n), 2):
        other = g.graph_stats(n, g.neighbour_edges(n, edges, ("flip", u, v)))
        for bound in g.BOUNDS:
            assert abs(g.triangle_bound(stats, bound) - g.triangle_bound(other, bound)) <= 1


def test_mechanism_is_seeded_and_vectorised():
    one = g.triangle_mechanism(100, 20, 1.0, 1e-6, np.random.default_rng(1))
    assert one == g.triangle_mechanism(100, 20, 1.0, 1e-6, np.random.default_rng(1))
    d_hat, release = g.triangle_mechanism(100, 20, 1.0, 1e-6, np.random.default_rng(1), size=50)
    assert d_hat.shape == release.shape == (50,)
    for kwargs, name in [({"epsilon": 0}, "epsilon"), ({"delta": 1.0}, "delta"),
                         ({"bound": -1}, "bound"), ({"triangles": np.nan}, "triangles")]:
        args = {"triangles": 10, "bound": 3, "epsilon": 1.0, "delta": 1e-6, **kwargs}
        with pytest.raises(ValueError, match=name):
            g.triangle_mechanism(rng=np.random.default_rng(0), **args)


def test_bound_fails_with_probability_half_delta():
    # δ = 0.2: Pr[d̂ < B] = δ/2 = 0.1 for every ε. 200,000 runs: standard error
    # √(0.1·0.9/200000) ≈ 0.00067, so 0.004 is 6 standard errors.
    for epsilon in (0.3, 2.0):
        assert g.bound_failure_probability(epsilon, 0.2) == pytest.approx(0.1)
        d_hat, _ = g.triangle_mechanism(50, 12, epsilon, 0.2, np.random.default_rng(4), size=200_000)
        assert abs(np.mean(d_hat < 12) - 0.1) < 0.004


@pytest.mark.parametrize(("bound", "epsilon", "delta"), [(20, 1.0, 1e-6), (0, 0.5, 0.3), (3, 2.0, 0.1)])
def test_expected_error_closed_form_matches_simulation(bound, epsilon, delta):
    _, release = g.triangle_mechanism(500, bound, epsilon, delta, np.random.default_rng(9),
                                      size=400_000)
    errors = np.abs(release - 500)
    tolerance = 6 * errors.std() / math.sqrt(len(errors))  # 6 standard errors of the mean
    assert abs(errors.mean() - g.triangle_mechanism_error(bound, epsilon, delta)) < tolerance


def test_expected_error_limits():
    # With a large shift the clip at 0 never matters: E|error| = (B + ln(1/δ)/ε)/ε.
    mu = 40 + math.log(1e6)
    assert g.triangle_mechanism_error(40, 1.0, 1e-6) == pytest.approx(mu, rel=1e-12)
    # Smaller ε costs twice: a larger shift ln(1/δ)/ε and a larger scale d̂/ε.
    assert g.triangle_mechanism_error(40, 0.5, 1e-6) > 2 * g.triangle_mechanism_error(40, 1.0, 1e-6)


def _output_density(y, triangles, bound, epsilon, delta):
    """Density of the release, integrating the Laplace density over d̂ on a fine grid."""
    shift = math.log(1 / delta) / epsilon
    t = np.linspace(max(1e-3, bound + shift - 40 / epsilon), bound + shift + 40 / epsilon, 3001)
    weight = epsilon / 2 * np.exp(-epsilon * np.abs(t - bound - shift)) * (t[1] - t[0])
    scale = t / epsilon
    laplace = np.exp(-np.abs(y[:, None] - triangles) / scale) / (2 * scale)
    return laplace @ weight


def test_privacy_holds_exactly_on_a_worst_case_pair():
    # G → G′ adds a tie with c = 4 common friends (T: 10 → 14) and raises the max degree
    # 4 → 5. The hockey-stick divergence ∫ max(0, p_G − e^{2ε} p_G′) must be ≤ δ (the proof
    # gives δ/2) in both directions. Grid errors are far below 1e-4.
    epsilon, delta = 0.5, 0.05
    y = np.linspace(-400, 420, 8001)
    p = _output_density(y, 10, 4, epsilon, delta)
    q = _output_density(y, 14, 5, epsilon, delta)
    dy = y[1] - y[0]
    for a, b in ((p, q), (q, p)):
        assert np.sum(np.maximum(0, a - math.exp(2 * epsilon) * b)) * dy <= delta / 2 + 1e-4


def test_audit_passes_the_mechanism_and_catches_a_too_small_bound():
    # The worst edge neighbour for triangles of a generated network: its flip changes T by c.
    edges = g.preferential_attachment(200, 3, np.random.default_rng(2014), triad_p=0.5)
    stats = g.graph_stats(200, edges)
    neighbour = g.graph_stats(200, g.worst_neighbour(stats, "triangles", "edge")[0])
    t, t_prime = stats.triangles, neighbour.triangles
    c = abs(t - t_prime)
    assert c == stats.max_common[2] > 1

    def beyond(outputs):  # outputs on G′'s side of both counts
        return (outputs - t) * np.sign(t_prime - t) > c

    epsilon, delta, runs = 0.5, 1e-6, 200_000
    rng = np.random.default_rng(11)
    on_g = g.triangle_releases(rng, runs, t, g.triangle_bound(stats), epsilon, delta)
    on_g_prime = g.triangle_releases(rng, runs, t_prime, g.triangle_bound(neighbour), epsilon, delta)
    assert audit_epsilon(on_g_prime, on_g, beyond) <= 2 * epsilon
    # A wrong mechanism, Lap(1/ε) as if one tie moved T by 1, has ε ≥ c·ε on this pair.
    wrong = [count + rng.laplace(0, 1 / epsilon, runs) for count in (t, t_prime)]
    assert audit_epsilon(wrong[1], wrong[0], beyond) > 2 * epsilon
