"""Shared Redis connections (one pool per process) for hot state: votes, leases, heartbeats, limits."""

from __future__ import annotations

from functools import cache

import redis
import redis.asyncio as aredis
from django.conf import settings

# Short timeouts: a Redis outage must turn into a quick, clear error (and a 503 on /healthz), not a hang.
CONNECT_TIMEOUT_S = 2
READ_TIMEOUT_S = 5


@cache
def get_redis() -> redis.Redis:
    return redis.Redis.from_url(
        settings.REDIS_URL,
        decode_responses=True,
        socket_connect_timeout=CONNECT_TIMEOUT_S,
        socket_timeout=READ_TIMEOUT_S,
        health_check_interval=10,
    )


def get_async_redis() -> aredis.Redis:
    """A client for the running event loop (async pools cannot be shared across loops)."""
    return aredis.Redis.from_url(
        settings.REDIS_URL,
        decode_responses=True,
        socket_connect_timeout=CONNECT_TIMEOUT_S,
        socket_timeout=READ_TIMEOUT_S,
        health_check_interval=10,
    )
