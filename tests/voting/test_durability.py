"""Redis restarting mid-round loses at most the open round's votes; sockets and the conductor carry on."""

import threading
import time

import pytest
from channels.db import database_sync_to_async

from tests.helpers.voting import submit
from yolive.voting import tally
from yolive.voting.conductor import Conductor
from yolive.voting.models import Round

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def layer_on_private_redis(private_redis, settings):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [private_redis.url], "prefix": "yolive-durability"},
        }
    }
    return private_redis


@pytest.fixture
def conductor():
    running = Conductor(round_seconds=120)
    stop = threading.Event()
    thread = threading.Thread(target=running.run, args=(stop,))
    thread.start()
    yield running
    stop.set()
    thread.join(timeout=20)
    assert not thread.is_alive()


@database_sync_to_async
def the_open_round() -> Round:
    """The round the conductor opened, once Redis has it too (waits for the conductor's first pass)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        rnd = Round.objects.filter(state=Round.State.OPEN).first()
        if rnd is not None and tally.round_state(rnd.pk) == "open":
            return rnd
        time.sleep(0.05)
    raise AssertionError("the conductor opened no round")


async def test_a_viewer_socket_and_the_conductor_survive_a_redis_restart(
    layer_on_private_redis, conductor, make_viewer
):
    rnd = await the_open_round()
    alice = await make_viewer()
    kite = await submit(alice, "a red kite over the dunes")
    assert (await alice.ask({"type": "vote", "prompt_id": kite["id"]}))["type"] == "voted"

    layer_on_private_redis.stop()
    refused = await alice.ask({"type": "vote", "prompt_id": kite["id"]})
    assert refused["code"] == "unavailable"
    layer_on_private_redis.start()

    reopened = await alice.until("round_opened")
    assert reopened["round"]["id"] == rnd.pk
    assert reopened["round"]["seq"] > 0, "above any seq from before the restart"
    returned = await alice.until("candidate")
    assert returned["prompt"]["id"] == kite["id"], "the ballot is rebuilt from the database"
    fresh = await alice.ask({"type": "resync"}, "snapshot")
    expected = {"id": kite["id"], "text": kite["text"], "votes": 0, "mine": True}
    assert fresh["candidates"] == [expected], "its votes were lost"
    assert (await alice.ask({"type": "vote", "prompt_id": kite["id"]}))["type"] == "voted"
    heard = await alice.until("tally")  # from the conductor's ticker, over the resubscribed layer
    assert (heard["round_id"], heard["counts"]) == (rnd.pk, {str(kite["id"]): 1})
    assert heard["seq"] > reopened["round"]["seq"]
