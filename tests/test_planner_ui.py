"""The inverse control on the pages: every reachable request either gets an ε whose forward
error meets it, with its sentence filled in, or a reason why no ε can."""

from __future__ import annotations

import itertools
import math
import re

import pytest
from streamlit.testing.v1 import AppTest

from dp.noise import gaussian_delta
from dp.planning import gaussian_error, laplace_error, rr_error
from ui import lessons
from ui.params import DELTAS
from ui.planner import CONFIDENCES, ERRORS_PP, PEOPLE, _solve, needed_text

PLACEHOLDER = re.compile(r"\{\{")


def _grid(kind):
    deltas = DELTAS if kind == "gaussian" else [None]
    return itertools.product(ERRORS_PP, CONFIDENCES, PEOPLE, deltas)


@pytest.mark.parametrize("kind", ["laplace", "gaussian", "rr"])
def test_every_request_is_met_or_refused_with_a_reason(kind):
    for pp, confidence, n, delta in _grid(kind):
        if confidence == 1.0:
            with pytest.raises(ValueError, match="below 100%"):
                _solve(kind, pp, confidence, n, delta)
            continue
        epsilon, section, values = _solve(kind, pp, confidence, n, delta)
        text = lessons.section_text("planner", section, eps=str(epsilon), **values)
        assert not PLACEHOLDER.search(text), (kind, section)
        count, share = pp / 100 * n, pp / 100
        if kind == "laplace":
            assert laplace_error(epsilon, confidence) == pytest.approx(count, rel=1e-9)
        elif kind == "rr":
            assert rr_error(epsilon, confidence, n) == pytest.approx(share, rel=1e-9)
            central = float(values["central"].replace(",", ""))
            assert ("less:" in values["comparison"]) == (central < epsilon * (1 + 1e-3))
        elif epsilon > 0:
            sigma = gaussian_error(1.0, confidence)  # z
            assert gaussian_delta(count / sigma, epsilon) == pytest.approx(delta, rel=1e-5)
        else:
            assert section == "gaussian-zero"


@pytest.mark.parametrize("kind", ["laplace", "gaussian", "rr"])
def test_planner_renders_and_refuses_full_confidence_kindly(kind):
    def script():
        import streamlit as st

        from ui.planner import accuracy_planner

        accuracy_planner(st.session_state["kind"], slug="laplace", key="t")

    at = AppTest.from_function(script)
    at.session_state["kind"] = kind
    at.run()
    assert not at.exception
    assert at.metric[0].label == "ε needed"
    assert len(at.expander) == 1  # the odds panel for the ε found
    at.select_slider(key="t_conf").set_value(1.0).run()
    assert not at.exception
    assert "No ε can promise this" in at.warning[0].value
    assert not at.metric


@pytest.mark.parametrize("n,pp", [(10, 2.0), (30, 10.0), (1000, 2.0), (1000, 30.0)])
def test_poll_planner(n, pp):
    def script():
        import math

        import streamlit as st

        from ui.planner import poll_planner

        offered = {"ε = 0.5": 0.5, "fair coins": math.log(3), "ε = 5": 5.0}
        st.session_state["needed"] = poll_planner(st.session_state["n"], offered, key="p")

    at = AppTest.from_function(script)
    at.session_state["n"] = n
    at.query_params["p_err"] = f"{pp:g}"
    at.run()
    assert not at.exception
    needed = at.session_state["needed"]
    if pp / 100 <= 1 / (2 * n):
        assert needed is None and at.warning
    else:
        assert math.isfinite(needed) and needed > 0
        text = " ".join(block.value for block in at.markdown)
        assert "smallest ε the poll offers" in text or "None of the poll's ε values" in text


@pytest.mark.parametrize("eps", [1e-5, 0.0029957, 0.29957, 1.0, 3.69912, 12.0001, 999.91, 19_234.2])
def test_needed_epsilon_is_rounded_up(eps):
    shown = float(needed_text(eps).replace(",", ""))
    assert eps <= shown <= eps * (1 + 1e-3)
