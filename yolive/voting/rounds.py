"""The round lifecycle as domain code: open a round, close it once, pick a winner that passes the gate.

Closing is safe to race: the Redis close script is idempotent and the database claim is a conditional
update, so of two conductors closing one round exactly one creates the Clip and queues its render.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone

from yolive.clips import lifecycle
from yolive.clips.models import Clip
from yolive.moderation.policy import gate
from yolive.plumbing import events
from yolive.voting import tally, timing
from yolive.voting.models import HousePrompt, Prompt, Round

log = logging.getLogger(__name__)

RENDER_TASK = "generation.tasks.render_clip"  # queued by name: the conductor never imports torch
# Used only when no house prompt passes the gate, so the channel still gets a story beat.
LAST_RESORT_PROMPT = "A slow drift through soft clouds at sunrise, calm and quiet"
# A render job lives only in Redis until a worker takes it: a Redis restart, or a send that failed after the
# commit, loses it. The task claims its clip with a conditional update, so sending a waiting clip again is
# always safe; a clip still waiting after this long is sent again.
RENDER_RESEND_AFTER_S = 30
# A clip still unrendered after this long would only air a story beat the crowd has moved past: give it up
# (filler and later clips carry on).
RENDER_GIVE_UP_AFTER_S = 300


def open_round_now() -> Round | None:
    return Round.objects.filter(state=Round.State.OPEN).order_by("-number").first()


def round_meta(rnd: Round) -> dict[str, Any]:
    return {
        "id": rnd.pk,
        "number": rnd.number,
        "opens_at": events.iso(rnd.opens_at),
        "ends_at": events.iso(rnd.ends_at),
    }


def open_round(round_seconds: int | None = None) -> Round | None:
    """Open the next round (None if another conductor just did); waiting approved prompts join it."""
    seconds = round_seconds or settings.ROUND_SECONDS
    now = timezone.now()
    previous_end = Round.objects.order_by("-number").values_list("ends_at", flat=True).first()
    ends_at = timing.round_end(now, seconds, previous_end)
    try:
        with transaction.atomic():
            number = (Round.objects.aggregate(n=Max("number"))["n"] or 0) + 1
            rnd = Round.objects.create(number=number, opens_at=now, ends_at=ends_at)
            waiting = list(
                Prompt.objects.filter(
                    status=Prompt.Status.APPROVED, round=None, source=Prompt.Source.VIEWER
                ).order_by("id")[: tally.MAX_CANDIDATES]
            )
            Prompt.objects.filter(pk__in=[p.pk for p in waiting]).update(round=rnd)
    except IntegrityError:
        return None
    _start(rnd, {p.pk: p.text for p in waiting}, seq=0)
    log.info("opened %s, ends at %s", rnd, rnd.ends_at)
    return rnd


def restore_round(rnd: Round) -> None:
    """Redis lost the open round (it restarted): rebuild its ballot from the database; its votes are gone.

    The new `seq` starts from the clock so it is above anything clients saw before the restart.
    """
    candidates = Prompt.objects.filter(round=rnd, status=Prompt.Status.APPROVED).order_by("id")
    _start(rnd, {p.pk: p.text for p in candidates[: tally.MAX_CANDIDATES]}, seq=int(time.time() * 1000))
    log.warning("Redis had lost %s: reopened it without its votes", rnd)


def _start(rnd: Round, candidates: dict[int, str], seq: int) -> None:
    tally.start_round(round_meta(rnd), candidates, seq=seq)
    events.publish(events.VIEWERS, events.round_opened(rnd.pk, rnd.number, rnd.ends_at, seq))
    for prompt_id, text in sorted(candidates.items()):
        events.publish(events.VIEWERS, events.candidate(rnd.pk, prompt_id, text))


@dataclass
class Choice:
    """The winner picked before the write transaction (judging can be slow; the database lock must not be)."""

    prompt: Prompt | None = None  # unsaved when it is a house prompt
    house_id: int | None = None
    rejected: dict[int, str] = field(default_factory=dict)  # candidates the gate now rejects, with reasons


def close_round(rnd: Round) -> Round | None:
    """Freeze the votes, pick and re-check the winner, store it all, create the Clip, queue the render.

    Returns the closed Round, or None when another conductor closed it first.
    """
    result = tally.close_round(rnd.pk)
    if result is None:  # Redis restarted mid-round: the ballot survives in the database, the votes do not
        ids = Prompt.objects.filter(round=rnd, status=Prompt.Status.APPROVED).values_list("id", flat=True)
        result = tally.Result(min(ids, default=None), {pid: 0 for pid in ids}, 0)
    choice = choose_winner(rnd, result)
    counts = {str(pid): votes for pid, votes in result.counts.items()}
    with transaction.atomic():
        claimed = Round.objects.filter(pk=rnd.pk, state=Round.State.OPEN).update(
            state=Round.State.CLOSED, closed_at=timezone.now(), tallies=counts, total_votes=result.total
        )
        if claimed != 1:
            return None
        for pid, reason in choice.rejected.items():
            Prompt.objects.filter(pk=pid).update(status=Prompt.Status.REJECTED, moderation_reason=reason)
        winner = _store_winner(rnd, choice)
        rnd.refresh_from_db()
        clip = _create_clip(rnd, winner) if winner else None
        transaction.on_commit(lambda: _announce_close(rnd, winner, counts, result.total, clip), robust=True)
    return rnd


def _store_winner(rnd: Round, choice: Choice) -> Prompt | None:
    winner = choice.prompt
    if winner is not None and winner.pk is None:
        winner.round = rnd
        winner.save()
        HousePrompt.objects.filter(pk=choice.house_id).update(last_used_at=timezone.now())
    Round.objects.filter(pk=rnd.pk).update(winner=winner)
    return winner


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


def _create_clip(rnd: Round, winner: Prompt) -> Clip:
    return Clip.objects.create(
        round=rnd,
        prompt=winner,
        seed=secrets.randbelow(2**31),
        preset=settings.MODEL_PRESET,
        width=settings.VIDEO_WIDTH,
        height=settings.VIDEO_HEIGHT,
        fps=settings.VIDEO_FPS,
    )


def _announce_close(
    rnd: Round, winner: Prompt | None, counts: dict[str, int], total: int, clip: Clip | None
) -> None:
    closed = events.round_closed(
        rnd.pk, rnd.number, (winner.pk, winner.text) if winner else None, counts, total
    )
    if clip is not None:
        _send_render(clip.pk)
    _tell(events.VIEWERS, closed)  # moderators' sockets hear it there too
    if clip is None:
        return
    lifecycle.announce(clip)
    log.info("closed %s: %r wins, %s votes in all", rnd, winner, total)


def _send_render(clip_id: int) -> None:
    from yolive.celery import app

    app.send_task(RENDER_TASK, args=[clip_id], queue="gpu")


def resend_lost_renders() -> list[int]:
    """Send the render of every clip that has waited too long again, and give up the hopeless ones."""
    now = timezone.now()
    lifecycle.give_up_waiting(
        now - timedelta(seconds=RENDER_GIVE_UP_AFTER_S),
        f"not rendered within {RENDER_GIVE_UP_AFTER_S} s of its round closing",
    )
    waiting = Clip.objects.filter(status=Clip.Status.QUEUED)
    resent = list(
        waiting.filter(created_at__lt=now - timedelta(seconds=RENDER_RESEND_AFTER_S)).values_list(
            "pk", flat=True
        )
    )
    for clip_id in resent:
        _send_render(clip_id)
    if resent:
        log.warning(
            "sent the renders of clips %s again: they waited over %s s", resent, RENDER_RESEND_AFTER_S
        )
    return resent


def _tell(group: str, event: dict[str, Any]) -> None:
    # The round is already committed; a lost announcement is repaired by the next snapshot, so never raise.
    try:
        events.publish(group, event)
    except Exception:
        log.exception("could not publish %s", event["type"])
