"""A ban follows the viewer's address as well as its key: through the real viewer socket, behind a proxy that
uvicorn trusts (--proxy-headers), so the address is the viewer's, not the proxy's."""

import pytest
from asgiref.sync import sync_to_async
from channels.testing.websocket import WebsocketCommunicator
from django.test import override_settings
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from yolive.asgi import application
from yolive.moderation.desk import actions
from yolive.moderation.policy import bans
from yolive.voting.models import Viewer

pytestmark = pytest.mark.django_db(transaction=True)
PROXY = "127.0.0.1"
ORIGIN = (b"origin", b"http://127.0.0.1:8000")
behind_proxy = ProxyHeadersMiddleware(application, trusted_hosts=PROXY)


async def viewer_from(address: str) -> tuple[WebsocketCommunicator, str]:
    """A new browser (no cookie, so a new viewer key) whose requests reach us through the proxy."""
    socket = WebsocketCommunicator(
        behind_proxy, "/ws/live/", headers=[ORIGIN, (b"x-forwarded-for", address.encode())]
    )
    socket.scope["client"] = (PROXY, 41000)
    connected, _ = await socket.connect(timeout=10)
    assert connected
    snapshot = await socket.receive_json_from(timeout=10)
    return socket, snapshot["viewer"]["key"]


async def submit(socket: WebsocketCommunicator, text: str) -> dict:
    await socket.send_json_to({"type": "submit", "text": text})
    while True:
        frame = await socket.receive_json_from(timeout=10)
        if frame["type"] in ("submitted", "error"):
            return frame


async def test_a_ban_reaches_a_new_key_from_the_same_address_until_it_is_lifted(moderator, open_round):
    first, key = await viewer_from("203.0.113.7")
    assert (await sync_to_async(Viewer.objects.get)(key=key)).last_ip == "203.0.113.7"  # not the proxy's
    restriction = await sync_to_async(actions.restrict_viewer)(key, moderator, "raid", None)
    assert restriction.address == "203.0.113.7"
    await first.disconnect()

    again, new_key = await viewer_from("203.0.113.7")  # cookies cleared: a new viewer key
    assert new_key != key
    refused = await submit(again, "a red kite over the sea")
    assert refused["code"] == "banned" and "raid" in refused["message"]
    elsewhere, _ = await viewer_from("198.51.100.9")
    assert (await submit(elsewhere, "a red kite over the sea"))["type"] == "submitted"

    await sync_to_async(actions.lift_restriction)(restriction.pk, moderator)
    await again.disconnect()
    freed, _ = await viewer_from("203.0.113.7")
    assert (await submit(freed, "a blue kite over the sea"))["type"] == "submitted"
    for socket in (elsewhere, freed):
        await socket.disconnect()


def test_an_ipv6_ban_covers_the_whole_64_and_nothing_beyond():
    assert bans.address_block("2001:db8:1:2:aaaa::1") == bans.address_block("2001:db8:1:2:ffff::9")
    assert bans.address_block("2001:db8:1:2::1") != bans.address_block("2001:db8:1:3::1")
    assert bans.address_block("203.0.113.7") == "203.0.113.7"
    assert bans.address_block("unknown") == bans.address_block(None) == ""


def test_with_addresses_off_a_ban_follows_the_key_only(moderator):
    banned = Viewer.objects.create(last_ip="203.0.113.8")
    neighbour = Viewer.objects.create(last_ip="203.0.113.8")
    with override_settings(MODERATION_BAN_ADDRESS=False):
        restriction = actions.restrict_viewer(banned.key, moderator, "spam", 600)
        assert restriction.address == ""
        assert bans.active_restriction(neighbour.pk, neighbour.last_ip) is None
    assert bans.active_restriction(banned.pk, banned.last_ip) is not None


def test_a_timeout_covers_the_address_only_while_it_lasts(moderator):
    from datetime import timedelta

    from django.utils import timezone

    timed_out = Viewer.objects.create(last_ip="203.0.113.9")
    neighbour = Viewer.objects.create(last_ip="203.0.113.9")
    restriction = actions.restrict_viewer(timed_out.key, moderator, "spam", 60)
    assert bans.active_restriction(neighbour.pk, neighbour.last_ip) == restriction
    restriction.until = timezone.now() - timedelta(seconds=1)
    restriction.save()
    assert bans.active_restriction(neighbour.pk, neighbour.last_ip) is None
