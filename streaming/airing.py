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

from django.db import close_old_connections

from yolive.clips import frames, lifecycle
from yolive.clips.models import Clip

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.2  # a clip ready during filler waits at most this plus one segment to start airing


@dataclass(frozen=True)
class ReadyClip:
    id: int
    round_number: int
    prompt: str
    frames_path: str


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


def read_snapshot(watched: frozenset[int]) -> Snapshot:
    ready = [
        ReadyClip(c.id, c.round.number, c.prompt.text, str(frames.locate(c.frames_path)))
        for c in Clip.objects.filter(status=Clip.Status.READY, skip_requested=False)
        .select_related("round", "prompt")
        .order_by("round__number")[:4]
    ]
    skips = frozenset(Clip.objects.filter(id__in=watched, skip_requested=True).values_list("id", flat=True))
    # The slate shows the clip that airs next: the one rendering, else the oldest queued.
    making = (
        Clip.objects.filter(status__in=[Clip.Status.RENDERING, Clip.Status.QUEUED], skip_requested=False)
        .select_related("round", "prompt")
        .order_by("-status", "round__number")  # "rendering" sorts before "queued" descending
        .first()
    )
    upcoming = (
        Upcoming(making.round.number, making.prompt.text, making.status, making.progress) if making else None
    )
    return Snapshot(ready, skips, upcoming)


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
