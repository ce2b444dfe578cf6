"""Events for every viewer socket of this web process, received once: tallies (encoded once, written to each
socket) and restriction changes (routed to the sockets they may concern).

A tally goes to every viewer a few times a second, so its per-socket cost is what limits a web process.
Through the channel layer each socket would decode and re-encode the same message, and each write would be
a task of its own through Channels' and the server's send wrappers. Here the process takes it from the layer
once, encodes it as one frame, and writes those bytes to every socket's connection synchronously
(`wire.Wire`: no task, no framing per socket). A socket whose client is not keeping up, or a server that
offers no wire (daphne, the tests' communicator), is sent through Channels instead.

Restriction changes arrive the same way, once per process rather than once per socket, and are handed to
every socket, which reads its own again if the change may concern it (that viewer's, or from that network).

Tallies carry absolute counts, so a socket still busy with one skips those that arrive meanwhile and is
sent the newest when it is done. A socket joins held: the protocol promises the snapshot first, so the
consumer releases it once the snapshot is sent, and it is then sent the newest tally it was held from.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any, Protocol

from channels.layers import get_channel_layer

from yolive.plumbing import events, metrics
from yolive.plumbing.loops import per_loop
from yolive.voting.wire import Wire, encode

log = logging.getLogger(__name__)


class Socket(Protocol):
    tally_busy: bool  # a write is under way (or the socket is held): tallies wait
    tally_missed: bool  # a tally arrived while busy: send the newest when the write is done
    wire: Wire | None  # the server's own connection, to write to directly

    def restriction_changed(self, viewer_id: int, address: str) -> None: ...

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> Any: ...


class Fanout:
    def __init__(self) -> None:
        self.sockets: set[Socket] = set()
        self._task: asyncio.Task[None] | None = None
        self._subscribed: asyncio.Future[None] | None = None  # the listener's subscription, done or failed
        self._sending: set[asyncio.Task[None]] = set()  # held so running sends are not garbage-collected
        self._newest: str | None = None

    async def join(self, socket: Socket) -> None:
        """Listen for tallies, held until `release` (once the socket has been sent its snapshot)."""
        socket.tally_busy, socket.tally_missed = True, False
        self.sockets.add(socket)
        if self._task is None or self._task.done():
            # Started again when the last listener failed (Redis away as it subscribed): a listener that
            # never subscribed would otherwise hold every later socket of this process forever.
            self._subscribed = asyncio.get_running_loop().create_future()
            self._task = asyncio.create_task(self._run(self._subscribed))
        assert self._subscribed is not None
        try:
            await asyncio.shield(self._subscribed)
        except BaseException:
            self.leave(socket)  # the socket fails its connect (the viewer's page reconnects)
            raise

    def release(self, socket: Socket) -> None:
        socket.tally_busy = False
        newest = self._newest
        if not socket.tally_missed or socket not in self.sockets or newest is None:
            return
        if socket.wire is None or not socket.wire.write(encode(newest)):
            self._start(socket, newest)

    def leave(self, socket: Socket) -> None:
        self.sockets.discard(socket)
        if not self.sockets and self._task is not None:
            self._task.cancel()  # the last viewer left: stop listening (and free the layer channel)
            self._task = None

    async def _run(self, subscribed: asyncio.Future[None]) -> None:
        layer = get_channel_layer()
        assert layer is not None, "CHANNEL_LAYERS is not configured"
        groups = (events.TALLIES, events.RESTRICTIONS)
        try:
            channel = await layer.new_channel()
            for group in groups:
                await layer.group_add(group, channel)
        except Exception as exc:
            log.warning("the tally fan-out could not subscribe (%s); the next socket tries again", exc)
            subscribed.set_exception(exc)
            return
        subscribed.set_result(None)
        try:
            while True:
                event = (await layer.receive(channel))["event"]
                if event["type"] == "restriction_changed":
                    self.restriction_changed(event["viewer_id"], event["address"])
                else:
                    self.deliver(json.dumps(event))
        finally:
            for group in groups:
                with contextlib.suppress(Exception):
                    await asyncio.shield(layer.group_discard(group, channel))

    def restriction_changed(self, viewer_id: int, address: str) -> None:
        for socket in self.sockets:
            socket.restriction_changed(viewer_id, address)

    def deliver(self, text: str) -> None:
        received = time.perf_counter()
        self._newest = text
        frame = encode(text)
        sends = []
        for socket in self.sockets:  # nothing below adds or removes one
            if socket.tally_busy:
                socket.tally_missed = True
            elif socket.wire is None or not socket.wire.write(frame):
                sends.append(self._start(socket, text))
        if not sends:
            metrics.TALLY_FANOUT_SECONDS.observe(time.perf_counter() - received)
        else:
            everyone = asyncio.gather(*sends, return_exceptions=True)
            everyone.add_done_callback(
                lambda _: metrics.TALLY_FANOUT_SECONDS.observe(time.perf_counter() - received)
            )

    def _start(self, socket: Socket, text: str) -> asyncio.Task[None]:
        socket.tally_busy = True
        task = asyncio.create_task(self._send(socket, text))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)
        return task

    async def _send(self, socket: Socket, text: str) -> None:
        try:
            while True:
                socket.tally_missed = False
                await socket.send(text_data=text)
                if not socket.tally_missed or self._newest is None:
                    return
                text = self._newest  # tallies came while this one was written: the newest has them all
        except Exception:  # the socket closed under us; its disconnect removes it
            log.debug("a tally did not reach a closing socket")
        finally:
            socket.tally_busy = False


# This process's fan-out (one per event loop).
fanout = per_loop(Fanout)
