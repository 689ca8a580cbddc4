"""The cause without Streamlit: asyncio sets TCP_NODELAY only on sockets of protocol IPPROTO_TCP.

    python asyncio_cause.py

A listening socket made with socket.socket(family) has protocol 0; so do the connections it
accepts, and asyncio.base_events._set_nodelay skips them.
"""

import asyncio
import socket


async def accepted_nodelay(proto: int) -> int:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    loop = asyncio.get_running_loop()
    seen = loop.create_future()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport):
            sock = transport.get_extra_info("socket")
            seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    server = await loop.create_server(Probe, sock=listener)
    _, writer = await asyncio.open_connection(*listener.getsockname())
    value = await seen
    writer.close()
    server.close()
    return value


for proto, name in ((0, "socket.socket(family)   [Streamlit 1.67]"),
                    (socket.IPPROTO_TCP, "... proto=IPPROTO_TCP")):
    print(f"listener {name}: accepted connection has TCP_NODELAY = "
          f"{asyncio.run(accepted_nodelay(proto))}")
