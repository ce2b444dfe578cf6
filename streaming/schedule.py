"""What airs when, one slot (a segment's worth of frames) at a time.

Each slot is a clip's next segment or filler, so every clip boundary is a segment boundary and a clip that
becomes ready during filler starts at the next one. Ready clips air in round order, each once; a moderator's
skip cuts the clip on air at the next slot. Slots an ffmpeg never finished are handed back and go out again
before anything new.

A clip may go on air while its later seconds still render. Each of its slots airs once its frames are made;
a slot whose frames are not yet made airs filler and the clip goes on after it, and a clip whose render
stopped, or made nothing for `WAIT_LIMIT_SLOTS`, ends where its frames end.
"""

from __future__ import annotations

import functools
import logging
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from streaming import airing, picture
from streaming.command import EncoderSpec
from streaming.filler import Slate
from yolive.clips import lifecycle
from yolive.clips.models import Clip

log = logging.getLogger(__name__)

WAIT_LIMIT_SLOTS = 10  # filler slots a clip on air waits for its next frames before it ends there


@dataclass
class AiringClip:
    info: airing.ReadyClip
    frames: np.ndarray
    caption: picture.Caption | None
    slots: int
    skipped: bool = False  # cut short (a moderator's skip, a render that stopped): not kept for replay
    made: int | None = None  # frames made while it renders; None: whole
    more: bool = True  # while it renders: whether more frames are coming
    path: str = ""  # the frames file it reads
    waited: int = 0  # filler slots in a row it has waited on its frames

    def has(self, index: int, frames_per_segment: int) -> bool:
        """Whether slot `index`'s frames are made."""
        return self.made is None or self.made >= min((index + 1) * frames_per_segment, len(self.frames))

    def follow(self, making: airing.Making | None) -> None:
        """What the latest look at the clips says of its render (None: it is whole now)."""
        if making is None:
            self.made = None
            return
        if making.frames_path != self.path:  # its render started again elsewhere
            try:
                height, width = self.frames.shape[1:3]
                self.frames = picture.load_clip_frames(making.frames_path, width, height)
                self.path = making.frames_path
            except picture.BadClipFrames:
                return  # not there yet: the next look finds it
        self.made, self.more = making.made, making.more


@dataclass
class Slot:
    """One segment's worth of frames, and what to announce when it reaches viewers."""

    clip: AiringClip | None
    index: int = 0
    filler: picture.Frame | None = None
    cues: list[Callable[[], object]] = field(default_factory=list)
    pdt: datetime | None = None
    held: int = 0  # filler inside a clip that waits on its frames: the clip's slots still to air after it

    @property
    def slots_left(self) -> int:
        """Slots until the schedule next asks for a clip: the rest of the clip, or this filler slot (and the
        clip it holds for)."""
        return self.clip.slots - self.index if self.clip else 1 + self.held

    def frame(self, i: int, frames_per_segment: int) -> picture.Frame:
        if self.clip is None:
            assert self.filler is not None
            return self.filler
        raw = picture.clip_frame(self.clip.frames, self.index * frames_per_segment + i)
        return self.clip.caption.apply(raw) if self.clip.caption else raw


class Schedule:
    def __init__(
        self, spec: EncoderSpec, clip_slots: int, announcer: airing.Announcer, show_captions: bool = True
    ) -> None:
        self.spec = spec
        self.clip_slots = clip_slots
        self.announcer = announcer  # a clip whose frames cannot air is marked failed through it
        self.show_captions = show_captions
        self.slate = Slate(spec.width, spec.height)
        self._current: AiringClip | None = None
        self._next_index = 0
        self._claimed: set[int] = set()
        self._replay: deque[Slot] = deque()
        self._finish_cues: list[Callable[[], object]] = []

    @property
    def on_air(self) -> frozenset[int]:
        """The clip being fed, if any: the one whose skip flag matters."""
        return frozenset({self._current.info.id}) if self._current else frozenset()

    def replay(self, slots: Iterable[Slot]) -> None:
        """Slots a dead ffmpeg never finished: they go out again, in order, before anything new."""
        self._replay.extendleft(reversed(list(slots)))

    def next_slot(self, snapshot: airing.Snapshot) -> Slot:
        if self._replay:
            return self._replay.popleft()
        clip = self._current
        if clip is not None and clip.made is not None and clip.info.id in snapshot.watched:
            clip.follow(snapshot.making.get(clip.info.id))
        if clip is not None and clip.info.id in snapshot.skip_requested:
            log.info("clip %s skipped by a moderator", clip.info.id)
            self._end_current(Clip.Status.SKIPPED)
        elif clip is not None and self._next_index < clip.slots:
            if clip.has(self._next_index, self.spec.frames_per_segment):
                clip.waited = 0
                self._next_index += 1
                return Slot(clip, self._next_index - 1)
            if clip.more and clip.waited < WAIT_LIMIT_SLOTS:
                clip.waited += 1
                log.warning("clip %s: slot %d is not made yet; filler airs", clip.info.id, self._next_index)
                held = clip.slots - self._next_index
                return Slot(None, filler=self.slate.frame(snapshot.upcoming), held=held)
            log.error("clip %s: its render stopped at %s frames; it ends there", clip.info.id, clip.made)
            self._end_current(Clip.Status.AIRED, cut=True)
        elif clip is not None:
            self._end_current(Clip.Status.AIRED)
        cues, self._finish_cues = self._finish_cues, []
        started = self._start_next(snapshot)
        if started is not None:
            self._next_index = 1
            return Slot(started, 0, cues=[*cues, functools.partial(lifecycle.put_on_air, started.info.id)])
        return Slot(None, filler=self.slate.frame(snapshot.upcoming), cues=cues)

    def _end_current(self, status: str, cut: bool = False) -> None:
        assert self._current is not None
        last = self._current.made if self._current.made is not None else len(self._current.frames)
        self.slate.over(picture.clip_frame(self._current.frames, max(0, last - 1)))
        self._finish_cues.append(functools.partial(lifecycle.finish_airing, self._current.info.id, status))
        self._current.skipped = cut or status == Clip.Status.SKIPPED
        self._current = None

    def _start_next(self, snapshot: airing.Snapshot) -> AiringClip | None:
        ready_ids = {info.id for info in snapshot.ready}
        self._claimed &= ready_ids  # a clip the database no longer calls ready cannot air twice anyway
        for info in snapshot.ready:
            if info.id in self._claimed:
                continue
            self._claimed.add(info.id)
            try:
                frames = picture.load_clip_frames(info.frames_path, self.spec.width, self.spec.height)
            except picture.BadClipFrames as exc:
                if info.made is not None:  # renamed whole since the look, most likely: the next look says
                    self._claimed.discard(info.id)
                    continue
                log.error("clip %s cannot air: %s", info.id, exc)
                self.announcer.at(0, functools.partial(lifecycle.fail_to_air, info.id, str(exc)))
                continue
            text = info.prompt if self.show_captions else ""
            caption = picture.caption(text, self.spec.width, self.spec.height) if text else None
            self._current = AiringClip(
                info, frames, caption, self.clip_slots, made=info.made, path=info.frames_path
            )
            return self._current
        return None
