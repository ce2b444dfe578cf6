"""Celery tasks of the generation area. Imported by the web process too, so nothing heavy at import time."""

from __future__ import annotations

from celery import shared_task

import generation.loader  # noqa: F401  (connects worker_process_init: the model loads after the fork)
from generation.worker import RENDER_TASK  # and connects the worker's heartbeat, metrics and log receivers


@shared_task(name=RENDER_TASK, acks_late=True, reject_on_worker_lost=True)
def render_clip(clip_id: int) -> str:
    from generation.clip_job import render_clip as render

    return render(clip_id)
