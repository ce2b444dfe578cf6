"""The stream's clock: frames go to ffmpeg at wall-clock pace, and each segment's PROGRAM-DATE-TIME follows
from how many frames went in since the clock was last anchored."""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime, timedelta

log = logging.getLogger(__name__)

MAX_LAG_S = 4.0  # behind the wall clock by more than this (a stalled machine): stop catching up, re-anchor


class Pacer:
    def __init__(self, fps: int, paced: bool = True) -> None:
        self.fps = fps
        self.paced = (
            paced  # off: as fast as ffmpeg takes frames (benchmarks), stamped with the time they go in
        )
        self._epoch = 0.0
        self._frames = 0
        self._wall = datetime.now(UTC)

    def anchor(self) -> None:
        """Start counting frames from now (a new ffmpeg, or a pace that fell too far behind)."""
        self._epoch, self._frames, self._wall = time.monotonic(), 0, datetime.now(UTC)

    def program_date_time(self) -> datetime:
        """When the next frame is on the wall clock: the PROGRAM-DATE-TIME of a segment it opens."""
        if not self.paced:
            return datetime.now(UTC)
        return self._wall + timedelta(seconds=self._frames / self.fps)

    def wait(self, stop: threading.Event) -> None:
        """Until the next frame is due (or `stop` is set)."""
        if not self.paced:
            return
        lag = time.monotonic() - (self._epoch + self._frames / self.fps)
        if lag < 0:
            stop.wait(-lag)
        elif lag > MAX_LAG_S:
            log.warning("%.1f s behind the wall clock; re-anchoring the pace", lag)
            self.anchor()

    def count_frame(self) -> None:
        self._frames += 1
