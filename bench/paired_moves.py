"""Warm moves on two trees at once, interleaved: CPU per move with the machine's load shared.

    git worktree add /tmp/before <commit>
    python bench/paired_moves.py /tmp/before [--page randomized-response] [--moves 80]

`single` (bench/load.py) runs one tree after the other; on a shared machine whose load average
moves between 4 and 12 within minutes, two such runs differ by more than a change of a few
milliseconds. This starts `streamlit run app.py` in the given tree and in this one, opens the
page on each, visits eight values of the main slider each way (so every cache holds them), and
then moves each server's slider in turn, one move at a time, alternating which goes first:
both trees see the same load. It prints each server's CPU per warm move (user + system from
/proc) and the elements one move sends. The warm-up of ui/warm.py is off (DPLAB_WARM=0): only
the page's own values are visited.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DPLAB_WARM"] = "0"  # the servers inherit it

from bench import load  # noqa: E402

VISITED = 8  # slider values visited each way before measuring


async def paired(trees: dict[str, Path], page: str, moves: int) -> None:
    with contextlib.ExitStack() as stack:
        servers = {}
        for name, tree in trees.items():
            load.ROOT = tree  # streamlit_server runs app.py in load.ROOT
            servers[name] = stack.enter_context(load.streamlit_server())
        sessions = {}
        for name, (_, port) in servers.items():
            session = load.Session(port, page)
            await session.open()
            for _ in range(2):
                for _ in range(VISITED):
                    await session.move()
                session.direction *= -1
            sessions[name] = session
        cpu: dict[str, list[float]] = {name: [] for name in trees}
        names = list(trees)
        for i in range(moves):
            if i and i % VISITED == 0:
                for session in sessions.values():
                    session.direction *= -1  # stay on the visited values
            for name in names if i % 2 else names[::-1]:
                pid = servers[name][0]
                before = load.cpu_seconds(pid)
                await sessions[name].move()
                cpu[name].append(load.cpu_seconds(pid) - before)
        for name in names:
            print(f"{name:>7} ({trees[name]}): {1000 * statistics.fmean(cpu[name]):.1f} ms CPU per "
                  f"warm move over {moves} moves, {sessions[name].elements} elements per move")
        for session in sessions.values():
            await session.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the other tree (e.g. a git worktree of the base)")
    parser.add_argument("--page", default="randomized-response")
    parser.add_argument("--moves", type=int, default=80)
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    asyncio.run(paired({"before": args.before.resolve(), "after": here}, args.page, args.moves))


if __name__ == "__main__":
    main()
