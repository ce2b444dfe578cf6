"""The floor the voting benchmark compares against: a bare websockets server that writes one pre-encoded
frame to every socket it holds, `hz` times a second, with `websockets.broadcast`.

    python -m benchmarks.floor --port 8765 --hz 4 --frame-file tally.json

Nothing else runs in it (no Django, no Channels, no Redis), so its CPU per delivered frame is what writing
a tally to a socket costs in Python on this machine at all.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from websockets.asyncio.server import ServerConnection, broadcast, serve


async def serve_frames(port: int, hz: float, text: str) -> None:
    sockets: set[ServerConnection] = set()

    async def hold(socket: ServerConnection) -> None:
        sockets.add(socket)
        try:
            await socket.wait_closed()
        finally:
            sockets.discard(socket)

    async with serve(hold, "127.0.0.1", port, ping_interval=None, compression=None):
        while True:
            await asyncio.sleep(1 / hz)
            broadcast(sockets, text)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--hz", type=float, default=4.0)
    parser.add_argument("--frame-file", type=Path, required=True, help="the text of the frame to send")
    args = parser.parse_args()
    asyncio.run(serve_frames(args.port, args.hz, args.frame_file.read_text()))


if __name__ == "__main__":
    main()
