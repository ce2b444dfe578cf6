"""The crowd's wait: from a round's close to its winner reaching viewers, in a channel run like `make run`.

    python -m benchmarks.crowd [--rounds 8] [--warm-up 2] [--voters 12] [--player]

Starts every process under supervisord with the project's supervisord.conf, in a sandbox of its own (a private
redis-server, a temporary VAR_DIR with its SQLite file and HLS folder, a free port), on the default model.
A crowd of `--voters` viewers writes prompts and votes on sockets of their own (benchmarks/voters.py: the
leader may change until the last second); with none, nobody writes and house prompts win. One more viewer
socket listens as a viewer's page does; each round's winner is followed through the events every viewer gets:
- `round_closed`: the crowd's choice is made;
- `now_playing`: the broadcaster's cue that the clip reaches viewers, sent when the player's hold-back
  behind the live edge has passed since its first segment was listed (streaming/publisher.py).
From the database: when each winner could air (`Clip.airable_at`: whole, or with `AIR_WHILE_RENDERING` far
enough made; a head start may make it so before the close) and when it was whole (`ready_at`), from the
round's close; from /metrics, how many head starts won and lost.
With `--player`, the viewer page also plays the stream in Chromium (hls.js, as a viewer's browser does), and
the clip reaches the screen when the player starts its first segment (the clip's archive names it).
The first `--warm-up` rounds are left out (the worker loads the model, the stream starts on filler).
Prints one line a round and p50 / max of close -> now playing, close -> airable and close -> ready (and
close -> on screen, now playing -> on screen).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from websockets.asyncio.client import connect

from benchmarks.instruments import free_port
from benchmarks.voters import Crowd
from yolive.plumbing.metrics.totals import FLUSH_INTERVAL_S

ROOT = Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--autoplay-policy=no-user-gesture-required", "--disable-gpu"]
METRICS_TOKEN = "bench-only"
STARTUP_TIMEOUT_S = 240  # the worker imports torch and loads the model; the web process warms the gate


@dataclass
class Round:
    """Wall-clock times (epoch seconds) of one round's winner, as a viewer learns and sees them."""

    closed: float | None = None
    playing: float | None = None
    clip_id: int | None = None
    first_segment: int | None = None  # its media sequence number (--player)
    on_screen: float | None = None  # the player entered the clip's first segment (--player)

    def complete(self) -> bool:
        return None not in (self.closed, self.playing)


@dataclass
class Channel:
    """Every process of a channel under supervisord, on a Redis and in a folder of its own."""

    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="yolive-crowd-")))
    port: int = field(default_factory=free_port)
    redis_port: int = field(default_factory=free_port)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self) -> None:
        redis_cmd = ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", ""]
        self._spawn("redis", [*redis_cmd, "--appendonly", "no", "--dir", str(self.workdir)])
        env = dict(
            os.environ,
            SECRET_KEY="bench-only",
            METRICS_TOKEN=METRICS_TOKEN,
            VAR_DIR=str(self.workdir),
            DATABASE_URL="",
            REDIS_URL=f"redis://127.0.0.1:{self.redis_port}/0",
            CHANNEL_PREFIX="yolive-crowd-bench",
            WEB_PORT=str(self.port),
            WEB_PROCESSES="1",
            PYTHONUNBUFFERED="1",
        )
        subprocess.run(
            [PY, "manage.py", "migrate", "--no-input"], cwd=ROOT, env=env, check=True, capture_output=True
        )
        supervisord = [str(ROOT / ".venv" / "bin" / "supervisord"), "--configuration", "supervisord.conf"]
        self._spawn("supervisord", [*supervisord, "--pidfile", str(self.workdir / "supervisord.pid")], env)

    def _spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> None:
        log = (self.workdir / f"{name}.log").open("wb")
        self.processes.append(
            subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        )

    def wait_serving(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2).close()
                return
            except urllib.error.HTTPError:
                return  # it answers; /healthz says 503 until every process has reported in
            except OSError:
                time.sleep(0.5)
        raise SystemExit(f"the web process did not answer\n{self.log_tail()}")

    def stop(self) -> None:
        for process in reversed(self.processes):  # supervisord first: it stops its programs' groups
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=90)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def log_tail(self, lines: int = 40) -> str:
        text = (self.workdir / "supervisord.log").read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])


async def follow(url: str, rounds: int, warm_up: int, deadline: float) -> dict[int, Round]:
    """Round number -> when its close and its now-playing cue reached this viewer."""
    seen: dict[int, Round] = {}
    first: int | None = None
    async with connect(url, origin="http://127.0.0.1") as socket:  # type: ignore[arg-type]
        while time.monotonic() < deadline:
            try:
                raw = await asyncio.wait_for(socket.recv(), timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            now = time.time()
            event = json.loads(raw)
            kind = event.get("type")
            if kind == "round_closed":
                number = event["number"]
                first = number if first is None else first
                seen.setdefault(number, Round()).closed = now
            elif kind == "now_playing":
                record = seen.setdefault(event["round_number"], Round())
                record.playing, record.clip_id = now, event["clip_id"]
                if record.complete():
                    print(line(event["round_number"], record), flush=True)
            if first is not None:
                measured = [r for n, r in seen.items() if n >= first + warm_up and r.complete()]
                if len(measured) >= rounds:
                    break
    return {n: r for n, r in seen.items() if first is not None and n >= first + warm_up and r.complete()}


class Watcher:
    """The viewer page in Chromium: hls.js notes each fragment it starts playing (`player.log`)."""

    async def open(self, url: str) -> None:
        from playwright.async_api import async_playwright

        self._playwright = await async_playwright().start()
        self._browser = await self._playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        self.page = await self._browser.new_page()
        await self.page.goto(url)

    async def fragments(self) -> dict[int, float]:
        """Media sequence number -> when it began playing (epoch seconds), first time only."""
        played = await self.page.evaluate(
            """() => window.yolive.player.log.filter((e) => e.type === "frag")
                 .map((e) => [e.sn, (performance.timeOrigin + e.t) / 1000])"""
        )
        started: dict[int, float] = {}
        for sn, at in played:
            started.setdefault(int(sn), float(at))
        return started

    async def close(self) -> None:
        await self._browser.close()
        await self._playwright.stop()


def first_segment(hls_dir: Path, clip_id: int, within_s: float = 30) -> int | None:
    """The media sequence number of a clip's first segment, from its archive (written once it has aired)."""
    index = hls_dir / "archive" / str(clip_id) / "index.m3u8"
    deadline = time.monotonic() + within_s
    while not index.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    if not index.exists():
        return None
    name = next(line for line in index.read_text().splitlines() if line.endswith(".ts"))
    return int(re.sub(r"\D", "", name))


def render_stages(workdir: Path, clip_ids: list[int]) -> str:
    """p50 / max from the round's close to airable and to ready (before the close, negative, after a head
    start), and the median seconds of each stage the worker timed (Clip.timings), over the measured clips."""
    with contextlib.closing(sqlite3.connect(workdir / "yolive.sqlite3")) as db:
        marks = ",".join("?" * len(clip_ids))
        rows = db.execute(
            "SELECT r.closed_at, c.airable_at, c.ready_at, c.timings FROM voting_clip c"
            f" JOIN voting_round r ON r.id = c.round_id WHERE c.id IN ({marks})",
            clip_ids,
        ).fetchall()

    def since_close(row: tuple[str, ...], at: int) -> float:
        return (datetime.fromisoformat(row[at]) - datetime.fromisoformat(row[0])).total_seconds()

    lines = [
        figures(f"close -> {name}", [since_close(row, at) for row in rows if row[at]])
        for name, at in (("airable", 1), ("ready", 2))
    ]
    timings = [json.loads(row[3]) for row in rows if row[3]]
    stages = [k for k in timings[0] if k != "seconds"] if timings else []
    medians = (f"{k} {statistics.median(t.get(k, 0.0) for t in timings):.2f}" for k in stages)
    return "\n".join([*lines, "render stages, median s: " + ", ".join(medians)])


def head_starts(port: int) -> str:
    """Won and lost, from /metrics, once the conductor's last counts have reached Redis."""
    time.sleep(FLUSH_INTERVAL_S + 1)
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        text = reply.read().decode()
    found = dict(re.findall(r'yolive_head_starts_total\{outcome="(\w+)"\} ([\d.]+)', text))
    return f"won {float(found.get('won', 0)):.0f}, lost {float(found.get('lost', 0)):.0f}"


def figures(name: str, values: list[float]) -> str:
    return f"{name}: p50 {statistics.median(values):.2f} s, max {max(values):.2f} s" if values else name


async def measure(channel: Channel, args: argparse.Namespace) -> dict[int, Round]:
    watcher = Watcher() if args.player else None
    if watcher is not None:
        await watcher.open(f"http://127.0.0.1:{channel.port}/")
    try:
        budget_s = STARTUP_TIMEOUT_S + (args.rounds + args.warm_up + 3) * 30
        url = f"ws://127.0.0.1:{channel.port}/ws/live/"
        crowd, done = Crowd(url, args.voters), asyncio.Event()
        voting = asyncio.create_task(crowd.run(done))
        try:
            rounds = await follow(url, args.rounds, args.warm_up, time.monotonic() + budget_s)
        finally:
            done.set()
            await voting
        print(f"{crowd.votes_cast} votes cast; head starts {head_starts(channel.port)}")
        if watcher is not None:
            hls_dir = channel.workdir / "hls"
            # A clip's archive, which names its first segment, is written once the clip has aired.
            for r in rounds.values():
                assert r.clip_id is not None
                r.first_segment = await asyncio.to_thread(first_segment, hls_dir, r.clip_id)
            played = await watcher.fragments()
            for r in rounds.values():
                r.on_screen = played.get(r.first_segment) if r.first_segment is not None else None
    finally:
        if watcher is not None:
            await watcher.close()
    ids = [r.clip_id for r in rounds.values() if r.clip_id is not None]
    if ids:
        print(render_stages(channel.workdir, ids))
    return rounds


def line(number: int, r: Round) -> str:
    assert r.closed is not None and r.playing is not None
    return f"round {number:>3}: close -> now playing {r.playing - r.closed:5.2f} s"


def summary(rounds: dict[int, Round]) -> str:
    rs = list(rounds.values())
    parts = [figures("close -> now playing", [r.playing - r.closed for r in rs])]  # type: ignore[operator]
    seen = [r.on_screen - r.closed for r in rs if r.on_screen is not None]  # type: ignore[operator]
    if seen:
        parts.append(figures(f"close -> on screen in Chromium ({len(seen)} rounds)", seen))
        late = [r.on_screen - r.playing for r in rs if r.on_screen is not None]  # type: ignore[operator]
        parts.append(figures("now playing -> on screen", late))
    return f"{len(rs)} rounds\n" + "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=8, help="rounds measured after the warm-up")
    parser.add_argument("--warm-up", type=int, default=2, help="first rounds left out")
    parser.add_argument(
        "--voters", type=int, default=12, help="viewers who write and vote (0: house prompts)"
    )
    parser.add_argument("--player", action="store_true", help="also watch the viewer page in Chromium")
    args = parser.parse_args()
    # A stopped benchmark stops its channel too (the `finally` below), instead of leaving it running.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    channel = Channel()
    channel.start()
    try:
        channel.wait_serving()
        rounds = asyncio.run(measure(channel, args))
    except OSError as exc:
        raise SystemExit(f"cannot reach the channel: {exc}\n{channel.log_tail()}") from exc
    except BaseException:
        print(channel.log_tail())
        raise
    finally:
        channel.stop()
    if len(rounds) < args.rounds:
        raise SystemExit(f"only {len(rounds)} of {args.rounds} rounds reached viewers")
    print(summary(rounds))


if __name__ == "__main__":
    main()
