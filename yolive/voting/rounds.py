"""The round lifecycle as domain code: open a round, close it once with a winner that passes the gate.

Closing is safe to race: the Redis close script is idempotent and the database claim is a conditional
update, so of two conductors closing one round exactly one creates the Clip and queues its render.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from yolive.clips import lifecycle
from yolive.clips.models import Clip
from yolive.plumbing import events
from yolive.voting import head_start, tally, timing, winner
from yolive.voting.models import HousePrompt, Prompt, Round

log = logging.getLogger(__name__)

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


def close_round(rnd: Round) -> Round | None:
    """Freeze the votes, pick and re-check the winner, store it all, create the Clip, queue the render.

    Returns the closed Round, or None when another conductor closed it first.
    """
    result = tally.close_round(rnd.pk)
    if result is None:  # Redis restarted mid-round: the ballot survives in the database, the votes do not
        ids = Prompt.objects.filter(round=rnd, status=Prompt.Status.APPROVED).values_list("id", flat=True)
        result = tally.Result(min(ids, default=None), {pid: 0 for pid in ids}, 0)
    choice = winner.choose_winner(rnd, result)
    counts = {str(pid): votes for pid, votes in result.counts.items()}
    with transaction.atomic():
        claimed = Round.objects.filter(pk=rnd.pk, state=Round.State.OPEN).update(
            state=Round.State.CLOSED, closed_at=timezone.now(), tallies=counts, total_votes=result.total
        )
        if claimed != 1:
            return None
        for pid, reason in choice.rejected.items():
            Prompt.objects.filter(pk=pid).update(status=Prompt.Status.REJECTED, moderation_reason=reason)
        head_started = head_start.settle(rnd, choice)  # may make the choice its clip's saved house prompt
        won = _store_winner(rnd, choice)
        rnd.refresh_from_db()
        clip = head_started or (winner.create_clip(rnd, won) if won else None)
        queued = head_started is None
        transaction.on_commit(
            lambda: _announce_close(rnd, won, counts, result.total, clip, queued), robust=True
        )
    return rnd


def _store_winner(rnd: Round, choice: winner.Choice) -> Prompt | None:
    won = choice.prompt
    if won is not None and won.round_id is None:  # a house prompt, unsaved or saved for a head start
        won.round = rnd
        won.save()
        HousePrompt.objects.filter(pk=choice.house_id).update(last_used_at=timezone.now())
    Round.objects.filter(pk=rnd.pk).update(winner=won)
    return won


def _announce_close(
    rnd: Round, won: Prompt | None, counts: dict[str, int], total: int, clip: Clip | None, queued: bool
) -> None:
    """`queued`: the clip is new and its render still to send (a head start's is on its way already)."""
    closed = events.round_closed(rnd.pk, rnd.number, (won.pk, won.text) if won else None, counts, total)
    if clip is not None and queued:
        winner.send_render(clip.pk)
    _tell(events.VIEWERS, closed)  # moderators' sockets hear it there too
    if clip is None:
        return
    if not queued:
        clip.refresh_from_db()  # as far as its render has got
    lifecycle.announce(clip)
    log.info("closed %s: %r wins, %s votes in all", rnd, won, total)


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
        winner.send_render(clip_id)
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
