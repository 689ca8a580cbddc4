"""`streamlit run app.py` with the one-line fix applied from outside: the listening socket that
Streamlit binds is handed on as an IPPROTO_TCP socket, so asyncio sets TCP_NODELAY on every
connection it accepts.

    python fixed.py [streamlit run options]
"""

import socket
import sys

from streamlit.web import cli
from streamlit.web.server.starlette import starlette_server

bind = starlette_server._bind_socket


def bind_with_nodelay(*args):
    sock = bind(*args)
    return socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())


starlette_server._bind_socket = bind_with_nodelay
sys.argv = ["streamlit", "run", "app.py", *sys.argv[1:]]
sys.exit(cli.main())
