"""What airs when, one slot (a segment's worth of frames) at a time.

Each slot is a clip's next segment or filler, so every clip boundary is a segment boundary and a clip that
becomes ready during filler starts at the next one. Ready clips air in round order, each once; a moderator's
skip cuts the clip on air at the next slot. Slots an ffmpeg never finished are handed back and go out again
before anything new.
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


@dataclass
class AiringClip:
    info: airing.ReadyClip
    frames: np.ndarray
    caption: picture.Caption | None
    slots: int
    skipped: bool = False  # cut short by a moderator: not kept for replay


@dataclass
class Slot:
    """One segment's worth of frames, and what to announce when it reaches viewers."""

    clip: AiringClip | None
    index: int = 0
    filler: picture.Frame | None = None
    cues: list[Callable[[], object]] = field(default_factory=list)
    pdt: datetime | None = None

    @property
    def slots_left(self) -> int:
        """Slots until the schedule next asks for a clip: the rest of the clip, or this filler slot."""
        return self.clip.slots - self.index if self.clip else 1

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
        if clip is not None and clip.info.id in snapshot.skip_requested:
            log.info("clip %s skipped by a moderator", clip.info.id)
            self._end_current(Clip.Status.SKIPPED)
        elif clip is not None and self._next_index < clip.slots:
            self._next_index += 1
            return Slot(clip, self._next_index - 1)
        elif clip is not None:
            self._end_current(Clip.Status.AIRED)
        cues, self._finish_cues = self._finish_cues, []
        started = self._start_next(snapshot)
        if started is not None:
            self._next_index = 1
            return Slot(started, 0, cues=[*cues, functools.partial(lifecycle.put_on_air, started.info.id)])
        return Slot(None, filler=self.slate.frame(snapshot.upcoming), cues=cues)

    def _end_current(self, status: str) -> None:
        assert self._current is not None
        self.slate.over(
            picture.clip_frame(self._current.frames, self.clip_slots * self.spec.frames_per_segment)
        )
        self._finish_cues.append(functools.partial(lifecycle.finish_airing, self._current.info.id, status))
        self._current.skipped = status == Clip.Status.SKIPPED
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
                log.error("clip %s cannot air: %s", info.id, exc)
                self.announcer.at(0, functools.partial(lifecycle.fail_to_air, info.id, str(exc)))
                continue
            text = info.prompt if self.show_captions else ""
            caption = picture.caption(text, self.spec.width, self.spec.height) if text else None
            self._current = AiringClip(info, frames, caption, self.clip_slots)
            return self._current
        return None
