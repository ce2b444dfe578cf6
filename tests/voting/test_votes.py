import asyncio

import pytest
from channels.db import database_sync_to_async

from tests.helpers.voting import Viewer, open_round, submit, tick
from yolive.moderation.desk.actions import approve_prompt
from yolive.plumbing import metrics
from yolive.voting import tally
from yolive.voting.models import Prompt

pytestmark = pytest.mark.django_db(transaction=True)


async def test_it_counts_one_vote_per_viewer_per_round(make_viewer):
    rnd = await open_round()
    alice = await make_viewer()
    kite = await submit(alice, "a red kite over the dunes")

    first = await alice.ask({"type": "vote", "prompt_id": kite["id"]})
    again = await alice.ask({"type": "vote", "prompt_id": kite["id"]})

    assert first == {"type": "voted", "round_id": rnd.pk, "prompt_id": kite["id"]}
    assert again == first
    assert (await tick(rnd.pk))["counts"] == {str(kite["id"]): 1}


async def test_a_vote_change_moves_exactly_one_vote(make_viewer):
    rnd = await open_round()
    alice, bob = await make_viewer(), await make_viewer()
    kite = await submit(alice, "a red kite over the dunes")
    whale = await submit(bob, "a blue whale singing")
    await bob.ask({"type": "vote", "prompt_id": kite["id"]})
    await alice.ask({"type": "vote", "prompt_id": kite["id"]})

    await alice.ask({"type": "vote", "prompt_id": whale["id"]})

    event = await tick(rnd.pk)
    assert event["counts"] == {str(kite["id"]): 1, str(whale["id"]): 1}
    assert event["total"] == 2


async def test_500_viewers_voting_at_once_give_exactly_500_votes(make_viewer, settings):
    settings.VOTES_PER_WINDOW_PER_IP = 10_000  # they all share the test's one address
    rnd = await open_round()
    viewers = [await make_viewer() for _ in range(500)]
    kite = await submit(viewers[0], "a red kite over the dunes")
    whale = await submit(viewers[1], "a blue whale singing")

    replies = await asyncio.gather(
        *(v.ask({"type": "vote", "prompt_id": (kite, whale)[i % 2]["id"]}) for i, v in enumerate(viewers))
    )

    assert {r["type"] for r in replies} == {"voted"}
    event = await tick(rnd.pk)
    assert event["counts"] == {str(kite["id"]): 250, str(whale["id"]): 250}
    assert event["total"] == 500


async def test_the_ticker_publishes_only_when_votes_changed_and_seq_rises(make_viewer):
    rnd = await open_round()
    alice = await make_viewer()
    kite = await submit(alice, "a red kite over the dunes")
    await alice.ask({"type": "vote", "prompt_id": kite["id"]})

    first = await tick(rnd.pk)
    nothing_new = await tick(rnd.pk)
    bob = await make_viewer()
    await bob.ask({"type": "vote", "prompt_id": kite["id"]})
    second = await tick(rnd.pk)

    assert nothing_new is None
    assert second["seq"] == first["seq"] + 1
    assert second["counts"] == {str(kite["id"]): 2}
    heard = await alice.until("tally")
    assert heard == first


async def test_a_vote_after_the_close_is_refused_and_changes_nothing(make_viewer):
    rnd = await open_round()
    alice = await make_viewer()
    kite = await submit(alice, "a red kite over the dunes")
    await asyncio.to_thread(tally.close_round, rnd.pk)

    reply = await alice.ask({"type": "vote", "prompt_id": kite["id"]})

    assert reply["code"] == "round_closed"
    assert (await asyncio.to_thread(tally.close_round, rnd.pk)).total == 0


async def test_a_prompt_a_moderator_approves_joins_the_open_ballot(make_viewer):
    rnd = await open_round()
    alice = await make_viewer()
    held = await database_sync_to_async(Prompt.objects.create)(
        text="a storm over the harbour", normalized_text="a storm over the harbour", round=rnd, status="held"
    )
    assert (await alice.ask({"type": "vote", "prompt_id": held.pk}))["code"] == "unknown_prompt"

    await database_sync_to_async(approve_prompt)(held.pk, None)

    assert (await alice.until("candidate"))["prompt"]["id"] == held.pk
    assert (await alice.ask({"type": "vote", "prompt_id": held.pk}))["type"] == "voted"
    assert (await tick(rnd.pk))["counts"] == {str(held.pk): 1}


def sample(name: str, **labels: str) -> float:
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


async def test_votes_are_counted_as_accepted_or_refused_by_code_and_sockets_as_open():
    await open_round()
    accepted = sample("yolive_votes_accepted_total")
    invalid = sample("yolive_votes_refused_total", code="invalid")
    unknown = sample("yolive_votes_refused_total", code="unknown_prompt")
    sockets = sample("yolive_open_sockets", socket="viewer")
    alice = await Viewer().connect()
    kite = await submit(alice, "a red kite over the dunes")
    assert sample("yolive_open_sockets", socket="viewer") == sockets + 1

    await alice.ask({"type": "vote", "prompt_id": kite["id"]})
    await alice.ask({"type": "vote", "prompt_id": "kite"})
    await alice.ask({"type": "vote", "prompt_id": kite["id"] + 1000})
    await alice.ask({"type": "vote", "prompt_id": kite["id"] + 1001})

    assert sample("yolive_votes_accepted_total") == accepted + 1
    assert sample("yolive_votes_refused_total", code="invalid") == invalid + 1
    assert sample("yolive_votes_refused_total", code="unknown_prompt") == unknown + 2
    await alice.close()
    assert sample("yolive_open_sockets", socket="viewer") == sockets
