""""In or out?": the class game, in which the whole room plays a membership-inference attacker.

The story: a count is released with the Laplace mechanism. In D, Alex is in the data and the
true count is COUNT_IN; in D′ (D without Alex, add/remove neighbours, Δ = 1) it is COUNT_OUT.
Every phone is dealt one world, D or D′ with probability ½ each, and sees one noisy release
f(world) + Lap(1/ε). It guesses "in" or "out". Each phone alone learns little; the class
together measures the attack's true positive rate TPR = Pr[guess in | D] and false positive rate
FPR = Pr[guess in | D′], and the projector puts that point against the ε-DP bound
TPR ≤ min(e^ε·FPR, 1 − e^−ε(1 − FPR)) (dp.attacks.max_true_positive_rate) and its mirror
1 − TPR ≤ min(e^ε(1 − FPR), 1 − e^−ε·FPR) (the opposite guess is a test too), which no guessing
strategy can beat (δ = 0: the Laplace count is pure ε-DP).

Staying silent is part of a strategy. A class that votes only on extreme counts, and keeps
quiet otherwise, has voters' rates far past the bound (at ε = 1, "in" above 21.75 and "out" below 18.7 gives
its voters TPR ≈ 39% and FPR ≈ 8%, a ratio of 4.9 > e), because which phones vote depends on
their counts. So every phone that was shown a
count is counted, and a silent phone counts as a fixed guess, "out" (ClassResult). Then each
phone's guess is a function of its own count, and the bound holds whatever the class does.

What the verdict assumes, and says on the projector (lessons/live-instructor.md, game-assumes):
each phone's guess depends only on its own count (a rule agreed in advance, the same or not for
every phone; the other phones' counts say nothing about this phone's world); every phone shown
a count is counted (ui records the deal before the count is drawn); and voting is closed when
the votes stop coming, not at a moment picked because the point looks good (optional stopping
is a strategy too, and no fixed-sample bound covers it). For one rule shared by every phone the
confidence bound is proved (Clopper–Pearson, Bonferroni); for different rules per phone the
luck of the deal adds variance, checked by simulation in tests/test_live_game.py.

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


CONFIDENCE = 0.95  # of the class's lower bound on ε


def bound_curves(epsilon: float, points: int = 201) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(FPR, highest TPR, lowest TPR) that ε-DP allows for any mechanism and any guesser.

    The lowest is the highest mirrored: saying the opposite of a test is a test, so
    (1 − FPR, 1 − TPR) is reachable whenever (FPR, TPR) is."""
    fpr = np.linspace(0, 1, points)
    highest = np.asarray(max_true_positive_rate(fpr, epsilon))
    lowest = 1 - np.asarray(max_true_positive_rate(1 - fpr, epsilon))
    return fpr, highest, lowest


def inside_bound(fpr: float, tpr: float, epsilon: float) -> bool:
    """Whether (FPR, TPR) is inside both curves of the ε-DP region (edges included)."""
    highest = float(max_true_positive_rate(fpr, epsilon))
    lowest = 1 - float(max_true_positive_rate(1 - fpr, epsilon))
    return lowest - 1e-12 <= tpr <= highest + 1e-12


def best_accuracy(epsilon: float) -> float:
    """The best guess's chance of being right: 1 − ½e^(−ε/2) (Laplace, Δ = 1)."""
    return laplace_guess_accuracy(COUNT_IN, COUNT_OUT, 1 / epsilon)


def accuracy_ceiling(epsilon: float) -> float:
    """No ε-DP release lets any guess be right more often than e^ε/(1 + e^ε)."""
    return max_guess_accuracy(epsilon)


@dataclass(frozen=True)
class ClassResult:
    """The class's guesses, split by the world each device was dealt.

    Every dealt phone counts: one that was shown its count and did not vote is `silent`, and
    a silent phone counts as the guess "out" in the rates, the accuracy and the bound on ε.
    """
    in_said_in: int
    in_said_out: int
    out_said_in: int
    out_said_out: int
    in_silent: int = 0  # dealt D, shown the count, no vote
    out_silent: int = 0  # dealt D′, shown the count, no vote

    @property
    def guesses(self) -> int:
        """Votes cast."""
        return self.in_said_in + self.in_said_out + self.out_said_in + self.out_said_out

    @property
    def silent(self) -> int:
        return self.in_silent + self.out_silent

    @property
    def dealt_in(self) -> int:
        return self.in_said_in + self.in_said_out + self.in_silent

    @property
    def dealt_out(self) -> int:
        return self.out_said_in + self.out_said_out + self.out_silent

    @property
    def n(self) -> int:
        """Phones dealt a count: voters and silent ones."""
        return self.dealt_in + self.dealt_out

    @property
    def tpr(self) -> float | None:
        """Pr[guess in | D] over every phone dealt D; None until a phone was dealt D."""
        return self.in_said_in / self.dealt_in if self.dealt_in else None

    @property
    def fpr(self) -> float | None:
        """Pr[guess in | D′] over every phone dealt D′; None until a phone was dealt D′."""
        return self.out_said_in / self.dealt_out if self.dealt_out else None

    @property
    def accuracy(self) -> float | None:
        """Right guesses over every dealt phone (a silent phone dealt D′ is right: "out")."""
        return (self.in_said_in + self.out_said_out + self.out_silent) / self.n if self.n else None

    def epsilon_lower_bound(self, confidence: float = CONFIDENCE) -> float | None:
        """A lower bound on ε that holds with probability ≥ `confidence` whatever rule the
        phones follow (see the module's assumptions): ε-DP bounds all four ratios

            TPR/FPR,  (1 − FPR)/(1 − TPR),  FPR/TPR,  (1 − TPR)/(1 − FPR)   by e^ε,

        and each is bounded from below with one-sided Clopper–Pearson limits on TPR and FPR
        (a lower and an upper limit each, α/4 apiece, α = 1 − confidence): when all four limits
        hold, which fails with probability ≤ α (Bonferroni), no ratio bound exceeds the true ε.
        None until both worlds have dealt phones."""
        if not self.dealt_in or not self.dealt_out:
            return None
        level = (1 - confidence) / 4
        tpr = (clopper_pearson_lower(self.in_said_in, self.dealt_in, level),
               clopper_pearson_upper(self.in_said_in, self.dealt_in, level))
        fpr = (clopper_pearson_lower(self.out_said_in, self.dealt_out, level),
               clopper_pearson_upper(self.out_said_in, self.dealt_out, level))
        ratios = ((tpr[0], fpr[1]), (1 - fpr[1], 1 - tpr[0]),
                  (fpr[0], tpr[1]), (1 - tpr[1], 1 - fpr[0]))
        return max([0.0, *(math.log(low / high) for low, high in ratios if low > 0)])
