"""The one place that knows group names: domain code publishes events here after it commits.

Every event is a JSON-safe dict with a `type`. Consumers forward it to their sockets unchanged, so a
service never imports Channels and a consumer never decides what happened.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

Event = dict[str, Any]

VIEWERS = "viewers"  # every socket on /ws/live/
MODERATORS = "moderators"  # every staff socket on /ws/mod/


def viewer_group(viewer_key: str) -> str:
    """Every socket of one viewer (several tabs): acks, errors and news about their own prompts."""
    return f"viewer.{viewer_key}"


# The consumer method that receives a published event (`event.forward` -> `event_forward`).
FORWARD = "event.forward"


def _message(event: Event) -> dict[str, Any]:
    if "type" not in event:
        raise ValueError("an event needs a 'type'")
    return {"type": FORWARD, "event": event}


async def apublish(group: str, event: Event) -> None:
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS is not configured"
    await layer.group_send(group, _message(event))


def publish(group: str, event: Event) -> None:
    """Publish now, from synchronous code (a Celery task, the conductor, the broadcaster)."""
    async_to_sync(apublish)(group, event)


def publish_on_commit(group: str, event: Event) -> None:
    """Publish once the surrounding transaction commits, so nobody hears of a change that rolled back."""
    transaction.on_commit(lambda: publish(group, event))
