import asyncio

import pytest
from channels.testing.websocket import WebsocketCommunicator

from yolive.asgi import application
from yolive.plumbing import events

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://127.0.0.1:8000")


async def receive_event(communicator: WebsocketCommunicator, event_type: str) -> dict:
    """Read frames until one of `event_type` arrives (a viewer also gets a snapshot on connect)."""
    async with asyncio.timeout(5):
        while True:
            frame = await communicator.receive_json_from(timeout=5)
            if frame["type"] == event_type:
                return frame


async def test_a_published_event_reaches_a_viewer_through_the_redis_layer():
    viewer = WebsocketCommunicator(application, "/ws/live/", headers=[ORIGIN])
    connected, _ = await viewer.connect()
    assert connected
    await asyncio.sleep(0.2)  # the pub/sub subscription is made asynchronously after the group join

    await events.apublish(events.VIEWERS, {"type": "test_ping", "n": 1})

    assert await receive_event(viewer, "test_ping") == {"type": "test_ping", "n": 1}
    await viewer.disconnect()


async def test_it_refuses_a_socket_from_a_foreign_origin():
    outsider = WebsocketCommunicator(application, "/ws/live/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await outsider.connect()
    assert not connected
