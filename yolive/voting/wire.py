"""Frames written straight onto the server's WebSocket connections, past Channels' send path.

Every viewer socket gets a tally a few times a second and an acknowledgement per vote; at a few thousand
sockets, what each of those frames costs is what one web process can hold (docs/benchmarks.md). Through
Channels each would be a coroutine through the consumer's, the session middleware's and the server's send
wrappers, then framed for that socket alone. A server-to-client frame is unmasked, so its bytes are the same
for every socket: `encode` makes them once, and `Wire.write` hands them to the socket's transport.

This only writes. Each socket was opened, origin-checked and identified through Channels, every frame a viewer
sends still reaches its consumer, and closing goes through Channels too. It needs uvicorn's sans-I/O
websockets protocol (`yolive.serve`), the one whose `send` is its bound method; under any other server (the
tests' communicator, daphne) there is no wire and frames go through Channels as before.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode

SCOPE_KEY = "yolive.wire"  # where ExposeWire puts a socket's Wire


def encode(text: str) -> bytes:
    """One whole text frame as the server sends it. Never compressed: permessage-deflate lets any message
    go uncompressed, so these bytes are valid on every connection, whatever it negotiated."""
    return Frame(Opcode.TEXT, text.encode()).serialize(mask=False)


class Wire:
    """One socket's connection, as uvicorn holds it."""

    def __init__(self, protocol: WebSocketsSansIOProtocol) -> None:
        self._protocol = protocol

    def write(self, frame: bytes) -> bool:
        """Write `frame` now if the socket is open and its client keeps up; False (nothing written) if not,
        and the caller sends through Channels instead, which waits until the socket drains or has closed.
        Whole frames only, and in the event loop's thread, so they never interleave with the server's."""
        protocol = self._protocol
        if (
            not protocol.handshake_complete  # not accepted yet
            or protocol.close_sent  # we closed it (or refused it)
            or protocol.transport.is_closing()  # the client closed it, or the connection was lost
            or not protocol.writable.is_set()  # paused: the client reads slower than we write
        ):
            return False
        protocol.transport.write(frame)
        return True


class ExposeWire:
    """ASGI middleware, outermost on WebSockets: puts the socket's Wire in the scope (under SCOPE_KEY)
    when the server is uvicorn's sans-I/O websockets protocol, whose ASGI `send` is its bound method."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        protocol = getattr(send, "__self__", None)
        if scope["type"] == "websocket" and isinstance(protocol, WebSocketsSansIOProtocol):
            scope = {**scope, SCOPE_KEY: Wire(protocol)}
        return await self.app(scope, receive, send)
