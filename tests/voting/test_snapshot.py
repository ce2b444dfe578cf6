"""The strongest real-time test: a snapshot plus every event that followed equals a fresh snapshot."""

import asyncio
import copy
from typing import Any

import pytest
from channels.db import database_sync_to_async

from tests.helpers.voting import Viewer, close_round, open_round, submit, tick
from yolive.plumbing import events
from yolive.voting.models import Round
from yolive.voting.snapshot import ranked


def apply(snapshot: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    """What a client does with each event (as docs/protocol.md describes)."""
    snap = copy.deepcopy(snapshot)
    kind, rnd = event["type"], snap["round"]
    mine = {p["id"] for p in snap["my_prompts"]}
    if kind == "tally" and rnd and event["round_id"] == rnd["id"] and event["seq"] > rnd["seq"]:
        rnd["seq"] = event["seq"]
        for candidate in snap["candidates"]:
            candidate["votes"] = event["counts"].get(str(candidate["id"]), 0)
    elif kind == "candidate" and rnd and event["round_id"] == rnd["id"]:
        if event["prompt"]["id"] not in {c["id"] for c in snap["candidates"]}:
            snap["candidates"].append({**event["prompt"], "mine": event["prompt"]["id"] in mine})
    elif kind == "submitted":
        snap["my_prompts"] = [event["prompt"], *snap["my_prompts"]][:10]
        for candidate in snap["candidates"]:
            candidate["mine"] = candidate["mine"] or candidate["id"] == event["prompt"]["id"]
    elif kind == "voted" and rnd and event["round_id"] == rnd["id"]:
        snap["my_vote"] = event["prompt_id"]
    elif kind == "round_closed" and rnd and event["round_id"] == rnd["id"]:
        rnd["state"] = "closed"
    elif kind == "round_opened":
        snap.update(round=event["round"], candidates=[], my_vote=None)
    elif kind == "clip" and event["status"] in ("queued", "rendering"):
        fields = ("clip_id", "round_number", "prompt", "status", "progress")
        snap["rendering"] = {field: event[field] for field in fields}
    snap["candidates"] = ranked(snap["candidates"])
    return snap


def comparable(snapshot: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in snapshot.items() if key != "server_time"}


async def replay_matches_fresh(viewer: Viewer, start: dict[str, Any], mark: int) -> tuple[list, dict]:
    """Replay every event the viewer read since `mark` onto `start`; assert it equals a fresh snapshot.

    Returns the events replayed and the fresh snapshot, for the test's own assertions.
    """
    await viewer.drain()
    followed = viewer.seen[mark:]
    replayed = start
    for event in followed:
        replayed = apply(replayed, event)
    fresh = await viewer.ask({"type": "resync"}, "snapshot")
    assert comparable(replayed) == comparable(fresh)
    return followed, fresh


@pytest.mark.django_db(transaction=True)
async def test_a_snapshot_plus_the_events_that_followed_equals_a_fresh_snapshot(make_viewer):
    first = await open_round()
    alice, bob = await make_viewer(), await make_viewer()
    old = await submit(bob, "an old lighthouse")
    await alice.ask({"type": "vote", "prompt_id": old["id"]})
    await tick(first.pk)
    await close_round(await database_sync_to_async(Round.objects.get)(pk=first.pk))
    second = await open_round()
    await alice.drain()
    start = await alice.ask({"type": "resync"}, "snapshot")
    mark = len(alice.seen)

    kite = await submit(bob, "a red kite over the dunes")
    whale = await submit(alice, "a blue whale singing")
    await alice.ask({"type": "vote", "prompt_id": kite["id"]})
    await tick(second.pk)
    await bob.ask({"type": "vote", "prompt_id": whale["id"]})
    await alice.ask({"type": "vote", "prompt_id": whale["id"]})  # a change of mind
    await tick(second.pk)
    await submit(await make_viewer(), "a green hill in the rain")
    await tick(second.pk)

    followed, fresh = await replay_matches_fresh(alice, start, mark)
    assert [c["votes"] for c in fresh["candidates"]] == [2, 0, 0]
    assert fresh["my_vote"] == whale["id"]
    assert fresh["rendering"]["round_number"] == first.number
    assert {e["type"] for e in followed} >= {"candidate", "tally", "voted", "submitted"}


@pytest.mark.django_db(transaction=True)
async def test_it_holds_across_a_round_change(make_viewer):
    first = await open_round()
    alice, bob = await make_viewer(), await make_viewer()
    start, mark = alice.snapshot, len(alice.seen)
    kite = await submit(bob, "a red kite over the dunes")
    await alice.ask({"type": "vote", "prompt_id": kite["id"]})
    await tick(first.pk)

    await close_round(await database_sync_to_async(Round.objects.get)(pk=first.pk))
    await open_round()

    followed, _ = await replay_matches_fresh(alice, start, mark)
    assert {e["type"] for e in followed} >= {"round_closed", "clip", "round_opened"}


@pytest.mark.django_db(transaction=True)
async def test_a_viewer_connecting_while_tallies_flow_reads_its_snapshot_first(make_viewer):
    """Tallies reach sockets straight from the fan-out, beside Channels; none may overtake the snapshot."""
    await make_viewer()  # keeps the fan-out listening while newcomers come and go
    flowing = asyncio.Event()
    stop = asyncio.Event()

    async def publish_tallies() -> None:
        seq = 0
        while not stop.is_set():
            seq += 1
            await events.apublish(events.TALLIES, events.tally(1, seq, {"1": seq}))
            flowing.set()
            await asyncio.sleep(0.002)

    publishing = asyncio.create_task(publish_tallies())
    firsts = []
    try:
        await flowing.wait()
        for _ in range(15):
            newcomer = Viewer()
            connected, _ = await newcomer.socket.connect(timeout=10)
            assert connected
            firsts.append((await newcomer.read())["type"])
            second = await newcomer.read()  # what the fan-out held back comes after the snapshot
            assert second["type"] == "tally"
            await newcomer.close()
    finally:
        stop.set()
        await publishing
    assert firsts == ["snapshot"] * 15
