"""Every 'Show this in OpenDP' snippet runs against opendp and its privacy map reports what
the page claims. A snippet that drifts from the library's API fails here."""

from __future__ import annotations

import contextlib
import io
import math
import warnings

import pytest

from dp import gaussian_sigma
from ui import opendp_snippets as snippets

opendp = pytest.importorskip("opendp")
import opendp.prelude as odp  # noqa: E402  (after the skip)

LN3 = math.log(3)


def run(snippet: snippets.Snippet) -> tuple[dict, str]:
    """Execute the snippet's text as a student would, warnings as errors."""
    namespace: dict = {"__name__": "__snippet__"}
    out = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        with contextlib.redirect_stdout(out):
            exec(compile(snippet.code, "<snippet>", "exec"), namespace)  # noqa: S102 - our own text
    return namespace, out.getvalue()


def check(snippet: snippets.Snippet) -> None:
    assert f"opendp=={snippets.OPENDP_VERSION}" in snippet.code
    assert snippet.differs and len(snippet.differs) < 300
    ns, printed = run(snippet)
    meas, d_in = ns["meas"], ns["d_in"]
    assert isinstance(meas, odp.Measurement)
    claim = snippet.claim
    reported = meas.map(d_in)
    if claim["measure"] == "epsilon":
        assert reported == pytest.approx(claim["epsilon"], rel=claim.get("slack", 1e-9))
        assert reported >= claim["epsilon"] * (1 - 1e-12)  # never below: OpenDP rounds up
    elif claim["measure"] == "epsilon_at_most":
        assert claim["epsilon"] * 0.99 <= reported <= claim["epsilon"] * (1 + 1e-12)
    elif claim["measure"] == "zcdp":
        assert reported == pytest.approx(claim["rho"], rel=1e-6)
        epsilon, delta = ns["approx"].map(d_in)
        assert delta == claim["delta"]
        assert epsilon >= claim["epsilon"] * (1 - 1e-9)  # an upper bound on the exact ε
    else:
        raise AssertionError(claim)
    assert "privacy map" in printed or "rho" in printed


@pytest.mark.parametrize("epsilon", [0.01, 1.0, 10.0])
@pytest.mark.parametrize("relation", snippets.RELATIONS)
def test_count(epsilon, relation):
    check(snippets.count(epsilon, relation, n=50))


@pytest.mark.parametrize("epsilon,k", [(0.1, 1), (1.0, 10), (5.0, 3)])
@pytest.mark.parametrize("relation", snippets.RELATIONS)
def test_k_counts(epsilon, k, relation):
    check(snippets.k_counts(epsilon, k, relation, n=50))


@pytest.mark.parametrize("epsilon,buckets", [(0.1, 10), (1.0, 2), (10.0, 100)])
@pytest.mark.parametrize("relation", snippets.RELATIONS)
def test_histogram(epsilon, buckets, relation):
    check(snippets.histogram(epsilon, buckets, relation, n=200))


@pytest.mark.parametrize("epsilon,lower,upper,n", [(1.0, 0, 200, 500), (0.01, 5, 10_000, 100),
                                                   (10.0, 20, 50, 10_000)])
def test_mean(epsilon, lower, upper, n):
    check(snippets.mean(epsilon, lower, upper, n))


@pytest.mark.parametrize("epsilon,delta,sensitivity", [(1.0, 1e-5, 1.0), (0.1, 1e-12, 0.1),
                                                       (10.0, 0.1, 10.0), (1.0, 1e-5, 2.0)])
def test_gaussian_sum(epsilon, delta, sensitivity):
    sigma = gaussian_sigma(sensitivity, epsilon, delta)
    check(snippets.gaussian_sum(epsilon, delta, sensitivity, sigma, n=100))


@pytest.mark.parametrize("epsilon,n", [(0.01, 10), (LN3, 1000), (10.0, 10**8)])
def test_randomized_response(epsilon, n):
    snippet = snippets.randomized_response(epsilon, n)
    check(snippet)
    if n > snippets.MAX_LOOP_PEOPLE:
        assert "would take a while" in snippet.code


@pytest.mark.parametrize("epsilon,sensitivity", [(0.01, 1.0), (1.0, 0.5), (10.0, 10.0)])
def test_exponential_choice(epsilon, sensitivity):
    names = ["Flu", "Hypertension", 'Quote "and" \\ backslash', "Diabetes"]
    snippet = snippets.exponential_choice(names, [30, 25.5, 3, 0], epsilon, sensitivity)
    ns, printed = run(snippet)
    assert ns["names"] == names  # typed names survive as literals
    check(snippet)


@pytest.mark.parametrize("epsilon,lower,upper,n,discrete", [
    (0.5, 0.0, 1.0, 100, False), (0.01, -1.0, 2.0, 20, False), (10.0, 0.3, 0.6, 1000, False),
    (1.0, 1, 16, 200, True), (1.0, 0.0, 100.0, 1001, False),
])
def test_median(epsilon, lower, upper, n, discrete):
    check(snippets.median(epsilon, lower, upper, n, discrete))


@pytest.mark.parametrize("query", ["count", "k counts", "histogram", "bounded mean"])
@pytest.mark.parametrize("relation", snippets.RELATIONS)
def test_laplace_page_queries(query, relation):
    check(snippets.laplace_query(query, 0.5, relation, k=5, lower=0, upper=100, n=100))


def test_no_constructor_says_so_and_runs():
    snippet = snippets.no_constructor("A private triangle count", "none")
    assert "has no constructor" in snippet.code
    run(snippet)


def test_version_matches_the_installed_opendp():
    from importlib.metadata import version

    assert version("opendp") == snippets.OPENDP_VERSION


def test_snippet_module_needs_neither_streamlit_nor_opendp():
    import ast
    from pathlib import Path

    tree = ast.parse(Path(snippets.__file__).read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import | ast.ImportFrom)
                for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])}
    assert not imported & {"streamlit", "opendp"}


@pytest.mark.parametrize("epsilon,buckets,relation", [(0.1, 20, "replace-one"), (10.0, 20, "add/remove"),
                                                      (1.0, 5, "replace-one")])
def test_histogram_post_processing(epsilon, buckets, relation):
    """The Laplace page's post-processing demo: clamping the one release costs no ε."""
    snippet = snippets.histogram(epsilon, buckets, relation, n=200, clamp=True)
    check(snippet)
    ns, printed = run(snippet)
    assert ns["clamped"] == [max(0, c) for c in ns["release"]]  # the printed release, clamped
    assert printed.count("one release:") == 1


@pytest.mark.parametrize("epsilon,k,gap", [(0.01, 2, 1), (0.5, 100, 5), (10.0, 10_000, 50)])
def test_most_common(epsilon, k, gap):
    snippet = snippets.most_common(epsilon, k, gap)
    check(snippet)
    ns, _ = run(snippet)
    assert len(ns["counts"]) == k and ns["counts"][0] - ns["counts"][1] == gap


@pytest.mark.parametrize("epsilon,menu,cap,bids,n", [
    (1.0, "bids", 5, [1, 1, 1, 3.01], 4), (0.01, "grid", 100, None, 5000), (10.0, "grid", 1, [0, 2.5], 2),
    (0.5, "bids", 5, None, 10),
])
def test_price_choice(epsilon, menu, cap, bids, n):
    snippet = snippets.price_choice(epsilon, menu, cap, bids=bids, n=n)
    check(snippet)
    ns, _ = run(snippet)
    assert ns["sensitivity"] == max(ns["prices"])
    if menu == "grid":
        from dp import auction

        assert list(ns["prices"]) == pytest.approx(list(auction.price_grid(cap)))  # the page's menu
    else:
        assert "no map sees" in snippet.differs


@pytest.mark.parametrize("epsilon,times", [(0.2, 769), (0.5, 10), (5.0, 1)])
def test_repeated_count(epsilon, times):
    """Budget page: the averaging attack's m answers and the audit's k, composed to m·ε."""
    snippet = snippets.repeated_count(epsilon, times, 4)
    assert snippet.claim["epsilon"] == pytest.approx(epsilon * times)
    check(snippet)


@pytest.mark.parametrize("key", ["heart_attack", "mean_age", "mean_bp", "regions", "age_groups"])
@pytest.mark.parametrize("epsilon", [0.01, 1.0])
def test_budget_game_questions(key, epsilon):
    from dp.budget import GAME_N, QUESTIONS

    q = QUESTIONS[key]
    snippet = snippets.game_question(q.kind, epsilon, GAME_N, what=q.short, bounds=q.bounds,
                                     categories=q.categories)
    check(snippet)
    if q.categories:
        assert run(snippet)[0]["labels"] == list(q.categories)


def test_game_question_refuses_an_unknown_kind():
    with pytest.raises(ValueError):
        snippets.game_question("median", 1.0, 100)
