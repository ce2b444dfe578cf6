"""The Broadcaster: the feeder loop that ties the stream's parts together.

One slot at a time it asks the schedule what airs next, feeds its frames to ffmpeg at the pacer's pace,
hands each segment ffmpeg finishes to the publisher, and when ffmpeg dies starts a new one that goes on
with the same playlist after an EXT-X-DISCONTINUITY, feeding again the slots the dead one never finished.
The database side runs in threads of its own (`airing`), and so does housekeeping (`keeper`), so nothing
slow ever stalls the pipe.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import threading
import time
from collections.abc import Callable
from pathlib import Path

from streaming import airing
from streaming.command import EncoderSpec
from streaming.encoder import EncoderDied
from streaming.feed import Feed
from streaming.keeper import Keeper
from streaming.pacer import Pacer
from streaming.playlist import Segment
from streaming.publisher import Publisher
from streaming.schedule import Schedule, Slot
from yolive.clips import lifecycle
from yolive.clips.models import Clip
from yolive.plumbing import air_clock, logs

log = logging.getLogger(__name__)


class Broadcaster:
    def __init__(
        self,
        *,
        spec: EncoderSpec,
        hls_dir: Path,
        work_dir: Path,
        clip_seconds: int,
        show_captions: bool = True,
        archive_retention_hours: float = 72,
        paced: bool = True,
        on_segment: Callable[[Segment], None] | None = None,
    ) -> None:
        if clip_seconds % spec.segment_seconds:
            raise ValueError("a clip must last a whole number of segments")
        self.spec = spec
        self.hls_dir = hls_dir
        self.work_dir = work_dir
        self.halt = threading.Event()  # ends the helper threads once the feeder is done
        self.director = airing.Director(self.halt)
        self.announcer = airing.Announcer(self.halt)
        self.pacer = Pacer(spec.fps, paced)
        self.schedule = Schedule(spec, clip_seconds // spec.segment_seconds, self.announcer, show_captions)
        self.feed = Feed(spec, hls_dir, work_dir)
        self.publisher = Publisher(
            hls_dir=hls_dir,
            segment_seconds=spec.segment_seconds,
            announcer=self.announcer,
            archive_retention_hours=archive_retention_hours,
            on_segment=on_segment,
        )
        self.keeper = Keeper(
            halt=self.halt,
            announcer=self.announcer,
            publisher=self.publisher,
            watched_feed=self.feed if paced else None,
            hls_dir=hls_dir,
            archive_retention_hours=archive_retention_hours,
        )

    def run(self, stop: threading.Event) -> None:
        self.hls_dir.mkdir(parents=True, exist_ok=True)
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.publisher.resume()
        self.director.start()
        self.announcer.start()
        self.keeper.start()
        self.director.fresh.wait(timeout=5)  # the first look at the clips, so a ready one airs at once
        if self.publisher.window.segments:
            self.publisher.mark_discontinuity()
        self.start_encoder()
        try:
            while not stop.is_set():
                self.air(self.next_slot(), stop)
                self.publisher.delete_retired()
                if (failure := self.feed.failure()) is not None:
                    self.recover(failure)
        finally:
            self.shut_down()

    def start_encoder(self) -> None:
        self.feed.start(self.publisher.window.next_sequence, self.publisher.media_time)
        self.pacer.anchor()

    def next_slot(self) -> Slot:
        slot = self.schedule.next_slot(self.director.snapshot)
        self.director.watched = self.schedule.on_air
        return slot

    def air(self, slot: Slot, stop: threading.Event) -> None:
        slot.pdt = self.pacer.program_date_time()
        # The conductor ends rounds so that their winners are ready when the air is free (voting/timing).
        free_at = time.time() + slot.slots_left * self.spec.segment_seconds
        self.announcer.at(0, functools.partial(air_clock.announce_free_at, free_at))
        self.feed.begin(slot)
        with logs.bound(clip_id=slot.clip.info.id if slot.clip else None):
            for i in range(self.spec.frames_per_segment):
                if stop.is_set():
                    return
                self.pacer.wait(stop)
                try:
                    self.feed.write(slot.frame(i, self.spec.frames_per_segment))
                except EncoderDied as exc:
                    if not stop.is_set():
                        self.recover(exc)
                    return
                self.pacer.count_frame()
                self.publish_finished()

    def publish_finished(self) -> None:
        for slot, sequence, uri, duration in self.feed.finished():
            self.publisher.publish(slot, sequence, uri, duration)

    def recover(self, exc: EncoderDied) -> None:
        log.error("ffmpeg died; restarting it and going on with the same playlist: %s", exc)
        self.feed.kill()
        self.publish_finished()  # segments it listed before dying are good
        self.schedule.replay(self.feed.unfinished())
        self.publisher.mark_discontinuity()
        self.start_encoder()

    def shut_down(self) -> None:
        if self.feed.encoder is not None:
            self.feed.stop()
            with contextlib.suppress(Exception):
                self.publish_finished()
        self.halt.set()
        for clip_id in self.schedule.on_air:
            # Viewers saw part of it: on air becomes aired, after every cue still due (a clip that never
            # reached them stays ready and airs after a restart).
            self.announcer.at(
                math.inf, functools.partial(lifecycle.finish_airing, clip_id, Clip.Status.AIRED)
            )
        self.announcer.drain()
        log.info("broadcaster stopped at segment %d", self.publisher.window.next_sequence)
