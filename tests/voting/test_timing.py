"""When rounds end: on the beat of the rounds before, and aligned so each winner is ready as the air frees."""

import time
from datetime import UTC, datetime, timedelta

import pytest

from tests.helpers.generation import make_clip
from yolive.clips.models import Clip
from yolive.plumbing import air_clock
from yolive.voting import rounds, timing
from yolive.voting.models import Round

NOW = datetime(2026, 12, 7, 12, 0, 0, tzinfo=UTC)


def seconds(s: float) -> timedelta:
    return timedelta(seconds=s)


def air(free_in: float, ahead: int) -> timing.Air:
    return timing.Air(NOW + seconds(free_in), ahead, clip_seconds=10, slot_seconds=1)


def test_while_clips_fill_the_air_the_round_ends_a_lead_before_its_winner_can_air():
    beat = NOW + seconds(10)
    # The clip on air ends in 4 s and last round's winner (rendering) airs after it, for 10 s.
    end = timing.aligned_end(NOW, 10, beat, air(free_in=4, ahead=1), lead=4.5)
    assert end == NOW + seconds(4 + 10 - 4.5)


def test_while_filler_airs_the_round_keeps_its_length_and_its_winner_is_ready_at_a_slot():
    beat = NOW + seconds(10)
    end = timing.aligned_end(NOW, 10, beat, air(free_in=0.6, ahead=0), lead=3)
    assert end is not None
    assert abs(end - beat) <= seconds(0.5)
    ready_before_slot = (end + seconds(3) - (NOW + seconds(0.6))).total_seconds()
    assert ready_before_slot == pytest.approx(round(ready_before_slot))  # on a slot boundary


def test_rounds_set_longer_than_clips_keep_their_length_and_filler_fills_the_difference():
    beat = NOW + seconds(12)
    end = timing.aligned_end(NOW, 12, beat, air(free_in=4, ahead=1), lead=4.5)
    assert end is not None
    assert abs(end - beat) <= seconds(0.5)


def test_a_backlog_longer_than_a_round_keeps_the_beat_instead_of_stretching_rounds():
    assert timing.aligned_end(NOW, 10, NOW + seconds(10), air(free_in=4, ahead=3), lead=4.5) is None


def test_the_beat_follows_the_round_before_unless_it_ended_long_ago_or_early():
    assert timing.beat_end(NOW, 10, NOW - seconds(0.4)) == NOW + seconds(9.6)
    assert timing.beat_end(NOW, 10, NOW - seconds(30)) == NOW + seconds(10)
    assert timing.beat_end(NOW, 10, NOW + seconds(5)) == NOW + seconds(10)
    assert timing.beat_end(NOW, 10, None) == NOW + seconds(10)


def rendered_in(number: int, took_s: float, airable_s: float) -> None:
    """A winner ready `took_s` after its round closed, airable `airable_s` after it (a head start: before)."""
    clip = make_clip(number, status=Clip.Status.AIRED)
    at = clip.created_at
    Round.objects.filter(pk=clip.round_id).update(closed_at=at)
    Clip.objects.filter(pk=clip.pk).update(airable_at=at + seconds(airable_s), ready_at=at + seconds(took_s))


# Five winners, each (close -> ready, close -> airable): a head start that won (airable before the close) and
# one that lost (its winner rendered from the close, slowest of all).
RENDERS = [(2.0, 1.0), (3.0, 1.2), (0.8, -0.5), (2.5, 1.5), (4.0, 2.6)]


@pytest.mark.parametrize(("air_while_rendering", "lead"), [(True, 1.5), (False, 3.0)])
@pytest.mark.django_db(transaction=True)
def test_a_round_opened_while_a_clip_airs_ends_so_its_winner_is_ready_when_the_air_frees(
    settings, air_while_rendering, lead
):
    settings.AIR_WHILE_RENDERING = air_while_rendering
    for number, (took, airable) in enumerate(RENDERS, start=1):
        rendered_in(number, took, airable)
    make_clip(len(RENDERS) + 1, status=Clip.Status.RENDERING)  # the winner before this round's
    free_at = time.time() + 3
    air_clock.announce_free_at(free_at)

    opened = rounds.open_round(10)

    assert opened is not None
    # What four in five recent winners took from their close to airable, or to ready when clips air only
    # whole: the slowest one is left to filler.
    expected = datetime.fromtimestamp(free_at + 10 - lead - timing.LEAD_MARGIN_S, UTC)
    assert abs(opened.ends_at - expected) < seconds(0.01)


@pytest.mark.django_db(transaction=True)
def test_without_a_broadcaster_on_air_rounds_keep_the_plain_beat():
    rendered_in(1, 2.0, 1.0)
    previous = Round.objects.get()
    opened = rounds.open_round(10)
    assert opened is not None
    assert opened.ends_at == previous.ends_at + seconds(10)


@pytest.mark.django_db(transaction=True)
def test_a_head_start_is_due_what_four_renders_in_five_took_to_airable_plus_the_margin():
    assert timing.time_to_airable() is None  # no render yet: no head start
    for number, to_airable in enumerate([1.0, 1.4, 0.9, 3.5, 1.2, 1.1, 1.3, 1.6, 1.0, 1.5], start=1):
        clip = make_clip(number, status=Clip.Status.AIRED)
        started = clip.created_at
        Clip.objects.filter(pk=clip.pk).update(started_at=started, airable_at=started + seconds(to_airable))
    # The eighth of ten: the slowest one (3.5 s) is left out, the median (1.25 s) would leave half late.
    assert timing.time_to_airable() == pytest.approx(1.5 + timing.LEAD_MARGIN_S)
