"""The background warm-up of the slowest first visits (ui/warm.py, issue 16)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from bench.load import Session, free_port, wait_until_serving
from tests.conftest import ROOT, app_test, assert_clean, lesson, run_coroutine
from ui import warm
from ui.course import LESSONS

DONE = "DP Lab warm-up done"


def test_no_warm_up_under_apptest_or_when_switched_off(monkeypatch):
    at = app_test(lesson("graphs"))  # app.py calls warm.start() on every run
    assert_clean(at)
    assert warm.start() is False  # AppTest's runtime is a stand-in: nothing to visit
    assert not warm.done.is_set() and not warm.visited
    monkeypatch.setenv("DPLAB_WARM", "0")
    assert warm.start() is False


@pytest.mark.parametrize("launcher", [["-m", "streamlit", "run", "app.py"], ["-m", "serve"]],
                         ids=["streamlit run", "python -m serve"])
def test_the_server_opens_every_deck_and_visits_every_main_slider_value_of_the_slow_pages_once(launcher, tmp_path):
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, *launcher, "--server.port", str(port), "--server.address",
             "127.0.0.1", "--server.headless", "true"],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, "DPLAB_WARM": "1", "OPENBLAS_NUM_THREADS": "1"})
    try:
        wait_until_serving(port, server, detail=log.read_text)
        assert DONE not in log.read_text()  # nothing is warmed before anyone comes

        async def options() -> dict[str, list[str]]:
            shown = {}
            for slug in warm.WARM_PAGES:  # a visitor's session starts the walk
                session = Session(port, slug)
                await session.open()
                slider = session.widgets[session.slider_id].proto
                shown[slug] = [f"{slider.query_param_key}={label}" for label in slider.options]
                await session.close()
            return shown

        shown = run_coroutine(options())
        deadline = time.monotonic() + 120
        while DONE not in log.read_text():
            assert "warm-up stopped early" not in log.read_text(), log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.5)
        text = log.read_text()
        line = next(line for line in text.splitlines() if DONE in line)
        for slug, values in shown.items():
            assert len(values) >= 5
            assert f"{slug} at {', '.join(values)}" in line, line
        # Every lesson's deck at its defaults, the class pages left out (issue 27)
        lesson_pages = [lesson.slug for lesson in LESSONS if lesson.section != "Classroom"]
        assert f"decks {', '.join(lesson_pages)};" in line, line
        assert len(lesson_pages) >= 12
        assert text.count(DONE) == 1  # once per process, however many sessions came
        assert "Traceback" not in text
    finally:
        server.terminate()
        server.wait(timeout=20)
