"""The ffmpeg that the stream's slots go into, and the slots it has been fed but not yet finished.

A slot leaves the feed when ffmpeg lists its segment. When an ffmpeg dies or hangs it is killed, and the
slots it never finished are handed back, to be fed again to the next one, which goes on with the same
segment numbers and timestamps.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from pathlib import Path

from streaming import picture
from streaming.command import EncoderSpec
from streaming.encoder import Encoder, EncoderDied
from streaming.schedule import Slot
from yolive.plumbing import metrics

log = logging.getLogger(__name__)

# No segment for this long while frames go in: ffmpeg is hung (not dead). Kill it and let the feeder
# restart it, rather than leave the pipe blocked and the stream frozen.
STALL_S = 10


class Feed:
    def __init__(self, spec: EncoderSpec, segment_dir: Path, work_dir: Path) -> None:
        self.spec = spec
        self.segment_dir = segment_dir
        self.work_dir = work_dir
        self.encoder: Encoder | None = None
        self.restarts = 0
        self._fed: deque[Slot] = deque()
        self._last_finished = 0.0  # monotonic time ffmpeg last finished a segment, for the stall watchdog

    def start(self, start_number: int, ts_offset: float) -> None:
        """A new ffmpeg, whose first segment is `start_number` and whose timestamps go on from `ts_offset`."""
        if self.encoder is not None:
            self.restarts += 1
            metrics.FFMPEG_RESTARTS.inc()
        self.encoder = Encoder(self.spec, self.segment_dir, self.work_dir, start_number, ts_offset)

    def begin(self, slot: Slot) -> None:
        """The slot's frames go in next."""
        self._fed.append(slot)

    def write(self, frame: picture.Frame) -> None:
        """Raises EncoderDied."""
        assert self.encoder is not None
        self.encoder.write(frame)

    def finished(self) -> list[tuple[Slot, int, str, float]]:
        """Slots whose segments ffmpeg listed since the last call, with their sequence, uri and duration."""
        assert self.encoder is not None
        done: list[tuple[Slot, int, str, float]] = []
        for sequence, uri, duration in self.encoder.new_segments():
            if not self._fed:
                log.error("ffmpeg listed %s, which was never fed", uri)
                continue
            done.append((self._fed.popleft(), sequence, uri, duration))
            self._last_finished = time.monotonic()
        return done

    def failure(self) -> EncoderDied | None:
        """Why ffmpeg is gone, if it is."""
        if self.encoder is None or self.encoder.alive():
            return None
        return self.encoder.died()

    def kill(self) -> None:
        """A dead ffmpeg is reaped; call finished() after it for the segments it listed before dying."""
        assert self.encoder is not None
        self.encoder.kill()

    def unfinished(self) -> list[Slot]:
        """The slots the killed ffmpeg never finished, taken out of the feed to be fed again."""
        slots = list(self._fed)
        self._fed.clear()
        return slots

    def kill_if_stalled(self) -> None:
        """From another thread: a hung ffmpeg blocks the feeder inside its write, where it cannot look."""
        encoder = self.encoder
        if encoder is None:
            return
        quiet = time.monotonic() - max(self._last_finished, encoder.started_at)
        if quiet > STALL_S and encoder.alive():
            log.error("ffmpeg has finished no segment for %.0f s; killing it", quiet)
            encoder.process.kill()  # the feeder's blocked write fails, and it restarts ffmpeg

    def stop(self) -> None:
        """Let ffmpeg finish what it has, then make sure it is gone."""
        assert self.encoder is not None
        self.encoder.stop()
