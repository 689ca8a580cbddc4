"""The inverse control: "I need ±A percentage points, with confidence c, for n people" → ε.

`accuracy_planner(kind, slug=…, key=…)` on the Laplace ("laplace"), Gaussian ("gaussian")
and randomized-response ("rr") pages; `poll_planner(n, offered, key=…)` for the class poll.
The numbers come from dp.planning; the words from lessons/planner.md; the odds panel
(ui.odds) then says what the ε means. A request no ε can meet (100% confidence, or an
interval finer than half an answer) gets the reason from dp.planning, never a traceback.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import streamlit as st

from dp.odds import gaussian_release, pure_release
from dp.planning import (
    gaussian_epsilon_for_error,
    gaussian_sigma_for_error,
    gaussian_tradeoff,
    laplace_epsilon,
    rr_epsilon_for_error,
    two_sided_z,
)
from dp.rr_inference import rr_half_width
from ui import lessons
from ui.charts.odds import tradeoff_figure
from ui.odds import odds_panel
from ui.params import DELTAS, EPSILONS, choice_slider, number_label
from ui.presenter import presenter_mode
from ui.share import copy_link
from ui.show import chart

SLUG = "planner"
ERRORS_PP = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]  # ± percentage points
CONFIDENCES = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 1.0]  # 100% is there to learn why not
PEOPLE = [10, 30, 100, 300, 1000, 3000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]
SMALL_N = 30  # below this the normal approximation for randomized response is rough
TRADEOFF_DELTAS = np.geomspace(1e-12, 0.1, 45)


def _percent(c: float) -> str:
    return f"{c:.1%}".replace(".0%", "%")


def needed_text(epsilon: float) -> str:
    """The ε a request needs, rounded *up* to 4 significant digits: never an ε too small."""
    if epsilon >= 1000:
        return f"{math.ceil(epsilon):,}"
    decimals = max(0, 3 - math.floor(math.log10(epsilon)))
    scaled = float(f"{epsilon * 10**decimals:.12g}")  # no float noise: 1e-5·10⁸ is not 1000.0000000000001
    return f"{math.ceil(scaled) / 10**decimals:.{decimals}f}".rstrip("0").rstrip(".")


def _points(pp: float) -> str:
    return "point" if pp == 1 else "points"


def _number(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


@st.cache_data(max_entries=64, show_spinner=False)
def _tradeoff(count: float, confidence: float) -> np.ndarray:
    return gaussian_tradeoff(count, confidence, TRADEOFF_DELTAS)


def _controls(key: str, kind: str) -> tuple[float, float, int, float | None]:
    pp = choice_slider("± A: the error you can accept (percentage points)", ERRORS_PP, 1.0,
                       f"{key}_err", format_func=number_label)
    confidence = choice_slider("c: how often it must hold", CONFIDENCES, 0.95, f"{key}_conf",
                               format_func=_percent)
    n = choice_slider("n: people in the data", PEOPLE, 1000, f"{key}_n",
                      format_func=lambda v: f"{v:,}")
    delta = None
    if kind == "gaussian":
        delta = choice_slider("δ (the slack in the guarantee)", DELTAS, 1e-6, f"{key}_delta", format_func=number_label)
    return pp, confidence, n, delta


def _solve(kind: str, pp: float, confidence: float, n: int, delta: float | None) -> tuple[float, str, dict]:
    """(ε, lesson section, its values) for the request; raises ValueError if none can meet it."""
    share, count = pp / 100, pp / 100 * n
    values = {"pp": f"{pp:g}", "points": _points(pp), "n": f"{n:,}", "conf": _percent(confidence),
              "count": _number(count),
              "z": f"{two_sided_z(confidence):.3g}"}
    if kind == "laplace":
        epsilon = laplace_epsilon(count, confidence)
        values["local"] = needed_text(rr_epsilon_for_error(share, confidence, n))
        return epsilon, "laplace", values
    if kind == "gaussian":
        sigma = gaussian_sigma_for_error(count, confidence)
        epsilon = gaussian_epsilon_for_error(count, confidence, delta)
        values.update(sigma=_number(sigma), delta=number_label(delta))
        return epsilon, ("gaussian" if epsilon > 0 else "gaussian-zero"), values
    if kind == "rr":
        epsilon = rr_epsilon_for_error(share, confidence, n)
        central = laplace_epsilon(count, confidence)
        values["central"] = needed_text(central)  # as the Laplace planner prints it
        values["comparison"] = ("less: the curator adds noise once, to the total, not to every answer"
                                if central < epsilon else "no less, at these settings")
        return epsilon, "rr", values
    raise ValueError(f'kind must be "laplace", "gaussian" or "rr", got {kind!r}')


@lessons.demo
def accuracy_planner(kind: str, *, slug: str, key: str) -> None:
    """The inverse control and its answer, then the odds panel for the ε it finds.

    On the projector it is two screens: the request and the ε it needs (the intro is prose,
    so it stays on the scrolling page), then the odds panel; the Gaussian's trade-off chart
    is a screen of its own between them. On the scrolling page all parts share one box.
    """
    presenting = presenter_mode()
    box = st.container(border=True)
    epsilon = None
    with box:
        st.subheader(lessons.section_text(SLUG, "heading"), anchor=False)
        copy_link(slug, f"{key}_planner")
        if not presenting:
            st.markdown(lessons.section_text(SLUG, "intro"))
        controls, result = st.columns([2, 3], gap="large")
        with controls:
            pp, confidence, n, delta = _controls(key, kind)
        try:
            epsilon, section, values = _solve(kind, pp, confidence, n, delta)
        except ValueError as reason:
            result.warning(lessons.section_text(SLUG, "impossible", reason=str(reason).capitalize()),
                           icon="🚫")
        else:
            with result:
                st.metric("ε needed", needed_text(epsilon) if epsilon > 0 else "any ε > 0")
                st.markdown(lessons.section_text(
                    SLUG, section, eps=needed_text(epsilon) if epsilon > 0 else "0", **values))
                if kind == "rr" and n < SMALL_N:
                    st.caption(lessons.section_text(SLUG, "rr-small-n", n=f"{n:,}"))
                if epsilon > 0 and not EPSILONS[0] <= epsilon <= EPSILONS[-1]:
                    st.caption(lessons.section_text(SLUG, "beyond", lowest=f"{EPSILONS[0]:g}",
                                                    highest=f"{EPSILONS[-1]:g}"))
    # On the projector what the ε means is a screen of its own: for the Gaussian, two (the
    # trade-off chart, then the odds), so that each fits 1280×720. The number of screens does
    # not depend on the request (the deck's later steps keep their numbers).
    unmet = "No ε meets this request: the planner's first screen says why."
    lessons.step()
    sigma = None
    if kind == "gaussian":
        if epsilon is None:
            if presenting:
                st.caption(unmet)
        else:
            count = pp / 100 * n
            sigma = gaussian_sigma_for_error(count, confidence)
            with contextlib.nullcontext() if presenting else box:
                chart(tradeoff_figure(TRADEOFF_DELTAS, _tradeoff(count, confidence), delta, epsilon,
                                      sigma), key=f"{key}_tradeoff")
        lessons.step()
    if epsilon is None:  # no ε meets the request: the first screen says why
        if presenting:
            st.caption(unmet)
        return
    with contextlib.nullcontext() if presenting else box:  # the panel has a box of its own there
        if epsilon > 0:
            release = (gaussian_release(epsilon, delta, 1 / sigma, units=n) if kind == "gaussian"
                       else pure_release(epsilon))
            odds_panel(release, key=f"{key}_plan", what="a release at this ε")
        elif presenting:  # the screen is not left with its heading alone
            st.caption("Any ε > 0 meets this request: the smaller the ε, the less the odds can move.")


def poll_planner(n: int, offered: dict[str, float], *, key: str) -> float | None:
    """For the class poll: the ε that ±A at 95% needs from n answers, and the smallest ε the
    poll offers that meets it with the poll's own interval (dp.rr_inference.rr_half_width).
    Returns the ε needed, or None if no ε can meet the request."""
    pp = choice_slider("± A you want (percentage points)", [2.0, 5.0, 10.0, 15.0, 20.0, 30.0],
                       10.0, f"{key}_err", format_func=number_label)
    share = pp / 100
    try:
        epsilon = rr_epsilon_for_error(share, 0.95, n, continuity=True)
    except ValueError:
        st.warning(lessons.section_text(SLUG, "poll-impossible", pp=f"{pp:g}", points=_points(pp), n=n,
                                        floor=f"{100 / (2 * n):.3g}"), icon="🚫")
        return None
    meeting = [(label, eps) for label, eps in sorted(offered.items(), key=lambda item: item[1])
               if rr_half_width(n, eps) <= share]
    if meeting:
        label, eps = meeting[0]
        width = f"{100 * rr_half_width(n, eps):.3g}"
        offer = lessons.section_text(SLUG, "poll-offer", choice=label, width=width,
                                     points=_points(float(width)))
    else:
        offer = lessons.section_text(SLUG, "poll-none", n=n, highest=f"{max(offered.values()):g}")
    st.markdown(lessons.section_text(SLUG, "poll", pp=f"{pp:g}", points=_points(pp), n=n,
                                     eps=needed_text(epsilon),
                                     offer=offer))
    odds_panel(pure_release(epsilon), key=f"{key}_plan", what="a poll at this ε")
    return epsilon
