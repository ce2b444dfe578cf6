"""Voting benchmark: viewers over real WebSockets against a real uvicorn server, one load process.

    python -m benchmarks.voting [--levels 1000,2000] [--seconds 15] [--compare-viewers 200]
        [--floor-watchers 2000] [--crowd 5000,1000] [--processes 2]

Everything runs on loopback in a sandbox of its own: a private redis-server, a fresh SQLite file, the web
process (uvicorn) and one conductor (the tally ticker). On a machine with two cores or more the web process
runs on core 0 and everything else (the load client, Redis, the conductor) on core 1, so "web CPU" is the
share of one core it took. Reported, in one run, side by side:
- per level of voting viewers (each votes once a second): votes accepted per second, the delay from a vote
  to the first tally that shows it (p50/p99, measured at probe clients that own two candidates each, so their
  own vote is visible in the counts), and the web process's CPU;
- the floor: the CPU per tally frame delivered to watching sockets, by the web process and by a bare
  websockets server writing one pre-encoded frame of the same size to as many sockets (benchmarks/floor.py);
- a crowd of watchers beside voters; two web processes on one port against one process with half the load;
- the same small load twice, coalesced ticks vs one broadcast per vote (TALLY_BROADCAST=per_vote).

With `--versus REV` it runs only the levels, alternating between the web process of this checkout and of
REV (a git worktree; the same Redis, database and conductor), `--rounds` times: one version against another
in one run, on a machine whose speed drifts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import charts
from benchmarks.loadclient import run_load
from benchmarks.voting_redis import publish_cost, vote_cost
from benchmarks.voting_sandbox import ROOT, Sandbox, seed_candidates

TALLY_HZ = 4.0  # the setting's default, which the floor server matches
WEB_CPUS = {0}  # where the web process runs when the machine has two cores; the rest runs on the others


def pinned() -> bool:
    return len(os.sched_getaffinity(0)) >= 2


def level(
    sandbox: Sandbox,
    viewers: int,
    rate: float,
    seconds: float,
    seeded: Any,
    watchers: int = 0,
    quiet: bool = False,
) -> dict[str, Any]:
    public, pairs = seeded
    url = f"ws://127.0.0.1:{sandbox.web_port}/ws/live/"
    origin = f"http://127.0.0.1:{sandbox.web_port}"
    load = run_load(url, origin, viewers, rate, seconds, public, pairs, sandbox.web_cpu, watchers=watchers)
    result = asyncio.run(load)
    if not quiet:
        print(row(result), flush=True)
    return result


def floor_level(
    sandbox: Sandbox, watchers: int, seconds: float, seeded: Any, web_cpus: set[int] | None
) -> dict[str, Any]:
    """What the bare server spends per frame, writing a tally-sized frame to `watchers` sockets."""
    public, pairs = seeded
    counts = {str(pid): 1000 + pid for pid in [*public, *(p for pair in pairs for p in pair)]}
    frame = json.dumps({"type": "tally", "round_id": 1, "seq": 123456, "counts": counts, "total": 99999})
    sandbox.start_floor(frame, TALLY_HZ, web_cpus)
    url, origin = f"ws://127.0.0.1:{sandbox.web_port}/", f"http://127.0.0.1:{sandbox.web_port}"
    load = run_load(url, origin, 0, 0.0, seconds, [], [], sandbox.web_cpu, watchers=watchers, greeted=False)
    return asyncio.run(load)


HEADER = (
    "| viewers (+ watchers) | offered votes/s | accepted votes/s | refused | vote-to-tally p50 | p99 | "
    "samples (misses) | tallies/s per client | web CPU | load CPU | web CPU per connect |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|"
)


def watching(r: dict[str, Any]) -> str:
    return f" (+ {r['watchers']})" if r["watchers"] else ""


def row(r: dict[str, Any]) -> str:
    return (
        f"| {r['viewers']}{watching(r)} | {r['offered_votes_per_s']:.0f} | {r['accepted_votes_per_s']:.0f} | "
        f"{r['refused']} | "
        f"{r['delay_p50_ms']:.0f} ms | {r['delay_p99_ms']:.0f} ms | {r['delay_samples']} ({r['misses']}) | "
        f"{r['tallies_per_probe_per_s']:.1f} | {r['web_cpu_percent']:.0f} % | "
        f"{r['load_cpu_percent']:.0f} % | {r['connect_cpu_ms']:.1f} ms |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--levels", default="1000,2000", help="viewer counts; each votes once a second")
    parser.add_argument("--seconds", type=float, default=15.0, help="measured seconds per level")
    parser.add_argument("--compare-viewers", type=int, default=200, help="viewers for tick vs per-vote")
    parser.add_argument("--floor-watchers", type=int, default=2000, help="watching sockets for the floor")
    parser.add_argument("--crowd", default="5000,1000", help="watchers,voters held together (0 to skip)")
    parser.add_argument("--processes", type=int, default=2, help="web processes against one (1 to skip)")
    parser.add_argument("--charts", type=Path, default=charts.CHARTS_DIR, help="where voting.png is drawn")
    parser.add_argument("--versus", metavar="REV", help="only the levels, this checkout against git REV's")
    parser.add_argument("--rounds", type=int, default=2, help="alternations of --versus")
    args = parser.parse_args()
    levels = [int(n) for n in args.levels.split(",") if n]
    web_cpus = WEB_CPUS if pinned() else None
    if web_cpus:
        os.sched_setaffinity(0, set(os.sched_getaffinity(0)) - web_cpus)  # Redis and the conductor inherit it
    sandbox = Sandbox()
    # A stopped benchmark (Ctrl-C, `timeout`) still stops the servers it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        sandbox.start()
        seeded = seed_candidates(sandbox.env)
        started = time.monotonic()
        where = "web on core 0, the rest on the others" if web_cpus else "not pinned (one core)"
        print(f"load: one asyncio process, 20 probes; web: one process (python -m yolive.serve); {where}\n")
        if args.versus:
            versus(sandbox, args, levels, seeded, web_cpus)
            return
        print("Coalesced ticks (TALLY_BROADCAST=tick):\n" + HEADER, flush=True)
        sandbox.start_web("tick", cpus=web_cpus)
        results = [level(sandbox, viewers, float(viewers), args.seconds, seeded) for viewers in levels]
        print_floor(sandbox, args, seeded, web_cpus)
        if args.crowd != "0":
            watchers, voters = (int(n) for n in args.crowd.split(","))
            sandbox.start_web("tick", cpus=web_cpus)
            print(f"\nA crowd: {watchers} watching sockets beside {voters} voters:\n" + HEADER)
            level(sandbox, voters, float(voters), args.seconds, seeded, watchers=watchers)
        if args.processes > 1:
            print_processes(sandbox, args, seeded, levels[0])
        small = args.compare_viewers
        sandbox.start_web("tick", cpus=web_cpus)
        print("\nThe same small load, coalesced ticks:\n" + HEADER)
        tick = level(sandbox, small, float(small), args.seconds * 2 / 3, seeded)
        print("\nOne broadcast per vote (TALLY_BROADCAST=per_vote), same load:\n" + HEADER)
        sandbox.start_web("per_vote", cpus=web_cpus)
        per_vote = level(sandbox, small, float(small), args.seconds * 2 / 3, seeded)
        print(comparison(tick, per_vote))
        print_redis_costs(sandbox, seeded)
        print(f"chart: {draw_chart(args, results, tick, per_vote)}")
        print(f"\n(took {time.monotonic() - started:.0f} s; server logs in {sandbox.log_path})")
    finally:
        sandbox.close()


def versus(
    sandbox: Sandbox, args: argparse.Namespace, levels: list[int], seeded: Any, web_cpus: set[int] | None
) -> None:
    with tempfile.TemporaryDirectory(prefix="yolive-versus-") as folder:
        other = Path(folder) / "tree"
        git = ["git", "-C", str(ROOT)]
        subprocess.run([*git, "worktree", "add", "--detach", str(other), args.versus], check=True)
        try:
            print(HEADER.replace("| viewers", "| web process | viewers", 1) + "---|", flush=True)
            for _ in range(args.rounds):
                for name, root in (("this checkout", ROOT), (args.versus, other)):
                    sandbox.start_web("tick", cpus=web_cpus, root=root)
                    for viewers in levels:
                        result = level(sandbox, viewers, float(viewers), args.seconds, seeded, quiet=True)
                        print(f"| {name} {row(result)}", flush=True)
            sandbox.stop_web()
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(other)], check=False)


def print_floor(sandbox: Sandbox, args: argparse.Namespace, seeded: Any, web_cpus: set[int] | None) -> None:
    watchers = args.floor_watchers
    print(f"\nCPU per tally frame delivered to {watchers} watching sockets (and 20 voting probes):")
    sandbox.start_web("tick", cpus=web_cpus)
    ours = level(sandbox, len(seeded[1]), 0.0, args.seconds, seeded, watchers=watchers)  # probes make tallies
    floor = floor_level(sandbox, watchers, args.seconds, seeded, web_cpus)
    print("| server | frames delivered/s | CPU | CPU per frame |\n|---|---|---|---|")
    for name, r in (("the web process", ours), ("bare websockets.broadcast (floor)", floor)):
        cost = f"{r['cpu_us_per_frame']:.1f} us"
        print(f"| {name} | {r['frames_per_s']:.0f} | {r['web_cpu_percent']:.0f} % | {cost} |")
    ratio = ours["cpu_us_per_frame"] / max(floor["cpu_us_per_frame"], 1e-9)
    print(f"web / floor, CPU per delivered frame: x{ratio:.2f}")


def print_redis_costs(sandbox: Sandbox, seeded: Any) -> None:
    from yolive.voting import tally  # Django is set up by seed_candidates, in the sandbox's settings

    url = sandbox.env["REDIS_URL"]
    round_id = tally.current_round_id()
    assert round_id is not None
    print("\nRedis CPU (its own INFO cpu), pipelined from one client:")
    print(
        f"- per vote (the CAST_VOTE script, a new viewer each): {vote_cost(url, round_id, seeded[0]):.1f} us"
    )
    for subscribers in (1, 10, 50):
        cost = publish_cost(url, subscribers, payload_bytes=900)
        print(f"- per PUBLISH of a 1 kB tally to {subscribers} subscribed web processes: {cost:.1f} us")


def print_processes(sandbox: Sandbox, args: argparse.Namespace, seeded: Any, viewers: int) -> None:
    """Two web processes on one port hold twice the viewers of one, each at the cost of one."""
    count = args.processes
    print(
        f"\n{count} web processes on one port (not pinned: they share every core with the load):\n" + HEADER
    )
    sandbox.start_web("tick")
    single = level(sandbox, viewers, float(viewers), args.seconds, seeded)
    sandbox.start_web("tick", processes=count)
    several = level(sandbox, viewers * count, float(viewers * count), args.seconds, seeded)
    per_vote = [r["web_cpu_percent"] / max(r["accepted_votes_per_s"], 1e-9) for r in (single, several)]
    held = several["accepted_votes_per_s"] / max(single["accepted_votes_per_s"], 1e-9)
    cost = per_vote[1] / per_vote[0]
    print(f"{count} processes / 1: accepted votes/s x{held:.2f}, CPU per accepted vote x{cost:.2f}")


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
