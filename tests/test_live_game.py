""""In or out?" (classroom.game): the deal, the best guess, the class's rates and its ε bound.

Statistical checks use fixed salts (so nothing can flake) and tolerances derived from the
binomial standard deviation: 5 σ.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from classroom import game
from dp.attacks import max_true_positive_rate

DEVICES = 4000


def _deals(epsilon: float, salt: str = "fixed-salt") -> list[game.Deal]:
    return [game.deal(salt, f"device-{i:05d}", epsilon) for i in range(DEVICES)]


def _five_sigma(p: float, n: int) -> float:
    return 5 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("epsilon", [0.25, 1.0, 3.0])
def test_half_the_devices_are_dealt_d_and_the_noise_is_laplace(epsilon):
    deals = _deals(epsilon)
    share_in = np.mean([d.in_data for d in deals])
    assert abs(share_in - 0.5) <= _five_sigma(0.5, DEVICES)
    noise = np.array([d.output - (game.COUNT_IN if d.in_data else game.COUNT_OUT) for d in deals])
    b = 1 / epsilon
    # Pr[|Lap(b)| > b] = e^−1: the share beyond one scale, within 5 σ.
    beyond = np.mean(np.abs(noise) > b)
    assert abs(beyond - math.exp(-1)) <= _five_sigma(math.exp(-1), DEVICES)
    assert abs(np.mean(noise > 0) - 0.5) <= _five_sigma(0.5, DEVICES)


def test_the_deal_depends_on_salt_and_device_only():
    assert game.deal("s", "d", 1.0) == game.deal("s", "d", 1.0)
    assert game.deal("s", "d", 1.0) != game.deal("t", "d", 1.0)
    assert game.deal("s", "d", 1.0) != game.deal("s", "e", 1.0)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_the_best_guess_hits_its_closed_form_and_stays_under_the_bound(epsilon):
    deals = _deals(epsilon)
    result = _result(deals, [game.best_guess(d.output) for d in deals])
    expected = game.best_accuracy(epsilon)
    assert abs(result.accuracy - expected) <= _five_sigma(expected, DEVICES)
    assert expected <= game.accuracy_ceiling(epsilon)
    fpr, tpr = game.best_rates(epsilon)
    assert abs(result.tpr - tpr) <= _five_sigma(tpr, result.dealt_in)
    assert abs(result.fpr - fpr) <= _five_sigma(fpr, result.dealt_out)
    assert tpr <= max_true_positive_rate(fpr, epsilon) + 1e-12
    # The audit bound is a valid lower bound on ε (at 95%): here it must not exceed it.
    bound = result.epsilon_lower_bound()
    assert 0 <= bound <= epsilon


def test_coin_flipping_guessers_show_no_leak():
    deals = _deals(1.0)
    rng = np.random.default_rng(7)
    result = _result(deals, list(rng.integers(0, 2, size=DEVICES)))
    assert result.epsilon_lower_bound() == 0.0
    assert abs(result.tpr - result.fpr) < 0.06


def test_rates_are_none_until_both_worlds_have_guessed():
    empty = game.ClassResult(0, 0, 0, 0)
    assert empty.tpr is None and empty.fpr is None and empty.accuracy is None
    assert empty.epsilon_lower_bound() is None
    only_in = game.ClassResult(3, 1, 0, 0)
    assert only_in.tpr == 0.75 and only_in.fpr is None and only_in.epsilon_lower_bound() is None


def test_the_curves_span_the_unit_square_and_the_laplace_curve_is_under_the_bound():
    for epsilon in game.EPSILONS:
        fpr, tpr = game.laplace_curve(epsilon)
        assert fpr[0] == 1 and fpr[-1] == 0 and tpr[0] == 1 and tpr[-1] == 0
        assert np.all(tpr <= np.asarray(max_true_positive_rate(fpr, epsilon)) + 1e-9)
        bound_fpr, bound_tpr = game.bound_curve(epsilon)
        assert bound_fpr[0] == 0 and bound_tpr[-1] == 1


def _result(deals: list[game.Deal], guesses: list[int]) -> game.ClassResult:
    cells = {(True, game.GUESS_IN): 0, (True, game.GUESS_OUT): 0,
             (False, game.GUESS_IN): 0, (False, game.GUESS_OUT): 0}
    for d, g in zip(deals, guesses, strict=True):
        cells[(d.in_data, int(g))] += 1
    return game.ClassResult(cells[(True, game.GUESS_IN)], cells[(True, game.GUESS_OUT)],
                            cells[(False, game.GUESS_IN)], cells[(False, game.GUESS_OUT)])
