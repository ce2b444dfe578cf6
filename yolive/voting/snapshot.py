"""The `snapshot` frame: everything a viewer's page needs to draw itself, read consistently.

The round and its ballot come from Redis in one transaction (so `seq` matches the counts); prompts and
clips come from the database. Later events (tally, candidate, round_opened, ...) update it in place.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings

from yolive.clips.models import Clip
from yolive.plumbing import events
from yolive.voting import tally
from yolive.voting.models import Prompt, Viewer
from yolive.voting.services import prompt_view

MY_PROMPTS_SHOWN = 10  # the viewer's newest prompts, with their moderation status
RECENT_CLIPS_SHOWN = 6  # replays offered under the player


def now_iso() -> str:
    return events.iso(datetime.now(UTC))


def round_view(meta: dict[str, str]) -> dict[str, Any]:
    return {
        "id": int(meta["id"]),
        "number": int(meta["number"]),
        "ends_at": meta["ends_at"],
        "state": meta["state"],
        "seq": int(meta.get("seq", 0)),
    }


def ranked(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Votes first, then the earliest submission (the lowest id), as the close script breaks ties."""
    return sorted(candidates, key=lambda c: (-c["votes"], c["id"]))


def clip_view(clip: Clip) -> dict[str, Any]:
    return {"clip_id": clip.pk, "round_number": clip.round.number, "prompt": clip.prompt.text}


def _clips() -> dict[str, Any]:
    clips = Clip.objects.announced().select_related("round", "prompt")
    on_air = clips.filter(status=Clip.Status.ON_AIR).order_by("-round__number").first()
    rendering = (
        clips.filter(status__in=[Clip.Status.RENDERING, Clip.Status.QUEUED]).order_by("round__number").first()
    )
    recent = clips.filter(status=Clip.Status.AIRED).exclude(archive_path="").order_by("-round__number")
    return {
        "on_air": clip_view(on_air) if on_air else None,
        "rendering": (
            {**clip_view(rendering), "status": rendering.status, "progress": rendering.progress}
            if rendering
            else None
        ),
        "recent": [
            {**clip_view(clip), "replay_url": f"/hls/{clip.archive_path}"}
            for clip in recent[:RECENT_CLIPS_SHOWN]
        ],
    }


@database_sync_to_async
def _from_database(viewer: Viewer, round_id: int | None) -> dict[str, Any]:
    mine = Prompt.objects.filter(author=viewer).order_by("-id")
    return {
        "my_prompts": [prompt_view(p) for p in mine[:MY_PROMPTS_SHOWN]],
        "mine": set(mine.filter(round_id=round_id).values_list("id", flat=True)) if round_id else set(),
        **_clips(),
    }


async def build_snapshot(viewer: Viewer) -> dict[str, Any]:
    round_id = await tally.acurrent_round_id()
    meta: dict[str, str] = {}
    texts: dict[str, str] = {}
    counts: dict[str, int] = {}
    my_vote = ""
    if round_id is not None:
        meta, texts, counts, my_vote = await tally.read_round(round_id, viewer.key)
    stored = await _from_database(viewer, round_id)
    candidates = [
        {"id": int(pid), "text": text, "votes": counts.get(pid, 0), "mine": int(pid) in stored["mine"]}
        for pid, text in texts.items()
    ]
    return {
        "type": "snapshot",
        "server_time": now_iso(),
        "viewer": {"key": viewer.key},
        "round": round_view(meta) if meta else None,
        "candidates": ranked(candidates),
        "my_vote": int(my_vote) if my_vote else None,
        "my_prompts": stored["my_prompts"],
        "on_air": stored["on_air"],
        "rendering": stored["rendering"],
        "recent": stored["recent"],
        "stand_in": settings.MODEL_PRESET == "tiny",
        "prompt_max_chars": settings.PROMPT_MAX_CHARS,
    }
