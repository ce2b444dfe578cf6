"""`make run`'s supervisor keeps the channel on air when any one of its processes dies.

Each process is SIGKILLed in turn (the worst exit: no clean-up), while a live HLS client reads the stream
through the web process the way a player does.
"""

from __future__ import annotations

import itertools
import os
import signal
import time

import pytest
from django.conf import settings

from tests.helpers.observers import check_playlist_rules
from tests.helpers.supervised import LiveClient, SupervisedChannel
from yolive.plumbing.heartbeat import BEAT_TTL_S
from yolive.plumbing.metrics.totals import FLUSH_INTERVAL_S

pytestmark = pytest.mark.slow

STARTS_WITHIN_S = 180  # a cold start imports torch and builds the tiny model on a busy 2-core machine
HEALTHY_AGAIN_WITHIN_S = 30  # the promise to an operator
# Every kill below restarts at most one encoder, so each may add at most one discontinuity.
PROGRAMS = ["web", "worker", "conductor", "broadcaster"]
BEATING = {"worker", "conductor", "broadcaster"}  # the web answers /healthz itself


def kill_and_wait_for_the_replacement(channel: SupervisedChannel, name: str) -> None:
    if name == "ffmpeg":
        victim = channel.ffmpeg_pid()
        assert victim is not None, "the broadcaster runs no ffmpeg"
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + HEALTHY_AGAIN_WITHIN_S
        while channel.ffmpeg_pid() in (None, victim):
            assert time.monotonic() < deadline, "the broadcaster started no new ffmpeg"
            time.sleep(0.2)
        return
    victim = channel.pid(name)
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + HEALTHY_AGAIN_WITHIN_S
    while channel.pid(name) == victim:
        assert time.monotonic() < deadline, f"supervisord did not start {name} again"
        time.sleep(0.2)


def wait_for_beat(channel: SupervisedChannel, name: str, within_s: float) -> None:
    replacement = channel.pid(name)
    deadline = time.monotonic() + within_s
    while replacement not in channel.beating(name):
        assert time.monotonic() < deadline, f"the new {name} never reported in (heartbeat TTL {BEAT_TTL_S} s)"
        time.sleep(0.2)


def wait_for_metrics(channel: SupervisedChannel) -> dict:
    """/metrics once the processes' last flushes are in and a clip has aired since the start: what the web,
    the worker's pool process and the broadcaster recorded, across the restarts above."""
    deadline = time.monotonic() + 3 * FLUSH_INTERVAL_S + 4 * settings.ROUND_SECONDS  # flushes, a clip aired
    while True:
        samples = channel.metrics()
        restarted = samples.get(("yolive_ffmpeg_restarts_total", ()), 0) >= 1
        aired = samples.get(("yolive_clips", (("status", "aired"),)), 0) >= 1
        if (restarted and aired) or time.monotonic() > deadline:
            return samples
        time.sleep(1)


def test_killing_each_process_in_turn_leaves_the_stream_playing_and_health_returns(tmp_path):
    channel = SupervisedChannel(tmp_path / "channel")
    channel.start()
    client = LiveClient(f"{channel.url}/hls/live.m3u8")
    try:
        channel.wait_healthy(STARTS_WITHIN_S)
        client.start()
        client.wait_for_segments(3, since=0, within_s=30)
        discontinuities_by_kill = {}
        for name in [*PROGRAMS, "ffmpeg"]:
            others = {p: channel.pid(p) for p in PROGRAMS if p != name}
            killed_at = time.monotonic()
            kill_and_wait_for_the_replacement(channel, name)
            if name in BEATING:
                # The dead process's heartbeat outlives it by up to BEAT_TTL_S: /healthz's 200 must come from
                # the replacement's, so wait until the replacement has reported in.
                wait_for_beat(channel, name, killed_at + HEALTHY_AGAIN_WITHIN_S - time.monotonic())
            channel.wait_healthy(killed_at + HEALTHY_AGAIN_WITHIN_S - time.monotonic())
            client.wait_for_segments(2, since=time.monotonic(), within_s=20)
            assert {p: channel.pid(p) for p in others} == others, f"killing {name} restarted others"
            discontinuities_by_kill[name] = sum(f.discontinuity for f in client.listed_since(killed_at))
            print(f"killed {name}: /healthz 200 again {time.monotonic() - killed_at:.1f} s after the kill")
        recorded = wait_for_metrics(channel)
    finally:
        client.stop()
        status = channel.stop()

    listed = [f.at for f in client.fetched]
    print(f"longest wait for a new segment: {max(b - a for a, b in itertools.pairwise(listed)):.1f} s")
    assert client.gaps() == [], "the client missed segments: the stream did not go on"
    assert client.missed == [] and all(f.is_ts for f in client.fetched)
    check_playlist_rules(client.playlists, settings.HLS_SEGMENT_SECONDS)
    # Only a new encoder starts a new timeline: the web, worker and conductor kills add none.
    assert discontinuities_by_kill["web"] == discontinuities_by_kill["worker"] == 0
    assert discontinuities_by_kill["conductor"] == 0
    assert discontinuities_by_kill["broadcaster"] <= 1 and discontinuities_by_kill["ffmpeg"] <= 1
    log = channel.supervisor_log()
    for name in PROGRAMS:
        assert f"exited: {name} (terminated by SIGKILL; not expected)" in log
    assert "ffmpeg died; restarting it" in log
    # Ctrl-C stopped everything: supervisord exits cleanly and leaves no process of the channel behind.
    assert status == 0
    assert not any(os.path.exists(f"/proc/{channel.pid(p)}") for p in PROGRAMS)
    assert "stopped: broadcaster (exit status 0)" in log
    # Metrics from every process add up in Redis and outlive the processes that recorded them.
    assert recorded[("yolive_ffmpeg_restarts_total", ())] == 1
    assert recorded[("yolive_render_seconds_count", (("stage", "total"),))] >= 1
    assert recorded[("yolive_clips", (("status", "aired"),))] >= 1
    assert recorded[("yolive_clip_lateness_seconds_count", ())] >= 1
    assert recorded[("yolive_filler_seconds_total", ())] > 0
    assert 0 <= recorded[("yolive_newest_segment_age_seconds", ())] < 10
    assert recorded[("yolive_processes", (("process", "worker"),))] >= 1
