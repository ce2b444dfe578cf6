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
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import close_old_connections
from django.urls import reverse
from django.utils import timezone

from yolive.events import VIEWERS, publish, viewer_group
from yolive.voting.models import Clip, Prompt

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.5  # a clip ready during filler waits at most this plus one segment to start airing


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


def frames_file(frames_path: str) -> str:
    """Clip.frames_path as a file: absolute as written, or relative to MEDIA_DIR (then CLIPS_DIR)."""
    path = Path(frames_path)
    if path.is_absolute():
        return frames_path
    for base in (Path(settings.MEDIA_DIR), Path(settings.CLIPS_DIR)):
        if (base / path).exists():
            return str(base / path)
    return str(Path(settings.MEDIA_DIR) / path)


def read_snapshot(watched: frozenset[int]) -> Snapshot:
    ready = [
        ReadyClip(c.id, c.round.number, c.prompt.text, frames_file(c.frames_path))
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
                skip_unaired(self.watched)
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


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def clip_event(clip: Clip) -> dict[str, object]:
    return {
        "type": "clip",
        "clip_id": clip.id,
        "round_number": clip.round.number,
        "status": clip.status,
        "prompt": clip.prompt.text,
        "progress": clip.progress,
    }


def publish_clip(clip_id: int) -> None:
    """Tell viewers the clip's status as the database now has it."""
    publish(VIEWERS, clip_event(Clip.objects.select_related("round", "prompt").get(id=clip_id)))


def mark_on_air(clip_id: int) -> None:
    now = timezone.now()
    changed = Clip.objects.filter(id=clip_id, status=Clip.Status.READY).update(
        status=Clip.Status.ON_AIR, aired_at=now
    )
    clip = Clip.objects.select_related("round", "prompt__author").get(id=clip_id)
    if not changed:
        log.warning("clip %s aired while %s", clip_id, clip.status)
    publish(VIEWERS, clip_event(clip))
    tell_author_it_aired(clip.prompt, clip.id)
    publish(
        VIEWERS,
        {
            "type": "now_playing",
            "clip_id": clip.id,
            "round_number": clip.round.number,
            "prompt": clip.prompt.text,
            "at": iso(now),
        },
    )


def tell_author_it_aired(prompt: Prompt, clip_id: int) -> None:
    """The author's own list shows the prompt as aired from the moment it reaches viewers, with a link to
    the clip's page to share."""
    Prompt.objects.filter(id=prompt.id).update(status=Prompt.Status.AIRED)
    if prompt.author is not None:
        event = {
            "type": "prompt_status",
            "prompt_id": prompt.id,
            "status": "aired",
            "reason": "",
            "clip_url": reverse("clip", args=[clip_id]),
        }
        publish(viewer_group(prompt.author.key), event)


def mark_finished(clip_id: int, status: str) -> None:
    """On air -> aired or skipped; a clip that never reached viewers keeps its status and airs later."""
    if Clip.objects.filter(id=clip_id, status=Clip.Status.ON_AIR).update(
        status=status, finished_at=timezone.now()
    ):
        publish_clip(clip_id)


def skip_unaired(airing: frozenset[int]) -> None:
    """Ready clips a moderator skipped before they aired: they never will. The clip being fed is left to
    the feeder, which cuts it at the next segment boundary."""
    doomed = list(
        Clip.objects.filter(status=Clip.Status.READY, skip_requested=True)
        .exclude(id__in=airing)
        .values_list("id", flat=True)
    )
    for clip_id in doomed:
        if Clip.objects.filter(id=clip_id, status=Clip.Status.READY).update(
            status=Clip.Status.SKIPPED, finished_at=timezone.now()
        ):
            publish_clip(clip_id)


def mark_failed(clip_id: int, error: str) -> None:
    Clip.objects.filter(id=clip_id).update(status=Clip.Status.FAILED, error=error)
    publish_clip(clip_id)


def mark_archived(clip_id: int, archive_path: str) -> None:
    Clip.objects.filter(id=clip_id).update(archive_path=archive_path)


def drop_spent_frames(older_than: datetime) -> int:
    """Delete the raw frames of clips that finished airing before `older_than` (about 106 MB per 10 s at
    512x288; the archive keeps the encoded clip). The next render only reads the previous clip's frames,
    which by then it has done. Their frames_path is cleared, so nobody looks for them again."""
    spent = Clip.objects.filter(
        status__in=[Clip.Status.AIRED, Clip.Status.SKIPPED], finished_at__lt=older_than
    ).exclude(frames_path="")
    dropped: list[int] = []
    for clip_id, path in spent.values_list("id", "frames_path"):
        Path(frames_file(path)).unlink(missing_ok=True)
        dropped.append(clip_id)
    return Clip.objects.filter(id__in=dropped).update(frames_path="")


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
