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
from pathlib import Path

from streaming import airing, archive
from streaming.feed import Feed
from streaming.publisher import Publisher
from yolive.clips import frames, lifecycle
from yolive.plumbing import heartbeat

log = logging.getLogger(__name__)

TICK_S = 1.0
SWEEP_INTERVAL_S = 60.0
# Raw frames of an aired clip are kept this long: the next render reads the previous clip's last frames
# for continuity, and it started long before.
FRAMES_KEEP_S = 600.0


class Keeper(threading.Thread):
    def __init__(
        self,
        *,
        halt: threading.Event,
        announcer: airing.Announcer,
        publisher: Publisher,
        watched_feed: Feed | None,
        hls_dir: Path,
        archive_retention_hours: float,
    ) -> None:
        super().__init__(name="keeper", daemon=True)
        self.halt = halt
        self.announcer = announcer
        self.publisher = publisher  # read for the heartbeat only
        self.watched_feed = watched_feed  # None: unpaced, so a slow ffmpeg is not a hung one
        self.hls_dir = hls_dir
        self.retention_hours = archive_retention_hours

    def run(self) -> None:
        last_beat = last_sweep = 0.0
        while not self.halt.is_set():
            now = time.monotonic()
            if now - last_beat >= heartbeat.BEAT_INTERVAL_S:
                last_beat = now
                newest = self.publisher.newest_segment_at or None
                with contextlib.suppress(Exception):  # a Redis outage shows on /healthz, it kills nothing
                    heartbeat.beat("broadcaster", newest_segment_at=newest)
            try:
                if now - last_sweep > SWEEP_INTERVAL_S:
                    last_sweep = now
                    self.sweep()
                if self.watched_feed is not None:
                    self.watched_feed.kill_if_stalled()
            except Exception:  # the heartbeat must outlive any housekeeping fault
                log.exception("housekeeping failed")
            self.halt.wait(TICK_S)

    def sweep(self) -> None:
        """Archives past their retention, and raw frames of clips that aired a while ago."""
        if self.retention_hours:
            for clip_id in archive.sweep(self.hls_dir, self.retention_hours):
                self.announcer.at(0, functools.partial(lifecycle.record_archive, clip_id, ""))
        cutoff = datetime.now(UTC) - timedelta(seconds=FRAMES_KEEP_S)
        self.announcer.at(0, functools.partial(frames.drop_spent, cutoff))
