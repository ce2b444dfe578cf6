"""A round's likely winner starts rendering before the round closes: a head start.

Most of the crowd's wait from a close to its winner on air is the render's first seconds (docs/benchmarks.md,
"The crowd's wait"). So, as long before a round ends as a render takes to make a clip airable, the conductor
creates the round's clip provisionally, on the prompt the close would pick at that moment (the same ranking,
the same gate), and queues its render. When another prompt takes the lead before the close, that clip is
withdrawn and made again on the new leader: the sooner a swing is followed, the less it costs. At the close,
if the clip's prompt won, the clip is confirmed: announced as far as its render has got, it airs as soon as
it is airable, perhaps at once. If another prompt won, the clip is withdrawn (deleted: its render stops at its
next report) with its frames, and the winner's clip is made as always, the head start having cost the worker
the seconds it spent. Nobody hears of a provisional clip, and nothing airs it, unless it is confirmed.

A head start is taken only while the worker is idle: a render queued behind another would gain nothing, and a
clip goes on from the previous clip's last frames, which must exist by then.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from yolive.clips import frames, lifecycle
from yolive.clips.models import Clip
from yolive.plumbing import metrics
from yolive.voting import tally, timing, winner
from yolive.voting.models import Prompt, Round

log = logging.getLogger(__name__)

Status = Clip.Status
# A clip on air while it is still made (ready_at unset, no error) keeps the worker busy too.
RENDERING = Q(status__in=[Status.QUEUED, Status.RENDERING]) | Q(
    status=Status.ON_AIR, ready_at__isnull=True, error=""
)


def follow(rnd: Round, now: datetime | None = None) -> Clip | None:
    """The open round's provisional clip, on the prompt leading now: made once one is due, made again when
    another prompt takes the lead (the one before withdrawn); None when none is due, or the worker is busy."""
    if not settings.HEAD_START:
        return None
    until_close = (rnd.ends_at - (now or timezone.now())).total_seconds()
    needs = timing.time_to_airable()
    if until_close <= 0 or needs is None or until_close > needs:
        return None
    current = Clip.objects.select_related("round", "prompt").filter(round=rnd).first()
    if current is not None and (not current.provisional or current.status == Status.FAILED):
        return current  # the close has it; or it failed, and the winner gets a render of its own then
    if current is None and Clip.objects.filter(RENDERING).exists():
        return None
    standings = tally.standings(rnd.pk)
    if standings is None:  # Redis lost the round: its close will rebuild the ballot
        return None
    choice = winner.choose_winner(rnd, standings)
    if current is not None and choice.same_prompt(current.prompt):
        return current
    try:
        with transaction.atomic():
            if current is not None:
                _withdraw(current)
            if choice.prompt is None:
                return None
            if choice.prompt.pk is None:
                choice.prompt.save()  # a house prompt, in no round until it wins one
            clip = winner.create_clip(rnd, choice.prompt, provisional=True)
    except IntegrityError:  # another conductor made the round's clip meanwhile
        return None
    winner.send_render(clip.pk)
    log.info("%s: head start on %r, %.1f s before the close", rnd, choice.prompt, until_close)
    return clip


def settle(rnd: Round, choice: winner.Choice) -> Clip | None:
    """At the close, inside its transaction: the round's provisional clip, confirmed if its prompt won (the
    choice then names the clip's saved prompt); None when there was none, or it is withdrawn: its prompt lost,
    or its render failed (the winner gets a render of its own)."""
    clip = Clip.objects.select_related("round", "prompt").filter(round=rnd, provisional=True).first()
    if clip is None:
        return None
    if choice.same_prompt(clip.prompt) and clip.status != Status.FAILED and lifecycle.confirm(clip.id):
        choice.prompt, clip.provisional = clip.prompt, False
        transaction.on_commit(lambda: metrics.HEAD_STARTS.labels(outcome="won").inc())
        return clip
    _withdraw(clip)
    return None


def _withdraw(clip: Clip) -> None:
    """Inside a transaction: the clip goes, its render stops at its next report, its frames once committed."""
    lifecycle.withdraw(clip.id)
    if clip.prompt.source == Prompt.Source.HOUSE and clip.prompt.round_id is None:
        clip.prompt.delete()  # saved only for the head start
    transaction.on_commit(lambda: _withdrawn(clip.id))
    log.info(
        "%s: the head start on %r is withdrawn", clip.round_id and f"round id {clip.round_id}", clip.prompt
    )


def _withdrawn(clip_id: int) -> None:
    frames.remove(clip_id)
    metrics.HEAD_STARTS.labels(outcome="lost").inc()
