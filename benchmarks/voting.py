"""Voting benchmark: N viewers over real WebSockets against a real uvicorn server, one load process.

    python -m benchmarks.voting [--levels 1000,2000] [--seconds 15] [--compare-viewers 200]

Everything runs on loopback in a sandbox of its own: a private redis-server, a fresh SQLite file, one web
process (uvicorn) and one conductor (the tally ticker). Reported per level: votes accepted per second, the
delay from a vote to the first tally that shows it (p50/p99, measured at probe clients that own two
candidates each, so their own vote is visible in the counts), and the web process's CPU. Then the same
small load twice, coalesced ticks vs one broadcast per vote (TALLY_BROADCAST=per_vote), and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import charts
from benchmarks.common import cpu_seconds, free_port
from benchmarks.loadclient import run_load

ROOT = Path(__file__).resolve().parent.parent
PROBES = 20  # clients that each own two candidates; 2 x 20 + PUBLIC candidates stays under MAX_CANDIDATES
PUBLIC = 8  # candidates everybody else votes on
STARTUP_TIMEOUT_S = 60


def sandbox_env(workdir: Path, redis_port: int) -> dict[str, str]:
    return dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="yolive.settings",
        SECRET_KEY="bench-only",
        VAR_DIR=str(workdir),
        DATABASE_URL="",
        REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
        CHANNEL_PREFIX="yolive-bench",
        ROUND_SECONDS="3600",  # one round for the whole run: every level votes into an open round
        VOTES_PER_WINDOW="1000",  # probes vote a few times a second
        VOTES_PER_WINDOW_PER_IP="1000000000",  # every client shares 127.0.0.1
        SUBMITS_PER_WINDOW_PER_IP="1000000000",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )


class Sandbox:
    """The private redis-server, web process and conductor, started and stopped by this benchmark only."""

    def __init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="yolive-bench-"))
        self.redis_port = free_port()
        self.env = sandbox_env(self.workdir, self.redis_port)
        self.processes: list[subprocess.Popen[bytes]] = []
        # The servers' own logs (an overloaded web process logs every frame it could not serve).
        self.log_path = ROOT / "var" / "bench-voting.log"
        self.log_path.parent.mkdir(exist_ok=True)
        self.log = self.log_path.open("w")
        self.web: subprocess.Popen[bytes] | None = None
        self.web_port = 0

    def start(self) -> None:
        redis_cmd = ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", ""]
        self._spawn([*redis_cmd, "--appendonly", "no", "--dir", str(self.workdir)])
        manage = [sys.executable, "manage.py"]
        subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=self.env, check=True)
        self._spawn([*manage, "conduct"])

    def start_web(self, broadcast: str, deflate: bool = False) -> None:
        self.stop_web()
        self.web_port = free_port()
        env = dict(self.env, TALLY_BROADCAST=broadcast)
        # As yolive.serve runs it: compressing every tally for every socket would cost more CPU than the
        # whole vote path (measured: docs/benchmarks.md).
        uvicorn = [sys.executable, "-m", "uvicorn", "yolive.asgi:application", "--ws", "websockets"]
        uvicorn += ["--ws-per-message-deflate", "true" if deflate else "false"]
        where = [
            "--host",
            "127.0.0.1",
            "--port",
            str(self.web_port),
            "--no-access-log",
            "--log-level",
            "warning",
        ]
        self.web = self._spawn([*uvicorn, *where], env=env)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.web_port)) == 0:
                    return
            time.sleep(0.2)
        raise RuntimeError("the web process did not start")

    def stop_web(self) -> None:
        if self.web is not None:
            self._stop(self.web)
            self.processes.remove(self.web)
            self.web = None

    def _spawn(self, cmd: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(cmd, cwd=ROOT, env=env or self.env, stdout=self.log, stderr=self.log)
        self.processes.append(process)
        return process

    @staticmethod
    def _stop(process: subprocess.Popen[bytes]) -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self) -> None:
        for process in reversed(self.processes):
            self._stop(process)
        shutil.rmtree(self.workdir, ignore_errors=True)
        self.log.close()


def seed_candidates(env: dict[str, str]) -> tuple[list[int], list[tuple[int, int]]]:
    """Put PUBLIC + 2 x PROBES candidates on the open round's ballot (as the conductor and services do)."""
    os.environ.update(env)
    import django

    django.setup()
    from yolive.voting import tally
    from yolive.voting.models import Prompt

    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while (round_id := tally.current_round_id()) is None:
        if time.monotonic() > deadline:
            raise RuntimeError("the conductor opened no round")
        time.sleep(0.2)

    def candidate(text: str) -> int:
        prompt = Prompt.objects.create(text=text, normalized_text=text, round_id=round_id, status="approved")
        assert tally.add_candidate(round_id, prompt.pk, text) == "added"
        return prompt.pk

    public = [candidate(f"scene {i}: a calm lake at dawn") for i in range(PUBLIC)]
    probes = [(candidate(f"probe {i} left"), candidate(f"probe {i} right")) for i in range(PROBES)]
    return public, probes


def level(sandbox: Sandbox, viewers: int, rate: float, seconds: float, seeded: Any) -> dict[str, Any]:
    public, pairs = seeded
    web = sandbox.web
    assert web is not None
    url = f"ws://127.0.0.1:{sandbox.web_port}/ws/live/"
    origin = f"http://127.0.0.1:{sandbox.web_port}"
    load = run_load(url, origin, viewers, rate, seconds, public, pairs, lambda: cpu_seconds(web.pid))
    result = asyncio.run(load)
    print(row(result), flush=True)
    return result


HEADER = (
    "| viewers | offered votes/s | accepted votes/s | refused | vote-to-tally p50 | p99 | samples (misses) | "
    "tallies/s per client | web CPU |\n|---|---|---|---|---|---|---|---|---|"
)


def row(r: dict[str, Any]) -> str:
    return (
        f"| {r['viewers']} | {r['offered_votes_per_s']:.0f} | {r['accepted_votes_per_s']:.0f} | "
        f"{r['refused']} | "
        f"{r['delay_p50_ms']:.0f} ms | {r['delay_p99_ms']:.0f} ms | {r['delay_samples']} ({r['misses']}) | "
        f"{r['tallies_per_probe_per_s']:.1f} | {r['web_cpu_percent']:.0f} % |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--levels", default="1000,2000", help="viewer counts; each votes once a second")
    parser.add_argument("--seconds", type=float, default=15.0, help="measured seconds per level")
    parser.add_argument("--compare-viewers", type=int, default=200, help="viewers for tick vs per-vote")
    parser.add_argument("--deflate", action="store_true", help="let sockets negotiate permessage-deflate")
    parser.add_argument("--charts", type=Path, default=charts.CHARTS_DIR, help="where voting.png is drawn")
    args = parser.parse_args()
    levels = [int(n) for n in args.levels.split(",") if n]
    sandbox = Sandbox()
    # A stopped benchmark (Ctrl-C, `timeout`) still stops the servers it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        sandbox.start()
        seeded = seed_candidates(sandbox.env)
        started = time.monotonic()
        deflate = "on" if args.deflate else "off"
        print(f"load: one asyncio process, {PROBES} probes; web: one uvicorn process, deflate {deflate}\n")
        print("Coalesced ticks (TALLY_BROADCAST=tick):\n" + HEADER, flush=True)
        sandbox.start_web("tick", args.deflate)
        results = [level(sandbox, viewers, float(viewers), args.seconds, seeded) for viewers in levels]
        small = args.compare_viewers
        tick = level(sandbox, small, float(small), args.seconds * 2 / 3, seeded)
        print("\nOne broadcast per vote (TALLY_BROADCAST=per_vote), same load as the last row:\n" + HEADER)
        sandbox.start_web("per_vote", args.deflate)
        per_vote = level(sandbox, small, float(small), args.seconds * 2 / 3, seeded)
        print(comparison(tick, per_vote))
        print(f"chart: {draw_chart(args, results, tick, per_vote)}")
        print(f"\n(took {time.monotonic() - started:.0f} s; server logs in {sandbox.log_path})")
    finally:
        sandbox.close()


def draw_chart(
    args: argparse.Namespace, results: list[dict[str, Any]], tick: dict[str, Any], per_vote: dict[str, Any]
) -> Path:
    viewers = [r["viewers"] for r in results]
    return charts.draw(
        args.charts / "voting.png",
        f"Voting: one web process, {args.seconds:.0f} s per level; "
        f"{args.compare_viewers} viewers for tick vs per-vote",
        [
            charts.Panel(
                "Votes per second",
                viewers,
                {
                    "offered": [r["offered_votes_per_s"] for r in results],
                    "accepted": [r["accepted_votes_per_s"] for r in results],
                },
                "votes/s",
                xlabel="viewers",
            ),
            charts.Panel(
                "Vote to tally on another socket",
                viewers,
                {"p50": [r["delay_p50_ms"] for r in results], "p99": [r["delay_p99_ms"] for r in results]},
                "ms",
                xlabel="viewers",
            ),
            charts.Panel(
                "Web CPU per accepted vote",
                ["tick", "per vote"],
                {
                    "CPU ms": [
                        r["web_cpu_percent"] * 10 / max(r["accepted_votes_per_s"], 1e-9)
                        for r in (tick, per_vote)
                    ]
                },
                "ms",
            ),
        ],
    )


def comparison(tick: dict[str, Any], per_vote: dict[str, Any]) -> str:
    def cpu_per_vote(r: dict[str, Any]) -> float:
        return r["web_cpu_percent"] * 10 / max(r["accepted_votes_per_s"], 1e-9)  # CPU ms per accepted vote

    return (
        f"\nper-vote / tick: web CPU per accepted vote x{cpu_per_vote(per_vote) / cpu_per_vote(tick):.1f}, "
        f"accepted votes/s x{per_vote['accepted_votes_per_s'] / tick['accepted_votes_per_s']:.2f}, "
        f"p99 delay x{per_vote['delay_p99_ms'] / tick['delay_p99_ms']:.1f}"
    )


if __name__ == "__main__":
    main()
