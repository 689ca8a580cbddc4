"""Where a warm move's server CPU goes, by library: py-spy on the server while one session moves.

    python bench/profile.py randomized-response            # 60 warm moves
    python bench/profile.py graphs --moves 90 --raw /tmp/graphs.txt

Starts `streamlit run app.py` (bench.load.streamlit_server, the warm-up of ui/warm.py off so
that only the moves are sampled), opens the page, visits six values of its main slider,
then samples the server with py-spy (`py-spy record -f raw`, 250 Hz) while the session moves
back and forth over those six cached values. Each busy sample goes to the library of its
innermost frame that belongs to one (stdlib frames count for their caller): Streamlit
(with protobuf), the web server, Plotly, numpy/scipy/dp, pandas/arrow, or our ui/ and
app_pages/ code. Idle samples (threads waiting) are left out. Needs py-spy (pip install py-spy)
and the right to trace a child process.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DPLAB_WARM"] = "0"  # the server inherits it

from bench.load import Session, streamlit_server  # noqa: E402

IDLE = ("select", "epoll", "wait (threading", "_worker (concurrent", "polling_path_watcher.py:90)")
LIBRARIES = [
    ("Streamlit", ("streamlit/", "google/protobuf")),
    ("web server (starlette, uvicorn, websockets)",
     ("starlette/", "uvicorn/", "websockets/", "anyio/", "h11/", "wsproto/")),
    ("Plotly", ("plotly/", "_plotly_utils/")),
    ("numpy, scipy, dp/ (compute)", ("numpy/", "scipy/", "dp/")),
    ("pandas, pyarrow (st.table, st.dataframe)", ("pandas/", "pyarrow/")),
    ("ours (ui/, app_pages/, app.py)", ("ui/", "app_pages/", "classroom/", "app.py", "serve.py")),
]


def library(path: str) -> str | None:
    for name, prefixes in LIBRARIES:
        if path.startswith(prefixes):
            return name
    return None


def buckets(raw: Path) -> tuple[int, collections.Counter]:
    """py-spy's raw output (one `frame;frame;… count` line per stack) summed by library."""
    counts: collections.Counter = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        if any(mark in frames[-1] for mark in IDLE):
            continue
        name = "event loop / stdlib only"
        for frame in reversed(frames):
            match = re.search(r"\((.*?):\d+\)$", frame)
            if match and library(match.group(1)):
                name = library(match.group(1))
                break
        counts[name] += int(n)
        total += int(n)
    return total, counts


async def sample(slug: str, moves: int, raw: Path) -> int:
    """Sample the server while one session moves; returns the deltas the last move sent."""
    with streamlit_server() as (pid, port):
        session = Session(port, slug)
        await session.open()
        for _ in range(6):  # six values, then back: all of them cached
            await session.move()
        session.direction *= -1
        for _ in range(6):
            await session.move()
        spy = subprocess.Popen(["py-spy", "record", "-p", str(pid), "-r", "250", "-f", "raw",
                                "-o", str(raw)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        time.sleep(1.5)  # py-spy attaches
        for i in range(moves):
            if i % 6 == 0:
                session.direction *= -1
            await session.move()
        elements = session.elements
        spy.send_signal(2)
        spy.wait(timeout=30)
        await session.close()
    return elements


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page")
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--raw", type=Path, help="keep py-spy's raw stacks here")
    args = parser.parse_args()
    if not shutil.which("py-spy"):
        sys.exit("py-spy not found: pip install py-spy")
    with tempfile.TemporaryDirectory() as scratch:
        raw = args.raw or Path(scratch) / "stacks.txt"
        elements = asyncio.run(sample(args.page, args.moves, raw))
        total, counts = buckets(raw)
    print(f"{args.page}: {args.moves} warm moves, {elements} deltas sent by the last one; "
          f"{total} busy samples at 250 Hz")
    for name, count in counts.most_common():
        print(f"{100 * count / max(total, 1):6.1f}%  {name}")


if __name__ == "__main__":
    main()
