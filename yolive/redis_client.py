"""Shared Redis connections for hot state: votes, leases, heartbeats, limits."""

from __future__ import annotations

import asyncio
import weakref
from functools import cache
from typing import Any

import redis
import redis.asyncio as aredis
from django.conf import settings

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

_async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aredis.Redis] = (
    weakref.WeakKeyDictionary()
)


@cache
def get_redis() -> redis.Redis:
    """The process's client for synchronous code (one pool per process)."""
    return redis.Redis.from_url(settings.REDIS_URL, **_OPTIONS)


def get_async_redis() -> aredis.Redis:
    """The running event loop's client (an async pool cannot be shared between event loops)."""
    loop = asyncio.get_running_loop()
    client = _async_clients.get(loop)
    if client is None:
        pool = aredis.BlockingConnectionPool.from_url(
            settings.REDIS_URL, max_connections=ASYNC_POOL_SIZE, timeout=READ_TIMEOUT_S, **_OPTIONS
        )
        client = _async_clients[loop] = aredis.Redis(connection_pool=pool)
    return client
