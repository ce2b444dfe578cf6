"""/ws/mod/: the moderators' live feed (held prompts, decisions, rounds, clips, audit). Staff only."""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from yolive.plumbing import events

# Sent when a socket without a staff session knocks; 4000-4999 are for applications (RFC 6455 7.4.2).
FORBIDDEN_CLOSE_CODE = 4403


def is_moderator(user: Any) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active and user.is_staff)


# Moderators hear the viewers' broadcast (rounds, candidates, clips, now_playing) as well as their own news
# (held prompts, decisions, audit), so an event goes to one of the two groups, never to both: a socket in
# both would hear it twice.
MOD_GROUPS = (events.MODERATORS, events.VIEWERS)


class ModConsumer(AsyncJsonWebsocketConsumer):
    # No class-level `groups`: those are joined before connect() could refuse the socket.

    async def connect(self) -> None:
        if not is_moderator(self.scope.get("user")):
            await self.close(code=FORBIDDEN_CLOSE_CODE)
            return
        for group in MOD_GROUPS:
            await self.channel_layer.group_add(group, self.channel_name)
        self.joined = True
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "joined", False):
            for group in MOD_GROUPS:
                await self.channel_layer.group_discard(group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        # Actions go through the CSRF-protected HTTP endpoints; the socket only listens.
        await self.send_json(
            {"type": "error", "code": "unknown_type", "message": "This socket only listens."}
        )

    async def event_forward(self, message: dict[str, Any]) -> None:
        await self.send_json(message["event"])
