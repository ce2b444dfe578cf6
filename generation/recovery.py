"""The last out-of-memory level: give the clip up (filler airs) and replace the worker process.

A process that ran out of memory at every level may hold fragmented or leaked device memory, so the prefork
pool process exits and Celery starts a fresh one. Exiting with SystemExit from the task makes Celery requeue
the message (reject_on_worker_lost); the redelivered task finds the clip failed and does nothing. Under the
solo pool the process is the whole worker, so it only drops its model instead and rebuilds it next time.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def in_pool_process() -> bool:
    from billiard.process import current_process

    return current_process().name != "MainProcess"


def restart_worker_process() -> None:
    from generation.loader import drop_renderer

    drop_renderer()
    if in_pool_process():
        log.error("out of memory at every level: this pool process exits and Celery replaces it")
        raise SystemExit(1)
    log.error("out of memory at every level: dropped the model; it is rebuilt for the next clip")
