"""The broadcaster's housekeeping thread: heartbeat, archive retention, spent frames, the stall watchdog.

It runs beside the feeder because each of these can be slow (Redis, a big archive, the database) and a
hung ffmpeg blocks the feeder inside its write, where only another thread can see it.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from streaming import airing, archive
from yolive import heartbeat

if TYPE_CHECKING:
    from streaming.broadcaster import Broadcaster

log = logging.getLogger(__name__)

TICK_S = 1.0
SWEEP_INTERVAL_S = 60.0
# Raw frames of an aired clip are kept this long: the next render reads the previous clip's last frames
# for continuity, and it started long before.
FRAMES_KEEP_S = 600.0
# No segment for this many segment durations while frames go in: ffmpeg is hung (not dead). Kill it and
# let the feeder restart it, rather than leave the pipe blocked and the stream frozen.
STALL_SEGMENTS = 5


class Keeper(threading.Thread):
    def __init__(self, broadcaster: Broadcaster) -> None:
        super().__init__(name="keeper", daemon=True)
        self.broadcaster = broadcaster

    def run(self) -> None:
        b = self.broadcaster
        last_beat = last_sweep = 0.0
        while not b.halt.is_set():
            now = time.monotonic()
            if now - last_beat >= heartbeat.BEAT_INTERVAL_S:
                last_beat = now
                with contextlib.suppress(Exception):  # a Redis outage shows on /healthz, it kills nothing
                    heartbeat.beat("broadcaster", newest_segment_at=b.newest_segment_at or None)
            try:
                if now - last_sweep > SWEEP_INTERVAL_S:
                    last_sweep = now
                    self.sweep()
                self.watch_encoder()
            except Exception:  # the heartbeat must outlive any housekeeping fault
                log.exception("housekeeping failed")
            b.halt.wait(TICK_S)

    def sweep(self) -> None:
        """Archives past their retention, and raw frames of clips that aired a while ago."""
        b = self.broadcaster
        if b.retention_hours:
            for clip_id in archive.sweep(b.hls_dir, b.retention_hours):
                b.announcer.at(0, functools.partial(airing.mark_archived, clip_id, ""))
        cutoff = datetime.now(UTC) - timedelta(seconds=FRAMES_KEEP_S)
        b.announcer.at(0, functools.partial(airing.drop_spent_frames, cutoff))

    def watch_encoder(self) -> None:
        b = self.broadcaster
        encoder = b.encoder
        if encoder is None or not b.paced:
            return
        quiet = time.monotonic() - max(b.last_listed, encoder.started_at)
        if quiet > STALL_SEGMENTS * b.spec.segment_seconds and encoder.alive():
            log.error("ffmpeg has finished no segment for %.0f s; killing it", quiet)
            encoder.process.kill()  # the feeder's blocked write fails, and it restarts ffmpeg
