"""The "What are the chances?" panel: what one release's ε (and δ) means for one person.

Put `odds_panel(epsilon, delta, n=…, key=…)` beside a page's main ε control. It shows, from
dp.odds (the posterior bound expit(logit(p) ± ε) of dp.attacks.posterior_bounds):

- the odds bound e^ε, and what it does to a 1%, 10% and 50% suspicion (at most and at least);
- an icon array of 100 people suspected at 10%: how sure the release can make her of each;
- a one-line verdict chosen by dp.odds.protection_band (bands defined by what happens to a
  coin-toss guess, so every verdict holds at every ε in its band);
- with δ: what the additive slack means, and δ against 1/n.

Folded in an expander on lesson pages. In presenter mode the bound and the verdict are on
screen, in a bordered box, and the table and icons sit in an expander inside it. The words
are in lessons/odds.md. Every percentage is rounded *outwards*: an "at most" up, an "at
least" down, so a printed bound is never tighter than the true one.
"""

from __future__ import annotations

import math

import streamlit as st

from dp.odds import max_posterior, min_posterior, protection_band
from ui import lessons
from ui.charts.odds import icon_array, icon_counts
from ui.presenter import presenter_mode
from ui.show import chart

SLUG = "odds"
PRIORS = {"one": 0.01, "ten": 0.10, "even": 0.50}
ICON_PRIOR = 0.10
FAR_BELOW = 100  # "δ ≪ 1/n": at least a hundred times smaller


def _decimals(value: float, significant: int) -> int:
    return max(0, significant - 1 - math.floor(math.log10(value)))


def _percent_text(value: float, decimals: int) -> str:
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "%"


def percent_at_most(p: float, significant: int = 3) -> str:
    """p as a percentage rounded up, to `significant` digits or as many more as keep a
    probability below 1 below 100%: 0.23399 → "23.4%", 0.9999546 → "99.996%"."""
    value = float(f"{100 * p:.12g}")  # drop float noise (100·0.1 = 10.000000000000002)
    if value <= 0 or value >= 100:
        return _percent_text(value, 0)
    decimals = _decimals(value, significant)
    while True:
        shown = math.ceil(value * 10**decimals) / 10**decimals
        if shown < 100 or decimals >= 12:
            return _percent_text(shown, decimals)
        decimals += 1


def percent_at_least(p: float, significant: int = 3) -> str:
    """p as a percentage rounded down, keeping a positive probability above 0%."""
    value = float(f"{100 * p:.12g}")
    if value <= 0 or value >= 100:
        return _percent_text(value, 0)
    decimals = _decimals(value, significant)
    shown = math.floor(value * 10**decimals) / 10**decimals
    return _percent_text(shown, decimals)


SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def approx(x: float) -> str:
    """'≈ 2.72', '≈ 22,026' or '= 3': the sign says whether the digits are exact."""
    text = f"{x:.3g}" if x < 1000 else f"{x:,.0f}"
    return ("= " if float(text.replace(",", "")) == x else "≈ ") + text


def approx_exp(epsilon: float) -> str:
    """e^ε as approx() does, or '≈ 1.9 × 10¹³⁰' beyond a million (no overflow at any ε)."""
    if epsilon < math.log(1e6):
        return approx(math.exp(epsilon))
    exponent = epsilon / math.log(10)
    power = math.floor(exponent)
    mantissa = 10 ** (exponent - power)
    if f"{mantissa:.2g}" == "10":
        mantissa, power = 1.0, power + 1
    return f"≈ {mantissa:.2g} × 10{str(power).translate(SUPERSCRIPTS)}"


def epsilon_text(epsilon: float) -> str:
    """1, 0.6931, 12.93, 1,234."""
    return f"{epsilon:.4g}" if epsilon < 1000 else f"{epsilon:,.0f}"


def _count(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def odds_numbers(epsilon: float, what: str = "this release") -> dict:
    """The panel's live values for the lesson text (strings, already rounded outwards)."""
    numbers = {"eps": epsilon_text(epsilon), "what": what, "mult": approx_exp(epsilon)}
    for name, prior in PRIORS.items():
        numbers[f"{name}_hi"] = percent_at_most(max_posterior(prior, epsilon))
        numbers[f"{name}_lo"] = percent_at_least(min_posterior(prior, epsilon))
    after = max_posterior(ICON_PRIOR, epsilon)
    before, added = icon_counts(ICON_PRIOR, after)
    numbers.update(prior=f"{ICON_PRIOR:.0%}", before=before, after=percent_at_most(after),
                   after_count=before + added,
                   colours="blue and orange" if added else
                   "the release adds less than one whole dot, so there is no orange")
    return numbers


def delta_numbers(delta: float, n: int | None) -> tuple[str, dict]:
    """The δ paragraph's comparison section and its values."""
    values = {"delta": f"{delta:g}", "one_in": _count(1 / delta)}
    if n is None:
        return "delta-no-n", values
    values["n"] = f"{n:,}"
    ratio = 1 / (n * delta)
    if ratio <= 1:
        values["leaks"] = _count(n * delta)
        return "delta-over", values
    values["ratio"] = f"{math.floor(ratio):,}" if ratio >= 10 else f"{math.floor(10 * ratio) / 10:g}"
    return ("delta-far" if ratio >= FAR_BELOW else "delta-near"), values


def verdict_section(epsilon: float) -> str:
    return f"verdict-{protection_band(epsilon)}"


def odds_panel(epsilon: float, delta: float | None = None, *, key: str, n: int | None = None,
               what: str = "this release") -> None:
    """The panel, folded on a lesson page and open on the projector.

    `what` names the release in the text ("this release", "one query at this ε", …);
    `n` (people in the data) lets the δ paragraph compare δ with 1/n.
    """
    numbers = odds_numbers(epsilon, what)
    label = lessons.section_text(SLUG, "label", **numbers)
    verdict = lessons.section_text(SLUG, verdict_section(epsilon), **numbers)
    table = lessons.section_text(SLUG, "odds-table", **numbers)
    icons = icon_array(ICON_PRIOR, max_posterior(ICON_PRIOR, epsilon))
    delta_text = ""
    if delta:
        section, values = delta_numbers(delta, n)
        delta_text = (lessons.section_text(SLUG, "delta", **values) + "\n\n"
                      + lessons.section_text(SLUG, section, **values))
    if presenter_mode():  # the bound and the verdict on screen; the rest one click away,
        with st.container(border=True):  # so that the demo's deck step still fits 1280×720
            st.markdown(f"**{label}**\n\n{verdict}")
            with st.expander(lessons.section_text(SLUG, "more")):
                words, picture = st.columns([3, 2], gap="medium")
                words.markdown("\n\n".join(part for part in (table, delta_text) if part))
                with picture:
                    chart(icons, key=f"{key}_odds_icons")
        return
    with st.expander(label):
        st.markdown(verdict)
        st.markdown(lessons.section_text(SLUG, "odds", **numbers) + "\n\n" + table)
        chart(icons, key=f"{key}_odds_icons",  # a text alternative, as every chart has
              caption="Chart: " + lessons.section_text(SLUG, "icons", **numbers))
        if delta_text:
            st.markdown(delta_text)
