"""WebSocket consumers for viewers. Published events (yolive.events) arrive as `event.forward`."""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from yolive import events


class LiveConsumer(AsyncJsonWebsocketConsumer):
    groups = [events.VIEWERS]

    async def event_forward(self, message: dict[str, Any]) -> None:
        await self.send_json(message["event"])
