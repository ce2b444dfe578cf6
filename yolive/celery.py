"""The Celery app. Renders go to queue `gpu` (one worker process per GPU); the rest to `default`."""

from __future__ import annotations

import os
import threading
from typing import Any

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")

app = Celery("yolive")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_stop_heartbeat = threading.Event()


@worker_ready.connect
def start_heartbeat(**_: Any) -> None:
    from yolive.heartbeat import beat_forever

    beat_forever("worker", _stop_heartbeat)


@worker_shutdown.connect
def stop_heartbeat(**_: Any) -> None:
    _stop_heartbeat.set()
