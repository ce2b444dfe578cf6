"""The Celery app. Renders go to queue `gpu` (one worker process per GPU); the rest to `default`."""

from __future__ import annotations

import os
import threading
from typing import Any

from celery import Celery
from celery.signals import (
    task_postrun,
    task_prerun,
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")

app = Celery("yolive")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_stop_heartbeat = threading.Event()


@worker_ready.connect
def start_heartbeat(**_: Any) -> None:
    from yolive.heartbeat import beat_forever

    beat_forever("worker", _stop_heartbeat)
    start_metrics()  # the solo pool renders in this process


@worker_process_init.connect
def start_metrics(**_: Any) -> None:
    from yolive import metrics

    metrics.start_publishing()


@worker_process_shutdown.connect
def flush_metrics(**_: Any) -> None:
    from yolive import metrics

    metrics.PUBLISHER.flush_quietly()  # a pool process exits without running atexit handlers


# Stages of Clip.timings that are a part of the worker's time ("seconds" is the clip's length).
RENDER_STAGES = ("queue_wait", "text_encoding", "denoising", "decoding", "storing", "total")


@task_prerun.connect
def bind_clip_to_logs(task: Any = None, args: Any = None, **_: Any) -> None:
    if getattr(task, "name", "") == "generation.tasks.render_clip" and args:
        from yolive.clips.models import Clip
        from yolive.logs import bind

        round_id = Clip.objects.filter(id=args[0]).values_list("round_id", flat=True).first()
        bind(clip_id=args[0], round_id=round_id)


@task_postrun.connect
def unbind_logs(**_: Any) -> None:
    from yolive.logs import unbind

    unbind()


@task_postrun.connect
def count_render(task: Any = None, args: Any = None, retval: Any = None, **_: Any) -> None:
    """Render seconds by stage, read from the clip the task just made ready (generation keeps them there)."""
    if getattr(task, "name", "") != "generation.tasks.render_clip" or retval != "ready" or not args:
        return
    from yolive import metrics
    from yolive.clips.models import Clip

    timings = Clip.objects.filter(id=args[0]).values_list("timings", flat=True).first() or {}
    for stage in RENDER_STAGES:
        if isinstance(timings.get(stage), int | float):
            metrics.RENDER_SECONDS.labels(stage).observe(timings[stage])
    metrics.PUBLISHER.flush_quietly()  # now: an out-of-memory restart may end this process before long


@worker_shutdown.connect
def stop_heartbeat(**_: Any) -> None:
    _stop_heartbeat.set()
