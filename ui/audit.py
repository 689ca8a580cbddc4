"""The "check the guarantee" panel: sample a mechanism on neighbouring inputs and certify ε̂.

A page passes two samplers, M(D) and M(D′), and an event S chosen before sampling.
The panel samples both, runs dp.audit_epsilon in both directions (S against D and D′,
and its complement the other way round), and shows the certified lower bound ε̂ next
to the promised ε. A correct mechanism stays at or below its promise; a broken one
overshoots it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

from dp import audit_epsilon
from ui.seeds import demo_seed

Sampler = Callable[[np.random.Generator, int], np.ndarray]

SAMPLE_SIZES = [10_000, 100_000, 1_000_000]


def certified_epsilon(outputs_d, outputs_d_prime, event, alpha: float = 0.05) -> float:
    """ε̂ from S (D against D′) and from its complement (D′ against D), each at α/2."""

    def outside(outputs):
        return ~np.asarray(event(outputs), dtype=bool)

    return max(
        audit_epsilon(outputs_d, outputs_d_prime, event, alpha=alpha / 2),
        audit_epsilon(outputs_d_prime, outputs_d, outside, alpha=alpha / 2),
    )


@st.cache_data(max_entries=32, show_spinner=False)
def _cached_audit(_sample_d, _sample_d_prime, _event, cache_key, seed, n, alpha):
    rng = np.random.default_rng(seed)
    return certified_epsilon(_sample_d(rng, n), _sample_d_prime(rng, n), _event, alpha)


def audit_panel(demo: str, sample_d: Sampler, sample_d_prime: Sampler, event: Callable,
                promised_epsilon: float, event_label: str, cache_key: tuple,
                samples: int = 100_000, alpha: float = 0.05,
                exact_loss: float | None = None) -> float:
    """Show the certified ε̂ against the promised ε; returns ε̂.

    `cache_key` must capture every parameter the samplers and event depend on.
    `exact_loss`, where the page knows it, is the exact worst-case privacy loss on this pair:
    then an ε̂ above ε is called what it is, a false alarm (loss ≤ ε) or a broken promise.
    """
    epsilon_hat = _cached_audit(sample_d, sample_d_prime, event, cache_key,
                                demo_seed(demo), samples, alpha)
    digits = 3  # enough digits that ε̂ and ε never read the same ("ε ≥ 5, more than 5")
    while (epsilon_hat > promised_epsilon and digits < 12
           and f"{epsilon_hat:.{digits}g}" == f"{promised_epsilon:.{digits}g}"):
        digits += 1
    left, right = st.columns(2)
    left.metric("Promised ε", f"{promised_epsilon:.3g}")
    right.metric("Certified ε̂ (lower bound)", f"{epsilon_hat:.{digits}g}",
                 help=f"With {samples:,} samples from each of M(D) and M(D′), the event "
                      f"S = {event_label} and its complement, Clopper–Pearson bounds at "
                      f"{1 - alpha:.0%} confidence.")
    kept = exact_loss is not None and exact_loss <= promised_epsilon * (1 + 1e-9)
    if epsilon_hat > promised_epsilon and kept:
        st.warning(f"ε̂ = {epsilon_hat:.{digits}g} lands above ε = {promised_epsilon:.3g}, yet "
                   f"the exact loss on this pair is {exact_loss:.3g}, within the promise: a false "
                   f"alarm, one of the at most {alpha:.0%} of runs that {1 - alpha:.0%} "
                   "confidence bounds let through. It is not proof of a broken promise; new "
                   "samples (🎲) will most likely land at or below ε.")
    elif epsilon_hat > promised_epsilon and exact_loss is not None:
        st.error(f"The samples certify ε ≥ {epsilon_hat:.{digits}g}, more than the promised "
                 f"{promised_epsilon:.3g}, and the exact loss on this pair is {exact_loss:.3g}: "
                 "this mechanism breaks its promise.")
    elif epsilon_hat > promised_epsilon:
        st.error(f"At {1 - alpha:.0%} confidence the samples certify ε ≥ "
                 f"{epsilon_hat:.{digits}g}, more than the promised {promised_epsilon:.3g}: the "
                 "evidence says this mechanism breaks its promise. (A mechanism that keeps it "
                 f"lands here in at most {alpha:.0%} of runs.)")
    else:
        st.success(f"ε̂ = {epsilon_hat:.3g} ≤ ε = {promised_epsilon:.3g}: the samples are "
                   "consistent with the promise. An audit can only ever catch a broken "
                   "mechanism; it cannot prove a correct one.")
    return epsilon_hat
