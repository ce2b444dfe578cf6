import asyncio

import pytest
from channels.db import database_sync_to_async

from tests.helpers.voting import new_session, open_round, submit
from yolive.moderation.desk.actions import lift_restriction, restrict_viewer

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_viewer_who_votes_too_fast_is_told_when_to_try_again(make_viewer, settings):
    settings.VOTES_PER_WINDOW = 3
    await open_round()
    alice = await make_viewer()
    kite = await submit(alice, "a red kite over the dunes")

    replies = [await alice.ask({"type": "vote", "prompt_id": kite["id"]}) for _ in range(4)]

    assert [r["type"] for r in replies] == ["voted", "voted", "voted", "error"]
    assert replies[-1]["code"] == "rate_limited"
    assert 1 <= replies[-1]["retry_after"] <= settings.RATE_WINDOW_SECONDS
    assert str(replies[-1]["retry_after"]) in replies[-1]["message"]


async def test_a_limit_per_address_stops_many_viewers_behind_one_ip(make_viewer, settings):
    settings.VOTES_PER_WINDOW_PER_IP = 2
    await open_round()
    first, second, third = [await make_viewer(ip="192.0.2.7") for _ in range(3)]
    elsewhere = await make_viewer(ip="198.51.100.1")
    kite = await submit(first, "a red kite over the dunes")

    assert (await first.ask({"type": "vote", "prompt_id": kite["id"]}))["type"] == "voted"
    assert (await second.ask({"type": "vote", "prompt_id": kite["id"]}))["type"] == "voted"
    assert (await third.ask({"type": "vote", "prompt_id": kite["id"]}))["code"] == "rate_limited"
    assert (await elsewhere.ask({"type": "vote", "prompt_id": kite["id"]}))["type"] == "voted"


async def test_submissions_have_their_own_tighter_limit(make_viewer, settings):
    settings.SUBMITS_PER_WINDOW = 2
    await open_round()
    alice = await make_viewer()

    await submit(alice, "a red kite over the dunes")
    await submit(alice, "a blue whale singing")
    reply = await alice.ask({"type": "submit", "text": "a third idea"}, ("submitted", "error"))

    assert reply["code"] == "rate_limited"
    assert reply["retry_after"] >= 1
    assert (await alice.ask({"type": "resync"}, "snapshot"))["type"] == "snapshot"


async def test_a_timed_out_viewer_can_neither_submit_nor_vote(make_viewer):
    await open_round()
    bob = await make_viewer()
    kite = await submit(bob, "a red kite over the dunes")
    alice = await make_viewer()
    await database_sync_to_async(restrict_viewer)(alice.key, None, "spamming the ballot", 600)
    notice = await alice.until("error")  # moderation tells the viewer's open sockets at once

    vote = await alice.ask({"type": "vote", "prompt_id": kite["id"]})
    sub = await alice.ask({"type": "submit", "text": "let me in"}, ("submitted", "error"))

    assert notice["code"] == vote["code"] == sub["code"] == "banned"
    assert "spamming the ballot" in vote["message"]
    assert 590 <= vote["retry_after"] <= 600


async def test_a_viewer_banned_before_connecting_is_refused_from_the_first_frame(make_viewer):
    await open_round()
    session = await new_session()
    cookie = [(b"cookie", f"sessionid={session.session_key}".encode())]
    bob = await make_viewer(headers=cookie)
    kite = await submit(bob, "a red kite over the dunes")
    await database_sync_to_async(restrict_viewer)(bob.key, None, "ban evasion", None)

    returning = await make_viewer(headers=cookie)
    reply = await returning.ask({"type": "vote", "prompt_id": kite["id"]})

    assert returning.key == bob.key
    assert reply["code"] == "banned"
    assert "retry_after" not in reply, "a ban has no end"
    other = await make_viewer(ip="10.0.0.2")  # the ban also covers bob's address: another network is free
    assert (await other.ask({"type": "vote", "prompt_id": kite["id"]}))["type"] == "voted"


async def answer_once_told(viewer, frame: dict, wanted: str, seconds: float = 5.0) -> dict:
    """Ask until the reply is `wanted` (a type or an error code): restriction changes reach an open socket
    through pub/sub, a moment after they commit."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        reply = await viewer.ask(frame)
        if wanted in (reply["type"], reply.get("code")) or asyncio.get_running_loop().time() > deadline:
            return reply
        await asyncio.sleep(0.05)


async def test_an_open_socket_from_a_restricted_network_is_refused_and_freed_without_reconnecting(
    make_viewer, settings
):
    settings.VOTES_PER_WINDOW = 1000  # the test asks again until the change has arrived
    await open_round()
    bob = await make_viewer(ip="192.0.2.9")
    kite = await submit(bob, "a red kite over the dunes")
    housemate = await make_viewer(ip="192.0.2.9")  # another browser on bob's network, already connected
    vote = {"type": "vote", "prompt_id": kite["id"]}
    assert (await housemate.ask(vote))["type"] == "voted"

    restriction = await database_sync_to_async(restrict_viewer)(bob.key, None, "raid", None)
    refused = await answer_once_told(housemate, vote, "banned")
    assert refused["code"] == "banned" and "raid" in refused["message"]

    await database_sync_to_async(lift_restriction)(restriction.pk, None)
    assert (await answer_once_told(housemate, vote, "voted"))["type"] == "voted"


async def test_a_timeout_that_runs_out_frees_an_open_socket(make_viewer):
    await open_round()
    bob = await make_viewer()
    kite = await submit(bob, "a red kite over the dunes")
    alice = await make_viewer(ip="198.51.100.4")
    vote = {"type": "vote", "prompt_id": kite["id"]}
    await database_sync_to_async(restrict_viewer)(alice.key, None, "cooling off", 1)
    await alice.until("error")
    assert (await alice.ask(vote))["code"] == "banned"

    await asyncio.sleep(1.2)

    assert (await alice.ask(vote))["type"] == "voted"


async def test_a_restriction_deleted_in_the_admin_frees_the_open_socket_at_once(make_viewer, settings):
    settings.VOTES_PER_WINDOW = 1000
    await open_round()
    bob = await make_viewer()
    kite = await submit(bob, "a red kite over the dunes")
    alice = await make_viewer(ip="198.51.100.5")
    vote = {"type": "vote", "prompt_id": kite["id"]}
    restriction = await database_sync_to_async(restrict_viewer)(alice.key, None, "by mistake", None)
    await alice.until("error")

    await database_sync_to_async(restriction.delete)()  # what the admin's delete does: no desk action

    assert (await answer_once_told(alice, vote, "voted"))["type"] == "voted"
