"""Render one Clip: claim it, render it with progress and skip, store the frames, mark it ready.

Safe to run twice for the same clip (a redelivered task): a clip already rendered is left alone, and a
`rendering` claim is taken over only when its owner is gone (its process died on this host, or its claim
outlived the task time limit).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from typing import Any, cast

from django.conf import settings
from django.utils import timezone

from generation.frames import frames_path, frames_shape, last_frames, store_frames
from yolive import events
from yolive.redis_client import get_redis
from yolive.voting.models import Clip

log = logging.getLogger(__name__)

DONE = (Clip.Status.READY, Clip.Status.ON_AIR, Clip.Status.AIRED, Clip.Status.FAILED, Clip.Status.SKIPPED)
CONTINUES_FROM = (Clip.Status.READY, Clip.Status.ON_AIR, Clip.Status.AIRED)  # never from a skipped clip


def owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _claim_key(clip_id: int) -> str:
    return f"{settings.CHANNEL_PREFIX}:render-claim:{clip_id}"


def _owner_is_gone(claim: str | None) -> bool:
    if claim is None:  # expired: older than the task time limit
        return True
    host, _, pid = claim.rpartition(":")
    if host != socket.gethostname():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, ValueError):
        return False
    return claim == owner()  # our own pid: an earlier attempt in this very process was cut short


def claim(clip: Clip) -> bool:
    now = timezone.now()
    taken = Clip.objects.filter(id=clip.id, status=Clip.Status.QUEUED).update(
        status=Clip.Status.RENDERING, started_at=now, progress=0.0
    )
    if not taken and clip.status == Clip.Status.RENDERING:
        holder = cast("str | None", get_redis().get(_claim_key(clip.id)))
        if not _owner_is_gone(holder):
            return False
        log.warning("clip %s: taking over a render whose worker is gone", clip.id)
        taken = Clip.objects.filter(
            id=clip.id, status=Clip.Status.RENDERING, started_at=clip.started_at
        ).update(started_at=now, progress=0.0)
    if taken:
        get_redis().set(_claim_key(clip.id), owner(), ex=settings.CELERY_TASK_TIME_LIMIT + 30)
    return bool(taken)


def announce(clip: Clip) -> None:
    event = {
        "type": "clip",
        "clip_id": clip.id,
        "round_number": clip.round.number,
        "status": clip.status,
        "progress": round(clip.progress, 3),
        "prompt": clip.prompt.text,
    }
    try:
        events.publish(events.VIEWERS, event)
    except Exception:  # a lost progress event is repaired by the next one; the render goes on
        log.exception("could not publish clip %s", clip.id)


def previous_frames(clip: Clip, count: int) -> Any:
    """The last `count` frames of the clip aired before this one, or None (first clip, continuity off)."""
    if not settings.GENERATION_CONTINUITY:
        return None
    previous = (
        Clip.objects.filter(round__number=clip.round.number - 1, status__in=CONTINUES_FROM)
        .exclude(frames_path="")
        .first()
    )
    if previous is None:
        return None
    return last_frames(frames_path(previous.id), count)


def render_clip(clip_id: int) -> str:
    """Returns what happened: done, busy, missing, ready, adopted, skipped or failed."""
    clip = Clip.objects.select_related("round", "prompt").filter(id=clip_id).first()
    if clip is None:
        log.warning("clip %s does not exist", clip_id)
        return "missing"
    if clip.status in DONE:
        return "done"
    if frames_shape(frames_path(clip.id)) == _expected_shape(clip):  # () when there is no file
        return _adopt(clip)
    # Skipped before it started: nothing to stop, nothing to render.
    queued = Clip.objects.filter(id=clip.id, status=Clip.Status.QUEUED)
    if clip.skip_requested and queued.update(status=Clip.Status.SKIPPED):
        clip.refresh_from_db()
        announce(clip)
        return "skipped"
    if not claim(clip):
        return "busy"
    clip.refresh_from_db()
    clip.status = Clip.Status.RENDERING
    announce(clip)
    try:
        return _render(clip)
    finally:
        if get_redis().get(_claim_key(clip.id)) == owner():  # not one another worker has taken over since
            get_redis().delete(_claim_key(clip.id))


def _clip_format(clip: Clip) -> tuple[int, int, int]:
    """(fps, width, height): the clip's own, or the stream's where the clip leaves them unset."""
    return (
        clip.fps or settings.VIDEO_FPS,
        clip.width or settings.VIDEO_WIDTH,
        clip.height or settings.VIDEO_HEIGHT,
    )


def _expected_shape(clip: Clip) -> tuple[int, ...]:
    fps, width, height = _clip_format(clip)
    return (settings.CLIP_SECONDS * fps, height, width, 3)


def _adopt(clip: Clip) -> str:
    # The frames were stored but the worker died before marking the clip: they are whole (renamed into place).
    path = frames_path(clip.id)
    count, height, width, _ = frames_shape(path)
    Clip.objects.filter(id=clip.id, status__in=(Clip.Status.QUEUED, Clip.Status.RENDERING)).update(
        status=Clip.Status.READY,
        frames_path=str(path),
        num_frames=count,
        width=width,
        height=height,
        fps=_clip_format(clip)[0],
        progress=1.0,
        ready_at=timezone.now(),
    )
    clip.refresh_from_db()
    announce(clip)
    return "adopted"


def _render(clip: Clip) -> str:
    from generation.engine import OutOfMemoryGiveUp, RenderRequest
    from generation.loader import get_renderer

    queue_wait = (clip.started_at - clip.created_at).total_seconds() if clip.started_at else 0.0
    fps, width, height = _clip_format(clip)
    lead = settings.GENERATION_CONTINUITY_FRAMES

    def build_request(renderer: Any) -> RenderRequest:
        return RenderRequest(
            prompt=clip.prompt.text,
            seed=clip.seed,
            width=width,
            height=height,
            fps=fps,
            num_frames=settings.CLIP_SECONDS * fps,
            condition=previous_frames(clip, renderer.condition_frames(fps, lead)),
            condition_lead=lead,
        )

    def on_step(done: int, total: int) -> bool:
        clip.progress = done / total
        Clip.objects.filter(id=clip.id).update(progress=clip.progress)
        announce(clip)
        return bool(Clip.objects.filter(id=clip.id).values_list("skip_requested", flat=True).first())

    try:
        renderer = get_renderer()  # inside: a model that cannot be built fails the clip, not the worker
        request = build_request(renderer)
        result = renderer.render(request, on_step)
    except OutOfMemoryGiveUp as exc:
        for level in exc.levels:
            _count_oom(level)
        _finish(clip, Clip.Status.FAILED, error=str(exc))
        from generation.recovery import restart_worker_process

        restart_worker_process()
        return "failed"
    except Exception as exc:
        log.exception("clip %s failed", clip.id)
        _finish(clip, Clip.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
        return "failed"
    for level in result.oom_levels:
        _count_oom(level)
    if result.interrupted or result.frames is None:
        _finish(clip, Clip.Status.SKIPPED, timings=result.timings, cache_stats=result.cache_stats)
        return "skipped"
    started = time.perf_counter()
    path = store_frames(clip.id, result.frames)
    storing = time.perf_counter() - started
    count, height, width, _ = result.frames.shape
    timings = {
        "queue_wait": round(queue_wait, 4),
        **result.timings,
        "storing": round(storing, 4),
        "total": round(result.timings["total"] + storing, 4),  # the worker's time on the clip, all in
    }
    cache_stats = {
        **result.cache_stats,
        "continuity": request.condition is not None,
        "oom_levels": result.oom_levels,
    }
    _finish(
        clip,
        Clip.Status.READY,
        frames_path=str(path),
        num_frames=count,
        width=width,
        height=height,
        fps=request.fps,
        progress=1.0,
        timings=timings,
        cache_stats=cache_stats,
        ready_at=timezone.now(),
    )
    return "ready"


def _finish(clip: Clip, status: str, **fields: Any) -> None:
    changed = Clip.objects.filter(id=clip.id, status=Clip.Status.RENDERING).update(status=status, **fields)
    if not changed:
        log.warning("clip %s changed while rendering; leaving it as it is", clip.id)
    clip.refresh_from_db()
    announce(clip)


def _count_oom(level: int) -> None:
    try:
        get_redis().hincrby(f"{settings.CHANNEL_PREFIX}:generation:oom", f"level{level}", 1)
    except Exception:
        log.exception("could not count an out-of-memory event")
