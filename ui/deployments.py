"""Real deployments on the ε axis: published ε values as context for discussion, not advice.

The data are lessons/deployments.toml (written from the OpenDP deployments registry, one row
per release, each with its unit of privacy and how often its ε renews); the words are
lessons/deployments.md. `deployments_panel(epsilon, key=…)` shows them on a log ε axis with
the page's ε as a dashed line, and a table with units, neighbouring relations and sources.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

import pyarrow as pa
import streamlit as st

from ui import lessons
from ui.charts.odds import deployments_figure
from ui.course import ROOT
from ui.presenter import presenter_mode
from ui.show import chart, fold

SLUG = "deployments"
DATA = ROOT / "lessons" / "deployments.toml"
FIELDS = ("organisation", "release", "short", "epsilon", "delta", "unit", "renews", "per_year",
          "neighbours", "model", "mechanism", "registry", "document", "note")
RENEWS = ("once", "per day", "per month", "per 6-hour round", "per event", "per query")


@lru_cache(maxsize=4)
def _read(path: Path, mtime: float) -> tuple[dict, ...]:
    return tuple(tomllib.loads(path.read_text(encoding="utf-8"))["deployment"])


def deployments() -> tuple[dict, ...]:
    """Every row of lessons/deployments.toml (re-read when the file changes)."""
    return _read(DATA, DATA.stat().st_mtime)


def year_total(row: dict) -> float | None:
    """ε summed over a year of releases (basic composition), or None if it has no yearly count."""
    return row["epsilon"] * row["per_year"] if row["per_year"] else None


def delta_text(delta) -> str:
    if isinstance(delta, str):
        return delta
    return "0 (pure DP)" if delta == 0 else f"{delta:g}"


def position_text(epsilon: float, rows: tuple[dict, ...]) -> str:
    """Where ε sits among the published values, by count (units aside)."""
    values = [row["epsilon"] for row in rows]
    below = sum(value < epsilon for value in values)
    equal = sum(value == epsilon for value in values)
    above = len(values) - below - equal
    if above == len(values):
        return f"below all {len(values)} published values"
    if below == len(values):
        return f"above all {len(values)} published values"
    parts = [f"above {below}" if below else "", f"equal to {equal}" if equal else "",
             f"below {above}" if above else ""]
    return ", ".join(part for part in parts if part) + f" of the {len(values)} published values"


def table(rows: tuple[dict, ...]) -> dict[str, list]:
    """The rows as columns for st.dataframe."""
    def epsilon_cell(row):
        rho = f" (ρ = {row['rho']:g})" if "rho" in row else ""
        return f"{row['epsilon']:g}{rho}"

    def year_cell(row):
        total = year_total(row)
        return f"{total:,.0f}" if total is not None and total >= 100 else (
            f"{total:.3g}" if total is not None else "")

    return {
        "Organisation": [row["organisation"] for row in rows],
        "Release": [row["release"] for row in rows],
        "ε": [epsilon_cell(row) for row in rows],
        "δ": [delta_text(row["delta"]) for row in rows],
        "Unit of privacy": [row["unit"] for row in rows],
        "ε spent": [row["renews"] for row in rows],
        "A year, at most": [year_cell(row) for row in rows],
        "Neighbours": [row["neighbours"] for row in rows],
        "Model": [row["model"] for row in rows],
        "Mechanism": [row["mechanism"] for row in rows],
        "Note": [row["note"] for row in rows],
        "Organisation's document": [row["document"] for row in rows],
        "Registry file": [row["registry"] for row in rows],
    }


@lru_cache(maxsize=1)
def _arrow_table() -> pa.Table:
    """The table as Arrow, built once per process. Given the dict, st.dataframe converts it
    through pandas on every send (~6 ms of a move on a loaded machine; 0.1 ms from Arrow)."""
    return pa.table(table(deployments()))


def deployments_panel(epsilon: float | None = None, *, key: str,
                      what: str = "this page's ε") -> None:
    """The chart and the table, folded (on the projector too: the chart alone is a slide)."""
    rows = deployments()
    if (box := fold(lessons.section_text(SLUG, "label"), key=f"{key}_deployments_fold")) is None:
        return
    with box:
        st.markdown(lessons.section_text(SLUG, "intro"))
        if epsilon is not None:
            st.markdown(lessons.section_text(SLUG, "position", what=what, eps=f"{epsilon:g}",
                                             position=position_text(epsilon, rows)))
        chart(deployments_figure(rows, epsilon, what), key=f"{key}_deployments")
        if not presenter_mode():
            st.dataframe(_arrow_table(), hide_index=True, width="stretch", column_config={
                "Organisation's document": st.column_config.LinkColumn(),
            })
            st.caption(lessons.section_text(SLUG, "table-note"))
