"""The suite's own Redis database: marked on first use, and the only one the suite ever flushes.

Every test starts and ends with FLUSHDB. A database that holds keys but not the marker belongs to someone
else (real data behind a REDIS_URL, another program), so the session stops instead of emptying it.
"""

from __future__ import annotations

import pytest
import redis

MARKER = "yolive-test-suite:own-database"


def where(client: redis.Redis) -> str:
    """host:port/db of the client's database, without its password."""
    kwargs = client.connection_pool.connection_kwargs
    return f"{kwargs.get('host', '127.0.0.1')}:{kwargs.get('port', 6379)}/{kwargs.get('db', 0)}"


def claim(client: redis.Redis) -> None:
    """Mark an empty database as the suite's own; stop the session on one that holds someone's keys."""
    try:
        if client.exists(MARKER):
            return
        if client.dbsize() == 0:
            client.set(MARKER, "1")
            return
    except redis.ConnectionError:
        pytest.exit(
            f"the test Redis {where(client)} does not answer: `make test` starts one, "
            "or point YOLIVE_TEST_REDIS_URL at one",
            returncode=3,
        )
    refuse(client)


def flush(client: redis.Redis) -> None:
    """Empty the suite's own database, keeping its marker; never one without the marker."""
    if not client.exists(MARKER):
        refuse(client)
    client.flushdb()
    client.set(MARKER, "1")


def refuse(client: redis.Redis) -> None:
    pytest.exit(
        f"refusing to flush Redis {where(client)}: it holds keys the test suite did not mark as its own; "
        "point YOLIVE_TEST_REDIS_URL at an empty database",
        returncode=3,
    )
