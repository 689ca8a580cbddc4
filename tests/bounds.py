""""Bounds are tests": helpers to check every bound a live sentence states, independently.

A sentence that says "at most", "at least", "never", "always", "within", "more than", … about a
live value is a claim. A bounds test renders the sentence the way the page does, reads the
numbers back out of the text (not out of the function that rendered them), computes the truth
another way (a closed form, numerical integration, or a seeded simulation of the page's own
mechanism) and compares, with tolerances derived from the simulation's size.

The `Ledger` makes the coverage a test too: every sentence with a bound word must be matched
by some check, so a new bound sentence fails until a test covers it.

    ledger = Ledger(text)                       # split into sentences, find the bound ones
    for m in ledger.matches(r"at most (?P<p>{P})", "posterior ceiling"):
        assert reading(m["p"]) >= truth         # mark it checked, and check it
    ledger.assert_all_checked()                 # no bound sentence left unchecked

Readers: `reading(text)` turns "23.2%", "1 in 6,200", "at most 1 in 10¹⁵", "none of the",
"1 − 10⁻²¹⁷²", "10⁻²¹⁷⁴", "1,683" into a `mpmath.mpf` (exact enough for 10⁻²¹⁷²).
Tolerances: `binomial_slack(p, trials)` for a simulated frequency; `rng_for(*labels)` for a
generator seeded from the test's own labels (stable across runs and test order).
"""

from __future__ import annotations

import re
import zlib

import mpmath
import numpy as np

mpmath.mp.dps = 50

# Words that make a sentence a claim about a bound (case-insensitive, whole words).
BOUND_WORDS = ("at most", "at least", "never", "always", "within", "more than", "less than",
               "fewer than", "as much as", "up to", "all but", "below", "above", "exceed",
               "cannot", "no ceiling", "rules out", "smaller than", "times smaller", "none of")
_BOUND = re.compile(r"\b(" + "|".join(re.escape(word) for word in BOUND_WORDS) + r")\b", re.IGNORECASE)

_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
# A number as the panel prints it: a percentage, a "1 in N", a power of ten, or 1 − 10⁻ᵏ.
P = (r"(?:none of the|at most 1 in 10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+|1 in [\d,]+|1 − 10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+"
     r"|10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+|[\d,]*\.?\d+%)")


def reading(text: str) -> mpmath.mpf:
    """The probability a printed value stands for (see the module docstring)."""
    text = text.strip()
    if text == "none of the":
        return mpmath.mpf(0)
    if match := re.fullmatch(r"at most 1 in 10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", text):
        return mpmath.power(10, -int(match[1].translate(_SUPER)))
    if match := re.fullmatch(r"1 in ([\d,]+)", text):
        return 1 / mpmath.mpf(match[1].replace(",", ""))
    if match := re.fullmatch(r"1 − 10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", text):
        return 1 - mpmath.power(10, int(match[1].translate(_SUPER)))
    if match := re.fullmatch(r"10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", text):
        return mpmath.power(10, int(match[1].translate(_SUPER)))
    if text.endswith("%"):
        return mpmath.mpf(text[:-1].replace(",", "")) / 100
    return mpmath.mpf(text.replace(",", ""))


def sentences(text: str) -> list[str]:
    """A panel's text as sentences: Markdown table rows are one each; prose splits at . : ;
    followed by a space (not inside numbers such as 2.72)."""
    out = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.splitlines() if line.strip()]
        if lines and all(line.lstrip().startswith("|") for line in lines):
            out += [line for line in lines if not set(line) <= set("|-: ")]
            continue
        prose = " ".join(line.strip() for line in lines)
        out += [part.strip() for part in re.split(r"(?<=[.:;])\s+(?=[A-Z(*])", prose) if part.strip()]
    return out


class Ledger:
    """The sentences of a text, which of them state a bound, and which a check has matched."""

    def __init__(self, text: str):
        self.sentences = sentences(text)
        self.bound = [s for s in self.sentences if _BOUND.search(s)]
        self.checked: dict[str, list[str]] = {}

    def matches(self, pattern: str, check: str) -> list[re.Match]:
        """Every match of `pattern` ({P} stands for a printed probability) within a sentence;
        each bound sentence with a match is marked as checked by `check`."""
        regex = re.compile(pattern.replace("{P}", P))
        found = []
        for sentence in self.sentences:
            here = list(regex.finditer(sentence))
            if here and sentence in self.bound:
                self.checked.setdefault(sentence, []).append(check)
            found += here
        return found

    def unchecked(self) -> list[str]:
        return [s for s in self.bound if s not in self.checked]

    def assert_all_checked(self) -> None:
        missing = self.unchecked()
        assert not missing, "bound sentences no test checks:\n- " + "\n- ".join(missing)


def binomial_slack(p: float, trials: int, z: float = 6.0) -> float:
    """How far a simulated frequency of an event of probability p may stray from p: z standard
    errors plus one trial (z = 6: a false alarm about once in 10⁹ runs per comparison)."""
    return z * float(np.sqrt(max(p, 1 / trials) * (1 - min(p, 0.5)) / trials)) + 1 / trials


def rng_for(*labels) -> np.random.Generator:
    """A generator seeded from the labels (a test's name and settings): the same every run."""
    return np.random.default_rng([zlib.crc32(repr(label).encode()) for label in labels])
