"""The benchmark's load client: many viewer sockets in one asyncio process (websockets library).

Voters vote for random public candidates at a given total rate and count their acks. Probes own two
candidates each and alternate their vote between them, so the first tally whose counts show the switch is
the one that carries their vote: the time from sending to receiving it is the vote-to-tally delay.
Watchers only count the frames they receive (the crowd that watches and does not vote).
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

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


async def watcher(ws: ClientConnection, counters: Counters) -> None:
    async for _ in ws:
        counters.frames += counters.measuring


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
    opening = time.monotonic()
    sockets = await open_sockets(url, origin, viewers, batch, greeted)
    watching = await open_sockets(url, origin, watchers, batch, greeted)
    print(f"  ({viewers + watchers} sockets open in {time.monotonic() - opening:.0f} s)", file=sys.stderr)
    counters = Counters()
    voters = sockets[len(pairs) :]
    per_voter_rate = votes_per_s / max(1, len(voters))
    tasks = [
        asyncio.create_task(probe(ws, snap, pair, counters))
        for (ws, snap), pair in zip(sockets, pairs, strict=False)
    ]
    tasks += [asyncio.create_task(voter(ws, public, per_voter_rate, counters)) for ws, _ in voters]
    tasks += [asyncio.create_task(watcher(ws, counters)) for ws, _ in watching]
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
    await asyncio.gather(*(ws.close() for ws, _ in [*sockets, *watching]), return_exceptions=True)
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
    }


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
