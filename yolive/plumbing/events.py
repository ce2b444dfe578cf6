"""The one place that knows group names and builds event payloads: domain code publishes here once it commits.

Every event is a JSON-safe dict with a `type` (docs/protocol.md describes each). Consumers forward it to
their sockets unchanged, so a service never imports Channels and a consumer never decides what happened
(`restriction_changed` alone is for the web processes, not for viewers). The builders take plain values,
not models, so every layer can use this module and it imports none of them. Only a socket's direct replies
(`snapshot`, `submitted`, `voted`, errors) are built by its consumer.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

Event = dict[str, Any]

# --- groups ---------------------------------------------------------------------------------------------

VIEWERS = "viewers"  # every socket on /ws/live/
MODERATORS = "moderators"  # every staff socket on /ws/mod/
# The ticker's tallies: each web process joins once and writes one encoded copy to each of its viewer sockets.
TALLIES = "viewers.tallies"
# Restrictions made, lifted or changed: each web process joins once and tells the sockets they may concern.
RESTRICTIONS = "viewers.restrictions"


def viewer_group(viewer_key: str) -> str:
    """Every socket of one viewer (several tabs): acks, errors and news about their own prompts."""
    return f"viewer.{viewer_key}"


# --- payloads -------------------------------------------------------------------------------------------


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def round_opened(round_id: int, number: int, ends_at: datetime, seq: int) -> Event:
    view = {"id": round_id, "number": number, "ends_at": iso(ends_at), "state": "open", "seq": seq}
    return {"type": "round_opened", "round": view}


def round_closed(
    round_id: int, number: int, winner: tuple[int, str] | None, counts: dict[str, int], total: int
) -> Event:
    return {
        "type": "round_closed",
        "round_id": round_id,
        "number": number,
        "winner": {"id": winner[0], "text": winner[1]} if winner else None,
        "counts": counts,
        "total": total,
    }


def candidate(round_id: int, prompt_id: int, text: str) -> Event:
    return {"type": "candidate", "round_id": round_id, "prompt": {"id": prompt_id, "text": text, "votes": 0}}


def tally(round_id: int, seq: int, counts: dict[str, int]) -> Event:
    return {
        "type": "tally",
        "round_id": round_id,
        "seq": seq,
        "counts": counts,
        "total": sum(counts.values()),
    }


def clip(clip_id: int, round_number: int, status: str, prompt: str, progress: float) -> Event:
    return {
        "type": "clip",
        "clip_id": clip_id,
        "round_number": round_number,
        "status": status,
        "prompt": prompt,
        "progress": round(progress, 3),
    }


def now_playing(clip_id: int, round_number: int, prompt: str, at: datetime) -> Event:
    """Sent at the moment the clip reaches viewers (a few segments behind the live edge)."""
    return {
        "type": "now_playing",
        "clip_id": clip_id,
        "round_number": round_number,
        "prompt": prompt,
        "at": iso(at),
    }


def prompt_status(prompt_id: int, status: str, reason: str, clip_url: str = "") -> Event:
    """News for a prompt's author (and the moderators' panel): held, approved, rejected, aired."""
    event: Event = {"type": "prompt_status", "prompt_id": prompt_id, "status": status, "reason": reason}
    if clip_url:
        event["clip_url"] = clip_url  # an aired prompt links to its clip's page, to share
    return event


def held(
    prompt_id: int,
    text: str,
    reason: str,
    findings: list[dict[str, Any]],
    round_id: int | None,
    created_at: datetime | None,
    author: tuple[str, str] | None,
) -> Event:
    """A prompt the gate held, for every moderator's panel; `author` is (viewer key, name)."""
    return {
        "type": "held",
        "prompt": {
            "id": prompt_id,
            "text": text,
            "reason": reason,
            "findings": findings,  # which category and which words hold it, at today's levels
            "round_id": round_id,
            "created_at": created_at.isoformat() if created_at else None,
            "author": {"key": author[0], "name": author[1]} if author else None,
        },
    }


def banned(message: str) -> Event:
    """To a viewer just timed out or banned: the page shows it, the socket reads the restriction again."""
    return {"type": "error", "code": "banned", "message": message}


def restriction_changed(viewer_id: int, address: str) -> Event:
    """For the web processes, not for viewers: sockets of this viewer, or from this network, read their
    restriction again (a timeout or ban made, lifted, edited or deleted)."""
    return {"type": "restriction_changed", "viewer_id": viewer_id, "address": address}


def audit(entry_id: int, at: datetime, actor: str, action: str, target: str, detail: dict[str, Any]) -> Event:
    """A new audit-log line, for the moderators' panel."""
    return {
        "type": "audit",
        "id": entry_id,
        "at": at.isoformat(),
        "actor": actor,
        "action": action,
        "target": target,
        "detail": detail,
    }


# --- publishing -----------------------------------------------------------------------------------------

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
