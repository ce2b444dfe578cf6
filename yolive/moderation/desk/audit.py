"""The audit log: every moderator action is written down and shown live on every moderator's panel."""

from __future__ import annotations

from typing import Any

from yolive.moderation.models import AuditLog
from yolive.plumbing import events


def record(actor: Any, action: str, target: str = "", /, **detail: Any) -> AuditLog:
    """Write one entry (inside the caller's transaction) and tell moderators once it commits."""
    user = actor if getattr(actor, "is_authenticated", False) else None
    entry = AuditLog.objects.create(actor=user, action=action, target=target[:200], detail=detail)
    events.publish_on_commit(events.MODERATORS, entry.as_event())
    return entry
