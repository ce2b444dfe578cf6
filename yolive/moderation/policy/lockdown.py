"""Lockdown: the panic switch. While on, only moderator-approved or house prompts can win a round."""

from __future__ import annotations

from django.utils import timezone

from yolive.moderation.models import Lockdown


def state() -> Lockdown:
    row, _ = Lockdown.objects.get_or_create(pk=1)
    return row


def is_on() -> bool:
    return Lockdown.objects.filter(pk=1, active=True).exists()


def switch(active: bool, reason: str = "", by: object = None) -> Lockdown:
    row = state()
    row.active = active
    row.reason = reason.strip()[:500]
    row.changed_by = by
    row.changed_at = timezone.now()
    row.save()
    return row
