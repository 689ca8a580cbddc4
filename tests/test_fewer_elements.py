"""A main slider reruns only the demos that read it, not the page (issue 16, item 2).

A page-level slider used to rerun the whole page on every move: ~150 elements sent, the
quizzes, prose and headings among them unchanged. Now the slider's callback reruns the demos
that read its value (keyed fragments, st.rerun(scope=[…])), and they show exactly what a
fresh page at the new value shows.
"""

from __future__ import annotations

import math
from urllib.parse import parse_qs, urlsplit

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.load import Session
from tests.conftest import app_test, assert_clean, chart_specs, lesson, run_coroutine, serve_app
from tests.links import LABEL, links, open_folds, open_links

LN3 = math.log(3)


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.mark.parametrize("value", [3.0, 0.01, LN3])
def test_randomized_response_epsilon_reruns_its_demos_and_not_the_page(value):
    page = lesson("randomized-response")
    at = app_test(page, {"rr_eps": "0.5"})
    at.select_slider(key="rr_eps").set_value(value).run()
    assert_clean(at)
    # The page itself did not run: no title, heading, quiz or lesson prose was sent again.
    assert not at.title and not at.header
    assert at.session_state["rr_eps"] == pytest.approx(value)
    # Nor did the demos around the parts that read ε: their sliders, buttons and link
    # popovers (issue 28), but for Tammy's, every part of which reads ε. AppTest's tree is
    # what this run sent.
    assert [w.key for w in [*at.select_slider, *at.slider, *at.button]] == ["rr_prior"]
    assert len(_link_popovers(at)) == 1
    # Every demo that reads ε ran, and shows what a fresh page at that ε shows.
    fresh = app_test(page, {"rr_eps": "ln 3" if value == LN3 else f"{value:g}"})
    moved, expected = _metrics(at), _metrics(fresh)
    for label in ("Reported Yes share", "Debiased π̂", "After a Yes", "After a No", "Promised ε"):
        assert moved[label] == expected[label], label
    fresh_specs = chart_specs(fresh)
    specs = chart_specs(at)
    assert len(specs) >= 6  # keep probability, odds, survey ×2, local vs central, Tammy
    for spec in specs:
        assert spec in fresh_specs, spec["layout"]["title"]["text"]
    texts = " ".join(m.value for m in at.markdown)
    assert texts and all(m.value in " ".join(x.value for x in fresh.markdown) for m in at.markdown)


def test_an_epsilon_move_takes_away_the_note_on_a_bad_link_value():
    """The note under the ε slider stays until the student moves it; the slider's demo is not
    among what an ε move reruns, except while the note shows."""
    at = app_test(lesson("randomized-response"), {"rr_eps": "abc"})
    assert [c for c in at.caption if "rr_eps" in c.value and "not a valid" in c.value]
    at.select_slider(key="rr_eps").set_value(3.0).run()
    assert_clean(at)
    assert at.select_slider(key="rr_eps").value == 3.0  # its demo reran...
    assert not [c for c in at.caption if "rr_eps" in c.value]  # ...without the note
    at.run()
    at.select_slider(key="rr_eps").set_value(0.5).run()  # no note now: only the parts
    assert not at.select_slider and "Promised ε" in _metrics(at)


def test_a_demo_slider_still_reruns_only_its_demo():
    page = lesson("randomized-response")
    at = app_test(page, {"rr_eps": "3"})
    before = _metrics(at)
    at.slider(key="rr_prior").set_value(0.5).run()
    assert_clean(at)
    after = _metrics(at)
    assert after["After a Yes"] != before["After a Yes"]
    assert after["Debiased π̂"] == before["Debiased π̂"]  # ε stayed 3 for the survey too


@pytest.mark.parametrize(("key", "kind", "value"), [("graphs_n", "select_slider", 500),
                                                    ("graphs_ties", "slider", 5),
                                                    ("graphs_triad", "select_slider", 0.2)])
def test_graphs_network_settings_rerun_the_demos_that_read_them(key, kind, value):
    page = lesson("graphs")
    at = app_test(page, {"graphs_n": "100"})
    getattr(at, kind)(key=key).set_value(value).run()
    assert_clean(at)
    assert not at.title and not at.header  # the page did not run
    link = {"graphs_n": "100", key: f"{value:g}"}
    fresh = app_test(page, link)
    moved, expected = _metrics(at), _metrics(fresh)
    assert moved and all(moved[label] == expected[label] for label in moved)
    assert "Ties, m" in moved and "Certified ε̂ (lower bound)" in moved
    fresh_specs = chart_specs(fresh)
    for spec in chart_specs(at):
        assert spec in fresh_specs, spec["layout"]["title"]["text"]
    assert at.table and at.table[0].value.equals(fresh.table[0].value)


def test_growing_a_new_graphs_network_reruns_the_whole_page():
    page = lesson("graphs")
    at = app_test(page)
    before = _metrics(at)["Triangles, T"]
    at.button(key="graphs_net_resample").click().run()
    assert_clean(at)
    assert _metrics(at)["Triangles, T"] != before
    assert at.title  # a new network: every part of the page shows it


@pytest.mark.parametrize(("key", "value"), [("ml_n", 200), ("ml_d", 5), ("ml_l2", 1.0)])
def test_machine_learning_data_settings_rerun_the_demos_that_read_them(key, value):
    page = lesson("machine-learning")
    at = app_test(page)
    at.select_slider(key=key).set_value(value).run()
    assert_clean(at)
    assert not at.title and not at.header  # the page did not run
    fresh = app_test(page, {key: f"{value:g}"})
    moved, expected = _metrics(at), _metrics(fresh)
    assert "Train accuracy" in moved and len(moved) > 4
    assert all(moved[label] == expected[label] for label in moved)
    fresh_specs = chart_specs(fresh)
    for spec in chart_specs(at):
        assert spec in fresh_specs, spec["layout"]["title"]["text"]


# ── Lazy link popovers (ui.share.copy_link) ───────────────────────────────────────────────────


def _link_popovers(at) -> list:
    return [block for block in at.get("popover") if block.proto.popover.label == LABEL]


def test_a_closed_link_popover_holds_nothing_and_an_opened_one_the_whole_link():
    page = lesson("randomized-response")
    at = app_test(page, {"rr_eps": "0.5"})
    popovers = _link_popovers(at)
    assert len(popovers) >= 6  # one per demo
    assert all(not block.children for block in popovers)
    at.select_slider(key="rr_eps").set_value(3.0).run()  # a move reruns what reads ε...
    assert_clean(at)
    assert len(_link_popovers(at)) == 1  # ...not the links (Tammy's demo reruns whole)
    assert all(not block.children for block in _link_popovers(at))
    assert not [code for code in at.get("code") if "seed=" in code.value]
    # The browser's address bar now carries ε = 3 (the slider is bound to it), and the
    # browser keeps the popovers, which AppTest's tree of the last run does not hold.
    at.query_params["rr_eps"] = "3"
    at.run()
    assert all(not block.children for block in _link_popovers(at))

    shown = links(at)  # opened, as a click does
    assert len(shown) == len(_link_popovers(at)) >= 6
    assert len({link.split("#")[0] for link in shown}) == 1  # the same view, each at its own demo
    carried = parse_qs(urlsplit(shown[0]).query)
    assert carried["rr_eps"] == ["3"] and carried["seed"] == ["2014"]
    assert "present" not in carried and "step" not in carried
    buttons = [h.value for h in at.get("html") if "data-dplab-link" in h.value]
    assert len(buttons) == len(shown)  # the visible copy button, for touch screens
    assert all("📋 Copy the link" in button for button in buttons)


def test_an_open_link_popover_follows_the_sliders_and_closes_empty():
    page = lesson("laplace")
    at = open_links(app_test(page))
    assert len(links(at)) >= 8  # every demo's popover is open
    at.select_slider(key="lap_eps").set_value(2.0).run()
    assert_clean(at)
    assert all(parse_qs(urlsplit(link).query)["lap_eps"] == ["2"] for link in links(at))
    for block in _link_popovers(at):
        at.session_state[block.proto.popover.id.split("-", 2)[2]] = False
    at.run()
    assert all(not block.children for block in _link_popovers(at))


class _Watching(Session):
    """A bench session that also notes the kind of each element a run sends, and links."""

    kinds: list[str]

    def _take_delta(self, forward: ForwardMsg) -> None:
        delta = forward.delta
        kind = delta.WhichOneof("type")
        element = delta.new_element
        if kind == "new_element" and element.WhichOneof("type") == "code":
            kind = "link" if "seed=" in element.code.code_text else "code"
        elif kind == "new_element" and element.WhichOneof("type") == "html":
            kind = "copy button" if "data-dplab-link" in element.html.body else "html"
        self.kinds.append(kind)
        super()._take_delta(forward)


def test_a_randomized_response_move_sends_no_link_and_fewer_elements():
    """On a live server: an ε move sends the parts of the demos that read ε, not their closed
    link popovers' contents, nor the popovers, sliders, buttons and columns around those parts.

    Before the popovers were lazy, a move sent 125 elements, 18 of them the six links, copy
    buttons and captions; then 91, 43 of them layout blocks (issue 16). Since only the parts
    that read ε rerun (fragments inside each demo's fragment), 60, 27 of them blocks (issue 28).
    """

    async def moves() -> list[tuple[int, list[str]]]:
        with serve_app() as url:
            session = _Watching(int(url.rsplit(":", 1)[1]), "randomized-response")
            session.kinds = []
            await session.open()
            sent = []
            for _ in range(3):
                session.kinds = []
                await session.move()
                sent.append((session.elements, session.kinds))
            await session.close()
            return sent

    for elements, kinds in run_coroutine(moves()):
        assert kinds.count("add_block") > 10  # the demos' parts did rerun
        assert "link" not in kinds and "copy button" not in kinds, kinds
        assert elements <= 64, elements
        assert kinds.count("add_block") <= 30, kinds.count("add_block")


def _coin_faces(at) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith(("**First coin**", "**Second coin",
                                                                 "**Reported answer**"))]


@pytest.mark.parametrize("value", [0.01, 10.0])
def test_once_the_coins_are_flipped_an_epsilon_move_redraws_them(value):
    """The first coin lands heads with a probability set by ε: once it is flipped, an ε move
    reruns the whole coin demo (at step 0 only its two sentences that read ε), and the coins
    show what flipping them at the new ε shows."""
    page = lesson("randomized-response")
    at = app_test(page)
    at.button(key="rr_coin_first").click().run()
    assert_clean(at)
    at.select_slider(key="rr_eps").set_value(value).run()
    assert_clean(at)
    fresh = app_test(page, {"rr_eps": f"{value:g}"})
    fresh.button(key="rr_coin_first").click().run()
    assert _coin_faces(at) == _coin_faces(fresh) and len(_coin_faces(at)) == 3
    # At ε = 0.01 the first coin is tails, at ε = 10 heads (h ≈ 0.005 and ≈ 1 for this draw).
    assert ("Tails" if value < 1 else "Heads") in _coin_faces(at)[0]
    at.run()  # back to a page of every element (AppTest keeps what the last run sent)
    assert at.button(key="rr_coin_second").disabled == (value > 1)  # heads: no second coin


def test_an_open_randomized_response_link_follows_epsilon():
    """A demo whose link popover is open reruns whole on an ε move, so its link carries the
    new ε; the other demos rerun only what reads ε."""
    page = lesson("randomized-response")
    at = app_test(page)
    at.session_state["survey_demo_share"] = True
    at.run()
    at.select_slider(key="rr_eps").set_value(3.0).run()
    assert_clean(at)
    shown = [code.value for code in at.get("code") if "seed=" in code.value]
    assert len(shown) == 1 and shown[0].endswith("#survey_demo"), shown
    assert parse_qs(urlsplit(shown[0]).query)["rr_eps"] == ["3"]
    assert {w.key for w in at.select_slider} >= {"rr_n"}  # the survey demo reran whole


# ── Static content built once per process ─────────────────────────────────────────────────────


def test_the_deployments_table_goes_out_as_arrow_built_once():
    """st.dataframe converts a dict through pandas on every send (~6 ms of a laplace move
    under load); the real-deployments table never changes, so it is built as Arrow once."""
    import pyarrow as pa

    from ui import deployments

    arrow = deployments._arrow_table()
    assert isinstance(arrow, pa.Table) and deployments._arrow_table() is arrow
    expected = deployments.table(deployments.deployments())
    assert arrow.column_names == list(expected)
    assert arrow.to_pydict() == expected
    at = app_test(lesson("laplace"))
    assert not [frame for frame in at.dataframe if "Organisation" in frame.value.columns]
    at.session_state["lap_deployments_fold"] = True  # built only when a reader opens it
    at.run()
    shown = next(frame.value for frame in at.dataframe if "Organisation" in frame.value.columns)
    assert list(shown.columns) == list(expected)
    assert shown.to_dict("list") == expected


def test_a_closed_opendp_fold_sends_no_snippet_and_an_open_one_shows_the_live_one():
    """"Show this in OpenDP" is built only while open (ui.show.fold); opened, it holds the
    snippet for the page's current settings."""
    at = app_test(lesson("laplace"), {"lap_eps": "2"})
    assert [e for e in at.expander if "Show this in OpenDP" in e.label]
    assert not [c for c in at.get("code") if "opendp.prelude" in c.value]
    open_folds(at)
    snippets = [c.value for c in at.get("code") if "opendp.prelude" in c.value]
    assert len(snippets) == len([e for e in at.expander if "Show this in OpenDP" in e.label])
    assert any("ε = 2 " in code for code in snippets), snippets[0][:400]
