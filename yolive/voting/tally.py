"""A round's hot state in Redis: candidates, one vote per viewer, the tally, the pointer to the open round.

Keys of one round share the hash tag `{round:<id>}`. The scripts themselves are in scripts.py; this module
names the keys and runs the scripts from synchronous code (the conductor, services) and from the event loop
(consumers). Redis loses nothing here that the database cannot rebuild, except the open round's votes.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
from dataclasses import dataclass
from typing import Any

import redis
import redis.asyncio as aredis
from django.conf import settings

from yolive.plumbing import events
from yolive.plumbing import keys as redis_keys
from yolive.plumbing.loops import per_loop
from yolive.plumbing.redis_client import get_async_redis, get_redis
from yolive.voting import scripts

# Script calls wait this long for others to share their pipeline. Each pipeline costs the web process a
# connection from the pool, a timeout, a write and a read whatever it carries; at a few thousand votes a
# second, a few milliseconds gathers several votes into each (docs/benchmarks.md), against a vote-to-tally
# delay of a tick (250 ms at TALLY_HZ=4).
PIPELINE_GATHER_S = 0.004
MAX_CANDIDATES = 50  # a round's candidates travel in every tally; beyond this, a ballot stops being readable
CLOSED_ROUND_TTL_S = 3600  # the database holds closed rounds; Redis keeps their keys only for late readers


@dataclass(frozen=True)
class RoundKeys:
    round_id: int

    @property
    def tag(self) -> str:
        return redis_keys.round_tag(self.round_id)

    @property
    def meta(self) -> str:
        return f"{self.tag}:meta"  # id, number, opens_at, ends_at, state, seq, ver, pub_ver, result

    @property
    def texts(self) -> str:
        return f"{self.tag}:texts"  # candidate prompt id -> text

    @property
    def votes(self) -> str:
        return f"{self.tag}:votes"  # viewer key -> prompt id

    @property
    def tally(self) -> str:
        return f"{self.tag}:tally"  # sorted set: prompt id -> votes

    def all(self) -> list[str]:
        return [self.meta, self.texts, self.votes, self.tally]


# --- running scripts by hash, loading them again after a Redis restart --------------------------------------


@functools.cache  # the scripts are a handful of constants; no need to hash one again on every vote
def _sha(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()


def run_script(client: redis.Redis, source: str, keys: list[str], args: list[Any]) -> Any:
    try:
        return client.evalsha(_sha(source), len(keys), *keys, *args)
    except redis.exceptions.NoScriptError:
        return client.eval(source, len(keys), *keys, *args)


async def arun_script(source: str, keys: list[str], args: list[Any]) -> Any:
    """Run a script from the event loop, in the pipeline of every script called in the same turn of it."""
    return await _pipeline().call(source, keys, args)


Call = tuple[str, list[str], list[Any], "asyncio.Future[Any]"]


class ScriptPipeline:
    """Script calls made within PIPELINE_GATHER_S of the first, sent to Redis as one pipeline.

    A busy web process receives many votes in that time; one round trip each would cost every vote a
    connection from the pool, a write and a read of its own, and under load votes queued for connections.
    A pipeline is not a transaction: each script still runs atomically on its own, in the order the calls
    were made, and each caller gets its own reply or error.
    """

    def __init__(self) -> None:
        self._calls: list[Call] = []
        self._sending: set[asyncio.Task[None]] = set()  # held so running sends are not garbage-collected

    def call(self, source: str, keys: list[str], args: list[Any]) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        reply: asyncio.Future[Any] = loop.create_future()
        self._calls.append((source, keys, args, reply))
        if len(self._calls) == 1:
            loop.call_later(PIPELINE_GATHER_S, self._flush)
        return reply

    def _flush(self) -> None:
        calls, self._calls = self._calls, []
        task = asyncio.create_task(self._send(calls))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    @staticmethod
    async def _send(calls: list[Call]) -> None:
        client = get_async_redis()
        try:
            replies = await _execute(client, calls)
            lost = [
                i for i, result in enumerate(replies) if isinstance(result, redis.exceptions.NoScriptError)
            ]
            if lost:  # Redis restarted and forgot its scripts: load each once, then send those calls again
                for source in {calls[i][0] for i in lost}:
                    await client.script_load(source)
                for i, result in zip(lost, await _execute(client, [calls[i] for i in lost]), strict=True):
                    replies[i] = result
        except Exception as exc:  # the connection failed: every caller hears it, as from a call of its own
            replies = [exc] * len(calls)
        for (*_, reply), result in zip(calls, replies, strict=True):
            if reply.done():  # its caller went away (the socket closed)
                continue
            if isinstance(result, Exception):
                reply.set_exception(result)
            else:
                reply.set_result(result)


async def _execute(client: aredis.Redis, calls: list[Call]) -> list[Any]:
    """Each call's reply, or its error in its place."""
    pipe = client.pipeline(transaction=False)
    for source, keys, args, _ in calls:
        pipe.evalsha(_sha(source), len(keys), *keys, *args)
    replies: list[Any] = await pipe.execute(raise_on_error=False)
    return replies


_pipeline = per_loop(ScriptPipeline)


@dataclass
class CurrentRound:
    """The open round's id as this event loop last read it, and the read under way, if one is."""

    read_at: float = float("-inf")
    round_id: int | None = None
    reading: asyncio.Future[int | None] | None = None


_current = per_loop(CurrentRound)


# --- the conductor's side -----------------------------------------------------------------------------


def start_round(round_info: dict[str, Any], candidates: dict[int, str], seq: int = 0) -> None:
    """Write an open round (fresh, or rebuilt after Redis lost it) and point everyone at it."""
    keys = RoundKeys(round_info["id"])
    meta: dict[str, str | int] = {**round_info, "state": "open", "seq": seq, "ver": 0, "pub_ver": 0}
    pipe = get_redis().pipeline(transaction=True)
    pipe.delete(*keys.all())
    pipe.hset(keys.meta, mapping=meta)  # type: ignore[arg-type]  # redis-py types the keys invariantly
    if candidates:
        pipe.hset(keys.texts, mapping={str(pid): text for pid, text in candidates.items()})
    pipe.set(redis_keys.current_round(), keys.round_id)
    pipe.execute()


def round_state(round_id: int) -> str | None:
    """'open', 'closed', or None when Redis does not know the round (it restarted)."""
    state: str | None = get_redis().hget(RoundKeys(round_id).meta, "state")  # type: ignore[assignment]
    return state


@dataclass(frozen=True)
class Result:
    winner_id: int | None
    counts: dict[int, int]
    total: int


def close_round(round_id: int) -> Result | None:
    """Freeze the round and pick its winner (idempotent); None when Redis lost the round's votes."""
    keys = RoundKeys(round_id)
    raw = run_script(get_redis(), scripts.CLOSE_ROUND, keys.all(), [CLOSED_ROUND_TTL_S])
    if raw is None:
        return None
    data = json.loads(raw)
    counts = {int(pid): int(votes) for pid, votes in (data["counts"] or {}).items()}
    return Result(data["winner"], counts, int(data["total"]))


def standings(round_id: int) -> Result | None:
    """The open round's votes so far, for a guess at its winner; None when Redis does not know the round."""
    keys = RoundKeys(round_id)
    ids: list[str] = get_redis().hkeys(keys.texts)  # type: ignore[assignment]
    if not ids and round_state(round_id) is None:
        return None
    scores = get_redis().zmscore(keys.tally, ids) if ids else []
    counts = {int(pid): int(score or 0) for pid, score in zip(ids, scores, strict=True)}
    return Result(None, counts, sum(counts.values()))


def next_tally(round_id: int, force: bool = False) -> dict[str, Any] | None:
    """The `tally` event due for this round, or None when no vote changed since the last one."""
    keys = RoundKeys(round_id)
    reply = run_script(get_redis(), scripts.NEXT_TALLY, [keys.meta, keys.tally], ["force" if force else ""])
    return _tally_event(round_id, reply)


async def anext_tally(round_id: int, force: bool = False) -> dict[str, Any] | None:
    keys = RoundKeys(round_id)
    reply = await arun_script(scripts.NEXT_TALLY, [keys.meta, keys.tally], ["force" if force else ""])
    return _tally_event(round_id, reply)


def _tally_event(round_id: int, reply: Any) -> dict[str, Any] | None:
    if not reply:
        return None
    seq, flat = reply
    counts = {str(flat[i]): int(float(flat[i + 1])) for i in range(0, len(flat), 2)}
    return events.tally(round_id, int(seq), counts)


# --- the submitters' and voters' side -------------------------------------------------------------------


def current_round_id() -> int | None:
    value = get_redis().get(redis_keys.current_round())
    return int(value) if value else None


async def acurrent_round_id(max_age_s: float = 0.0) -> int | None:
    """The open round's id; with max_age_s, a value this process read that recently will do.

    Callers that find it stale at the same moment (every vote in flight when it expires) share one read."""
    current, loop = _current(), asyncio.get_running_loop()
    if loop.time() - current.read_at <= max_age_s:
        return current.round_id
    if current.reading is None:
        current.reading = asyncio.ensure_future(_read_current_round(current, loop.time()))
    return await asyncio.shield(current.reading)  # one caller going away does not cancel the others' read


async def _read_current_round(current: CurrentRound, read_at: float) -> int | None:
    try:
        value = await get_async_redis().get(redis_keys.current_round())
    finally:
        current.reading = None
    current.read_at, current.round_id = read_at, int(value) if value else None
    return current.round_id


def add_candidate(round_id: int, prompt_id: int, text: str) -> str:
    """'added', 'full' or 'round_closed'."""
    keys = RoundKeys(round_id)
    outcome: str = run_script(
        get_redis(), scripts.ADD_CANDIDATE, [keys.meta, keys.texts], [prompt_id, text, MAX_CANDIDATES]
    )
    return outcome


@dataclass(frozen=True)
class VoteLimits:
    per_viewer: int
    per_ip: int
    window_s: int


async def cast_vote(round_id: int, viewer_key: str, prompt_id: int, ip: str, limits: VoteLimits) -> str:
    """'cast', 'moved', 'unchanged', 'unknown_prompt', 'round_closed', or 'wait:<seconds>' (rate limited)."""
    tag, round_keys = _vote_keys(settings.CHANNEL_PREFIX, round_id)
    counters = [f"{tag}:limit:viewer:{viewer_key}", f"{tag}:limit:ip:{ip}"]
    args = [viewer_key, prompt_id, limits.per_viewer, limits.per_ip, limits.window_s]
    outcome: str = await arun_script(scripts.CAST_VOTE, [*round_keys, *counters], args)
    return outcome


@functools.lru_cache(maxsize=8)
def _vote_keys(prefix: str, round_id: int) -> tuple[str, tuple[str, ...]]:
    """A round's tag and keys, named once per round (and prefix) rather than once per vote: thousands of
    votes a second share them."""
    keys = RoundKeys(round_id)
    return keys.tag, tuple(keys.all())


async def read_round(
    round_id: int, viewer_key: str
) -> tuple[dict[str, str], dict[str, str], dict[str, int], str]:
    """One consistent read for a snapshot: meta, candidate texts, counts, and this viewer's vote."""
    keys = RoundKeys(round_id)
    pipe = get_async_redis().pipeline(transaction=True)
    pipe.hgetall(keys.meta)
    pipe.hgetall(keys.texts)
    pipe.zrange(keys.tally, 0, -1, withscores=True)
    pipe.hget(keys.votes, viewer_key)
    meta, texts, tally, my_vote = await pipe.execute()
    counts = {str(pid): int(votes) for pid, votes in tally}
    return meta, texts, counts, my_vote or ""


async def hit_limit(keys: list[str], limits: list[int], window_s: int) -> int:
    """0 when the action is allowed (and counted), else the seconds until it is."""
    wait: int = await arun_script(scripts.HIT_LIMIT, keys, [*limits, window_s])
    return wait
