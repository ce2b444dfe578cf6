"""Which prompt a round airs, and its clip's render: asked at the close, and before it for a head start.

The winner is the best-voted candidate that passes the gate at that moment (a moderator's review, its
author's restrictions and the blocked terms may have changed since it was submitted), else the least
recently used house prompt that does.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import F

from yolive.clips.models import Clip
from yolive.moderation.policy import gate
from yolive.voting import tally
from yolive.voting.models import HousePrompt, Prompt, Round

log = logging.getLogger(__name__)

RENDER_TASK = "generation.tasks.render_clip"  # queued by name: the conductor never imports torch
# Used only when no house prompt passes the gate, so the channel still gets a story beat.
LAST_RESORT_PROMPT = "A slow drift through soft clouds at sunrise, calm and quiet"


@dataclass
class Choice:
    """The winner picked before the write transaction (judging can be slow; the database lock must not be)."""

    prompt: Prompt | None = None  # unsaved when it is a house prompt
    house_id: int | None = None
    rejected: dict[int, str] = field(default_factory=dict)  # candidates the gate now rejects, with reasons

    def same_prompt(self, prompt: Prompt) -> bool:
        """Whether this choice airs `prompt`: the same candidate, or the same house prompt's words."""
        if self.prompt is None:
            return False
        if self.prompt.pk is not None:
            return self.prompt.pk == prompt.pk
        return prompt.source == Prompt.Source.HOUSE and prompt.text == self.prompt.text


def choose_winner(rnd: Round, result: tally.Result) -> Choice:
    """The best-voted candidate that passes the gate now; else a house prompt that does."""
    choice = Choice()
    ranking = sorted(result.counts.items(), key=lambda item: (-item[1], item[0]))
    prompts = Prompt.objects.in_bulk([pid for pid, _ in ranking])
    for pid, _votes in ranking:
        prompt = prompts.get(pid)
        if prompt is None or prompt.status != Prompt.Status.APPROVED:
            continue
        verdict = gate.judge_winner(
            prompt.text,
            prompt_id=prompt.pk,
            author_id=prompt.author_id,
            house=prompt.source == Prompt.Source.HOUSE,
        )
        if verdict.allowed:
            choice.prompt = prompt
            return choice
        log.info("%s: candidate %s lost at the gate: %s", rnd, pid, verdict.reason)
        if verdict.decision == "reject":
            choice.rejected[pid] = verdict.reason[:500]
    choice.prompt, choice.house_id = house_prompt(rnd)
    return choice


def house_prompt(rnd: Round) -> tuple[Prompt | None, int | None]:
    """The least recently used active house prompt that passes the gate (the same gate as the crowd's).

    Returns an unsaved Prompt and the HousePrompt's id (None for the last resort), or (None, None).
    """
    houses = HousePrompt.objects.filter(active=True).order_by(F("last_used_at").asc(nulls_first=True), "id")
    for house_id, text in [*houses.values_list("id", "text"), (None, LAST_RESORT_PROMPT)]:
        prompt = Prompt(
            text=text,
            normalized_text=gate.normalize(text),
            source=Prompt.Source.HOUSE,
            status=Prompt.Status.APPROVED,
        )
        verdict = gate.judge_winner(text, prompt_id=None, author_id=None, house=True)
        if verdict.allowed:
            return prompt, house_id
        log.warning("house prompt %s failed the gate: %s", house_id, verdict.reason)
    log.error("%s: no prompt passed the gate; the broadcaster's filler covers this slot", rnd)
    return None, None


def create_clip(rnd: Round, prompt: Prompt, provisional: bool = False) -> Clip:
    return Clip.objects.create(
        round=rnd,
        prompt=prompt,
        provisional=provisional,
        seed=secrets.randbelow(2**31),
        preset=settings.MODEL_PRESET,
        width=settings.VIDEO_WIDTH,
        height=settings.VIDEO_HEIGHT,
        fps=settings.VIDEO_FPS,
    )


def send_render(clip_id: int) -> None:
    from yolive.celery import app

    app.send_task(RENDER_TASK, args=[clip_id], queue="gpu")
