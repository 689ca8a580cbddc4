"""dp.planning: every inverse against its forward function, and clear errors for requests
no ε can meet."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dp import gaussian_delta, gaussian_sigma, laplace_scale
from dp.laplace_accuracy import epsilon_for_error
from dp.local_dp import rr_rmse
from dp.planning import (
    gaussian_epsilon_for_error,
    gaussian_error,
    gaussian_sigma_for_error,
    gaussian_tradeoff,
    laplace_epsilon,
    laplace_error,
    rr_epsilon_for_error,
    rr_error,
    rr_share_sd,
    two_sided_z,
)
from dp.rr_inference import EXACT_MAX_N, rr_half_width

EPSILONS = np.geomspace(0.01, 20, 23)
CONFIDENCES = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999]
SENSITIVITIES = [0.5, 1.0, 7.0]
NS = [1, 10, 30, 301, 10_000, 10**8]


@pytest.mark.parametrize("confidence", CONFIDENCES)
@pytest.mark.parametrize("sensitivity", SENSITIVITIES)
def test_laplace_round_trip(confidence, sensitivity):
    for eps in EPSILONS:
        error = laplace_error(eps, confidence, sensitivity)
        # the forward definition: Pr[|Lap(b)| ≤ A] = c
        assert stats.laplace.cdf(error, scale=laplace_scale(sensitivity, eps)) * 2 - 1 == pytest.approx(confidence)
        assert laplace_epsilon(error, confidence, sensitivity) == pytest.approx(eps, rel=1e-12)
        assert laplace_epsilon(error, confidence, sensitivity) == epsilon_for_error(sensitivity, error, confidence)


@pytest.mark.parametrize("confidence", CONFIDENCES)
def test_gaussian_sigma_round_trip(confidence):
    for sigma in np.geomspace(0.01, 1e4, 15):
        error = gaussian_error(sigma, confidence)
        assert stats.norm.cdf(error, scale=sigma) * 2 - 1 == pytest.approx(confidence, abs=1e-12)
        assert gaussian_sigma_for_error(error, confidence) == pytest.approx(sigma, rel=1e-12)


@pytest.mark.parametrize("delta", [1e-12, 1e-9, 1e-6, 1e-3, 0.05])
@pytest.mark.parametrize("sensitivity", SENSITIVITIES)
def test_gaussian_epsilon_round_trip(delta, sensitivity):
    for eps in [0.05, 0.3, 1.0, 3.0, 10.0]:
        sigma = gaussian_sigma(sensitivity, eps, delta)
        for confidence in (0.9, 0.95, 0.99):
            error = gaussian_error(sigma, confidence)
            got = gaussian_epsilon_for_error(error, confidence, delta, sensitivity)
            assert got == pytest.approx(eps, rel=1e-6)
            assert gaussian_delta(sigma, got, sensitivity) == pytest.approx(delta, rel=1e-6)


def test_gaussian_tradeoff_falls_as_delta_grows():
    deltas = np.geomspace(1e-12, 0.01, 40)
    epsilons = gaussian_tradeoff(10.0, 0.95, deltas)
    assert np.all(np.diff(epsilons) < 0) and epsilons[-1] > 0
    sigma = gaussian_sigma_for_error(10.0, 0.95)
    for d, e in zip(deltas[::7], epsilons[::7], strict=True):
        assert gaussian_delta(sigma, e) == pytest.approx(d, rel=1e-6)


def test_gaussian_needs_no_epsilon_when_delta_covers_the_noise():
    # huge noise relative to Δ: δ ≥ 2Φ(Δ/(2σ)) − 1 already
    assert gaussian_epsilon_for_error(1e6, 0.95, 0.01) == 0.0


def test_rr_sd_is_the_sinh_form_and_rr_rmse():
    for eps in EPSILONS:
        for n in NS:
            assert rr_share_sd(eps, n) == pytest.approx(rr_rmse(n, eps), rel=1e-12)


@pytest.mark.parametrize("continuity", [False, True])
@pytest.mark.parametrize("confidence", CONFIDENCES)
def test_rr_round_trip(continuity, confidence):
    for n in NS:
        for eps in EPSILONS:
            error = rr_error(eps, confidence, n, continuity)
            if not continuity:
                assert error == pytest.approx(two_sided_z(confidence) * rr_share_sd(eps, n), rel=1e-12)
            assert rr_epsilon_for_error(error, confidence, n, continuity) == pytest.approx(eps, rel=1e-9)


def test_rr_closed_form_without_correction():
    for n in NS:
        for error in (0.001, 0.01, 0.1, 0.5):
            z = two_sided_z(0.95)
            assert rr_epsilon_for_error(error, 0.95, n) == pytest.approx(
                2 * math.asinh(z / (2 * error * math.sqrt(n))), rel=1e-12)


def test_rr_continuity_matches_the_class_polls_interval_above_the_exact_range():
    for n in (EXACT_MAX_N + 1, 1000, 5000):
        for eps in (0.1, 0.5, 1.0, math.log(3), 2.0, 5.0):
            assert rr_error(eps, 0.95, n, continuity=True) == pytest.approx(rr_half_width(n, eps), rel=1e-12)


@pytest.mark.parametrize("inverse,args", [
    (laplace_epsilon, (10.0, 1.0)),
    (gaussian_sigma_for_error, (10.0, 1.0)),
    (gaussian_epsilon_for_error, (10.0, 1.0, 1e-5)),
    (rr_epsilon_for_error, (0.05, 1.0, 100)),
])
def test_full_confidence_is_impossible_with_a_reason(inverse, args):
    with pytest.raises(ValueError, match="below 100%"):
        inverse(*args)


def test_rr_interval_finer_than_half_a_report_is_impossible():
    with pytest.raises(ValueError, match="half a report"):
        rr_epsilon_for_error(0.004, 0.95, 100, continuity=True)  # 1/(2n) = 0.005
    # just above it, a finite (large) ε does it
    eps = rr_epsilon_for_error(0.0051, 0.95, 100, continuity=True)
    assert math.isfinite(eps) and rr_error(eps, 0.95, 100, continuity=True) == pytest.approx(0.0051)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_bad_errors_are_named(bad):
    for inverse, args in [(laplace_epsilon, (bad, 0.95)), (gaussian_sigma_for_error, (bad, 0.95)),
                          (rr_epsilon_for_error, (bad, 0.95, 10))]:
        with pytest.raises(ValueError, match="error"):
            inverse(*args)
