"""Signal receivers: how moderation's decisions reach the ballot without moderation touching Redis."""

from __future__ import annotations

from yolive.moderation.signals import prompt_approved
from yolive.voting.services import on_prompt_approved


def connect() -> None:
    prompt_approved.connect(on_prompt_approved, dispatch_uid="voting.on_prompt_approved")
