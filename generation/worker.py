"""The render worker's life around its tasks: a heartbeat while it runs, metrics published from every pool
process, logs bound to the clip being rendered, and render seconds counted by stage. Connected when the
worker imports its tasks (generation/tasks.py); in any other process these signals never fire."""

from __future__ import annotations

import threading
from typing import Any

from celery.signals import (
    task_postrun,
    task_prerun,
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
)

RENDER_TASK = "generation.tasks.render_clip"
_stop_heartbeat = threading.Event()


@worker_ready.connect
def start_heartbeat(**_: Any) -> None:
    from yolive.plumbing.heartbeat import beat_forever

    beat_forever("worker", _stop_heartbeat)
    start_metrics()  # the solo pool renders in this process


@worker_process_init.connect
def start_metrics(**_: Any) -> None:
    from yolive.plumbing import metrics

    metrics.start_publishing()


@worker_process_shutdown.connect
def flush_metrics(**_: Any) -> None:
    from yolive.plumbing import metrics

    metrics.PUBLISHER.flush_quietly()  # a pool process exits without running atexit handlers


# Stages of Clip.timings that are a part of the worker's time ("seconds" is the clip's length).
RENDER_STAGES = ("queue_wait", "text_encoding", "denoising", "decoding", "storing", "total")


@task_prerun.connect
def bind_clip_to_logs(task: Any = None, args: Any = None, **_: Any) -> None:
    if getattr(task, "name", "") == RENDER_TASK and args:
        from yolive.clips.models import Clip
        from yolive.plumbing.logs import bind

        round_id = Clip.objects.filter(id=args[0]).values_list("round_id", flat=True).first()
        bind(clip_id=args[0], round_id=round_id)


@task_postrun.connect
def unbind_logs(**_: Any) -> None:
    from yolive.plumbing.logs import unbind

    unbind()


@task_postrun.connect
def count_render(task: Any = None, args: Any = None, retval: Any = None, **_: Any) -> None:
    """Render seconds by stage and the block cache's counters, read from the clip the task just made ready
    (generation keeps them there)."""
    if getattr(task, "name", "") != RENDER_TASK or retval != "ready" or not args:
        return
    from yolive.clips.models import Clip
    from yolive.plumbing import metrics

    row = Clip.objects.filter(id=args[0]).values_list("timings", "cache_stats").first()
    timings: dict[str, Any] = (row and row[0]) or {}
    stats: dict[str, Any] = (row and row[1]) or {}
    for stage in RENDER_STAGES:
        if isinstance(timings.get(stage), int | float):
            metrics.RENDER_SECONDS.labels(stage).observe(timings[stage])
    kv_cache = stats.get("kv_cache")  # the block path's (generation/block_renderer.py)
    if kv_cache:
        for event in ("hits", "fills", "evictions"):
            metrics.KV_CACHE_PAGES.labels(event).inc(kv_cache[event])
        metrics.KV_CACHE_IN_USE.set(kv_cache["pages_in_use"])
        metrics.KV_CACHE_BYTES.set(kv_cache["bytes"])
    metrics.PUBLISHER.flush_quietly()  # now: an out-of-memory restart may end this process before long


@worker_shutdown.connect
def stop_heartbeat(**_: Any) -> None:
    _stop_heartbeat.set()
