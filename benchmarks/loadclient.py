"""The benchmark's load client: many viewer sockets in one asyncio process (websockets library).

Voters vote for random public candidates at a given total rate and count their acks. Probes own two
candidates each and alternate their vote between them, so the first tally whose counts show the switch is
the one that carries their vote: the time from sending to receiving it is the vote-to-tally delay.
Watchers only count the frames they receive (the crowd that watches and does not vote), on raw sockets
(FrameCounter): a client library decoding every tally would cost the one load process more than the server
spends writing them, and the figures would measure the client.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Origin

PROBE_GIVE_UP_S = 5.0  # a vote not shown within this counts as a miss (reported, not hidden)
PROBE_PAUSE_S = (0.1, 0.4)  # between a probe's votes, random, so probes do not beat in step with ticks


@dataclass
class Counters:
    accepted: int = 0
    refused: int = 0
    misses: int = 0
    delays_ms: list[float] = field(default_factory=list)
    tallies: int = 0
    frames: int = 0  # received by watchers
    measuring: bool = False


async def open_sockets(
    url: str, origin: str, count: int, batch: int, greeted: bool = True
) -> list[tuple[ClientConnection, dict]]:
    """Open `count` sockets, `batch` at a time, each with the snapshot it received on connect (`greeted`)."""

    async def one() -> tuple[ClientConnection, dict]:
        ws = await connect(
            url, origin=Origin(origin), ping_interval=None, max_queue=None, open_timeout=60, close_timeout=2
        )
        # A server that never sends the snapshot must fail the level, not hang it.
        return ws, json.loads(await asyncio.wait_for(ws.recv(), 60)) if greeted else {}

    sockets: list[tuple[ClientConnection, dict]] = []
    for start in range(0, count, batch):
        sockets += await asyncio.gather(*(one() for _ in range(min(batch, count - start))))
    return sockets


async def voter(ws: ClientConnection, public: list[int], rate: float, counters: Counters) -> None:
    async def read() -> None:
        async for message in ws:
            # Cheap checks: a load client that parsed every tally would measure itself, not the server.
            if isinstance(message, str) and message.startswith('{"type": "voted"'):
                counters.accepted += counters.measuring
            elif isinstance(message, str) and message.startswith('{"type": "error"'):
                counters.refused += counters.measuring

    reader = asyncio.create_task(read())
    try:
        await asyncio.sleep(random.uniform(0, 1 / rate))
        while True:
            await ws.send(json.dumps({"type": "vote", "prompt_id": random.choice(public)}))
            await asyncio.sleep(random.expovariate(rate))
    finally:
        reader.cancel()


class FrameCounter(asyncio.Protocol):
    """A watching socket that does only what a client must: the opening handshake, a pong for each ping,
    and a count of the server's data frames, read from their headers (server frames are never masked)."""

    def __init__(self, counters: Counters) -> None:
        self.counters = counters
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.head = bytearray()  # the handshake's response, then each frame's header as it arrives
        self.skip = 0  # payload bytes of the current frame still to come
        self.ping: bytearray | None = None  # the payload of a ping being read, to send back

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed during the handshake"))

    def data_received(self, data: bytes) -> None:
        if not self.opened.done():
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.head.startswith(b"HTTP/1.1 101"):
                self.opened.set_exception(ConnectionError(bytes(self.head[:40]).decode(errors="replace")))
                return
            data, self.head = bytes(self.head[end + 4 :]), bytearray()
            self.opened.set_result(None)
        i = 0
        while i < len(data):
            if self.skip:
                taken = data[i : i + self.skip]
                self.skip -= len(taken)
                i += len(taken)
                if self.ping is not None:
                    self.ping += taken
                    if not self.skip:
                        self._pong(bytes(self.ping))
                continue
            i += self._read_header(data, i)

    def _read_header(self, data: bytes, i: int) -> int:
        """Take header bytes from data[i:]; returns how many were taken."""
        before = len(self.head)
        self.head += data[i : i + 14 - before]  # 14: the longest header
        if len(self.head) < 2:
            return len(self.head) - before
        length = self.head[1] & 0x7F
        size = 2 + {126: 2, 127: 8}.get(length, 0)
        if len(self.head) < size:
            return len(self.head) - before
        if length >= 126:
            length = int.from_bytes(self.head[2:size], "big")
        opcode, self.head = self.head[0] & 0x0F, bytearray()
        self.skip = length
        self.ping = bytearray() if opcode == 0x9 else None
        if opcode in (0x1, 0x2):  # text or binary: a tally (or the snapshot, before measuring)
            self.counters.frames += self.counters.measuring
        elif opcode == 0x9 and not length:
            self._pong(b"")
        elif opcode == 0x8 and self.transport is not None:  # the server closes
            self.transport.close()
        return size - before

    def _pong(self, payload: bytes) -> None:
        # A client frame must be masked; a zero mask leaves the payload as it is.
        if self.transport is not None:
            self.transport.write(bytes([0x8A, 0x80 | len(payload), 0, 0, 0, 0]) + payload)
        self.ping = None


async def open_watchers(
    url: str, origin: str, count: int, batch: int, counters: Counters
) -> list[FrameCounter]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    request = (
        f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        f"Sec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n"
    ).encode()
    loop = asyncio.get_running_loop()

    async def one() -> FrameCounter:
        transport, watcher = await loop.create_connection(lambda: FrameCounter(counters), host, port)
        transport.write(request)
        await asyncio.wait_for(watcher.opened, 60)
        return watcher

    watchers: list[FrameCounter] = []
    for start in range(0, count, batch):
        watchers += await asyncio.gather(*(one() for _ in range(min(batch, count - start))))
    return watchers


async def probe(ws: ClientConnection, snapshot: dict, pair: tuple[int, int], counters: Counters) -> None:
    votes = {c["id"]: c["votes"] for c in snapshot["candidates"]}
    base = (votes.get(pair[0], 0), votes.get(pair[1], 0))
    expected: tuple[int, int] | None = None
    shown = asyncio.Event()

    async def read() -> None:
        async for message in ws:
            event: dict[str, Any] = json.loads(message)
            if event["type"] != "tally":
                continue
            counters.tallies += counters.measuring
            counts = event["counts"]
            if expected and (counts.get(str(pair[0]), 0), counts.get(str(pair[1]), 0)) == expected:
                shown.set()

    reader = asyncio.create_task(read())
    side = 0
    try:
        while True:
            expected = (base[0] + 1, base[1]) if side == 0 else (base[0], base[1] + 1)
            shown.clear()
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "vote", "prompt_id": pair[side]}))
            try:
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow the cancellation that
                # ends the level when the tally arrives in the same instant, and the level never ends.
                async with asyncio.timeout(PROBE_GIVE_UP_S):
                    await shown.wait()
                if counters.measuring:
                    counters.delays_ms.append((time.perf_counter() - sent) * 1000)
            except TimeoutError:
                counters.misses += counters.measuring
            await asyncio.sleep(random.uniform(*PROBE_PAUSE_S))
            side = 1 - side
    finally:
        reader.cancel()


async def run_load(
    url: str,
    origin: str,
    viewers: int,
    votes_per_s: float,
    seconds: float,
    public: list[int],
    pairs: list[tuple[int, int]],
    measure_cpu: Any,
    batch: int = 100,
    watchers: int = 0,
    greeted: bool = True,
) -> dict[str, Any]:
    """Connect, warm up, measure for `seconds`, disconnect; returns the figures of this level.

    `viewers` vote (the first len(pairs) of them as probes); `watchers` more sockets only receive."""
    opening, opening_cpu = time.monotonic(), measure_cpu()
    counters = Counters()
    sockets = await open_sockets(url, origin, viewers, batch, greeted)
    watching = await open_watchers(url, origin, watchers, batch, counters)
    connect_cpu = measure_cpu() - opening_cpu
    print(f"  ({viewers + watchers} sockets open in {time.monotonic() - opening:.0f} s)", file=sys.stderr)
    voters = sockets[len(pairs) :]
    per_voter_rate = votes_per_s / max(1, len(voters))
    tasks = [
        asyncio.create_task(probe(ws, snap, pair, counters))
        for (ws, snap), pair in zip(sockets, pairs, strict=False)
    ]
    tasks += [asyncio.create_task(voter(ws, public, per_voter_rate, counters)) for ws, _ in voters]
    await asyncio.sleep(2.0)  # warm up: every voter has started its schedule
    cpu_before, wall_before, load_before = measure_cpu(), time.monotonic(), time.process_time()
    counters.measuring = True
    await asyncio.sleep(seconds)
    counters.measuring = False
    cpu_after, wall, load_cpu = (
        measure_cpu(),
        time.monotonic() - wall_before,
        time.process_time() - load_before,
    )
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    # All at once: an overloaded server answers each closing handshake late.
    closing = time.monotonic()
    await asyncio.gather(*(ws.close() for ws, _ in sockets), return_exceptions=True)
    for watcher in watching:
        if watcher.transport is not None:
            watcher.transport.close()
    print(f"  (closed in {time.monotonic() - closing:.0f} s)", file=sys.stderr)
    cpu = cpu_after - cpu_before
    return {
        "viewers": viewers,
        "watchers": watchers,
        "frames_per_s": counters.frames / wall,
        "cpu_us_per_frame": 1e6 * cpu / counters.frames if counters.frames else float("nan"),
        "offered_votes_per_s": votes_per_s,
        "accepted_votes_per_s": counters.accepted / wall,
        "refused": counters.refused,
        "delay_p50_ms": _percentile(counters.delays_ms, 0.50),
        "delay_p99_ms": _percentile(counters.delays_ms, 0.99),
        "delay_samples": len(counters.delays_ms),
        "misses": counters.misses,
        "tallies_per_probe_per_s": counters.tallies / max(1, len(pairs)) / wall,
        "web_cpu_percent": 100 * cpu / wall,
        # Near 100 %, the figures measure this client more than the server.
        "load_cpu_percent": 100 * load_cpu / wall,
        # What a crowd arriving at once costs: identity, restriction and snapshot, per socket opened.
        "connect_cpu_ms": 1000 * connect_cpu / max(1, viewers + watchers),
    }


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
