"""When the air is next free for a new clip: the broadcaster tells, the conductor times its rounds by it.

The broadcaster writes, at every slot, the wall-clock time at which it will next ask for a clip (the end of
the clip on air, or the next slot while filler airs). The record expires after a few slots, so a stopped
broadcaster is never trusted: the conductor then keeps its plain beat.
"""

from __future__ import annotations

import logging

import redis

from yolive.plumbing import keys
from yolive.plumbing.redis_client import get_redis

log = logging.getLogger(__name__)

FRESH_FOR_S = 5  # several slots: a record this old means nobody is airing


def announce_free_at(at: float) -> None:
    """Record it; during a Redis outage the conductor keeps its beat, so a missed record only logs."""
    try:
        get_redis().set(keys.air_free_at(), repr(at), ex=FRESH_FOR_S)
    except redis.RedisError as exc:
        log.debug("cannot record when the air is free: %s", exc)


def free_at() -> float | None:
    """The wall-clock time (epoch seconds) the broadcaster next asks for a clip; None if nobody airs."""
    value = get_redis().get(keys.air_free_at())
    return float(value) if value is not None else None
