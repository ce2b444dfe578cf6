"""Timeouts and bans: who may not submit or vote right now, and why, until when.

A restriction follows the viewer's key, and (MODERATION_BAN_ADDRESS) the network the viewer last came from for
as long as it lasts, so clearing cookies does not lift it. The network is the IPv4 address, or the IPv6 /64
(one household or phone usually holds a whole /64 and can pick any address in it).
"""

from __future__ import annotations

import ipaddress
from datetime import timedelta

from django.conf import settings
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from yolive.moderation.models import Restriction

# Twitch caps a timeout at two weeks; longer than that is a ban.
MAX_TIMEOUT_S = 14 * 24 * 3600


IPV6_PREFIX = 64


def address_block(ip: str | None) -> str:
    """The network a restriction covers for this address: itself for IPv4, its /64 for IPv6; "" for none."""
    if not ip:
        return ""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ""
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/{IPV6_PREFIX}", strict=False))
    return str(address)


def active_restriction(viewer_id: int, ip: str | None = None) -> Restriction | None:
    """The restriction in force for this viewer, or for the network `ip` is in (a ban before any timeout).

    Without `ip` only the viewer's key counts. The result has `.reason` and `.until` (None for a ban); the
    voting side answers a submit or vote with `error` code `banned` and `restriction_message(...)`.
    """
    block = address_block(ip) if settings.MODERATION_BAN_ADDRESS else ""
    whose = Q(viewer_id=viewer_id) | Q(address=block) if block else Q(viewer_id=viewer_id)
    # One query: a ban (no end) sorts first, then the timeout that ends last.
    return in_force().filter(whose).order_by(_LATEST_END_FIRST).first()


_LATEST_END_FIRST = F("until").desc(nulls_first=True)


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


def restrict(
    viewer_id: int, ip: str | None, reason: str, duration_s: int | None, by: object = None
) -> Restriction:
    """A timeout of `duration_s` seconds, or a ban when it is None, of a viewer and the network of `ip`."""
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
    address = address_block(ip) if settings.MODERATION_BAN_ADDRESS else ""
    return Restriction.objects.create(
        viewer_id=viewer_id, address=address, reason=reason, until=until, created_by=by
    )
