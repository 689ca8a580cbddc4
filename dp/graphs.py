"""Differential privacy for graphs: a social-network generator, graph statistics, their
edge- and node-level sensitivities, and a (2ε, δ)-DP triangle count.

A graph on n people 0, …, n−1 is an int array `edges` of shape (m, 2), one row per tie
(u, v) with u ≠ v and no tie listed twice. Everything is numpy/scipy; no networkx.

Neighbouring graphs (the same n people in both):

- **edge level**: G ~ G′ when they differ in exactly one tie (one pair {u, v} is
  flipped: a friendship added or removed). This hides any single relationship.
- **node level**: G ~ G′ when they differ only in the ties of one person v: v's set of
  friends is replaced by any other set S (all, none, or anything between). This hides
  everything about one person's relationships, including whether they have any.
  (Papers often use add/remove-one-node instead; one rewiring is a removal followed by
  an addition, so sensitivities under add/remove are at least half of the ones here.)

Source: Salil Vadhan, CS208 "Beyond noise addition" (graph DP, the sensitivity table, the
(2ε, δ) triangle mechanism); Nissim, Raskhodnikova & Smith 2007 (local sensitivity of
triangle counts); Kasiviswanathan, Nissim, Raskhodnikova & Smith 2013 (node privacy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from dp import _checks as check

QUERIES = ("edges", "max_degree", "triangles")
LEVELS = ("edge", "node")
BOUNDS = ("max_degree", "max_common")


# ---------------------------------------------------------------- the graph


def check_graph(n, edges) -> tuple[int, np.ndarray]:
    """Validate (n, edges): ties between distinct people in 0..n−1, none listed twice.

    Returns n and the edges as an int64 array of shape (m, 2) with u < v in each row.
    """
    n = check.count("n", n, minimum=1)
    try:
        arr = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    except (TypeError, ValueError):
        raise ValueError("edges must be an integer array of shape (m, 2)") from None
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise ValueError(f"edges must join people 0..{n - 1}")
    if np.any(arr[:, 0] == arr[:, 1]):
        raise ValueError("edges must not contain self-loops (u, u)")
    arr = np.sort(arr, axis=1)
    if len(np.unique(arr[:, 0] * n + arr[:, 1])) != len(arr):
        raise ValueError("edges must not list the same tie twice")
    return n, arr


class _Uniforms:
    """U(0, 1) draws handed out one at a time from fixed-size blocks.

    The stream is consumed in the same order whatever n is, so the graph on n people is
    the first n people of the graph on any larger n (same seed): n grows one network.
    """

    def __init__(self, rng: np.random.Generator, block: int = 4096):
        self.rng, self.block = rng, block
        self.values, self.i = rng.random(block), 0

    def __call__(self) -> float:
        if self.i == self.block:
            self.values, self.i = self.rng.random(self.block), 0
        self.i += 1
        return float(self.values[self.i - 1])


def preferential_attachment(n, ties, rng, triad_p=0.0) -> np.ndarray:
    """A random social network: preferential attachment with triad closure.

    Start from `ties` + 1 people who all know each other. Each newcomer then makes
    `ties` friendships: the first with a person chosen with probability proportional to
    their degree ("the rich get richer", Barabási & Albert 1999); each further one, with
    probability `triad_p`, with a random friend of the person last chosen that way
    (closing a triangle, Holme & Kim 2002), otherwise again by degree. Mean degree ≈ 2·ties.

    Returns the edges, shape (m, 2), in the order they were made; the graph on the first
    n′ < n people is exactly the first ties of this one with both ends below n′.
    """
    n = check.count("n", n, minimum=1)
    ties = check.count("ties", ties, minimum=1)
    triad_p = check.unit("triad_p", triad_p)
    uniform = _Uniforms(check.generator(rng))
    start = min(n, ties + 1)
    friends: list[list[int]] = [[] for _ in range(n)]
    ends: list[int] = []  # each person once per tie: a uniform pick is a degree-weighted pick
    edges: list[tuple[int, int]] = []

    def link(u: int, v: int) -> None:
        friends[u].append(v)
        friends[v].append(u)
        ends.extend((u, v))
        edges.append((u, v))

    for v in range(1, start):
        for u in range(v):
            link(u, v)
    for new in range(start, n):
        chosen: list[int] = []
        anchor = None  # the person last chosen by degree
        while len(chosen) < ties:
            if anchor is not None and uniform() < triad_p:
                pool = friends[anchor]
                if any(w not in chosen for w in pool):
                    while (w := pool[int(uniform() * len(pool))]) in chosen:
                        pass
                    chosen.append(w)
                    continue
            while (u := ends[int(uniform() * len(ends))]) in chosen:
                pass
            chosen.append(u)
            anchor = u
        for u in chosen:
            link(u, new)
    return np.array(edges, dtype=np.int64).reshape(-1, 2)


def prefix(edges, n) -> np.ndarray:
    """The ties among the first n people only (the network when it had n people)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    return edges[edges.max(axis=1) < n] if len(edges) else edges


def adjacency(n, edges) -> sparse.csr_array:
    """The symmetric 0/1 adjacency matrix A (sparse, int64): A[u, v] = 1 iff u and v are friends."""
    n, edges = check_graph(n, edges)
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    cols = np.concatenate([edges[:, 1], edges[:, 0]])
    return sparse.csr_array((np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(n, n))


def degrees(n, edges) -> np.ndarray:
    """deg(v), the number of friends of each person."""
    n, edges = check_graph(n, edges)
    return np.bincount(edges.ravel(), minlength=n)


@dataclass(frozen=True)
class GraphStats:
    """Everything the sensitivity table needs, computed once per graph.

    With A the adjacency matrix, (A²)[u, v] = |N(u) ∩ N(v)| counts the common friends of
    u and v. Each tie (u, v) lies in (A²)[u, v] triangles, so the triangle count is
    Σ over ties of (A²)[u, v] / 3 = trace(A³)/6, and the triangles through v are
    t(v) = Σ over v's ties of (A²)[u, v] / 2.
    """

    n: int
    edges: np.ndarray
    degrees: np.ndarray
    edge_common: np.ndarray  # (A²)[u, v] for each tie (u, v): the triangles it is in
    triangles_per_node: np.ndarray
    max_common: tuple[int, int, int]  # (u, v, c): a pair u < v with the most common friends
    adjacency: sparse.csr_array

    @property
    def m(self) -> int:
        return len(self.edges)

    @property
    def max_degree(self) -> int:
        return int(self.degrees.max())

    @property
    def triangles(self) -> int:
        return int(self.edge_common.sum()) // 3

    def value(self, query: str) -> int:
        return {"edges": self.m, "max_degree": self.max_degree, "triangles": self.triangles}[query]


def graph_stats(n, edges) -> GraphStats:
    """Degrees, triangles and common-friend counts from one sparse product A² (no dense n×n)."""
    n, edges = check_graph(n, edges)
    a = adjacency(n, edges)
    a2 = a @ a
    rows = np.repeat(np.arange(n), np.diff(a2.indptr))
    off = np.where(a2.indices != rows, a2.data, 0)  # drop the diagonal (A²)[v, v] = deg v
    if off.size and off.max() > 0:
        i = int(np.argmax(off))
        u, v = sorted((int(rows[i]), int(a2.indices[i])))
        max_common = (u, v, int(off[i]))
    else:
        max_common = (0, 1, 0) if n >= 2 else (0, 0, 0)
    if len(edges):  # row u of A times row v of A, summed: common friends of each tie
        common = np.asarray(a[edges[:, 0]].multiply(a[edges[:, 1]]).sum(axis=1)).ravel()
    else:
        common = np.zeros(0, dtype=np.int64)
    common = common.astype(np.int64)
    per_node = np.bincount(edges.ravel(), weights=np.repeat(common, 2), minlength=n)
    return GraphStats(n, edges, np.bincount(edges.ravel(), minlength=n), common,
                      (per_node // 2).astype(np.int64), max_common, a)


def triangle_count(n, edges) -> int:
    """Number of triangles, trace(A³)/6 (each triangle is 6 closed walks of length 3)."""
    return graph_stats(n, edges).triangles


def query_value(n, edges, query) -> int:
    """One of QUERIES on the graph: number of edges, max degree or number of triangles."""
    _query(query)
    return graph_stats(n, edges).value(query)


def _query(query) -> str:
    if query not in QUERIES:
        raise ValueError(f"query must be one of {QUERIES}, got {query!r}")
    return query


def _level(level) -> str:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    return level


# ---------------------------------------------------------------- sensitivities


def global_sensitivity(query, level, n) -> int:
    """GS_q = max over all neighbouring graphs on n people of |q(G) − q(G′)|.

    edge level: edges 1, max degree 1, triangles n − 2 (the flipped pair can share all
    n − 2 other people as friends). node level: edges n − 1, max degree n − 1 (the centre of
    a star drops all its ties), triangles C(n−1, 2) (one person leaves a complete graph).
    """
    _query(query)
    _level(level)
    n = check.count("n", n, minimum=1)
    if level == "edge":
        return {"edges": 1, "max_degree": 1, "triangles": n - 2}[query] if n >= 2 else 0
    return {"edges": n - 1, "max_degree": n - 1, "triangles": math.comb(n - 1, 2)}[query]


def _second_best_degree(stats: GraphStats) -> np.ndarray:
    """m_v = max over u ≠ v of deg(u) − A[u, v]: the max degree after v drops all its ties.

    Only the d + 2 people of highest degree can attain it: at most d + 1 of them are v or
    v's friends, so one of them is a non-friend whose degree beats any friend's deg − 1.
    """
    n, deg = stats.n, stats.degrees
    if n == 1:
        return np.zeros(1, dtype=np.int64)
    top = np.argsort(-deg, kind="stable")[: min(n, stats.max_degree + 2)]
    scores = deg[top][:, None] - stats.adjacency[top].toarray()  # row i: candidate u = top[i], column v
    scores[np.arange(len(top)), top] = np.iinfo(np.int64).min  # u ≠ v
    return scores.max(axis=0)


def local_sensitivity(stats: GraphStats, query, level) -> int:
    """LS_q(G) = max over neighbours G′ of G of |q(G) − q(G′)|, in closed form.

    edge level (flip one pair {u, v}):
      edges 1; triangles max_{u≠v} |N(u) ∩ N(v)|; max degree 1, except 0 when every
      person of top degree d already knows everyone (d = n − 1) and there are ≥ 3 of them.
    node level (replace v's friends by any set S):
      edges max_v max(deg v, n−1−deg v); max degree max(n−1−d, max_v (d − m_v)) with
      m_v from _second_best_degree; triangles max_v max(t(v), m − deg v − t(v)) (S = ∅
      removes the t(v) triangles through v, S = everyone adds one per tie not at v).
    """
    _query(query)
    _level(level)
    return _worst(stats, query, level)[0]


def _worst(stats: GraphStats, query: str, level: str):
    """(LS, witness): the local sensitivity and a neighbour attaining it.

    The witness is ("flip", u, v) at edge level or ("rewire", v, S) at node level.
    """
    n, deg, d = stats.n, stats.degrees, stats.max_degree
    if n == 1:
        return 0, ("rewire", 0, ())
    others = lambda v: tuple(u for u in range(n) if u != v)  # noqa: E731
    if level == "edge":
        if query == "edges":
            u, v = (tuple(stats.edges[0]) if stats.m else (0, 1))
            return 1, ("flip", int(u), int(v))
        if query == "triangles":
            u, v, c = stats.max_common
            return c, ("flip", u, v)
        top = np.flatnonzero(deg == d)
        lonely = top[deg[top] < n - 1]
        if len(lonely):  # a top person with a non-friend: befriend them, d → d + 1
            u = int(lonely[0])
            friends = set(stats.adjacency[[u]].indices.tolist())
            v = next(w for w in range(n) if w != u and w not in friends)
            return 1, ("flip", min(u, v), max(u, v))
        if len(top) <= 2:  # d = n − 1: cut a tie covering every top person, d → d − 1
            u = int(top[0])
            v = int(top[1]) if len(top) == 2 else (1 if u == 0 else 0)
            return 1, ("flip", min(u, v), max(u, v))
        return 0, ("flip", 0, 1)  # ≥ 3 people know everyone: no single flip moves the max
    if query == "edges":
        v = int(np.argmax(np.maximum(deg, n - 1 - deg)))
        return int(max(deg[v], n - 1 - deg[v])), ("rewire", v, () if deg[v] >= n - 1 - deg[v] else others(v))
    if query == "triangles":
        t = stats.triangles_per_node
        gain = stats.m - deg - t  # triangles made by befriending everyone, after dropping v's ties
        v = int(np.argmax(np.maximum(t, gain)))
        return int(max(t[v], gain[v])), ("rewire", v, () if t[v] >= gain[v] else others(v))
    drop = d - _second_best_degree(stats)
    v = int(np.argmax(drop))
    if n - 1 - d >= drop[v]:  # someone of lowest degree befriends everyone: max → n − 1
        v = int(np.argmin(deg))
        return int(n - 1 - d), ("rewire", v, others(v))
    return int(drop[v]), ("rewire", v, ())


def worst_neighbour(stats: GraphStats, query, level) -> tuple[np.ndarray, tuple]:
    """A neighbour G′ with |q(G) − q(G′)| = LS_q(G): its edges, and what changed.

    The change is ("flip", u, v) or ("rewire", v, S), as in `neighbour_edges`.
    """
    _query(query)
    _level(level)
    if level == "edge" and stats.n == 1:
        raise ValueError("n must be ≥ 2 for an edge neighbour: one person has no pairs to flip")
    _, change = _worst(stats, query, level)
    return neighbour_edges(stats.n, stats.edges, change), change


def neighbour_edges(n, edges, change) -> np.ndarray:
    """Apply one neighbouring change to a graph.

    ("flip", u, v): add the tie {u, v} if it is missing, remove it if present (edge level).
    ("rewire", v, S): v's friends become exactly the people in S (node level).
    """
    n, edges = check_graph(n, edges)
    kind, v, rest = change
    if kind == "flip":
        pair = np.sort([v, rest])
        if pair[0] == pair[1]:
            raise ValueError("a flipped pair needs two different people")
        hit = (edges[:, 0] == pair[0]) & (edges[:, 1] == pair[1])
        return edges[~hit] if hit.any() else np.vstack([edges, pair[None, :]])
    if kind == "rewire":
        kept = edges[(edges[:, 0] != v) & (edges[:, 1] != v)]
        new = np.array([(min(u, v), max(u, v)) for u in rest if u != v], dtype=np.int64)
        return np.vstack([kept, new.reshape(-1, 2)])
    raise ValueError(f"change must be ('flip', u, v) or ('rewire', v, S), got {change!r}")


def sensitivity_table(stats: GraphStats) -> dict[str, dict[str, int]]:
    """The CS208 table for this graph: for each query, its value and LS/GS at edge and node level."""
    return {
        query: {
            "value": stats.value(query),
            "ls_edge": local_sensitivity(stats, query, "edge"),
            "gs_edge": global_sensitivity(query, "edge", stats.n),
            "ls_node": local_sensitivity(stats, query, "node"),
            "gs_node": global_sensitivity(query, "node", stats.n),
        }
        for query in QUERIES
    }


# ---------------------------------------------------------------- the triangle mechanism


def triangle_bound(stats: GraphStats, bound="max_degree") -> int:
    """A bound B(G) on the edge-level local sensitivity of the triangle count.

    Both choices satisfy what the mechanism needs: (1) B(G) ≥ |T(G) − T(G′)| for every
    edge neighbour G′ (flipping {u, v} changes T by |N(u) ∩ N(v)| ≤ deg u ≤ d), and (2)
    flipping one tie changes B by at most 1.
    - "max_degree": B = d, the max degree (CS208's version);
    - "max_common": B = max_{u≠v} |N(u) ∩ N(v)| = LS_edge(G) itself, never larger than d.
    """
    if bound not in BOUNDS:
        raise ValueError(f"bound must be one of {BOUNDS}, got {bound!r}")
    return stats.max_degree if bound == "max_degree" else stats.max_common[2]


def triangle_mechanism(triangles, bound, epsilon, delta, rng, size=None):
    """The (2ε, δ)-DP triangle count under edge privacy (CS208, "Beyond noise addition"):

        1. d̂ = B(G) + Lap(1/ε) + ln(1/δ)/ε        (a noisy, shifted-up bound: ε-DP)
        2. release T(G) + Lap(d̂/ε)                   (ε-DP whenever d̂ ≥ B(G))

    `bound` is B(G) from `triangle_bound`. d̂ < B(G) happens with probability δ/2 (the
    shift is ln(1/δ) Laplace scales); only then can step 2 be too quiet. If d̂ ≤ 0 the
    scale is 0 (post-processing of step 1; it only happens in that δ/2 event or when B = 0).
    Returns (d̂, release), each a float or, with `size`, an array of independent runs.
    """
    triangles = check.non_negative("triangles", triangles)
    bound = check.non_negative("bound", bound)
    epsilon = check.positive("epsilon", epsilon)
    delta = check.open_unit("delta", delta)
    rng = check.generator(rng)
    shift = math.log(1 / delta) / epsilon
    d_hat = bound + shift + rng.laplace(0.0, 1 / epsilon, size=size)
    release = triangles + rng.laplace(0.0, 1.0, size=size) * np.maximum(d_hat, 0.0) / epsilon
    return (float(d_hat), float(release)) if size is None else (d_hat, release)


def triangle_releases(rng, size, triangles, bound, epsilon, delta) -> np.ndarray:
    """Just the released counts of `size` runs (a sampler for the audit: f(rng, n))."""
    return triangle_mechanism(triangles, bound, epsilon, delta, rng, size=size)[1]


def triangle_mechanism_error(bound, epsilon, delta) -> float:
    """E|release − T(G)| = E[max(d̂, 0)]/ε = (μ + e^{−εμ}/(2ε))/ε, with μ = B + ln(1/δ)/ε.

    Given d̂ the error is Lap(max(d̂, 0)/ε), whose mean absolute value is max(d̂, 0)/ε; and
    for X = μ + Lap(1/ε), E[max(X, 0)] = μ + E[max(−X, 0)] = μ + e^{−εμ}/(2ε).
    """
    bound = check.non_negative("bound", bound)
    epsilon = check.positive("epsilon", epsilon)
    delta = check.open_unit("delta", delta)
    mu = bound + math.log(1 / delta) / epsilon
    return (mu + math.exp(-epsilon * mu) / (2 * epsilon)) / epsilon


def bound_failure_probability(epsilon, delta) -> float:
    """Pr[d̂ < B(G)] = Pr[Lap(1/ε) < −ln(1/δ)/ε] = ½·e^{−ln(1/δ)} = δ/2 (whatever ε is)."""
    epsilon = check.positive("epsilon", epsilon)
    delta = check.open_unit("delta", delta)
    return 0.5 * math.exp(-epsilon * (math.log(1 / delta) / epsilon))
