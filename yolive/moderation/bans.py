"""Timeouts and bans: who may not submit or vote right now, and why, until when."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from django.db.models import F, Q, QuerySet
from django.utils import timezone

from yolive.moderation.models import Restriction

if TYPE_CHECKING:
    from yolive.voting.models import Viewer

# Twitch caps a timeout at two weeks; longer than that is a ban.
MAX_TIMEOUT_S = 14 * 24 * 3600


def active_restriction(viewer: Viewer) -> Restriction | None:
    """The restriction in force for this viewer (a ban before any timeout), or None.

    The result has `.reason` and `.until` (None for a ban); the voting side answers a submit or vote with
    `error` code `banned` and `restriction_message(...)`.
    """
    return active_restriction_id(viewer.pk)


def active_restriction_id(viewer_id: int) -> Restriction | None:
    # One query: a ban (no end) sorts first, then the timeout that ends last.
    latest_end_first = F("until").desc(nulls_first=True)
    return in_force().filter(viewer_id=viewer_id).order_by(latest_end_first).first()


def in_force() -> QuerySet[Restriction]:
    """Restrictions not lifted whose end (if any) is still ahead: every ban, every running timeout."""
    return Restriction.objects.filter(lifted_at__isnull=True).filter(
        Q(until__isnull=True) | Q(until__gt=timezone.now())
    )


def restriction_message(restriction: Restriction) -> str:
    if restriction.until is None:
        return f"You are banned from submitting and voting: {restriction.reason}"
    left = max(1, int((restriction.until - timezone.now()).total_seconds()))
    return f"You are timed out for {_duration(left)} more: {restriction.reason}"


def _duration(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def restrict(viewer: Viewer, reason: str, duration_s: int | None, by: object = None) -> Restriction:
    """A timeout of `duration_s` seconds, or a ban when it is None."""
    reason = reason.strip()
    if not reason:
        raise ValueError("a reason is required")
    if len(reason) > 500:
        raise ValueError("the reason is longer than 500 characters")
    until = None
    if duration_s is not None:
        if not 1 <= duration_s <= MAX_TIMEOUT_S:
            raise ValueError(f"a timeout lasts 1 s to {MAX_TIMEOUT_S} s (two weeks); leave it empty to ban")
        until = timezone.now() + timedelta(seconds=duration_s)
    return Restriction.objects.create(viewer=viewer, reason=reason, until=until, created_by=by)
