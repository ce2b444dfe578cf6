"""What Redis spends per vote and per tally broadcast: the figures behind docs/operations.md's capacity plan.

The vote script and the round's keys share one hash tag, so one round's votes all land on one Redis core
(Cluster cannot spread them); its CPU per vote is what bounds a round's votes per second. Measured by
Redis itself (INFO's used_cpu_user + used_cpu_sys), around a pipelined run of the real CAST_VOTE script
by viewers of their own, and of PUBLISHes of a tally-sized message to a channel with `subscribers`.
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis

VOTES = 20_000
PUBLISHES = 5_000
PIPELINE = 500


def redis_cpu(client: redis.Redis) -> float:
    info: dict[str, Any] = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def vote_cost(url: str, round_id: int, prompt_ids: list[int]) -> float:
    """Redis CPU microseconds per CAST_VOTE, each from a viewer of its own (the common case: cast)."""
    from yolive.voting import scripts
    from yolive.voting.tally import RoundKeys

    client = redis.Redis.from_url(url)
    keys = RoundKeys(round_id)
    sha = client.script_load(scripts.CAST_VOTE)
    before = redis_cpu(client)
    for start in range(0, VOTES, PIPELINE):
        pipe = client.pipeline(transaction=False)
        for n in range(start, start + PIPELINE):
            viewer = f"redis-bench-{n}"
            counters = [f"{keys.tag}:limit:viewer:{viewer}", f"{keys.tag}:limit:ip:192.0.2.{n % 250}"]
            pipe.evalsha(
                sha, 6, *keys.all(), *counters, viewer, prompt_ids[n % len(prompt_ids)], 10, 10**9, 10
            )
        pipe.execute()
    return 1e6 * (redis_cpu(client) - before) / VOTES


def publish_cost(url: str, subscribers: int, payload_bytes: int) -> float:
    """Redis CPU microseconds per PUBLISH of a `payload_bytes` message to `subscribers` subscribers."""
    client = redis.Redis.from_url(url)
    listeners = [redis.Redis.from_url(url).pubsub() for _ in range(subscribers)]
    for listener in listeners:
        listener.subscribe("redis-bench-tallies")
        listener.get_message(timeout=1)  # the subscribe confirmation
    message = json.dumps({"type": "tally", "pad": "x" * payload_bytes})
    time.sleep(0.2)
    before = redis_cpu(client)
    for _ in range(PUBLISHES // PIPELINE):
        pipe = client.pipeline(transaction=False)
        for _n in range(PIPELINE):
            pipe.publish("redis-bench-tallies", message)
        pipe.execute()
        for listener in listeners:  # keep reading, as web processes do, so output buffers stay small
            while listener.get_message(timeout=0):
                pass
    cost = 1e6 * (redis_cpu(client) - before) / PUBLISHES
    for listener in listeners:
        listener.close()
    return cost
