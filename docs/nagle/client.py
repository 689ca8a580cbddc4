"""Time reruns of a Streamlit app from a websocket client, as a browser's slider move asks for them.

    python client.py PORT [RUNS]

Sends a rerun request over /_stcore/stream and waits for the server's script_finished message,
RUNS times in a row (after one untimed run); prints the median and the fastest and slowest.
"""

import asyncio
import statistics
import sys
import time

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect


async def rerun(ws) -> float:
    message = BackMsg()
    message.rerun_script.query_string = ""
    start = time.perf_counter()
    await ws.send(message.SerializeToString())
    started = False
    while True:
        forward = ForwardMsg()
        forward.ParseFromString(await ws.recv())
        kind = forward.WhichOneof("type")
        started = started or kind == "new_session"
        if kind == "script_finished" and started:
            return time.perf_counter() - start


async def main(port: int, runs: int) -> None:
    async with connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"]) as ws:
        await rerun(ws)
        times = [await rerun(ws) for _ in range(runs)]
    ms = sorted(1000 * t for t in times)
    print(f"{runs} reruns: median {statistics.median(ms):.1f} ms, "
          f"fastest {ms[0]:.1f} ms, slowest {ms[-1]:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 30))
