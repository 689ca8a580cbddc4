""""In or out?": the class game, in which the whole room plays a membership-inference attacker.

The story: a count is released with the Laplace mechanism. In D, Alex is in the data and the
true count is COUNT_IN; in D′ (D without Alex, add/remove neighbours, Δ = 1) it is COUNT_OUT.
Every phone is dealt one world, D or D′ with probability ½ each, and sees one noisy release
f(world) + Lap(1/ε). It guesses "in" or "out". Each phone alone learns little; the class
together measures the attack's true positive rate TPR = Pr[guess in | D] and false positive rate
FPR = Pr[guess in | D′], and the projector puts that point against the ε-DP bound
TPR ≤ min(e^ε·FPR, 1 − e^−ε(1 − FPR)) (dp.attacks.max_true_positive_rate), which no guessing
strategy can beat.

The deal is seeded per device: seed = SHA-256(question's secret salt, device hash), so a phone
sees the same count after every reload, and the server re-derives the world when the vote
arrives instead of trusting the phone. The salt is never sent to a phone, so a student who
reads this code still cannot compute their world from their device id.

No Streamlit here; the maths comes from dp/.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from dp import laplace_mechanism
from dp.attacks import max_true_positive_rate
from dp.audit import clopper_pearson_lower, clopper_pearson_upper
from dp.privacy_loss import laplace_guess_accuracy, laplace_roc, max_guess_accuracy

REF = "in-or-out"
COUNT_IN, COUNT_OUT = 20, 19  # f(D) with Alex, f(D′) without: Δ = 1
THRESHOLD = (COUNT_IN + COUNT_OUT) / 2  # the best guess: "in" above the midpoint
EPSILON_MIN, EPSILON_MAX = 0.1, 5.0
EPSILONS = (0.25, 0.5, 1.0, 2.0, 3.0, 5.0)  # what the instructor's page offers
PROMPT = (f"A noisy count of the class's data was released with the Laplace mechanism. With "
          f"Alex in the data (D) the true count is {COUNT_IN}; without Alex (D′) it is "
          f"{COUNT_OUT}. Was Alex in the data that produced your count?")
OPTIONS = ("In: Alex is in (D)", "Out: Alex is not in (D′)")
GUESS_IN, GUESS_OUT = 0, 1  # option indices


@dataclass(frozen=True)
class Deal:
    in_data: bool  # True: this device's count came from D (Alex in)
    output: float  # the noisy count the device sees


def seed_for(salt: str, device_sha256: str) -> int:
    """A 64-bit seed from the question's salt and the device's hash (reproducible per device)."""
    return int.from_bytes(hashlib.sha256(f"{salt}:{device_sha256}".encode()).digest()[:8], "big")


def deal(salt: str, device_sha256: str, epsilon: float) -> Deal:
    """The world (D or D′, ½ each) and the Laplace release f(world) + Lap(1/ε) for one device."""
    rng = np.random.default_rng(seed_for(salt, device_sha256))
    in_data = bool(rng.integers(2))
    output = laplace_mechanism(COUNT_IN if in_data else COUNT_OUT, 1.0, epsilon, rng)
    return Deal(in_data, float(output))


def best_guess(output: float) -> int:
    """The most powerful single guess (Neyman–Pearson): "in" when the count is nearer f(D)."""
    return GUESS_IN if output > THRESHOLD else GUESS_OUT


def best_rates(epsilon: float) -> tuple[float, float]:
    """(FPR, TPR) of the best guess, "in" above THRESHOLD, against Lap(1/ε)."""
    fpr, tpr = laplace_roc(THRESHOLD - COUNT_OUT, COUNT_IN - COUNT_OUT, 1 / epsilon)
    return float(fpr), float(tpr)


def laplace_curve(epsilon: float, points: int = 201) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) of every threshold test "in when the count > t": the best any guesser can do
    against this Laplace release (the tests are most powerful, the likelihood ratio being
    monotone)."""
    b = 1 / epsilon
    t = np.linspace(-12 * b, 12 * b + 1, points)
    fpr, tpr = laplace_roc(t, COUNT_IN - COUNT_OUT, b)
    return np.concatenate([[1.0], fpr, [0.0]]), np.concatenate([[1.0], tpr, [0.0]])


def bound_curve(epsilon: float, points: int = 201) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, highest TPR) allowed by ε-DP for any mechanism and any guesser."""
    fpr = np.linspace(0, 1, points)
    return fpr, np.asarray(max_true_positive_rate(fpr, epsilon))


def best_accuracy(epsilon: float) -> float:
    """The best guess's chance of being right: 1 − ½e^(−ε/2) (Laplace, Δ = 1)."""
    return laplace_guess_accuracy(COUNT_IN, COUNT_OUT, 1 / epsilon)


def accuracy_ceiling(epsilon: float) -> float:
    """No ε-DP release lets any guess be right more often than e^ε/(1 + e^ε)."""
    return max_guess_accuracy(epsilon)


@dataclass(frozen=True)
class ClassResult:
    """The class's guesses, split by the world each device was dealt."""
    in_said_in: int
    in_said_out: int
    out_said_in: int
    out_said_out: int

    @property
    def dealt_in(self) -> int:
        return self.in_said_in + self.in_said_out

    @property
    def dealt_out(self) -> int:
        return self.out_said_in + self.out_said_out

    @property
    def n(self) -> int:
        return self.dealt_in + self.dealt_out

    @property
    def tpr(self) -> float | None:
        """Pr[guess in | D]; None until someone dealt D has guessed."""
        return self.in_said_in / self.dealt_in if self.dealt_in else None

    @property
    def fpr(self) -> float | None:
        """Pr[guess in | D′]; None until someone dealt D′ has guessed."""
        return self.out_said_in / self.dealt_out if self.dealt_out else None

    @property
    def accuracy(self) -> float | None:
        return (self.in_said_in + self.out_said_out) / self.n if self.n else None

    def epsilon_lower_bound(self, alpha: float = 0.05) -> float | None:
        """A lower bound on ε that holds with probability ≥ 1 − α whatever the guessers did:
        ε ≥ ln(TPR/FPR) and ε ≥ ln((1 − FPR)/(1 − TPR)), each ratio bounded with one-sided
        Clopper–Pearson limits at α/4 (four limits, Bonferroni), as dp.audit.audit_epsilon
        does for one event. None until both worlds have guesses."""
        if not self.dealt_in or not self.dealt_out:
            return None
        level = alpha / 4
        said_in = (clopper_pearson_lower(self.in_said_in, self.dealt_in, level),
                   clopper_pearson_upper(self.out_said_in, self.dealt_out, level))
        said_out = (clopper_pearson_lower(self.out_said_out, self.dealt_out, level),
                    clopper_pearson_upper(self.in_said_out, self.dealt_in, level))
        bounds = [math.log(low / high) for low, high in (said_in, said_out) if low > 0]
        return max([0.0, *bounds])
