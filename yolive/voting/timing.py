"""When a round ends: so that its winner can air just as the air is free for it.

A winner airs once the clips before it have aired. If its round closed at a fixed beat, it would wait on the
clip before it for whatever phase the two clocks happen to have (up to a whole clip), or, when a render ran
late once, every later winner would wait by that much. So each new round ends `lead` seconds before the moment
its winner can go on air (the broadcaster's `air_clock` plus a clip for each clip still ahead of it), where
`lead` is what four in five of the recent winners took from close to airable (ready, or far enough made to go
on air while the rest renders; a head start may have made it so by the close), plus the broadcaster's look
at the clips. A round keeps about its set length (see `aligned_end`); without a render yet or a broadcaster on
air, it keeps the plain beat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings

from yolive.clips.models import Clip
from yolive.plumbing import air_clock

RECENT_RENDERS = 10  # winners the lead is taken over
LEAD_QUANTILE = 0.8
LEAD_MARGIN_S = 0.5  # the broadcaster's look at the clips (every 0.2 s) and the slot it decides at


def beat_end(now: datetime, seconds: float, previous_end: datetime | None) -> datetime:
    """`seconds` after the round before, if that one ended on time; else `seconds` from now.

    Closing a round takes some milliseconds (the gate, the database); counted from each close, rounds would
    slip behind the air a little every time. After a pause (a conductor outage, a first round) or a round
    closed before its end, the beat starts again from now.
    """
    length = timedelta(seconds=seconds)
    if previous_end is not None and now - length / 2 <= previous_end <= now:
        return previous_end + length
    return now + length


@dataclass(frozen=True)
class Air:
    free_at: datetime  # when the broadcaster next asks for a clip
    clips_ahead: int  # winners not yet aired, which air before this round's
    clip_seconds: float
    slot_seconds: float  # a clip starts on a slot (segment) boundary


def aligned_end(now: datetime, seconds: float, beat: datetime, air: Air, lead: float) -> datetime | None:
    """The end that has the winner ready `lead` before it can air; None when none is near the beat.

    Its first chance is the moment the clips ahead end: taken if that leaves the round at least nine tenths
    of its length (shorter by a render's jitter rather than a slot of filler) and at most one and a half. If
    the air frees sooner (filler airs, or rounds are set longer than clips), the winner may start at any
    later slot: the one nearest the beat. A longer backlog keeps the beat rather than stretch rounds.
    """
    first = air.free_at + timedelta(seconds=air.clips_ahead * air.clip_seconds - lead)
    if first > now + timedelta(seconds=seconds * 1.5):
        return None
    if first >= beat - timedelta(seconds=seconds / 10):
        return first
    slots = round((beat - first).total_seconds() / air.slot_seconds)
    return first + timedelta(seconds=slots * air.slot_seconds)


def _airable_field() -> str:
    """When a clip could air: once ready, or with `AIR_WHILE_RENDERING` once made far enough to go on air
    while the rest renders."""
    return "airable_at" if settings.AIR_WHILE_RENDERING else "ready_at"


def _recent(since: str) -> list[float]:
    """Seconds from `since` to airable of the recent winners, in order."""
    field = _airable_field()
    recent = Clip.objects.announced().filter(**{f"{since}__isnull": False, f"{field}__isnull": False})
    pairs = recent.order_by("-id").values_list(since, field)[:RECENT_RENDERS]
    return sorted(max(0.0, (at - start).total_seconds()) for start, at in pairs)


def _usual(took: list[float]) -> float:
    """What four in five of `took` (sorted) stayed within: the quantile, not the slowest, so that one slow
    render now and then costs its round some filler rather than every round the crowd's time."""
    return took[math.ceil(LEAD_QUANTILE * len(took)) - 1]


def render_lead() -> float | None:
    """Seconds from a close to its winner's being able to air, plus the margin: what four winners in five
    took of late. A head start that won makes it nearly nothing; a head start lost now and then (or a slow
    render) costs that round some filler."""
    took = _recent("round__closed_at")
    return _usual(took) + LEAD_MARGIN_S if took else None


def time_to_airable() -> float | None:
    """Seconds a render takes, once a worker starts it, to make its clip airable, plus the margin: what four
    renders in five took of late, so that a head start begun that long before the close has its clip
    airable by the close four times in five (the median left every other one late)."""
    took = _recent("started_at")
    return _usual(took) + LEAD_MARGIN_S if took else None


def current_air() -> Air | None:
    free_at = air_clock.free_at()
    if free_at is None:
        return None
    ahead = (
        Clip.objects.announced()
        .filter(
            status__in=[Clip.Status.QUEUED, Clip.Status.RENDERING, Clip.Status.READY], skip_requested=False
        )
        .count()
    )
    return Air(
        datetime.fromtimestamp(free_at, UTC), ahead, settings.CLIP_SECONDS, settings.HLS_SEGMENT_SECONDS
    )


def round_end(now: datetime, seconds: float, previous_end: datetime | None) -> datetime:
    beat = beat_end(now, seconds, previous_end)
    air, lead = current_air(), render_lead()
    if air is None or lead is None:
        return beat
    return aligned_end(now, seconds, beat, air, lead) or beat
