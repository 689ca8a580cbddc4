"""Read every live sentence of a page at every setting: `python -m tests.render_variants SLUG`.

A sentence about a live value must be true at every setting the page's controls can reach.
This tool renders a page through AppTest (the same way tests/test_pages.py does) at

- its defaults,
- each URL-bound control at each of its ends (the others at their defaults),
- all controls at their lows, all at their highs,
- a dozen seeded random combinations,

and prints every distinct rendering of every lesson section, grouped by section, so that one
person can read all the variants of a sentence side by side. Text a page writes without a
lesson section (captions, notices chosen in code) is listed at the end, also deduplicated.

It reads what the page renders without clicking buttons: a sentence shown only after a button
(e.g. "Repeat until refused") needs a page test that clicks it.

Options:
    --random N   how many random combinations (default 12)
    --seed S     seed of the random combinations (default 2014)
    --only NAME  print only sections whose name contains NAME
    --base K=V   hold a control at a value in every setting (repeatable), e.g. to read
                 a mode the defaults hide: --base comp_mode=Gaussian
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import defaultdict

import numpy as np
import streamlit.logger

import ui.lessons
from tests.conftest import app_test, lesson
from tests.links import open_folds
from ui.course import LESSONS

# (slug, section) -> {rendered text: [setting labels]}, filled while the page runs.
_rendered: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(dict)
_current_setting = ["defaults"]


def _record_section_text():
    """Wrap ui.lessons.section_text so every filled section is recorded with its setting."""
    original = ui.lessons.section_text

    def recording(slug: str, name: str, **values) -> str:
        text = original(slug, name, **values)
        _rendered[(slug, name)].setdefault(text, []).append(_current_setting[0])
        return text

    ui.lessons.section_text = recording


def _controls(at) -> dict[str, list[str]]:
    """Every URL-bound control of the page and the values a link can give it, low to high."""
    controls: dict[str, list[str]] = {}

    def as_link(v) -> str:
        return str(int(v)) if float(v).is_integer() else repr(float(v))

    for widget in [*at.slider, *at.number_input]:
        if widget.key and widget.proto.query_param_key:
            low, high = as_link(widget.min), as_link(widget.max)
            step = float(getattr(widget, "step", None) or 1)
            lo, hi = float(widget.min), float(widget.max)
            middle = as_link(lo + round((hi - lo) / 2 / step) * step)
            controls[widget.key] = [low, middle, high]
    for widget in at.select_slider:
        if widget.key and widget.proto.query_param_key:
            controls[widget.key] = list(widget.options)
    for widget in [*at.radio, *at.selectbox]:
        if widget.key and widget.proto.query_param_key:
            controls[widget.key] = [str(option) for option in widget.options]
    for widget in at.toggle:
        if widget.key and widget.proto.query_param_key and widget.key != "present":
            controls[widget.key] = ["false", "true"]
    for widget in at.get("button_group"):
        if widget.key and widget.proto.query_param_key:
            controls[widget.key] = [str(option.content) for option in widget.proto.options]
    return controls


def settings(controls: dict[str, list[str]], random_count: int, seed: int):
    """(label, query) pairs: defaults, each control's ends, all low, all high, random mixes."""
    yield "defaults", {}
    for key, values in controls.items():
        yield f"{key}={values[0]}", {key: values[0]}
        yield f"{key}={values[-1]}", {key: values[-1]}
    if len(controls) > 1:
        yield "all low", {key: values[0] for key, values in controls.items()}
        yield "all high", {key: values[-1] for key, values in controls.items()}
    rng = np.random.default_rng(seed)
    for i in range(random_count):
        query = {key: values[rng.integers(len(values))] for key, values in controls.items()}
        yield f"random {i + 1}: " + " ".join(f"{k}={v}" for k, v in query.items()), query


def _other_text(at) -> list[str]:
    """Rendered text that did not come from a lesson section: captions, alerts, markdown."""
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    for kind in ("info", "warning", "success", "error"):
        texts += [element.value for element in getattr(at, kind)]
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slug", choices=[registered.slug for registered in LESSONS])
    parser.add_argument("--random", type=int, default=12)
    parser.add_argument("--seed", type=int, default=2014)
    parser.add_argument("--only", default="")
    parser.add_argument("--base", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    base = dict(item.split("=", 1) for item in args.base)

    # AppTest's bare-mode warnings ("missing ScriptRunContext") would bury the output.
    streamlit.logger.set_log_level(logging.ERROR)
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").disabled = True
    _record_section_text()
    page = lesson(args.slug)
    first = app_test(page, base)
    controls = {key: values for key, values in _controls(first).items() if key not in base}
    if base:
        print(f"# held in every setting: {base}")
    print(f"# {args.slug}: controls " + ", ".join(f"{k} {v[0]}…{v[-1]}" for k, v in controls.items()))

    other: dict[str, list[str]] = {}
    failures = []
    _rendered.clear()
    for label, query in settings(controls, args.random, args.seed):
        _current_setting[0] = label
        at = open_folds(app_test(page, {**base, **query}))  # what a reader sees once opened
        if at.exception:
            failures.append((label, [e.value for e in at.exception]))
        section_texts = {text for per_section in _rendered.values() for text in per_section}
        for text in _other_text(at):
            if not any(text.strip() and text.strip() in s for s in section_texts):
                other.setdefault(text, []).append(label)

    for (slug, name), variants in _rendered.items():
        if args.only not in name:
            continue
        print(f"\n{'=' * 100}\n## {slug} · section `{name}` · {len(variants)} distinct rendering(s)")
        for text, labels in variants.items():
            shown = ", ".join(dict.fromkeys(labels))
            print(f"\n--- at: {shown[:300]}{'…' if len(shown) > 300 else ''}\n{text}")
    if not args.only:
        print(f"\n{'=' * 100}\n## text not from a lesson section · {len(other)} distinct")
        for text, labels in other.items():
            shown = ", ".join(dict.fromkeys(labels))
            print(f"\n--- at: {shown[:200]}{'…' if len(shown) > 200 else ''}\n{text}")
    for label, errors in failures:
        print(f"\n!! exception at {label}: {errors}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
