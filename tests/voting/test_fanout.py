"""Tallies written straight onto uvicorn's connections (websockets.broadcast), against a real web process.

The rest of the voting tests run consumers in-process, where the fan-out sends through Channels; this is the
path viewers get in production.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets
from channels_redis.pubsub import RedisPubSubChannelLayer

from tests.helpers.processes import in_own_loop
from tests.helpers.stack import Stack
from yolive import events

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


def test_every_socket_gets_its_snapshot_first_then_the_newest_tally(web: Stack) -> None:
    in_own_loop(snapshot_first_then_newest(web))


async def snapshot_first_then_newest(web: Stack) -> None:
    assert web.redis is not None
    layer = RedisPubSubChannelLayer(hosts=[web.redis.url], prefix=web.env["CHANNEL_PREFIX"])
    url = web.url.replace("http", "ws") + "/ws/live/"
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
