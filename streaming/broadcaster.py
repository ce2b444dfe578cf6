"""The Broadcaster: feeds one long-lived ffmpeg at wall-clock pace and publishes the live playlist.

Work happens one segment (a "slot") at a time: each slot is a clip's next 2 seconds or filler, so every
clip boundary is a segment boundary and a clip that becomes ready during filler starts at the next one.
A slot leaves `fed` when ffmpeg lists its segment; if ffmpeg dies, the slots it never finished are fed
again to a new ffmpeg, and the playlist goes on with an EXT-X-DISCONTINUITY.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from streaming import airing, archive, picture
from streaming.command import EncoderSpec
from streaming.encoder import Encoder, EncoderDied
from streaming.keeper import Keeper
from streaming.playlist import LIVE_PLAYLIST, LiveWindow, Segment, render_live_playlist, resume_window
from streaming.playlist import write_atomically as write_playlist
from yolive import logs, metrics
from yolive.voting.models import Clip

log = logging.getLogger(__name__)

LIVE_WINDOW_SEGMENTS = 6  # 12 s: twice RFC 8216's minimum of three target durations, for slow clients
# hls.js plays 3 target durations behind the live edge; a new segment starts reaching its viewers 4 to 6 s
# after it is listed, depending on when they joined: announce in the middle of that.
HOLD_BACK_SEGMENTS = 3
MAX_LAG_S = 4.0  # behind the wall clock by more than this (a stalled machine): stop catching up, re-anchor
DELETE_MARGIN_S = 2.0  # on top of RFC 8216's "segment duration + longest playlist duration"


@dataclass
class AiringClip:
    info: airing.ReadyClip
    frames: np.ndarray
    caption: picture.Caption | None
    slots: int


@dataclass
class Slot:
    """One segment's worth of frames, and what to announce when it reaches viewers."""

    clip: AiringClip | None
    index: int = 0
    filler: picture.Frame | None = None
    cues: list[Callable[[], object]] = field(default_factory=list)
    pdt: datetime | None = None


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
        self.clip_slots = clip_seconds // spec.segment_seconds
        self.show_captions = show_captions
        self.retention_hours = archive_retention_hours
        self.paced = paced
        self.on_segment = on_segment
        self.viewer_delay_s = (HOLD_BACK_SEGMENTS - 0.5) * spec.segment_seconds
        self.halt = threading.Event()  # ends the helper threads once the feeder is done
        self.director = airing.Director(self.halt)
        self.announcer = airing.Announcer(self.halt)
        self.window = LiveWindow(LIVE_WINDOW_SEGMENTS, spec.segment_seconds)
        self.encoder: Encoder | None = None
        self.restarts = 0
        self.newest_segment_at = 0.0
        self.last_listed = 0.0  # monotonic time of the newest segment, for the stall watchdog
        self.current: AiringClip | None = None
        self.next_index = 0
        self.claimed: set[int] = set()
        self.fed: deque[Slot] = deque()
        self.replay: deque[Slot] = deque()
        self.finish_cues: list[Callable[[], object]] = []
        self.archive_parts: dict[int, list[tuple[str, float]]] = {}
        self.retired: deque[tuple[float, Path]] = deque()
        self.last_frame: picture.Frame | None = None
        self._slate_key: tuple[object, ...] = ()
        self._slate: picture.Frame = np.zeros((spec.height, spec.width, 3), dtype=np.uint8)
        self.discontinuity_pending = False
        self.filler_since_clip = 0.0  # seconds of filler since the last clip: how late the next one is
        self.media_time = 0.0
        self._epoch = 0.0
        self._epoch_frames = 0
        self._epoch_wall = datetime.now(UTC)

    # --- the loop -------------------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        self.hls_dir.mkdir(parents=True, exist_ok=True)
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.window = resume_window(
            self.hls_dir / LIVE_PLAYLIST, LIVE_WINDOW_SEGMENTS, self.spec.segment_seconds
        )
        self.remove_orphans()
        self.director.start()
        self.announcer.start()
        Keeper(self).start()
        self.director.fresh.wait(timeout=5)  # the first look at the clips, so a ready one airs at once
        self.start_encoder(discontinuity=bool(self.window.segments))
        try:
            while not stop.is_set():
                self.feed(self.next_slot(), stop)
                self.delete_retired()
                if self.encoder is not None and not self.encoder.alive():
                    self.recover(self.encoder.died())
        finally:
            self.shut_down()

    def start_encoder(self, discontinuity: bool) -> None:
        self.encoder = Encoder(
            self.spec, self.hls_dir, self.work_dir, self.window.next_sequence, self.media_time
        )
        self.discontinuity_pending = discontinuity
        self.anchor()

    def anchor(self) -> None:
        """Tie frame counting to the clocks: the pace and the segments' PROGRAM-DATE-TIME follow from it."""
        self._epoch, self._epoch_frames, self._epoch_wall = time.monotonic(), 0, datetime.now(UTC)

    def feed(self, slot: Slot, stop: threading.Event) -> None:
        assert self.encoder is not None
        offset = timedelta(seconds=self._epoch_frames / self.spec.fps)
        slot.pdt = self._epoch_wall + offset if self.paced else datetime.now(UTC)
        self.fed.append(slot)
        with logs.bound(clip_id=slot.clip.info.id if slot.clip else None):
            self.feed_frames(slot, stop)

    def feed_frames(self, slot: Slot, stop: threading.Event) -> None:
        assert self.encoder is not None
        for i in range(self.spec.frames_per_segment):
            if stop.is_set():
                return
            self.pace(stop)
            try:
                self.encoder.write(self.frame(slot, i))
            except EncoderDied as exc:
                if not stop.is_set():
                    self.recover(exc)
                return
            self._epoch_frames += 1
            self.collect()

    def pace(self, stop: threading.Event) -> None:
        if not self.paced:
            return
        lag = time.monotonic() - (self._epoch + self._epoch_frames / self.spec.fps)
        if lag < 0:
            stop.wait(-lag)
        elif lag > MAX_LAG_S:
            log.warning("%.1f s behind the wall clock; re-anchoring the pace", lag)
            self.anchor()

    def frame(self, slot: Slot, i: int) -> picture.Frame:
        if slot.clip is None:
            assert slot.filler is not None
            return slot.filler
        raw = picture.clip_frame(slot.clip.frames, slot.index * self.spec.frames_per_segment + i)
        return slot.clip.caption.apply(raw) if slot.clip.caption else raw

    # --- what airs next -------------------------------------------------------------------------------
    def next_slot(self) -> Slot:
        if self.replay:
            return self.replay.popleft()
        snapshot = self.director.snapshot
        clip = self.current
        if clip is not None and clip.info.id in snapshot.skip_requested:
            log.info("clip %s skipped by a moderator", clip.info.id)
            self.end_current(Clip.Status.SKIPPED)
        elif clip is not None and self.next_index < clip.slots:
            self.next_index += 1
            return Slot(clip, self.next_index - 1)
        elif clip is not None:
            self.end_current(Clip.Status.AIRED)
        cues, self.finish_cues = self.finish_cues, []
        started = self.start_next(snapshot)
        if started is not None:
            self.next_index = 1
            return Slot(started, 0, cues=[*cues, functools.partial(airing.mark_on_air, started.info.id)])
        return Slot(None, filler=self.filler_picture(snapshot.upcoming), cues=cues)

    def end_current(self, status: str) -> None:
        assert self.current is not None
        clip_id = self.current.info.id
        self.last_frame = picture.clip_frame(
            self.current.frames, self.clip_slots * self.spec.frames_per_segment
        )
        self._slate_key = ()  # the slate's background changed: draw it again
        self.finish_cues.append(functools.partial(airing.mark_finished, clip_id, status))
        if status == Clip.Status.SKIPPED:
            self.archive_parts.pop(clip_id, None)  # a moderated clip is not kept for replay
        self.current = None
        self.director.watched = frozenset()

    def start_next(self, snapshot: airing.Snapshot) -> AiringClip | None:
        ready_ids = {info.id for info in snapshot.ready}
        self.claimed &= ready_ids  # a clip the database no longer calls ready cannot air twice anyway
        for info in snapshot.ready:
            if info.id in self.claimed:
                continue
            self.claimed.add(info.id)
            try:
                frames = picture.load_clip_frames(info.frames_path, self.spec.width, self.spec.height)
            except picture.BadClipFrames as exc:
                log.error("clip %s cannot air: %s", info.id, exc)
                self.announcer.at(0, functools.partial(airing.mark_failed, info.id, str(exc)))
                continue
            text = info.prompt if self.show_captions else ""
            caption = picture.caption(text, self.spec.width, self.spec.height) if text else None
            self.current = AiringClip(info, frames, caption, self.clip_slots)
            self.director.watched = frozenset({info.id})
            return self.current
        return None

    def filler_picture(self, upcoming: airing.Upcoming | None) -> picture.Frame:
        """The slate, drawn again only when its text or background changes (every few seconds at most)."""
        key = airing.slate_text(upcoming)
        if key != self._slate_key:
            title, detail, progress = key
            self._slate = picture.slate(
                self.spec.width, self.spec.height, title, detail, progress, self.last_frame
            )
            self._slate_key = key
        return self._slate

    # --- segments ffmpeg finished ---------------------------------------------------------------------
    def collect(self) -> None:
        assert self.encoder is not None
        for sequence, uri, duration in self.encoder.new_segments():
            if not self.fed:
                log.error("ffmpeg listed %s, which was never fed", uri)
                continue
            self.publish(self.fed.popleft(), sequence, uri, duration)

    def publish(self, slot: Slot, sequence: int, uri: str, duration: float) -> None:
        assert slot.pdt is not None
        if sequence != self.window.next_sequence:
            log.error(
                "ffmpeg numbered segment %d, the playlist expects %d", sequence, self.window.next_sequence
            )
        clip_id = slot.clip.info.id if slot.clip else None
        segment = Segment(
            self.window.next_sequence, uri, duration, slot.pdt, self.discontinuity_pending, clip_id
        )
        self.discontinuity_pending = False
        now = time.time()
        for old in self.window.append(segment):
            keep_for = old.duration + self.window.longest_duration + DELETE_MARGIN_S
            self.retired.append((now + keep_for, self.hls_dir / old.uri))
        write_playlist(self.hls_dir / LIVE_PLAYLIST, render_live_playlist(self.window))
        self.media_time += duration
        self.newest_segment_at = now
        self.last_listed = time.monotonic()
        due = time.monotonic() + self.viewer_delay_s
        for cue in slot.cues:
            self.announcer.at(due, cue)
        self.count_airtime(slot, duration)
        if slot.clip is not None:
            self.keep_for_archive(slot, uri, duration)
        if self.on_segment is not None:
            self.on_segment(segment)

    def count_airtime(self, slot: Slot, duration: float) -> None:
        if slot.clip is None:
            metrics.FILLER_SECONDS.inc(duration)
            self.filler_since_clip += duration
        elif slot.index == 0:
            metrics.CLIP_LATENESS.observe(self.filler_since_clip)
            self.filler_since_clip = 0.0

    def keep_for_archive(self, slot: Slot, uri: str, duration: float) -> None:
        assert slot.clip is not None
        clip_id = slot.clip.info.id
        if slot.index == 0:
            self.archive_parts[clip_id] = []
        parts = self.archive_parts.get(clip_id)
        if parts is None or not self.retention_hours:
            return
        parts.append((uri, duration))
        if slot.index == slot.clip.slots - 1:
            del self.archive_parts[clip_id]
            try:
                frames = slot.clip.frames
                poster = picture.clip_frame(frames, len(frames) // 2)
                path = archive.archive_clip(self.hls_dir, clip_id, parts, poster)
            except OSError:
                log.exception("cannot archive clip %s", clip_id)
                return
            self.announcer.at(0, functools.partial(airing.mark_archived, clip_id, path))

    # --- faults and housekeeping ----------------------------------------------------------------------
    def recover(self, exc: EncoderDied) -> None:
        assert self.encoder is not None
        log.error("ffmpeg died; restarting it and going on with the same playlist: %s", exc)
        self.encoder.kill()
        self.collect()  # segments it listed before dying are good
        self.replay.extendleft(reversed(self.fed))
        self.fed.clear()
        self.restarts += 1
        metrics.FFMPEG_RESTARTS.inc()
        self.start_encoder(discontinuity=True)

    def delete_retired(self) -> None:
        now = time.time()
        while self.retired and self.retired[0][0] <= now:
            self.retired.popleft()[1].unlink(missing_ok=True)

    def remove_orphans(self) -> None:
        """Segments a previous run left behind that no playlist lists any more (once they are old enough)."""
        listed = {s.uri for s in self.window.segments}
        cutoff = time.time() - self.window.longest_duration - self.spec.segment_seconds - DELETE_MARGIN_S
        for path in self.hls_dir.glob("seg_*.ts*"):
            with contextlib.suppress(FileNotFoundError):
                if path.name not in listed and path.stat().st_mtime < cutoff:
                    path.unlink()

    def shut_down(self) -> None:
        if self.encoder is not None:
            self.encoder.stop()
            with contextlib.suppress(Exception):
                self.collect()
        self.halt.set()
        if self.current is not None:
            # Viewers saw part of it: on air becomes aired, after every cue still due (a clip that never
            # reached them stays ready and airs after a restart).
            finish = functools.partial(airing.mark_finished, self.current.info.id, Clip.Status.AIRED)
            self.announcer.at(math.inf, finish)
        self.announcer.drain()
        log.info("broadcaster stopped at segment %d", self.window.next_sequence)
