"""What a following phone's tick costs at the least: Streamlit's floor for a fragment rerun.

    python bench/follow_floor.py [--sessions 150] [--seconds 15] [--browser | --route]

A tiny app (written to a temporary folder, with the repo's .streamlit/config.toml) holds one
fragment with run_every=2 s that draws, depending on ?mode=: nothing (`empty`), one st.info
(`info`: a phone waiting for the next question), or a quiz's prompt, caption and four buttons
(`quiz`). `--sessions` clients of bench/load.py tick it as phones would, for `--seconds` per
mode (twice each, interleaved); the server's CPU time per tick is the cost of a rerun with
that much drawing and none of our code. It bounds what "a cheaper follow" that still reruns
on the server every tick can save.

`--browser`: Chromium opens a fragment that draws a question twice and then returns without
drawing; the report says what the page shows after that no-op tick. (In Streamlit 1.67 the
fragment's earlier elements are cleared: a follow that skips drawing when nothing changed
leaves the phone blank.)

`--route`: what the alternative would cost, a follow that asks a small HTTP route for the
session's version and reruns nothing while it has not moved. A tiny `st.App` (Streamlit 1.67:
`streamlit run` of a file defining `app = st.App(page, routes=[...])` serves the page and the
routes) with one route answering a constant; `--sessions` keep-alive clients
each ask it every 2 s; the server's CPU time per request.

Loopback only; bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import Session, cpu_seconds, free_port, wait_until_serving  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MODES = ("empty", "info", "quiz")

TICK_APP = '''
import streamlit as st

mode = st.query_params.get("mode", "empty")
st.title("Follow floor")


@st.fragment(run_every=2)
def follow():
    if mode == "info":
        st.info("Waiting for the instructor's next question.", icon="⏳")
    elif mode == "quiz":
        st.markdown("#### Which option?")
        st.caption("Voting closes in about 20 s")
        for i in range(4):
            st.button(f"{'ABCD'[i]}. option {i}", key=f"vote_{i}", width="stretch")


follow()
'''

NO_OP_APP = '''
import streamlit as st

st.session_state.setdefault("ticks", 0)


@st.fragment(run_every=1)
def follow():
    st.session_state.ticks += 1
    if st.session_state.ticks <= 2:
        st.markdown("QUESTION on the phone")
        st.button("A. vote")
    # later ticks: nothing changed, so nothing is drawn


follow()
st.caption("below the fragment")
'''


ROUTE_APP = '''
import streamlit as st
from starlette.responses import PlainTextResponse
from starlette.routing import Route


async def version(request):
    return PlainTextResponse("7", headers={"Cache-Control": "no-store"})


app = st.App("page.py", routes=[Route("/live/version/{code}", version)])
'''


def serve(folder: Path, source: str, page: str | None = None):
    (folder / "app.py").write_text(source)
    if page is not None:
        (folder / "page.py").write_text(page)
    shutil.copytree(ROOT / ".streamlit", folder / ".streamlit", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("secrets.toml"))
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until_serving(port, server)
    return server, port


async def tick_cost(port: int, pid: int, mode: str, count: int, seconds: float) -> tuple[float, float]:
    """Server CPU (cores) and CPU per tick (s) of `count` sessions ticking `mode` for `seconds`."""
    sessions = [Session(port, "", query={"mode": mode}) for _ in range(count)]
    for session in sessions:
        await session.open()
    fragment = next(iter(sessions[0].fragments))
    settle, ticks = 4.0, []
    stop_at = time.monotonic() + settle + seconds

    async def phone(session: Session) -> None:
        next_at = time.monotonic() + random.uniform(0, 2)
        while True:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            if time.monotonic() > stop_at:
                return
            await session.rerun_fragment(fragment)
            ticks.append(time.monotonic())
            next_at += 2

    tasks = [asyncio.create_task(phone(s)) for s in sessions]
    await asyncio.sleep(settle)
    cpu0, wall0, ticks0 = cpu_seconds(pid), time.monotonic(), len(ticks)
    await asyncio.gather(*tasks)
    wall, used = time.monotonic() - wall0, cpu_seconds(pid) - cpu0
    await asyncio.gather(*(s.close() for s in sessions))
    return used / wall, used / max(1, len(ticks) - ticks0)


def floor(count: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory(prefix="dplab-floor.") as folder:
        server, port = serve(Path(folder), TICK_APP)
        try:
            print(f"{count} sessions ticking one fragment every 2 s, {seconds:g} s per mode")
            print(f"{'mode':<8}{'server CPU':>12}{'per tick':>11}{'load avg':>10}")
            for mode in MODES * 2:
                cores, per_tick = asyncio.run(tick_cost(port, server.pid, mode, count, seconds))
                print(f"{mode:<8}{cores:>11.2f}c{1000 * per_tick:>8.2f} ms{os.getloadavg()[0]:>10.1f}")
        finally:
            server.terminate()
            server.wait(timeout=20)


async def route_cost(port: int, pid: int, count: int, seconds: float) -> tuple[float, float]:
    """Server CPU (cores) and CPU per request (s) of `count` clients asking every 2 s."""
    settle, answered = 4.0, []
    stop_at = time.monotonic() + settle + seconds

    async def phone() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.sleep(random.uniform(0, 2))
        while time.monotonic() < stop_at:
            writer.write(f"GET /live/version/ABC123 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            await writer.drain()
            head = (await reader.readuntil(b"\r\n\r\n")).decode().lower().split("\r\n")
            length = next(int(line.split(":")[1]) for line in head if line.startswith("content-length"))
            if await reader.readexactly(length) != b"7":
                raise RuntimeError("the version route answered something else")
            answered.append(time.monotonic())
            await asyncio.sleep(2)
        writer.close()

    tasks = [asyncio.create_task(phone()) for _ in range(count)]
    await asyncio.sleep(settle)
    cpu0, wall0, answered0 = cpu_seconds(pid), time.monotonic(), len(answered)
    await asyncio.sleep(seconds)
    wall, used = time.monotonic() - wall0, cpu_seconds(pid) - cpu0
    requests = len(answered) - answered0
    await asyncio.gather(*tasks)
    return used / wall, used / max(1, requests)


def route(count: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory(prefix="dplab-route.") as folder:
        server, port = serve(Path(folder), ROUTE_APP, page="import streamlit as st\nst.write('page')\n")
        try:
            print(f"{count} clients asking an st.App route for a version every 2 s, {seconds:g} s, twice")
            for _ in range(2):
                cores, per_request = asyncio.run(route_cost(port, server.pid, count, seconds))
                print(f"server CPU {cores:.2f}c, {1000 * per_request:.2f} ms per request, "
                      f"load average {os.getloadavg()[0]:.1f}")
        finally:
            server.terminate()
            server.wait(timeout=20)


def no_op_in_chromium() -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    with tempfile.TemporaryDirectory(prefix="dplab-noop.") as folder:
        server, port = serve(Path(folder), NO_OP_APP)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{port}/")
                page.get_by_text("QUESTION on the phone").wait_for(timeout=60_000)
                print("Drawn: " + " | ".join(page.locator("[data-testid=stMain]").inner_text().split("\n\n")))
                page.get_by_text("QUESTION on the phone").wait_for(state="detached", timeout=20_000)
                page.wait_for_timeout(2_000)  # two more no-op ticks
                print("After no-op ticks: "
                      + " | ".join(page.locator("[data-testid=stMain]").inner_text().split("\n\n")))
                browser.close()
        except PlaywrightTimeout as error:
            print(f"The question stayed on the page ({error}).")
        finally:
            server.terminate()
            server.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=150)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--browser", action="store_true",
                        help="only: what Chromium shows after a fragment run that draws nothing")
    parser.add_argument("--route", action="store_true",
                        help="only: the cost of asking an st.App route for the version instead")
    args = parser.parse_args()
    if args.browser:
        no_op_in_chromium()
    elif args.route:
        route(args.sessions, args.seconds)
    else:
        floor(args.sessions, args.seconds)


if __name__ == "__main__":
    main()
