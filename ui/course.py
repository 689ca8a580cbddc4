"""The course map: every page of DP Lab, registered in one place.

app.py builds the navigation from it, the home page draws its cards from it, and the
tests parametrise over it. Add a lesson here and nowhere else.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Lesson:
    slug: str  # URL path, widget-key prefix and lessons/<slug>.md
    title: str
    icon: str
    section: str
    blurb: str  # one line for the course map

    @property
    def script(self) -> str:
        return f"app_pages/{self.slug}.py"


# Section order is the order of the course. "" is the untitled top of the navigation.
SECTIONS = ["", "Foundations", "Mechanisms", "Composition & attacks", "Beyond noise addition",
            "Classroom"]

HOME = Lesson(
    slug="home",
    title="Start here",
    icon="🧭",
    section="",
    blurb="The course map, and how to use DP Lab in a lecture.",
)

LESSONS: list[Lesson] = [
    HOME,
    Lesson("anonymisation", "Why anonymisation fails", "🕵️", "Foundations",
           "Linkage, differencing and reconstruction attacks on 'anonymous' data."),
    Lesson("definition", "What DP promises", "📐", "Foundations",
           "Neighbouring datasets, the e^ε band, and what an attacker can still learn."),
    Lesson("randomized-response", "Randomized response", "🪙", "Foundations",
           "Private answers with coin flips: local DP, debiasing, and its cost."),
    Lesson("laplace", "The Laplace mechanism", "📈", "Mechanisms",
           "Sensitivity, noise scale b = Δ/ε, noisy histograms and accuracy."),
    Lesson("gaussian", "Laplace vs Gaussian", "🔔", "Mechanisms",
           "Tails, (ε, δ) and why δ must be much smaller than 1/n."),
    Lesson("exponential", "The exponential mechanism", "🎯", "Mechanisms",
           "Private choices: most common disease, medians and a digital-goods auction."),
    Lesson("composition", "Composition", "➕", "Composition & attacks",
           "How privacy loss adds up over k queries: basic, advanced and exact."),
    Lesson("budget", "Averaging attacks and the budget", "🧮", "Composition & attacks",
           "Repeat a noisy query and the noise averages away; a budget stops it."),
    Lesson("local-sensitivity", "Local sensitivity and its traps", "🪤", "Beyond noise addition",
           "Why noise scaled to the data at hand leaks, and the safe fixes: PTR, smooth sensitivity."),
    Lesson("graphs", "Privacy for graphs", "🕸️", "Beyond noise addition",
           "Edge versus node privacy, and a private triangle count."),
    Lesson("machine-learning", "Privacy in machine learning", "🤖", "Beyond noise addition",
           "Membership inference, DP-SGD, and federated averaging."),
    Lesson("poll-instructor", "Class poll — instructor", "📊", "Classroom",
           "Run a live randomized-response poll: join code, QR code, the debiased result live."),
    Lesson("poll-join", "Class poll — join", "📱", "Classroom",
           "Answer the class poll on your phone, with real coins or coins the app flips."),
    Lesson("live-instructor", "Live class — instructor", "📡", "Classroom",
           "One join for the lecture: push any lesson quiz (two rounds), a poll or the class game."),
    Lesson("live-join", "Live class — join", "🙋", "Classroom",
           "Join once on your phone and follow the lecture's questions as they come."),
]


def lessons_in(section: str) -> list[Lesson]:
    return [lesson for lesson in LESSONS if lesson.section == section]


def navigation() -> dict[str, list]:
    """The st.navigation mapping: one st.Page per lesson, grouped by section, in course order."""
    import streamlit as st

    pages = {
        section: [
            st.Page(lesson.script, title=lesson.title, icon=lesson.icon,
                    url_path=None if lesson is HOME else lesson.slug, default=lesson is HOME)
            for lesson in lessons_in(section)
        ]
        for section in SECTIONS
        if lessons_in(section)
    }
    if os.environ.get("DPLAB_BENCH") == "1":
        # bench/browser.py times the app's pages against bare ones served by the same server.
        pages[""] += [st.Page(str(ROOT / "bench" / script), title=title, url_path=url_path,
                              visibility="hidden") for script, title, url_path in BENCH_PAGES]
    return pages


# Hidden reference pages, registered only when DPLAB_BENCH=1 (never in the course).
BENCH_PAGES = [("reference_page.py", "Bench reference", "bench-reference"),
               ("reference_chart_page.py", "Bench reference with a chart", "bench-reference-chart")]
