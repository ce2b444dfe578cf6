"""What the /mod/ page shows when it loads; live events keep it current afterwards."""

from __future__ import annotations

from typing import Any

from yolive.clips.models import Clip
from yolive.moderation.desk.actions import SKIPPABLE
from yolive.moderation.models import AuditLog, BlockedTerm
from yolive.moderation.policy import bans, lockdown
from yolive.moderation.policy.harm.categories import CATEGORIES, DEFAULT_LEVELS, DESCRIPTIONS, LEVEL_NAMES
from yolive.moderation.policy.levels import current_levels
from yolive.voting.models import Prompt, Round
from yolive.voting.services import held_event

ROUNDS_SHOWN = 20
AUDIT_SHOWN = 50
HELD_SHOWN = 100

# The durations offered for a timeout, YouTube-style steps; an empty choice means a ban.
TIMEOUT_CHOICES = [
    (60, "1 minute"),
    (600, "10 minutes"),
    (3600, "1 hour"),
    (86400, "24 hours"),
    (7 * 86400, "7 days"),
]


def round_history() -> list[dict[str, Any]]:
    rounds = list(
        Round.objects.filter(state=Round.State.CLOSED)
        .select_related("winner")
        .order_by("-number")[:ROUNDS_SHOWN]
    )
    ids = {int(pid) for r in rounds for pid in (r.tallies or {})}
    texts = dict(Prompt.objects.filter(pk__in=ids).values_list("pk", "text"))
    history = []
    for r in rounds:
        tallies = sorted(
            ((int(pid), int(n)) for pid, n in (r.tallies or {}).items()), key=lambda t: (-t[1], t[0])
        )
        history.append(
            {
                "number": r.number,
                "closed_at": r.closed_at,
                "winner": r.winner.text if r.winner else "",
                "winner_source": r.winner.source if r.winner else "",
                "total": r.total_votes,
                "tallies": [
                    {"id": pid, "text": texts.get(pid, f"prompt {pid}"), "votes": n} for pid, n in tallies
                ],
            }
        )
    return history


def clips_in_play() -> list[Clip]:
    return list(
        Clip.objects.announced()
        .select_related("round", "prompt")
        .filter(status__in=SKIPPABLE)
        .order_by("round__number")[:4]
    )


def category_levels() -> list[dict[str, Any]]:
    levels = current_levels(fresh=True)
    return [
        {"category": c.value, "label": c.label, "description": DESCRIPTIONS[c], "level": levels[c],
         "default": DEFAULT_LEVELS[c]}
        for c in CATEGORIES
    ]  # fmt: skip


def panel_context() -> dict[str, Any]:
    held = Prompt.objects.select_related("author").filter(status=Prompt.Status.HELD).order_by("created_at")
    restrictions = bans.in_force().select_related("viewer", "created_by")
    return {
        "held": [held_event(p)["prompt"] for p in held[:HELD_SHOWN]],
        "rounds": round_history(),
        "audit": list(AuditLog.objects.select_related("actor")[:AUDIT_SHOWN]),
        "terms": list(BlockedTerm.objects.filter(active=True)),
        "restrictions": list(restrictions),
        "lockdown": lockdown.state(),
        "clips": clips_in_play(),
        "timeouts": TIMEOUT_CHOICES,
        "levels": category_levels(),
        "level_names": sorted(LEVEL_NAMES.items()),
    }
