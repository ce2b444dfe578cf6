"""Tallies to every viewer socket of this web process: received once, encoded once, written to each socket.

A tally goes to every viewer a few times a second, so its per-socket cost is what limits a web process.
Through the channel layer each socket would decode and re-encode the same message; here the process takes
it from the layer once and writes the same text to each socket. A socket still busy with the previous
tally skips one: tallies carry absolute counts, so the next one catches it up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import weakref
from typing import Any, Protocol

from channels.layers import get_channel_layer

from yolive import events, metrics

log = logging.getLogger(__name__)


class Socket(Protocol):
    tally_busy: bool

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> Any: ...


class TallyFanout:
    def __init__(self) -> None:
        self.sockets: set[Socket] = set()
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._sending: set[asyncio.Task[None]] = set()  # held so running sends are not garbage-collected

    async def join(self, socket: Socket) -> None:
        socket.tally_busy = False
        self.sockets.add(socket)
        if self._task is None:
            self._ready.clear()
            self._task = asyncio.create_task(self._run())
        await self._ready.wait()

    def leave(self, socket: Socket) -> None:
        self.sockets.discard(socket)
        if not self.sockets and self._task is not None:
            self._task.cancel()  # the last viewer left: stop listening (and free the layer channel)
            self._task = None

    async def _run(self) -> None:
        layer = get_channel_layer()
        assert layer is not None, "CHANNEL_LAYERS is not configured"
        channel = await layer.new_channel()
        await layer.group_add(events.TALLIES, channel)
        self._ready.set()
        try:
            while True:
                message = await layer.receive(channel)
                self.deliver(json.dumps(message["event"]))
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(layer.group_discard(events.TALLIES, channel))

    def deliver(self, text: str) -> None:
        received = time.perf_counter()
        sends = []
        for socket in list(self.sockets):
            if not socket.tally_busy:
                socket.tally_busy = True
                task = asyncio.create_task(_send(socket, text))
                self._sending.add(task)
                task.add_done_callback(self._sending.discard)
                sends.append(task)
        if sends:
            everyone = asyncio.gather(*sends, return_exceptions=True)
            everyone.add_done_callback(
                lambda _: metrics.TALLY_FANOUT_SECONDS.observe(time.perf_counter() - received)
            )


async def _send(socket: Socket, text: str) -> None:
    try:
        await socket.send(text_data=text)
    except Exception:  # the socket closed under us; its disconnect removes it
        log.debug("a tally did not reach a closing socket")
    finally:
        socket.tally_busy = False


_fanouts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, TallyFanout] = weakref.WeakKeyDictionary()


def fanout() -> TallyFanout:
    """This process's fan-out (one per event loop)."""
    loop = asyncio.get_running_loop()
    if loop not in _fanouts:
        _fanouts[loop] = TallyFanout()
    return _fanouts[loop]
