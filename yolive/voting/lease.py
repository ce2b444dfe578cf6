"""A Redis lease with expiry: of several conductors, exactly one acts; a standby takes over when it lapses."""

from __future__ import annotations

from yolive.plumbing import keys as redis_keys
from yolive.plumbing.heartbeat import instance_name
from yolive.plumbing.redis_client import get_redis
from yolive.voting import scripts
from yolive.voting.tally import run_script


class Lease:
    """Held by renewing it well inside its ttl; a holder that dies stops renewing and loses it after ttl."""

    def __init__(self, name: str, ttl_s: float, holder: str | None = None) -> None:
        self.key = redis_keys.lease(name)
        self.ttl_ms = int(ttl_s * 1000)
        self.holder = holder or instance_name()

    def hold(self) -> bool:
        """Take the lease if it is free, renew it if it is ours; True when we hold it now."""
        return bool(run_script(get_redis(), scripts.HOLD_LEASE, [self.key], [self.holder, self.ttl_ms]))

    def release(self) -> None:
        run_script(get_redis(), scripts.RELEASE_LEASE, [self.key], [self.holder])

    def current_holder(self) -> str | None:
        holder: str | None = get_redis().get(self.key)  # type: ignore[assignment]
        return holder
