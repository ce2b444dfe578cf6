"""Every Redis key of the channel, built here on CHANNEL_PREFIX.

Two installations on one Redis (a staging channel beside the live one, two channels of one operator) stay
apart only if every key they write starts with their own prefix; building each key through `key()` is what
makes that true. Pub/sub ignores Redis database numbers, so the channel layer and the Celery broker take the
same prefix in settings.py.
"""

from __future__ import annotations

from django.conf import settings


def key(*parts: object) -> str:
    """`<CHANNEL_PREFIX>:<part>:<part>...`; a part in braces is a Redis Cluster hash tag."""
    return ":".join([settings.CHANNEL_PREFIX, *map(str, parts)])


def round_tag(round_id: int) -> str:
    """The prefix of one round's keys; the hash tag keeps them on one Cluster slot for its scripts."""
    return key(f"{{round:{round_id}}}")


def current_round() -> str:
    return key("round", "current")


def rate_limit(action: str, who: str, value: str) -> str:
    """A rate-limit counter of one viewer or one address; `{limits}` keeps a pair on one slot."""
    return key("{limits}", action, who, value)


def lease(name: str) -> str:
    return key("lease", name)


def heartbeat(component: str, instance: str = "*") -> str:
    """One process's liveness record; the default instance makes it a SCAN pattern for all of them."""
    return key("heartbeat", component, instance)


def broker_queue(name: str) -> str:
    """A Celery queue's list, as kombu names it with the `global_keyprefix` settings.py gives the broker."""
    return key(name)


def render_claim(clip_id: int) -> str:
    return key("render-claim", clip_id)


def out_of_memory_counts() -> str:
    return key("generation", "oom")


def metric_totals() -> str:
    return key("metrics", "totals")


def metric_gauges(instance: str = "") -> str:
    return key("metrics", "gauges", instance)


def air_free_at() -> str:
    return key("air", "free-at")
