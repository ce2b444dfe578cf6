"""Tallies written straight onto uvicorn's connections (yolive.voting.wire), against a real web process.

The rest of the voting tests run consumers in-process, where the fan-out sends through Channels; this is the
path viewers get in production.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import websockets
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer

from tests.helpers.processes import in_own_loop
from tests.helpers.stack import Stack
from yolive.plumbing import events

pytestmark = pytest.mark.slow

NEWCOMERS = 12


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    stack = Stack(Path(tmp_path_factory.mktemp("fanout-web")), parts=("web",))
    try:
        stack.start()
        stack.wait_until_serving()
        yield stack
    finally:
        stack.stop()


def layer_and_socket_url(web: Stack) -> tuple[RedisPubSubChannelLayer, str]:
    """The web process's channel layer, to publish events on as the conductor does, and its viewer socket."""
    assert web.redis is not None
    layer = RedisPubSubChannelLayer(hosts=[web.redis.url], prefix=web.env["CHANNEL_PREFIX"])
    return layer, web.url.replace("http", "ws") + "/ws/live/"


def test_every_socket_gets_its_snapshot_first_then_the_newest_tally(web: Stack) -> None:
    in_own_loop(snapshot_first_then_newest(web))


async def snapshot_first_then_newest(web: Stack) -> None:
    layer, url = layer_and_socket_url(web)
    stop = asyncio.Event()

    async def publish_tallies() -> None:
        seq = 0
        while not stop.is_set():
            seq += 1
            tally = events.tally(1, seq, {})
            await layer.group_send(events.TALLIES, {"type": events.FORWARD, "event": tally})
            await asyncio.sleep(0.003)

    sockets = []
    publishing = asyncio.create_task(publish_tallies())
    try:
        for _ in range(NEWCOMERS):
            socket = await websockets.connect(url, origin=web.url)
            sockets.append(socket)
            first, second = json.loads(await socket.recv()), json.loads(await socket.recv())
            assert (first["type"], second["type"]) == ("snapshot", "tally")
    finally:
        stop.set()
        await publishing

    final = events.tally(1, 10**9, {"7": 3})
    await layer.group_send(events.TALLIES, {"type": events.FORWARD, "event": final})
    async with asyncio.timeout(10):
        for socket in sockets:
            while (tally := json.loads(await socket.recv()))["seq"] != final["seq"]:
                assert tally["seq"] < final["seq"]  # in order: nothing older arrives after the newest
            assert tally == final
    for socket in sockets:
        await socket.close()
    await layer.flush()


STUCK_TALLIES = 1500  # about 15 MB of tallies: more than the kernel's socket buffers hold on loopback
WIDE = {str(pid): pid for pid in range(1000)}  # a tally of about 10 kB


def test_a_viewer_that_stops_reading_gets_the_newest_tally_and_costs_the_others_nothing(web: Stack) -> None:
    in_own_loop(stuck_reader(web))


async def stuck_reader(web: Stack) -> None:
    layer, url = layer_and_socket_url(web)
    # The stuck client reads one frame into its queue and then no more from the network, so the server's
    # writes back up: first in the kernel, then in the server's own buffer, until it pauses writing.
    stuck = await websockets.connect(url, origin=web.url, max_queue=1, max_size=2**24)
    reader = await websockets.connect(url, origin=web.url, max_size=2**24)
    for socket in (stuck, reader):
        assert json.loads(await socket.recv())["type"] == "snapshot"
    for seq in range(1, STUCK_TALLIES + 1):
        event = events.tally(2, seq, WIDE)
        await layer.group_send(events.TALLIES, {"type": events.FORWARD, "event": event})
    final = events.tally(2, STUCK_TALLIES + 1, {"7": 1})
    await layer.group_send(events.TALLIES, {"type": events.FORWARD, "event": final})

    async def read_until_final(socket: Any) -> list[int]:
        seqs = []
        while (seq := json.loads(await socket.recv()).get("seq", 0)) != final["seq"]:
            seqs.append(seq)
        return seqs

    async with asyncio.timeout(30):
        everyone = await read_until_final(reader)  # not held up by the stuck socket's backlog
        skipped = await read_until_final(stuck)
    assert everyone == sorted(everyone) and skipped == sorted(skipped)  # never an older one after a newer
    # The server held no backlog of every tally for the stuck socket: it skipped those it could not write
    # and sent the newest once the client read again.
    assert len(skipped) < STUCK_TALLIES
    for socket in (stuck, reader):
        await socket.close()
    await layer.flush()


class Listener:
    """A socket as the fan-out sees it, where the server exposes no connection (sent through Channels)."""

    tally_busy = tally_missed = False
    wire = None

    def __init__(self) -> None:
        self.received: asyncio.Queue[str] = asyncio.Queue()

    def restriction_changed(self, viewer_id: int, address: str) -> None:
        pass

    async def send(self, text_data: str | None = None, **_: Any) -> None:
        assert text_data is not None
        self.received.put_nowait(text_data)


def test_a_listener_that_could_not_subscribe_is_started_again(settings: Any) -> None:
    from benchmarks.instruments import free_port
    from yolive.voting.fanout import Fanout

    working = settings.CHANNEL_LAYERS
    unreachable = {
        "default": {**working["default"], "CONFIG": {"hosts": [f"redis://127.0.0.1:{free_port()}/0"]}}
    }

    async def scenario() -> None:
        fan = Fanout()
        settings.CHANNEL_LAYERS = unreachable  # Redis is away as the first socket joins
        first = Listener()
        with pytest.raises(redis.exceptions.ConnectionError):
            await asyncio.wait_for(fan.join(first), 10)  # an error, not a socket held forever
        assert first not in fan.sockets
        settings.CHANNEL_LAYERS = working  # Redis is back: the next socket starts a new listener
        second = Listener()
        await asyncio.wait_for(fan.join(second), 10)
        fan.release(second)
        layer = get_channel_layer()
        tally = events.tally(1, 1, {"3": 1})
        await layer.group_send(events.TALLIES, {"type": events.FORWARD, "event": tally})
        assert json.loads(await asyncio.wait_for(second.received.get(), 10)) == tally
        fan.leave(second)

    in_own_loop(scenario())
