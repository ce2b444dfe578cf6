"""Every status change of a clip, in one place.

Each change is a conditional update from the statuses the clip may leave, so of two processes racing (two
workers on a redelivered task, the broadcaster and a moderator) exactly one wins; the winner sends the one
`clip` event that tells viewers, and a change that lost sends nothing. Publishing comes after the update has
committed (these run outside transactions), and a lost event is repaired by the next one or the next snapshot,
so publishing never raises.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.dispatch import Signal
from django.utils import timezone

from yolive.clips.models import Clip
from yolive.plumbing import events

log = logging.getLogger(__name__)

Status = Clip.Status
AIRING = [Status.ON_AIR, Status.AIRED, Status.SKIPPED]  # statuses a clip aired while made may reach first

# Sent once a clip reaches viewers, with `clip` (round and prompt loaded). Voting marks the prompt aired and
# tells its author; this app knows prompts only through the foreign key.
aired = Signal()


def event(clip: Clip) -> events.Event:
    return events.clip(clip.id, clip.round.number, clip.status, clip.prompt.text, clip.progress)


def announce(clip: Clip) -> None:
    """Tell viewers (and so moderators) the clip's status as `clip` has it; nothing of a provisional clip."""
    if clip.provisional:
        return
    try:
        events.publish(events.VIEWERS, event(clip))
    except Exception:
        log.exception("could not publish clip %s", clip.id)


def _move(
    clip_id: int, leaving: Iterable[str], only_if: dict[str, Any] | None = None, **fields: Any
) -> Clip | None:
    """Apply `fields` if the clip is in one of `leaving` (and matches `only_if`); the clip as it now is,
    announced, or None."""
    if not Clip.objects.filter(id=clip_id, status__in=list(leaving), **(only_if or {})).update(**fields):
        return None
    clip = Clip.objects.select_related("round", "prompt").get(id=clip_id)
    announce(clip)
    return clip


# --- the worker ----------------------------------------------------------------------------------------


# Each returns the clip as it now is, or None when the clip was not in a status it may leave this way.


def start_rendering(clip_id: int) -> Clip | None:
    return _move(clip_id, [Status.QUEUED], status=Status.RENDERING, started_at=timezone.now(), progress=0.0)


def take_over_rendering(clip: Clip) -> Clip | None:
    """A render whose worker is gone: start it again, if nobody else has since `clip` was read."""
    return _move(
        clip.id, [Status.RENDERING], {"started_at": clip.started_at}, started_at=timezone.now(), progress=0.0
    )


def report_progress(clip_id: int, progress: float) -> Clip | None:
    """None when the clip is neither rendering nor on air while it renders (skipped, failed): its render
    stops."""
    return _move(clip_id, [Status.RENDERING, Status.ON_AIR], progress=progress)


def report_frames(clip_id: int, frames_path: str, made: int, **fields: Any) -> bool:
    """`made` frames are written to `frames_path` (the broadcaster may air them); not a status change, so
    nobody is told. False when the clip is no longer being made or aired."""
    moving = Clip.objects.filter(id=clip_id, status__in=[Status.RENDERING, Status.ON_AIR])
    return bool(moving.update(frames_path=frames_path, frames_made=made, **fields))


def finish_rendering(clip_id: int, status: str, **fields: Any) -> Clip | None:
    """Rendering -> ready, failed or skipped, with what the render recorded. A clip that went on air while
    it was made keeps its airing status and takes the fields (a failed one its error: the broadcaster ends
    it where its frames end)."""
    if status not in (Status.READY, Status.FAILED, Status.SKIPPED):
        raise ValueError(f"a render does not end as {status}")
    finished = _move(clip_id, [Status.RENDERING], status=status, **fields)
    if finished is None and Clip.objects.filter(id=clip_id, status__in=AIRING).update(**fields):
        return Clip.objects.select_related("round", "prompt").get(id=clip_id)
    if finished is None:
        log.warning("clip %s changed while rendering; leaving it as it is", clip_id)
    return finished


def adopt_frames(clip_id: int, **fields: Any) -> Clip | None:
    """A worker stored the frames and died before saying so: they are whole (renamed into place)."""
    return _move(clip_id, [Status.QUEUED, Status.RENDERING], status=Status.READY, progress=1.0, **fields)


def skip_before_rendering(clip_id: int) -> Clip | None:
    """A moderator skipped it while it waited: nothing to stop, nothing to render."""
    return _move(clip_id, [Status.QUEUED], status=Status.SKIPPED, finished_at=timezone.now())


# --- the conductor -------------------------------------------------------------------------------------


def give_up_waiting(created_before: datetime, error: str) -> list[int]:
    """Queued clips created before `created_before` would air a story beat the crowd has moved past."""
    hopeless = Clip.objects.filter(status=Status.QUEUED, created_at__lt=created_before)
    given_up = []
    for clip_id in hopeless.values_list("id", flat=True):
        if _move(clip_id, [Status.QUEUED], status=Status.FAILED, finished_at=timezone.now(), error=error):
            given_up.append(clip_id)
    return given_up


def confirm(clip_id: int) -> bool:
    """A provisional clip's prompt won its round: it is the round's clip now, as far as it has got. The
    caller announces it, after the round's close."""
    return bool(Clip.objects.filter(id=clip_id, provisional=True).update(provisional=False))


def withdraw(clip_id: int) -> bool:
    """A provisional clip whose prompt lost: gone, and its render stops (its next report finds no clip).
    Its frames are the caller's to remove (`frames.remove`), once this is committed."""
    return bool(Clip.objects.filter(id=clip_id, provisional=True).delete()[0])


# --- the broadcaster -----------------------------------------------------------------------------------


def put_on_air(clip_id: int) -> None:
    """Ready (or rendering, aired as it is made) -> on air, at the moment it reaches viewers; it aired even
    if a moderator changed it since."""
    now = timezone.now()
    clip = _move(clip_id, [Status.READY, Status.RENDERING], status=Status.ON_AIR, aired_at=now)
    if clip is None:
        clip = Clip.objects.select_related("round", "prompt").get(id=clip_id)
        log.warning("clip %s aired while %s", clip_id, clip.status)
    aired.send(sender=Clip, clip=clip)
    events.publish(events.VIEWERS, events.now_playing(clip.id, clip.round.number, clip.prompt.text, now))


def finish_airing(clip_id: int, status: str) -> bool:
    """On air -> aired or skipped; a clip that never reached viewers keeps its status and airs later."""
    if status not in (Status.AIRED, Status.SKIPPED):
        raise ValueError(f"airing does not end as {status}")
    return _move(clip_id, [Status.ON_AIR], status=status, finished_at=timezone.now()) is not None


def skip_unaired(airing: frozenset[int]) -> list[int]:
    """Ready clips a moderator skipped before they aired: they never will. The clip being fed is left to
    the broadcaster, which cuts it at the next segment boundary."""
    doomed = Clip.objects.filter(status=Status.READY, skip_requested=True).exclude(id__in=airing)
    return [
        clip_id
        for clip_id in doomed.values_list("id", flat=True)
        if _move(clip_id, [Status.READY], status=Status.SKIPPED, finished_at=timezone.now())
    ]


def fail_to_air(clip_id: int, error: str) -> bool:
    """Its frames cannot be read: it never airs (filler covers the slot)."""
    moved = _move(
        clip_id, [Status.READY, Status.ON_AIR], status=Status.FAILED, error=error, finished_at=timezone.now()
    )
    return moved is not None


def record_archive(clip_id: int, archive_path: str) -> None:
    """Where its replay is ("" once retention removed it); not a status change, so nobody is told."""
    Clip.objects.filter(id=clip_id).update(archive_path=archive_path)
