"""The database side of the broadcaster, kept off the frame-feeding thread.

A slow database (SQLite waits up to 20 s for a write lock) must never starve ffmpeg's pipe, so:
- the `Director` polls the clips in its own thread and leaves a snapshot the feeder reads without waiting;
- the `Announcer` runs status changes and viewer events in its own thread, each at its due time (the
  moment the change reaches viewers, who watch a few segments behind the live edge).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import close_old_connections
from django.db.models import Q

from yolive.clips import frames, lifecycle
from yolive.clips.models import Clip

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.2  # a clip ready during filler waits at most this plus one segment to start airing


@dataclass(frozen=True)
class ReadyClip:
    """A clip that may go on air: whole, or rendering with enough of it made (`AIR_WHILE_RENDERING`)."""

    id: int
    round_number: int
    prompt: str
    frames_path: str
    made: int | None = None  # frames written so far while it renders; None: whole


@dataclass(frozen=True)
class Making:
    """How far a clip on air that is still being made has got: its frames file (it moves when the render
    ends, or starts again elsewhere), the frames in it, and whether more are coming."""

    frames_path: str
    made: int
    more: bool


@dataclass(frozen=True)
class Upcoming:
    """What the filler slate talks about: the clip that airs next, still being made."""

    round_number: int
    prompt: str
    status: str
    progress: float


@dataclass
class Snapshot:
    ready: list[ReadyClip] = field(default_factory=list)
    skip_requested: frozenset[int] = frozenset()
    upcoming: Upcoming | None = None
    watched: frozenset[int] = frozenset()  # the clips on air it looked at
    making: dict[int, Making] = field(default_factory=dict)  # those of them still being made


def read_snapshot(watched: frozenset[int]) -> Snapshot:
    airable = Q(status=Clip.Status.READY)
    if settings.AIR_WHILE_RENDERING:
        airable |= Q(status=Clip.Status.RENDERING, airable_at__isnull=False)
    ready = [
        ReadyClip(
            c.id,
            c.round.number,
            c.prompt.text,
            str(frames.locate(c.frames_path)),
            None if c.status == Clip.Status.READY else c.frames_made,
        )
        for c in Clip.objects.announced()
        .filter(airable, skip_requested=False)
        .select_related("round", "prompt")
        .order_by("round__number")[:4]
    ]
    on_air = Clip.objects.filter(id__in=watched)
    skips = frozenset(on_air.filter(skip_requested=True).values_list("id", flat=True))
    progress = {
        c.id: Making(str(frames.locate(c.frames_path)), c.frames_made, not c.error)
        for c in on_air.filter(ready_at__isnull=True).only("frames_path", "frames_made", "error")
    }
    # The slate shows the clip that airs next: the one rendering, else the oldest queued.
    making = (
        Clip.objects.announced()
        .filter(status__in=[Clip.Status.RENDERING, Clip.Status.QUEUED], skip_requested=False)
        .select_related("round", "prompt")
        .order_by("-status", "round__number")  # "rendering" sorts before "queued" descending
        .first()
    )
    upcoming = (
        Upcoming(making.round.number, making.prompt.text, making.status, making.progress) if making else None
    )
    return Snapshot(ready, skips, upcoming, watched, progress)


class Director(threading.Thread):
    def __init__(self, stop: threading.Event) -> None:
        super().__init__(name="director", daemon=True)
        self.stop = stop
        self.snapshot = Snapshot()
        self.watched: frozenset[int] = frozenset()  # clips on air, whose skip flag matters
        self.fresh = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                close_old_connections()
                lifecycle.skip_unaired(self.watched)
                self.snapshot = read_snapshot(self.watched)
                self.fresh.set()
            except Exception:
                log.exception("cannot read the clips; the stream goes on with what it knows")
            self.stop.wait(POLL_INTERVAL_S)


def slate_text(upcoming: Upcoming | None) -> tuple[str, str, float | None]:
    """Title, detail and progress (None: no bar) of the filler slate."""
    if upcoming is None:
        return (
            "Waiting for the next winning prompt",
            "Write a prompt and vote: the winner airs here next.",
            None,
        )
    prompt = f"\u201c{upcoming.prompt}\u201d"
    if upcoming.status == Clip.Status.RENDERING:
        return f"Rendering round {upcoming.round_number}", prompt, round(upcoming.progress, 2)
    return f"Up next: round {upcoming.round_number}", f"{prompt} (queued)", None


class Announcer(threading.Thread):
    """Runs each action at its due time (monotonic clock), in order; a failing action is logged."""

    def __init__(self, stop: threading.Event) -> None:
        super().__init__(name="announcer", daemon=True)
        self.stop = stop
        self._queue: list[tuple[float, int, Callable[[], object]]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()

    def at(self, due: float, action: Callable[[], object]) -> None:
        with self._wake:
            heapq.heappush(self._queue, (due, next(self._order), action))
            self._wake.notify()

    def pending(self) -> int:
        with self._wake:
            return len(self._queue)

    def run(self) -> None:
        while not self.stop.is_set():
            with self._wake:
                if not self._queue:
                    self._wake.wait(0.5)
                    continue
                due = self._queue[0][0]
                if due > time.monotonic():
                    self._wake.wait(min(0.5, due - time.monotonic()))
                    continue
                _, _, action = heapq.heappop(self._queue)
            try:
                close_old_connections()
                action()
            except Exception:
                log.exception("announcement failed")

    def drain(self) -> None:
        """Run what is left now (on shutdown), so no clip stays on air in the database."""
        with self._wake:
            actions = [item[2] for item in sorted(self._queue)]
            self._queue.clear()
        for action in actions:
            try:
                action()
            except Exception:
                log.exception("announcement failed")
