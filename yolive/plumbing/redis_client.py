"""Shared Redis connections for hot state: votes, leases, heartbeats, limits."""

from __future__ import annotations

from functools import cache
from typing import Any

import redis
import redis.asyncio as aredis
from django.conf import settings

from yolive.plumbing.loops import per_loop

# Short timeouts: a Redis outage must turn into a quick, clear error (and a 503 on /healthz), not a hang.
CONNECT_TIMEOUT_S = 2
READ_TIMEOUT_S = 5
_OPTIONS: dict[str, Any] = {
    "decode_responses": True,
    "socket_connect_timeout": CONNECT_TIMEOUT_S,
    "socket_timeout": READ_TIMEOUT_S,
    "health_check_interval": 10,
}
# Async connections per event loop (one web process). Votes must never queue behind a busy event loop for a
# connection (at 32 they did, and timed out under load: docs/benchmarks.md); the cap keeps a flood from
# exhausting Redis, and a burst beyond it waits for a free connection.
ASYNC_POOL_SIZE = 256


@cache
def get_redis() -> redis.Redis:
    """The process's client for synchronous code (one pool per process)."""
    return redis.Redis.from_url(settings.REDIS_URL, **_OPTIONS)


def _new_async_client() -> aredis.Redis:
    pool = aredis.BlockingConnectionPool.from_url(
        settings.REDIS_URL, max_connections=ASYNC_POOL_SIZE, timeout=READ_TIMEOUT_S, **_OPTIONS
    )
    return aredis.Redis(connection_pool=pool)


# The running event loop's client: an async pool cannot be shared between event loops.
get_async_redis = per_loop(_new_async_client)
