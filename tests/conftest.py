"""Shared fixtures: AppTest runs through app.py, and a live server with headless Chromium."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from bench.load import free_port, wait_until_serving
from ui.course import LESSONS, Lesson

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
REQUIRE_BROWSER = os.environ.get("REQUIRE_BROWSER") == "1"


def lesson(slug: str) -> Lesson:
    """The registered lesson with this slug."""
    return next(registered for registered in LESSONS if registered.slug == slug)


def assert_clean(at) -> None:
    """The run raised no exception (the user would have seen a traceback)."""
    assert not at.exception, [e.value for e in at.exception]


def page_text(at) -> str:
    """All markdown the run rendered, joined."""
    return " ".join(m.value for m in at.markdown)


def chart_specs(at) -> list[dict]:
    """The plotly specs of every chart the run rendered, as sent to the browser (but the deck's
    off-screen chart that only makes the browser load Plotly early, ui.lessons._load_element_code)."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")
            if not chart.proto.id.endswith("-dplab_deck_plotly_chart")]


def title(spec: dict) -> str:
    """A chart's title as a reader sees it: the theme breaks long titles with <br>."""
    return spec["layout"]["title"]["text"].replace("<br>", " ")


def chart_titles(at) -> list[str]:
    return [title(spec) for spec in chart_specs(at)]


ODDS_ICONS = "100 people she suspects"  # the odds panel's icon array (ui.charts.odds)


def demo_specs(at) -> list[dict]:
    """chart_specs without the odds panels' icon arrays: the demos' own charts."""
    return [spec for spec in chart_specs(at) if not title(spec).startswith(ODDS_ICONS)]


def demo_titles(at) -> list[str]:
    return [title(spec) for spec in demo_specs(at)]


def chart_by_title(at, prefix: str) -> dict:
    """The spec of the first chart whose title starts with `prefix`."""
    for spec in chart_specs(at):
        if title(spec).startswith(prefix):
            return spec
    raise AssertionError(f"no chart titled {prefix!r}")


def app_test(lesson: Lesson, query_params: dict | None = None) -> AppTest:
    """Run a page the way the server does: through app.py and st.navigation."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(query_params or {})
    at.switch_page(lesson.script)
    return at.run()


def run_coroutine(coroutine):
    """asyncio.run(coroutine) in a thread of its own.

    Once a Playwright browser test has run in this worker, its sync API keeps an event loop
    running in the main thread, and asyncio.run refuses to nest.
    """
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@contextlib.contextmanager
def serve_app():
    """A real `streamlit run app.py` on a free loopback port; yields its URL."""
    port = free_port()
    # The server's log goes to a file, not a pipe: nobody reads a pipe while the test runs, and
    # a server whose log filled the pipe's buffer would block in the middle of a test.
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log,
            # No warm-up (ui/warm.py, tested in test_warm.py): about 10 s of CPU per server
            # start, most of it for pages a test never opens, in the way of the tests' own.
            env={**os.environ, "DPLAB_WARM": "0"},
        )

        def server_log() -> str:
            log.seek(0)
            return log.read().decode(errors="replace")

        url = f"http://127.0.0.1:{port}"
        wait_until_serving(port, server, detail=server_log)
        try:
            yield url
        finally:
            server.terminate()
            try:  # a loaded machine can take a while to stop a server mid-warm-up
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(timeout=30)


@pytest.fixture(scope="session")
def app_url():
    with serve_app() as url:
        yield url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's Chromium (Playwright cannot download its own here)."""
    if not Path(CHROMIUM).exists():
        reason = "Chromium not found: install it with `apt-get install -y chromium`"
        if REQUIRE_BROWSER:
            pytest.fail(f"REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


def wait_for_app(page, timeout: float = 90_000) -> None:
    """Connected, and the script has finished running."""
    page.wait_for_selector("[data-testid=stApp][data-test-connection-state=CONNECTED]", timeout=timeout)
    page.wait_for_selector("[data-test-script-state=notRunning]", timeout=timeout)


def show_admin_link(page, timeout: float = 60_000) -> str:
    """Open the private panel, switch on "Show the admin link" and return the link.

    A switch keeps its state through the page's own reruns; a click that lands while the page is
    being redrawn can still miss the element it aimed at, so the switch is checked, not assumed."""
    page.get_by_text("Private admin link").click(timeout=timeout)
    switch = page.get_by_label("Show the admin link")
    link = page.locator("[data-testid=stCode]", has_text="admin=")
    for attempt in range(3):
        wait_for_app(page)
        if not switch.is_checked(timeout=timeout):
            page.get_by_text("Show the admin link", exact=True).click(timeout=timeout)
        try:
            link.wait_for(timeout=15_000)
            return link.inner_text().strip()
        except Exception:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def press(page, name: str, until, tries: int = 3, wait: float = 15_000) -> None:
    """Press the button `name` until the locator `until` shows, as an instructor would press
    again when nothing happens: on a loaded machine a press can land while the page is being
    redrawn (the live page redraws itself every few seconds) and be lost. Pressed again only
    while the button is still there, so an action that took effect slowly is not done twice."""
    button = page.get_by_role("button", name=name)
    for attempt in range(tries):
        if attempt == 0 or button.count():
            button.first.click(timeout=wait)
        try:
            until.first.wait_for(timeout=wait)
            return
        except Exception:
            if attempt == tries - 1:
                raise
