"""Faults the stream survives: ffmpeg killed mid-clip, a moderator's skip, a stop signal."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import m3u8
import pytest
from django.conf import settings

from streaming.publisher import live_window_segments
from tests.helpers.observers import PlaylistReloads, check_playlist_rules, packets
from tests.helpers.processes import ROOT, subprocess_env
from tests.helpers.streaming import FPS, SEGMENT, make_clip, start_broadcaster
from yolive.clips.models import Clip
from yolive.plumbing import heartbeat, metrics

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
CLIP_SECONDS = 10


def test_killing_ffmpeg_mid_clip_restarts_it_and_the_same_playlist_goes_on(tmp_path):
    clip = make_clip(tmp_path / "clips", 1, frames=CLIP_SECONDS * FPS + 1)
    on_air = start_broadcaster(tmp_path, clip_seconds=CLIP_SECONDS)
    reloads = PlaylistReloads(on_air.hls_dir / "live.m3u8", interval=0.5)
    try:
        on_air.wait_for(lambda: len(on_air.segments) >= 2, 30, "two segments")
        reloads.start()
        first_ffmpeg = on_air.broadcaster.feed.encoder
        assert first_ffmpeg is not None
        restarts_before = metrics.REGISTRY.get_sample_value("yolive_ffmpeg_restarts_total")
        os.kill(first_ffmpeg.pid, signal.SIGKILL)
        killed_after = len(on_air.segments)
        # Long enough for the marked segment to slide out of the window.
        enough = killed_after + live_window_segments(SEGMENT) + 2
        on_air.wait_for(lambda: len(on_air.segments) >= enough, 60, "more")
    finally:
        reloads.stop()
        on_air.finish()

    assert on_air.broadcaster.feed.restarts == 1
    assert metrics.REGISTRY.get_sample_value("yolive_ffmpeg_restarts_total") == restarts_before + 1
    assert first_ffmpeg.process.poll() is not None
    segments = [s for s in on_air.segments if s.duration == SEGMENT]
    assert [s.sequence for s in segments] == list(range(len(segments)))
    marked = [s.sequence for s in segments if s.discontinuity]
    assert len(marked) == 1 and killed_after <= marked[0] <= killed_after + 1
    # The sequence counted the discontinuity out.
    assert check_playlist_rules([text for _, text in reloads.texts], SEGMENT) == 1
    # The clip lost nothing: the segments the dead ffmpeg never finished were fed again.
    assert len(on_air.clip_segments(clip.id)) == CLIP_SECONDS // SEGMENT
    clip.refresh_from_db()
    assert clip.status == Clip.Status.AIRED
    # Timestamps go on from where the dead ffmpeg stopped, and every segment still opens with a keyframe.
    before, after = segments[marked[0] - 1], segments[marked[0]]
    last_before, first_after = (
        packets(on_air.kept_dir / before.uri)[-1],
        packets(on_air.kept_dir / after.uri)[0],
    )
    assert first_after.keyframe
    assert first_after.pts == pytest.approx(last_before.pts + 1 / FPS, abs=0.002)


def test_a_hung_ffmpeg_is_killed_and_replaced(tmp_path):
    make_clip(tmp_path / "clips", 1, frames=CLIP_SECONDS * FPS)
    on_air = start_broadcaster(tmp_path, clip_seconds=CLIP_SECONDS)
    try:
        on_air.wait_for(lambda: len(on_air.segments) >= 2, 30, "two segments")
        hung = on_air.broadcaster.feed.encoder
        assert hung is not None
        os.kill(hung.pid, signal.SIGSTOP)  # alive, but it reads no frame and writes no segment
        stalled_after = len(on_air.segments)
        on_air.wait_for(lambda: len(on_air.segments) >= stalled_after + 2, 60, "segments after the stall")
    finally:
        on_air.finish()
    assert on_air.broadcaster.feed.restarts == 1
    assert hung.process.poll() is not None  # killed and reaped, not left stopped
    assert [s.discontinuity for s in on_air.segments].count(True) == 1


def test_a_moderators_skip_cuts_the_clip_at_the_next_segment_and_filler_goes_on(tmp_path):
    clip = make_clip(tmp_path / "clips", 1, frames=CLIP_SECONDS * FPS)
    skipped_early = make_clip(tmp_path / "clips", 2, frames=CLIP_SECONDS * FPS)
    Clip.objects.filter(id=skipped_early.id).update(skip_requested=True)
    on_air = start_broadcaster(tmp_path, clip_seconds=CLIP_SECONDS)
    try:
        on_air.wait_for(lambda: on_air.clip_segments(clip.id), 30, "the clip on air")
        Clip.objects.filter(id=clip.id).update(skip_requested=True)
        on_air.wait_for(lambda: len(on_air.segments) >= 6, 30, "six segments")
        on_air.wait_for(lambda: on_air.broadcaster.announcer.pending() == 0, 15, "the announcements")
    finally:
        on_air.finish()

    aired = on_air.clip_segments(clip.id)
    assert 1 <= len(aired) < CLIP_SECONDS // SEGMENT
    after_cut = on_air.segments[aired[-1].sequence + 1]
    assert after_cut.clip_id is None
    clip.refresh_from_db()
    assert clip.status == Clip.Status.SKIPPED and clip.finished_at is not None
    assert clip.archive_path == ""
    assert not (on_air.hls_dir / "archive" / str(clip.id)).exists()
    skipped_early.refresh_from_db()
    assert skipped_early.status == Clip.Status.SKIPPED
    assert not on_air.clip_segments(skipped_early.id)


def ffmpeg_children(pid: int) -> list[int]:
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children += [int(c) for c in (task / "children").read_text().split()]
    return [c for c in children if Path(f"/proc/{c}/comm").read_text().strip() == "ffmpeg"]


def test_manage_py_broadcast_beats_stops_cleanly_on_a_signal_and_a_new_one_goes_on(tmp_path, client):
    hls_dir = tmp_path / "hls"
    env = subprocess_env(
        HLS_DIR=str(hls_dir),
        VAR_DIR=str(tmp_path / "var"),
        CLIP_SECONDS="4",
    )
    command = [str(ROOT / ".venv/bin/python"), "manage.py", "broadcast"]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 40
        while not any(b.get("newest_segment_at") for b in heartbeat.alive("broadcaster")):
            assert time.monotonic() < deadline, "no segment and heartbeat from manage.py broadcast"
            assert process.poll() is None, "manage.py broadcast exited"
            time.sleep(0.5)
        [beat] = heartbeat.alive("broadcaster")
        assert "seg_" in (hls_dir / "live.m3u8").read_text()
        assert time.time() - beat["newest_segment_at"] < 10
        health = client.get("/healthz").json()["checks"]["broadcaster"]
        assert health["ok"] and health["newest_segment_age_s"] < 10
        [ffmpeg_pid] = ffmpeg_children(process.pid)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        assert not Path(f"/proc/{ffmpeg_pid}").exists()
        before = (hls_dir / "live.m3u8").read_text()
        listed_before = len(m3u8.loads(before).segments)

        # A new broadcaster goes on with the same playlist.
        process = subprocess.Popen(command, cwd=ROOT, env=env)
        deadline = time.monotonic() + 40
        while len(m3u8.loads(after := (hls_dir / "live.m3u8").read_text()).segments) <= listed_before:
            assert time.monotonic() < deadline, "the second broadcaster wrote no segment"
            time.sleep(0.5)
        assert check_playlist_rules([before, after], settings.HLS_SEGMENT_SECONDS) == 0
        assert m3u8.loads(after).segments[listed_before].discontinuity
        process.send_signal(signal.SIGINT)  # a terminal's Ctrl-C
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
