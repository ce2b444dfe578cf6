"""Two channels on one Redis, told apart only by CHANNEL_PREFIX, side by side for several rounds.

Their databases are separate, so their first prompt, round and clip all have the same ids: any key, lease,
heartbeat or broker queue they shared would mix their votes, stall one conductor or send one's render to the
other's worker. Each runs as real processes (web, conductor, worker) on the same redis-server.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets

from tests.helpers.processes import PrivateRedis, in_own_loop
from tests.helpers.stack import Stack

pytestmark = pytest.mark.slow

ROUNDS = 3  # round_closed events each channel must see
ROUND_SECONDS = 4
SUBMIT_TRIES = 3  # rounds in which to submit and vote before giving up
PROMPTS = {"east": "a red kite over the hills", "west": "a blue whale in the sea"}


@pytest.fixture(scope="module")
def channels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Stack]]:
    redis = PrivateRedis(tmp_path_factory.mktemp("shared-redis"))
    redis.start()
    running = {
        name: Stack(
            Path(tmp_path_factory.mktemp(name)),
            parts=("web", "conductor", "worker"),
            redis=redis,
            name=name,
            round_seconds=ROUND_SECONDS,
        )
        for name in PROMPTS
    }
    try:
        for stack in running.values():
            stack.start()
        for stack in running.values():
            stack.wait_healthy(need_all=False)
        yield running
    finally:
        for stack in running.values():
            stack.stop()
        redis.stop()


async def follow(stack: Stack, text: str) -> dict[str, list[dict]]:
    """Submit `text`, vote for it, and read the channel until ROUNDS rounds closed and its clip is ready."""
    url = stack.url.replace("http", "ws") + "/ws/live/"
    seen: dict[str, list[dict]] = {"round_closed": [], "clip": [], "tally": []}
    async with websockets.connect(url, origin=stack.url) as socket:

        async def until(kind: str, or_refused: tuple[str, ...] = ()) -> dict:
            """The next `kind` frame; or an `error` frame with a code in `or_refused`, if one comes first."""
            while True:
                frame = json.loads(await socket.recv())
                if frame["type"] == "error" and frame["code"] in or_refused:
                    return frame
                assert frame["type"] != "error", frame
                seen.setdefault(frame["type"], []).append(frame)
                if frame["type"] == kind:
                    return frame

        async def on_ballot(round_id: int) -> dict:
            """Our prompt among round `round_id`'s candidates, from the frames seen or still to come."""
            while True:
                for frame in seen.get("candidate", []):
                    if frame["round_id"] == round_id and frame["prompt"]["text"] == text:
                        return frame["prompt"]
                await until("candidate")

        async with asyncio.timeout(90):
            await until("snapshot")
            # On a loaded machine a short round can close between submitting and voting: as a viewer would,
            # submit again in the next one. A prompt left unvoted may still win its round, with no votes; one
            # accepted while no round was open joins the next, where submitting it again is refused as a
            # duplicate: as a viewer would, vote for the one on the ballot.
            for _ in range(SUBMIT_TRIES):
                opened = (await until("round_opened"))["round"]  # a whole round ahead, to submit and vote in
                await socket.send(json.dumps({"type": "submit", "text": text}))
                reply = await until("submitted", or_refused=("round_closed", "rejected"))
                if reply["type"] == "error" and reply["code"] == "round_closed":
                    continue
                mine = reply["prompt"] if reply["type"] == "submitted" else await on_ballot(opened["id"])
                seen["mine"] = [mine]
                await socket.send(json.dumps({"type": "vote", "prompt_id": mine["id"]}))
                if (await until("voted", or_refused=("round_closed",)))["type"] == "voted":
                    break
            else:
                pytest.fail(f"no round stayed open to submit and vote in, {SUBMIT_TRIES} times")
            while len(seen["round_closed"]) < ROUNDS or not won_by(seen["mine"][0], seen["round_closed"]):
                await until("round_closed")
            number = won_by(seen["mine"][0], seen["round_closed"])[0]["number"]
            while not any(c["round_number"] == number and c["status"] == "ready" for c in seen["clip"]):
                await until("clip")  # the clip of the round our vote won, not of an unvoted earlier try
    return seen


def won_by(prompt: dict, closed: list[dict]) -> list[dict]:
    """The round_closed events `prompt` won."""
    return [event for event in closed if event["winner"] and event["winner"]["id"] == prompt["id"]]


def test_two_channels_on_one_redis_never_see_each_others_votes_leases_heartbeats_or_clips(channels):
    async def both() -> list[dict[str, list[dict]]]:
        return await asyncio.gather(*(follow(stack, PROMPTS[name]) for name, stack in channels.items()))

    heard = dict(zip(channels, in_own_loop(both()), strict=True))

    for name, seen in heard.items():
        mine = seen["mine"][0]
        won = won_by(mine, seen["round_closed"])
        # The round our prompt was in closed with our one vote for it, and nothing of the other channel's.
        assert won and won[0]["winner"]["text"] == PROMPTS[name]
        assert won[0]["counts"] == {str(mine["id"]): 1} and won[0]["total"] == 1
        # Every round kept closing: each conductor held its own channel's lease.
        assert len(seen["round_closed"]) >= ROUNDS
        # Each channel's clips were rendered by its own worker, from its own prompts only.
        other = next(text for other, text in PROMPTS.items() if other != name)
        assert any(c["prompt"] == PROMPTS[name] and c["status"] == "ready" for c in seen["clip"])
        ready = [c for c in seen["clip"] if c["round_number"] == won[0]["number"] and c["status"] == "ready"]
        assert ready and ready[0]["prompt"] == PROMPTS[name]
        assert all(c["prompt"] != other for c in seen["clip"])
        assert all(set(t["counts"]) <= {str(mine["id"])} for t in seen["tally"])

    for stack in channels.values():
        _, health = stack.health()  # 503: no broadcaster runs here
        # Each /healthz counts its own channel's processes, not the other's.
        assert health["checks"]["conductor"]["instances"] == 1
        assert health["checks"]["worker"]["instances"] == 1
