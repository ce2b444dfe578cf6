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

from yolive.clips import frames, lifecycle
from yolive.clips.frames import GrowingFrames, airable, frames_path, frames_shape, last_frames
from yolive.clips.models import Clip
from yolive.plumbing import keys as redis_keys
from yolive.plumbing.redis_client import get_redis

log = logging.getLogger(__name__)

DONE = (Clip.Status.READY, Clip.Status.ON_AIR, Clip.Status.AIRED, Clip.Status.FAILED, Clip.Status.SKIPPED)
CONTINUES_FROM = (Clip.Status.READY, Clip.Status.ON_AIR, Clip.Status.AIRED)  # never from a skipped clip


class Stopped(Exception):
    """The clip stopped being made (a moderator skipped it, or its prompt lost the vote) between two pieces
    of its decode: the rest is not worth decoding."""


def owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


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


def claim(clip: Clip) -> Clip | None:
    """The clip, now rendering in this process; None when another worker has it."""
    taken = lifecycle.start_rendering(clip.id)
    if taken is None and clip.status == Clip.Status.RENDERING:
        holder = cast("str | None", get_redis().get(redis_keys.render_claim(clip.id)))
        if not _owner_is_gone(holder):
            return None
        log.warning("clip %s: taking over a render whose worker is gone", clip.id)
        taken = lifecycle.take_over_rendering(clip)
    if taken is not None:
        get_redis().set(redis_keys.render_claim(clip.id), owner(), ex=settings.CELERY_TASK_TIME_LIMIT + 30)
    return taken


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
    """Returns what happened: done, busy, missing, ready, adopted, skipped, withdrawn or failed."""
    clip = Clip.objects.select_related("round", "prompt").filter(id=clip_id).first()
    if clip is None:
        log.warning("clip %s does not exist", clip_id)
        return "missing"
    if clip.status in DONE:
        return "done"
    if frames_shape(frames_path(clip.id)) == _expected_shape(clip):  # () when there is no file
        return _adopt(clip)
    if clip.skip_requested and lifecycle.skip_before_rendering(clip.id):
        return "skipped"
    rendering = claim(clip)
    if rendering is None:
        return "busy"
    try:
        return _render(rendering)
    finally:
        claim_key = redis_keys.render_claim(clip.id)
        if get_redis().get(claim_key) == owner():  # not one another worker has taken over since
            get_redis().delete(claim_key)


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
    lifecycle.adopt_frames(
        clip.id,
        frames_path=str(path),
        num_frames=count,
        width=width,
        height=height,
        fps=_clip_format(clip)[0],
        ready_at=timezone.now(),
    )
    return "adopted"


def _render(clip: Clip) -> str:
    from generation.loader import get_renderer

    try:
        # Before this thread imports diffusers: the model loader's thread may be importing it, and a module
        # imported by two threads at once is seen half initialised (an ImportError of a circular import).
        renderer = get_renderer()  # a model that cannot be built fails the clip, not the worker
    except Exception as exc:
        return _fail(clip, exc)

    from generation.renderer import OutOfMemoryGiveUp, RenderRequest

    queue_wait = (clip.started_at - clip.created_at).total_seconds() if clip.started_at else 0.0
    fps, width, height = _clip_format(clip)
    lead = settings.GENERATION_CONTINUITY_FRAMES

    def build_request() -> RenderRequest:
        return RenderRequest(
            prompt=clip.prompt.text,
            seed=clip.seed,
            width=width,
            height=height,
            fps=fps,
            num_frames=num_frames,
            condition=previous_frames(clip, renderer.condition_frames(fps, lead)),
            condition_lead=lead,
        )

    def on_step(done: int, total: int) -> bool:
        """Progress to viewers; True (stop) when a moderator skipped the clip or it is no longer ours."""
        now = lifecycle.report_progress(clip.id, done / total)
        return now is None or now.skip_requested

    num_frames = settings.CLIP_SECONDS * fps
    growing = GrowingFrames(clip.id, (num_frames, height, width, 3))
    storing = 0.0
    airable_at = None

    def on_frames(start: int, frames: Any) -> None:
        """Frames to the store as they are made, and their count to the broadcaster, which may air them."""
        nonlocal storing, airable_at
        began = time.perf_counter()
        growing.write(frames, start)
        fields = {}
        if airable_at is None and airable(growing.made, num_frames, fps):
            airable_at = fields["airable_at"] = timezone.now()
        making = lifecycle.report_frames(clip.id, str(growing.path), growing.made, **fields)
        storing += time.perf_counter() - began
        if not making:
            raise Stopped

    try:
        request = build_request()
        result = renderer.render(request, on_step, on_frames)
    except OutOfMemoryGiveUp as exc:
        growing.discard()
        for level in exc.levels:
            _count_oom(level)
        _finish(clip, Clip.Status.FAILED, error=str(exc))
        from generation.recovery import restart_worker_process

        restart_worker_process()
        return "failed"
    except Stopped:
        return _stop(clip, growing)
    except Exception as exc:
        growing.discard()
        return _fail(clip, exc)
    for level in result.oom_levels:
        _count_oom(level)
    if result.interrupted or result.frames is None:
        return _stop(clip, growing, timings=result.timings, cache_stats=result.cache_stats)
    _encode_lead_ahead(renderer, result.frames, request, lead)
    began = time.perf_counter()
    try:
        path = growing.finish()
    except FileNotFoundError:  # a worker that took the clip over started its own file
        log.warning("clip %s was taken over while this worker rendered it; leaving it to the other", clip.id)
        return "busy"
    finishing = time.perf_counter() - began
    count, height, width, _ = result.frames.shape
    timings = {
        "queue_wait": round(queue_wait, 4),
        **result.timings,
        # Frames are stored as they are decoded: storing overlaps decoding, and only finishing adds to it.
        "storing": round(storing + finishing, 4),
        "total": round(result.timings["total"] + finishing, 4),  # the worker's time on the clip, all in
    }
    cache_stats = {
        **result.cache_stats,
        "continuity": request.condition is not None,
        "oom_levels": result.oom_levels,
    }
    now = timezone.now()
    finished = _finish(
        clip,
        Clip.Status.READY,
        frames_path=str(path),
        frames_made=count,
        num_frames=count,
        width=width,
        height=height,
        fps=request.fps,
        progress=1.0,
        timings=timings,
        cache_stats=cache_stats,
        airable_at=airable_at or now,
        ready_at=now,
    )
    if finished is None and _withdrawn(clip):  # after its last report: its whole frames go too
        frames.remove(clip.id)
        return "withdrawn"
    return "ready"


def _encode_lead_ahead(renderer: Any, made: Any, request: Any, lead: int) -> None:
    """The next clip's lead, encoded once this clip's frames are all made, while the crowd votes on the next
    (generation/lead_cache.py). Before the clip is marked ready, so that the worker still counts as busy and
    no head start waits in the queue behind the encode; a clip whose frames are all made airs either way, and
    a whole clip that airs only once ready loses to this what the next one gains. A failure here costs the
    next render only the time it would have saved."""
    if not settings.GENERATION_CONTINUITY:
        return
    try:
        renderer.prepare_continuation(made, request.fps, request.width, request.height, lead)
    except Exception:
        log.exception("could not encode the next clip's lead ahead; the next render will")


def _withdrawn(clip: Clip) -> bool:
    """Whether the clip is gone: its prompt lost the vote while it rendered ahead (voting.head_start)."""
    gone = not Clip.objects.filter(id=clip.id).exists()
    if gone:
        log.info("clip %s was withdrawn, its prompt having lost the vote: its render stops", clip.id)
    return gone


def _stop(clip: Clip, growing: GrowingFrames, **fields: Any) -> str:
    """A render that stopped before its end: skipped, or withdrawn."""
    growing.discard()
    if _withdrawn(clip):
        return "withdrawn"
    _finish(clip, Clip.Status.SKIPPED, **fields)
    return "skipped"


def _fail(clip: Clip, exc: Exception) -> str:
    log.exception("clip %s failed", clip.id)
    _finish(clip, Clip.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
    return "failed"


def _finish(clip: Clip, status: str, **fields: Any) -> Clip | None:
    return lifecycle.finish_rendering(clip.id, status, **fields)


def _count_oom(level: int) -> None:
    try:
        get_redis().hincrby(redis_keys.out_of_memory_counts(), f"level{level}", 1)
    except Exception:
        log.exception("could not count an out-of-memory event")
