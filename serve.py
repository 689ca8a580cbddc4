"""Run DP Lab yourself without the 40 ms Nagle stall: `python -m serve [streamlit options]`.

    python -m serve                                     # = streamlit run app.py, minus the stall
    python -m serve --server.port 8502 --server.address 127.0.0.1

This is `streamlit run app.py`, run from the repository root so that it reads the same
`.streamlit/config.toml`, with any `streamlit run` options you add, and one change:

Streamlit 1.67 binds its listening socket as `socket.socket(family)`, i.e. with protocol 0.
asyncio turns on TCP_NODELAY only for sockets whose protocol is IPPROTO_TCP, so no accepted
connection gets it. Every small message the server sends while an earlier one is still
unacknowledged then waits for the client's delayed ACK (40 ms on Linux): a rerun's last
messages arrive ~40 ms late, on every slider move, and again on a proxy's hop to Streamlit.
The launcher hands uvicorn the same listening socket re-wrapped as IPPROTO_TCP, with
TCP_NODELAY set on it as well (Linux copies it to every connection the socket accepts).
docs/NAGLE.md has the measurements and a reproduction without DP Lab.

`nodelay_in_process()` is the other way in, for a plain `streamlit run app.py` (as on
Streamlit Community Cloud, which starts the app itself): called from the app's script, it
sets TCP_NODELAY on this process's listening socket and on the connections it has already
accepted. It needs Linux's /proc and its inheritance of the option; elsewhere it does nothing.

DPLAB_TCP_NODELAY=0 in the environment turns both off, to measure the difference.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SWITCH = "DPLAB_TCP_NODELAY"  # "0": leave Streamlit's sockets alone (for measurements)
_MARK = "_dplab_nodelay"


def enabled() -> bool:
    return os.environ.get(SWITCH, "1") != "0"


def nodelay_listener(sock: socket.socket) -> socket.socket:
    """The same bound, listening socket, as an IPPROTO_TCP socket object with TCP_NODELAY.

    asyncio reads the protocol of the socket object: accepted connections inherit it, and
    asyncio sets TCP_NODELAY on each of them (asyncio.base_events._set_nodelay). The option
    on the listener itself is for Linux, which copies it to accepted connections anyway.
    """
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return sock
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    wrapped = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
    wrapped.setblocking(False)
    wrapped.set_inheritable(True)
    return wrapped


def patch_streamlit() -> None:
    """Make Streamlit's server bind its listening socket through `nodelay_listener`.

    Raises RuntimeError if this Streamlit no longer binds through the function patched here,
    rather than silently serving with the stall.
    """
    from streamlit.web.server.starlette import starlette_server

    original = getattr(starlette_server, "_bind_socket", None)
    if original is None:
        raise RuntimeError("streamlit.web.server.starlette.starlette_server._bind_socket is gone: "
                           "this Streamlit binds its socket differently; see docs/NAGLE.md")
    if getattr(original, _MARK, False):
        return

    def _bind_socket(address: str, port: int, backlog: int) -> socket.socket:
        return nodelay_listener(original(address, port, backlog))

    setattr(_bind_socket, _MARK, True)
    starlette_server._bind_socket = _bind_socket


_in_process_lock = threading.Lock()
_in_process_done: set[int] = set()


def nodelay_in_process(port: int | None = None) -> int:
    """Set TCP_NODELAY on this process's TCP sockets bound to `port` (default: Streamlit's
    server.port): the listening socket and every connection accepted so far.

    For a plain `streamlit run`, where no launcher can bind the socket. Linux copies the
    listener's TCP_NODELAY to each connection it accepts afterwards, so one call per process
    covers every later session too; later calls return 0 at once. Returns how many sockets
    were changed (0 without /proc/self/fd, i.e. not on Linux). Never raises.
    """
    if not enabled():
        return 0
    try:
        if port is None:
            from streamlit import config

            port = int(config.get_option("server.port"))
        with _in_process_lock:
            if port in _in_process_done:
                return 0
            _in_process_done.add(port)
            return _set_nodelay_on_port(port)
    except Exception:  # noqa: BLE001 (a speed-up must never break the app)
        return 0


def _set_nodelay_on_port(port: int) -> int:
    fd_dir = Path("/proc/self/fd")
    if not fd_dir.is_dir():
        return 0
    changed = 0
    for entry in os.listdir(fd_dir):
        try:
            if not os.readlink(fd_dir / entry).startswith("socket:"):
                continue
            duplicate = os.dup(int(entry))  # our own handle: closing it leaves the server's open
        except OSError:  # closed meanwhile
            continue
        try:
            sock = socket.socket(fileno=duplicate)
        except OSError:
            os.close(duplicate)
            continue
        with sock:
            try:
                if (sock.family in (socket.AF_INET, socket.AF_INET6)
                        and sock.type == socket.SOCK_STREAM and sock.getsockname()[1] == port):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    changed += 1
            except OSError:
                continue
    return changed


def main(argv: list[str] | None = None) -> None:
    if enabled():
        patch_streamlit()
    else:
        print(f"serve: {SWITCH}=0, so Streamlit's sockets keep Nagle's algorithm", file=sys.stderr)
    from streamlit.web import cli

    os.chdir(ROOT)  # the repo's .streamlit/config.toml, as `streamlit run app.py` from here
    sys.argv = ["streamlit", "run", "app.py", *(sys.argv[1:] if argv is None else argv)]
    sys.exit(cli.main())


if __name__ == "__main__":
    main()
