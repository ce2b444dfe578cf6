"""Signal receivers: how moderation's decisions reach the ballot without moderation touching Redis, and how
a clip on air marks its prompt aired without the clip app knowing prompts."""

from __future__ import annotations

from yolive.clips import lifecycle
from yolive.moderation.signals import prompt_approved
from yolive.voting.services import on_clip_aired, on_prompt_approved


def connect() -> None:
    prompt_approved.connect(on_prompt_approved, dispatch_uid="voting.on_prompt_approved")
    lifecycle.aired.connect(on_clip_aired, dispatch_uid="voting.on_clip_aired")
