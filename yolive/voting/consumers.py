"""The viewer socket, /ws/live/ (docs/protocol.md); published events arrive as `event.forward`.

Every inbound frame is validated; a bad one earns its sender an `error` frame and changes nothing else, and
the socket stays open. Votes go straight to Redis (one script); tallies reach viewers from the conductor's
ticker, never one broadcast per vote (unless TALLY_BROADCAST=per_vote, the benchmark's comparison).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils.timezone import now

from yolive.plumbing import events, metrics
from yolive.plumbing import keys as redis_keys
from yolive.voting import services, tally
from yolive.voting.errors import VotingError
from yolive.voting.fanout import fanout
from yolive.voting.models import Viewer
from yolive.voting.snapshot import build_snapshot
from yolive.voting.wire import SCOPE_KEY, Wire, encode

log = logging.getLogger(__name__)

# Room for a full prompt written entirely in \\uXXXX escapes, and not much more.
MAX_FRAME_CHARS = max(4096, settings.PROMPT_MAX_CHARS * 6 + 256)
# Restrictions are read at connect and again when one may concern this socket (`restriction_changed`, or a
# timeout running out); never once per vote, never on a timer for every socket. Events are best-effort (a
# Redis restart loses those in flight), so a socket also reads its restriction again at least this often.
RESTRICTION_RECHECK_S = 600.0
# Votes may use a round id this process read this recently; a vote that finds it closed looks again.
CURRENT_ROUND_CACHE_S = 0.5
RESYNCS_PER_WINDOW = 5  # a snapshot costs a few queries: enough for a reconnecting page, not a loop
Frame = dict[str, Any]


def limits_for(action: str) -> tuple[int, int]:
    """(per viewer, per IP) within one RATE_WINDOW_SECONDS."""
    return {
        "vote": (settings.VOTES_PER_WINDOW, settings.VOTES_PER_WINDOW_PER_IP),
        "submit": (settings.SUBMITS_PER_WINDOW, settings.SUBMITS_PER_WINDOW_PER_IP),
        "resync": (RESYNCS_PER_WINDOW, RESYNCS_PER_WINDOW * 50),
    }[action]


def parse_frame(text_data: str | None, bytes_data: bytes | None) -> Frame:
    if text_data is None:
        raise VotingError("invalid", "Send JSON text frames, not binary ones.")
    if len(text_data) > MAX_FRAME_CHARS:
        raise VotingError("too_large", f"Frames are limited to {MAX_FRAME_CHARS} characters.")
    try:
        frame = json.loads(text_data)
    except ValueError:
        raise VotingError("bad_json", "That frame is not valid JSON.") from None
    if not isinstance(frame, dict):
        raise VotingError("invalid", "A frame is a JSON object with a 'type'.")
    if not isinstance(frame.get("type"), str):
        raise VotingError("unknown_type", "A frame needs a 'type': submit, vote or resync.")
    return frame


class LiveConsumer(AsyncWebsocketConsumer):
    groups: list[str] = []
    tally_busy = False  # set by the fan-out while a tally is being written to this socket
    tally_missed = False  # a tally came while busy: the fan-out sends the newest next
    wire: Wire | None = None  # the server's own connection, where it exposes one (wire.ExposeWire)
    _counted = False  # in the open-sockets gauge
    viewer: Viewer
    ip: str

    async def connect(self) -> None:
        client = self.scope.get("client") or ["unknown"]
        self.ip = str(client[0])
        self.viewer, self._restriction = await database_sync_to_async(services.identify)(
            self.scope.get("session"), self.scope.get("user"), self.ip if client[0] else None
        )
        self._restriction_read_at = time.monotonic()
        self._vote_limits = tally.VoteLimits(*limits_for("vote"), settings.RATE_WINDOW_SECONDS)  # read once
        self.wire = self.scope.get(SCOPE_KEY)
        self.groups = [events.VIEWERS, events.viewer_group(self.viewer.key)]
        for group in self.groups:
            await self.channel_layer.group_add(group, self.channel_name)
        await fanout().join(self)
        try:
            await self.accept()
            metrics.OPEN_SOCKETS.labels("viewer").inc()
            self._counted = True
            await self.send_json(await build_snapshot(self.viewer))
            fanout().release(self)
        except BaseException:
            fanout().leave(self)  # a socket that never opened must not keep receiving tallies
            raise

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        # Channels' own loop waits on the socket and the channel layer together, a new task and an
        # asyncio.wait for every frame: at a vote a second per viewer, a large share of the web process
        # (docs/benchmarks.md). Here each source has one long-lived task that dispatches what it reads.
        # The connect is handled first and alone, so no event is sent before the socket is accepted.
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        assert self.channel_layer is not None, "CHANNEL_LAYERS is not configured"
        self.channel_name = await self.channel_layer.new_channel()
        self.base_send = send
        layer, channel = self.channel_layer, self.channel_name
        try:
            await self.dispatch(await receive())
            async with asyncio.TaskGroup() as sources:
                sources.create_task(self._dispatch_all(receive))
                sources.create_task(self._dispatch_all(lambda: layer.receive(channel)))
        except* StopConsumer:  # the socket closed: the other source's task was cancelled with it
            pass

    async def _dispatch_all(self, source: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        while True:
            await self.dispatch(await source())

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels' own dispatch first closes stale database connections, a hop to the one sync thread for
        # every frame and event: under load every vote queues behind it. Every database call here goes
        # through database_sync_to_async, which closes stale connections itself, so skip that hop.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        fanout().leave(self)
        if self._counted:
            metrics.OPEN_SOCKETS.labels("viewer").dec()
            self._counted = False

    async def send_json(self, frame: Frame) -> None:
        text = json.dumps(frame)
        if self.wire is None or not self.wire.write(encode(text)):
            await self.send(text_data=text)

    async def event_forward(self, message: dict[str, Any]) -> None:
        if message["event"].get("code") == "banned":
            # A moderator just restricted this viewer. restriction_changed says so too, but through another
            # group, so it may come after a vote this notice is already answering.
            self._restriction_read_at = float("-inf")
        try:
            await self.send_json(message["event"])
        except RuntimeError:
            # The viewer left while a broadcast was queued for it (the server refuses sends after close);
            # the disconnect that follows cleans up.
            log.debug("dropped a broadcast to a closed socket")

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            frame = parse_frame(text_data, bytes_data)
            handler = self._handlers().get(frame["type"])
            if handler is None:
                raise VotingError(
                    "unknown_type", f"Unknown type {frame['type'][:40]!r}: submit, vote or resync."
                )
            await handler(frame)
        except VotingError as exc:
            await self.send_json(exc.frame())
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            # No traceback: during an outage every frame lands here, and logging must not add to the load.
            log.warning("Redis unavailable while handling a frame: %s", exc)
            await self.send_json(
                VotingError("unavailable", "Reconnecting; try again in a moment.", 2).frame()
            )

    def _handlers(self) -> dict[str, Callable[[Frame], Awaitable[None]]]:
        return {"submit": self.on_submit, "vote": self.on_vote, "resync": self.on_resync}

    async def on_submit(self, frame: Frame) -> None:
        text = frame.get("text")
        if not isinstance(text, str):
            raise VotingError("invalid", "A submit needs 'text', a string.")
        services.check_text(text)  # refuse bad text before it counts against the rate limit
        await self.check_allowed("submit")
        prompt = await database_sync_to_async(services.submit_prompt)(self.viewer, text)
        await self.send_json({"type": "submitted", "prompt": prompt})

    async def on_vote(self, frame: Frame) -> None:
        try:
            await self.vote(frame)
        except VotingError as exc:
            metrics.VOTES_REFUSED.labels(exc.code).inc()
            raise
        except (redis.ConnectionError, redis.TimeoutError):
            metrics.VOTES_REFUSED.labels("unavailable").inc()
            raise
        metrics.VOTES_ACCEPTED.inc()

    async def vote(self, frame: Frame) -> None:
        prompt_id = frame.get("prompt_id")
        if not isinstance(prompt_id, int) or isinstance(prompt_id, bool) or prompt_id < 1:
            raise VotingError("invalid", "A vote needs 'prompt_id', a candidate's id.")
        await self.check_restriction()
        round_id = await tally.acurrent_round_id(max_age_s=CURRENT_ROUND_CACHE_S)
        outcome = await self.cast(round_id, prompt_id, frame)
        if outcome == "round_closed":  # perhaps only our cached round: look again, once
            round_id = await tally.acurrent_round_id()
            outcome = await self.cast(round_id, prompt_id, frame)
        if outcome.startswith("wait:"):
            wait = int(outcome.split(":")[1])
            raise VotingError("rate_limited", f"Slow down: try again in {wait} s.", wait)
        if outcome == "round_closed":
            raise VotingError("round_closed", "This round has closed; the next one opens in a moment.")
        if outcome == "unknown_prompt":
            owner = await database_sync_to_async(services.round_of_prompt)(prompt_id)
            if owner is not None and owner != round_id:
                raise VotingError("wrong_round", "That prompt belongs to another round.")
            raise VotingError("unknown_prompt", "That prompt is not a candidate in this round.")
        await self.send_json({"type": "voted", "round_id": round_id, "prompt_id": prompt_id})
        if settings.TALLY_BROADCAST == "per_vote" and outcome != "unchanged" and round_id:
            event = await tally.anext_tally(round_id, force=True)
            if event:
                await events.apublish(events.TALLIES, event)

    async def cast(self, round_id: int | None, prompt_id: int, frame: Frame) -> str:
        if round_id is None or frame.get("round_id", round_id) != round_id:
            return "round_closed"
        return await tally.cast_vote(round_id, self.viewer.key, prompt_id, self.ip, self._vote_limits)

    async def on_resync(self, frame: Frame) -> None:
        await self.check_allowed("resync")
        await self.send_json(await build_snapshot(self.viewer))

    def restriction_changed(self, viewer_id: int, address: str) -> None:
        """From the fan-out: if the change may concern this socket, read the restriction again before the
        next submit or vote."""
        if services.restriction_concerns(viewer_id, address, self.viewer, self.ip):
            self._restriction_read_at = float("-inf")

    async def check_restriction(self) -> None:
        restriction = self._restriction
        ran_out = restriction is not None and restriction.until is not None and restriction.until <= now()
        if ran_out or time.monotonic() - self._restriction_read_at > RESTRICTION_RECHECK_S:
            self._restriction = await database_sync_to_async(services.restriction_for)(self.viewer)
            self._restriction_read_at = time.monotonic()
        if self._restriction is not None:
            raise services.refusal(self._restriction)

    async def check_allowed(self, action: str) -> None:
        """Bans and timeouts first, then the rate limits of this viewer and this IP (votes: see cast)."""
        await self.check_restriction()
        per_viewer, per_ip = limits_for(action)
        keys = [
            redis_keys.rate_limit(action, "viewer", self.viewer.key),
            redis_keys.rate_limit(action, "ip", self.ip),
        ]
        wait = await tally.hit_limit(keys, [per_viewer, per_ip], settings.RATE_WINDOW_SECONDS)
        if wait:
            raise VotingError("rate_limited", f"Slow down: try again in {wait} s.", wait)
