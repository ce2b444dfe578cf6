"""The Celery app. Renders go to queue `gpu` (one worker process per GPU); the rest to `default`. What the
worker does around its tasks (heartbeat, metrics, logs bound to the clip) lives with it, in
generation/worker.py."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")

app = Celery("yolive")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
