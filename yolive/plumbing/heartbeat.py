"""Liveness of the long-running processes, kept in Redis so /healthz works across machines.

Each process calls `beat()` every few seconds; its key expires after `ttl`, so a dead process simply
disappears. `/healthz` reads what is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from typing import Any

from yolive.plumbing import keys as redis_keys
from yolive.plumbing.redis_client import get_redis

BEAT_INTERVAL_S = 5.0
BEAT_TTL_S = 15  # three missed beats and a process counts as gone


def instance_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def beat(component: str, ttl: float = BEAT_TTL_S, **info: Any) -> None:
    record = {"at": time.time(), "instance": instance_name(), **info}
    get_redis().set(redis_keys.heartbeat(component, record["instance"]), json.dumps(record), ex=int(ttl))


def alive(component: str) -> list[dict[str, Any]]:
    """The heartbeat records of every live instance of a component."""
    client = get_redis()
    keys = list(client.scan_iter(match=redis_keys.heartbeat(component), count=100))
    values = client.mget(keys) if keys else []
    return [json.loads(v) for v in values if v]


def beat_forever(component: str, stop: threading.Event, **info: Any) -> threading.Thread:
    """Beat from a daemon thread until `stop` is set; Redis outages are ridden out, not fatal."""

    def run() -> None:
        while not stop.is_set():
            # A missed beat (Redis restarting) is exactly what /healthz should see; never die of it.
            with contextlib.suppress(Exception):
                beat(component, **info)
            stop.wait(BEAT_INTERVAL_S)

    thread = threading.Thread(target=run, name=f"heartbeat-{component}", daemon=True)
    thread.start()
    return thread
