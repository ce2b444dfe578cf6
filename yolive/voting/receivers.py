"""Signal receivers: how moderation's decisions reach the ballot and the open sockets without moderation
touching Redis or Channels, and how a clip on air marks its prompt aired without the clip app knowing
prompts."""

from __future__ import annotations

from django.db.models.signals import post_delete, post_save

from yolive.clips import lifecycle
from yolive.moderation.models import Restriction
from yolive.moderation.signals import prompt_approved
from yolive.voting.services import announce_restriction, on_clip_aired, on_prompt_approved


def connect() -> None:
    prompt_approved.connect(on_prompt_approved, dispatch_uid="voting.on_prompt_approved")
    lifecycle.aired.connect(on_clip_aired, dispatch_uid="voting.on_clip_aired")
    # Every change, the admin's included: a socket reads its restriction only when one may concern it.
    for signal in (post_save, post_delete):
        signal.connect(announce_restriction, sender=Restriction, dispatch_uid=f"voting.restriction.{signal}")
