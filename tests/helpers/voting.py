"""Voting as a browser tab sees it: a viewer socket on the real consumer, the round steps a test drives."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from unittest import mock

from channels.db import database_sync_to_async
from channels.testing.websocket import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore

from yolive.asgi import application
from yolive.clips.models import Clip
from yolive.voting import models, rounds, services, tally
from yolive.voting.conductor import TallyTicker
from yolive.voting.models import Round

ORIGIN = (b"origin", b"http://127.0.0.1:8000")
REPLIES = ("voted", "error")
QUIET_S = 0.3  # no frame for this long: everything published so far has arrived


class Viewer:
    """One browser tab on /ws/live/: connects, reads its snapshot, sends frames, reads what comes back."""

    def __init__(self, ip: str = "10.0.0.1", headers: list[tuple[bytes, bytes]] | None = None) -> None:
        self.socket = WebsocketCommunicator(application, "/ws/live/", headers=[ORIGIN, *(headers or [])])
        self.socket.scope["client"] = (ip, 50000)
        self.snapshot: dict[str, Any] = {}
        self.seen: list[dict[str, Any]] = []  # every frame this tab has read, in order

    async def read(self) -> dict[str, Any]:
        frame = json.loads(await self.socket.receive_from(timeout=10))
        self.seen.append(frame)
        return dict(frame)

    async def connect(self) -> Viewer:
        connected, _ = await self.socket.connect(timeout=10)
        assert connected
        self.snapshot = await self.read()
        assert self.snapshot["type"] == "snapshot"
        return self

    @property
    def key(self) -> str:
        return str(self.snapshot["viewer"]["key"])

    async def send(self, frame: dict[str, Any]) -> None:
        await self.socket.send_json_to(frame)

    async def send_raw(self, text: str) -> None:
        await self.socket.send_to(text_data=text)

    async def until(self, event_type: str) -> dict[str, Any]:
        async with asyncio.timeout(10):
            while True:
                frame = await self.read()
                if frame["type"] == event_type:
                    return frame

    async def ask(self, frame: dict[str, Any], reply_type: str | tuple[str, ...] = REPLIES) -> dict:
        """Send a frame and return the direct reply (skipping broadcasts that arrive meanwhile)."""
        await self.send(frame)
        wanted = (reply_type,) if isinstance(reply_type, str) else reply_type
        async with asyncio.timeout(10):
            while True:
                reply = await self.read()
                if reply["type"] in wanted:
                    return reply

    async def drain(self) -> list[dict[str, Any]]:
        """Every frame that arrives until the socket has been quiet for QUIET_S.

        (receive_nothing, because a receive that times out cancels the consumer under test.)
        """
        frames = []
        while not await self.socket.receive_nothing(timeout=QUIET_S):
            frames.append(await self.read())
        return frames

    async def close(self) -> None:
        await self.socket.disconnect()


open_round = database_sync_to_async(rounds.open_round)
close_round = database_sync_to_async(rounds.close_round)
tick = database_sync_to_async(lambda round_id: TallyTicker().tick(round_id))


@database_sync_to_async
def new_session() -> SessionStore:
    """A stored session, as the page `/` leaves in the browser's cookie."""
    session = SessionStore()
    session.create()
    return session


@database_sync_to_async
def reload_round(round_id: int) -> Round:
    return Round.objects.select_related("winner").get(pk=round_id)


async def submit(viewer: Viewer, text: str) -> dict[str, Any]:
    reply = await viewer.ask({"type": "submit", "text": text}, ("submitted", "error"))
    assert reply["type"] == "submitted", reply
    return dict(reply["prompt"])


# Rounds driven from the domain code, as the conductor drives them.
LIMITS = tally.VoteLimits(per_viewer=100, per_ip=10_000, window_s=10)


def propose(text: str) -> int:
    return int(services.submit_prompt(models.Viewer.objects.create(), text)["id"])


def vote(round_id: int, prompt_id: int, times: int) -> None:
    keys = [models.Viewer.objects.create().key for _ in range(times)]

    async def cast() -> None:
        for key in keys:
            assert await tally.cast_vote(round_id, key, prompt_id, "192.0.2.1", LIMITS) == "cast"

    asyncio.run(cast())


def render_of(clip: Clip) -> object:
    return mock.call("generation.tasks.render_clip", args=[clip.pk], queue="gpu")
