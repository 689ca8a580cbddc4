"""The "What are the chances?" panel: what one release's ε (and δ) means for one person or tie.

Put `odds_panel(release, key=…, what=…)` beside a page's main ε control, where `release` is a
dp.odds.Release that says what the page publishes (pure ε, Gaussian, k Laplace answers, a
mechanism with a bad event) and whose presence it hides (a person, or a tie of a graph). It
shows, from dp.odds (the posterior bound expit(logit(p) ± ε) of dp.attacks.posterior_bounds):

- the odds bound e^ε, and what it does to a 1%, 10% and 50% suspicion (at most and at least),
  with its condition (the other records fixed, or independent of yours: the twin);
- an icon array of 100 people suspected at 10%: how sure the release can make her of each;
- a one-line verdict chosen by dp.odds.protection_band (bands defined by what happens to a
  coin-toss guess, so every verdict holds at every ε in its band);
- with δ: on how many outputs the bound fails for *this* mechanism (Release.rare_chance), how
  often a coin-toss suspicion ends above 75% and 90% where the mechanism fixes that, what the
  additive slack means, and δ against 1/n (or 1/m ties). No verdict without that exception,
  and none at all when the exception is not rare (dp.odds.RARE_CHANCE).

Folded in an expander on lesson pages. In presenter mode the bound and the verdict are on
screen, in a bordered box, and the table and icons sit in an expander inside it. The words
are in lessons/odds.md. Every percentage is rounded *outwards*: an "at most" up, an "at
least" down, so a printed bound is never tighter than the true one.
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from dp.odds import RARE_CHANCE, Release, max_posterior, min_posterior, protection_band
from ui import lessons
from ui.charts.odds import icon_array, icon_counts
from ui.presenter import presenter_mode
from ui.show import chart

SLUG = "odds"
PRIORS = {"one": 0.01, "ten": 0.10, "even": 0.50}
ICON_PRIOR = 0.10
FAR_BELOW = 100  # "δ ≪ 1/n": at least a hundred times smaller


def _without_float_noise(x: float) -> float:
    """x to 12 significant digits: 1/(1000·10⁻¹²) is 999,999,999.9999999 in floats, not 10⁹."""
    return float(f"{x:.12g}")


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
    value = _without_float_noise(100 * p)  # 100·0.1 = 10.000000000000002
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
    value = _without_float_noise(100 * p)
    if value <= 0 or value >= 100:
        return _percent_text(value, 0)
    decimals = _decimals(value, significant)
    shown = math.floor(value * 10**decimals) / 10**decimals
    return _percent_text(shown, decimals)


SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
NEAR_CERTAIN = 1e-10  # closer than this to 0 or 1, a posterior is written as a power of ten


def _power_of_ten(exponent: int) -> str:
    return "10" + str(exponent).translate(SUPERSCRIPTS)


def _log10_expit(x: float) -> float:
    """log10 of expit(x) = 1/(1 + e^−x), without underflow at any x."""
    return -float(np.logaddexp(0.0, -x)) / math.log(10)


def posterior_at_most(prior: float, epsilon: float) -> str:
    """The most sure an attacker can become, expit(logit(p) + ε), rounded up; never "100%":
    within 10⁻¹⁰ of certainty it is "1 − 10⁻ᵏ" with 10⁻ᵏ no more than the true distance to 1."""
    log10_miss = _log10_expit(-(math.log(prior / (1 - prior)) + epsilon))  # 1 − expit(x) = expit(−x)
    if log10_miss > math.log10(NEAR_CERTAIN):
        return percent_at_most(max_posterior(prior, epsilon))
    return f"1 − {_power_of_ten(math.floor(log10_miss))}"


def posterior_at_least(prior: float, epsilon: float) -> str:
    """The least sure she can become, expit(logit(p) − ε), rounded down; never "0%":
    below 10⁻¹⁰ it is "10⁻ᵏ" with 10⁻ᵏ no more than the true value."""
    log10_low = _log10_expit(math.log(prior / (1 - prior)) - epsilon)
    if log10_low > math.log10(NEAR_CERTAIN):
        return percent_at_least(min_posterior(prior, epsilon))
    return _power_of_ten(math.floor(log10_low))


def chance_of(p: float, things: str, log10_p: float | None = None) -> str:
    """A chance as a share of `things` ("releases", "outputs"), never understated:
    "23.2% of releases"; below 1 in 1,000 "1 in 6,200 releases" (N rounded down to two
    significant digits, so 1/N ≥ p); below 10⁻⁹ "at most 1 in 10¹⁵ releases" (from log10_p
    when p underflows); "none of the releases" only for a chance that is exactly 0."""
    if p == 0 and (log10_p is None or log10_p == -math.inf):
        return f"none of the {things}"
    if p >= 1e-3:
        return f"{percent_at_most(p)} of {things}"
    if p >= 1e-9:
        inverse = _without_float_noise(1 / p)
        digits = math.floor(math.log10(inverse)) - 1
        return f"1 in {math.floor(inverse / 10**digits) * 10**digits:,} {things}"
    exponent = math.floor(-(log10_p if log10_p is not None else math.log10(p)))
    return f"at most 1 in {_power_of_ten(exponent)} {things}"


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


# whose presence the release hides, by dp.odds.Release.unit: (letter, thing, things, subjects)
UNIT_WORDS = {"person": ("n", "record", "records", "people"),
              "tie": ("m", "tie", "ties", "possible ties")}
PRESENCE_WORDS = {"person": {"without": "without you", "with": "with you", "once_in": "once you are in"},
                  "tie": {"without": "without the tie", "with": "with it", "once_in": "once the tie is there"}}


def odds_numbers(release: Release, what: str = "this release") -> dict:
    """The panel's live values for the lesson text (strings, already rounded outwards)."""
    epsilon = release.epsilon
    letter, thing, things, subjects = UNIT_WORDS[release.unit]
    numbers = {"eps": epsilon_text(epsilon), "what": what, "mult": approx_exp(epsilon),
               "letter": letter, "thing": thing, "things": things, "subjects": subjects,
               "except": "", "except_each": "", "scope": ""}
    for name, prior in PRIORS.items():
        numbers[f"{name}_hi"] = posterior_at_most(prior, epsilon)
        numbers[f"{name}_lo"] = posterior_at_least(prior, epsilon)
    numbers["forty_hi"] = posterior_at_most(0.4, epsilon)
    numbers["twin_hi"] = posterior_at_most(0.4, 2 * epsilon)
    if release.degree is not None:
        group = release.degree * epsilon
        numbers.update(degree=f"{release.degree:,}", group_eps=epsilon_text(group),
                       group_even_hi=posterior_at_most(0.5, group))
    after = max_posterior(ICON_PRIOR, epsilon)
    before, added = icon_counts(ICON_PRIOR, after)
    numbers.update(prior=f"{ICON_PRIOR:.0%}", before=before, after=posterior_at_most(ICON_PRIOR, epsilon),
                   after_count=before + added,
                   colours="blue and orange" if added else
                   "the release adds less than one whole dot, so there is no orange")
    if release.delta:
        numbers["delta"] = f"{release.delta:g}"
    if has_exception(release):
        chance, log10_chance = release.rare_chance(), release.log10_loss_exceeds(release.epsilon)
        rare = {"rare_outputs": chance_of(chance, "outputs", log10_chance),
                "rare_releases": chance_of(chance, "releases", log10_chance)}
        numbers.update(rare)
        numbers["except"] = lessons.section_text(SLUG, "except", **rare)
        numbers["except_each"] = lessons.section_text(SLUG, "except-each", **rare)
        numbers["scope"] = lessons.section_text(SLUG, "scope-delta", **rare)
    return numbers


def has_exception(release: Release) -> bool:
    """Whether some outputs of this release break the e^ε bound (never with δ = 0)."""
    return release.delta > 0 and release.log10_loss_exceeds(release.epsilon) > -math.inf


def delta_parts(release: Release, numbers: dict) -> dict:
    """With δ > 0: the verdict's exception, how rare it is, the coin-toss chances, the δ paragraph."""
    parts = {}
    if release.loss == "laplace-sum":
        hard = release.ceiling
        beyond = lessons.section_text(SLUG, "beyond-basic", queries=f"{release.queries:,}",
                                      hard_mult=approx_exp(hard),
                                      hard_even_hi=posterior_at_most(0.5, hard))
    else:
        beyond = lessons.section_text(SLUG, "beyond-none")
    verdict = verdict_section(release)
    wide = wide_numbers(release) if verdict == "verdict-delta-wide" else {}
    parts["verdict"] = lessons.section_text(SLUG, verdict, beyond=beyond, **wide, **numbers)
    parts["rare"] = lessons.section_text(SLUG, f"rare-{release.loss}", queries=f"{release.queries:,}",
                                         **numbers)
    above = {level: release.chance_above(0.5, level / 100) for level in (75, 90)}
    log10_above = {level: release.log10_loss_exceeds(math.log(level / (100 - level))) for level in above}
    if release.loss in ("gaussian", "laplace-sum"):  # the mechanism fixes these chances, not only bounds them
        worst = " " + lessons.section_text(SLUG, "worst-gaussian") if release.loss == "gaussian" else ""
        parts["rare"] += " " + lessons.section_text(
            SLUG, "coin-toss", above_75=chance_of(above[75], "releases", log10_above[75]),
            above_90=chance_of(above[90], "releases", log10_above[90]),
            worst=worst)
    return parts


def delta_paragraph(release: Release) -> str:
    section, values = delta_numbers(release)
    return lessons.section_text(SLUG, "delta", **values) + "\n\n" + lessons.section_text(SLUG, section, **values)


def delta_numbers(release: Release) -> tuple[str, dict]:
    """The δ paragraph's comparison section and its values: δ against 1/n (or 1/m ties)."""
    delta, count = release.delta, release.units
    letter, thing, things, _ = UNIT_WORDS[release.unit]
    values = {"delta": f"{delta:g}", "one_in": _count(_without_float_noise(1 / delta)),
              "letter": letter, "thing": thing, "things": things, **PRESENCE_WORDS[release.unit]}
    if count is None:
        return "delta-no-n", values
    values["n"] = f"{count:,}"
    ratio = _without_float_noise(1 / (count * delta))
    if ratio <= 1:
        values["leaks"] = _count(count * delta)
        return "delta-over", values
    values["ratio"] = f"{math.floor(ratio):,}" if ratio >= 10 else f"{math.floor(10 * ratio) / 10:g}"
    return ("delta-far" if ratio >= FAR_BELOW else "delta-near"), values


def verdict_section(release: Release) -> str:
    """verdict-<band> for pure ε; with δ, verdict-delta-<band> when the outputs that break the
    e^ε bound are rare (chance at most dp.odds.RARE_CHANCE); verdict-delta-wide when they are
    not, but an ε′ with rare exceptions is known (Release.rare_epsilon); else verdict-delta-common."""
    band = protection_band(release.epsilon)
    if not has_exception(release):
        return f"verdict-{band}"
    if release.rare_chance() <= RARE_CHANCE:
        return f"verdict-delta-{band}"
    return "verdict-delta-common" if release.rare_epsilon() is None else "verdict-delta-wide"


def epsilon_up(epsilon: float) -> float:
    """ε rounded *up* to the 4 significant digits epsilon_text shows (a ceiling stays a ceiling)."""
    digits = 3 - math.floor(math.log10(epsilon))
    return math.ceil(_without_float_noise(epsilon * 10**digits)) / 10**digits


def wide_numbers(release: Release) -> dict:
    """The verdict's values when the e^ε exceptions are not rare: ε′ (rounded up) and its ceiling."""
    wide = epsilon_up(release.rare_epsilon())
    return {"title": lessons.section_text(SLUG, f"title-{protection_band(wide)}"),
            "wide_eps": epsilon_text(wide), "wide_mult": approx_exp(wide),
            "wide_even_hi": posterior_at_most(0.5, wide), "one_in_rare": chance_of(RARE_CHANCE, "outputs")}


def panel_parts(release: Release, what: str = "this release") -> dict[str, str]:
    """Every sentence of the panel, by part: label, verdict, odds, table, icons and (with δ)
    rare and delta. Streamlit-free, so tests read exactly what a page shows."""
    numbers = odds_numbers(release, what)
    exception = has_exception(release)
    parts = {"label": lessons.section_text(SLUG, "label-delta" if exception else "label", **numbers),
             "odds": lessons.section_text(SLUG, f"odds-{release.unit}", **numbers),
             "table": lessons.section_text(SLUG, "odds-table", **numbers),
             "icons": lessons.section_text(SLUG, "icons", **numbers)}
    if exception:
        parts.update(delta_parts(release, numbers))
    else:
        parts["verdict"] = lessons.section_text(SLUG, verdict_section(release), **numbers)
    if release.delta:
        parts["delta"] = delta_paragraph(release)
    return parts


def odds_panel(release: Release, *, key: str, what: str = "this release") -> None:
    """The panel, folded on a lesson page and open on the projector.

    `release` (dp.odds.Release) says what the page publishes; `what` names it in the text
    ("this release", "all 10 queries together", …).
    """
    parts = panel_parts(release, what)
    label, verdict, table = parts["label"], parts["verdict"], parts["table"]
    icons = icon_array(ICON_PRIOR, max_posterior(ICON_PRIOR, release.epsilon))
    delta_text = "\n\n".join(parts[name] for name in ("rare", "delta") if name in parts)
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
        st.markdown(parts["odds"] + "\n\n" + table)
        chart(icons, key=f"{key}_odds_icons",  # a text alternative, as every chart has
              caption="Chart: " + parts["icons"])
        if delta_text:
            st.markdown(delta_text)
