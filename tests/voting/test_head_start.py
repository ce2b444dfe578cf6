"""A round's leading prompt renders before the close: confirmed if it wins, withdrawn if the vote swings."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from unittest import mock

import numpy as np
import pytest
from django.utils import timezone

from streaming import airing
from tests.helpers.generation import make_clip
from tests.helpers.voting import propose, render_of, vote
from yolive.clips.frames import GrowingFrames, frames_path, store_frames
from yolive.clips.models import Clip
from yolive.moderation.desk import panel
from yolive.plumbing import events, metrics
from yolive.voting import head_start, rounds, snapshot, timing
from yolive.voting.models import HousePrompt, Prompt, Round, Viewer

pytestmark = pytest.mark.django_db(transaction=True)
TO_AIRABLE_S = 2.0  # what the render before took from its start to airable


@pytest.fixture
def published() -> Iterator[mock.MagicMock]:
    with mock.patch("yolive.plumbing.events.publish", autospec=True, side_effect=events.publish) as spy:
        yield spy


@pytest.fixture
def rnd() -> Round:
    """An open round after one whose clip has aired, its render having taken TO_AIRABLE_S to airable."""
    before = make_clip(1, status=Clip.Status.AIRED)
    started = timezone.now() - timedelta(seconds=30)
    Clip.objects.filter(pk=before.pk).update(
        started_at=started, airable_at=started + timedelta(seconds=TO_AIRABLE_S)
    )
    opened = rounds.open_round(10)
    assert opened is not None
    return opened


def before_close(rnd: Round, seconds: float):  # type: ignore[no-untyped-def]
    return rnd.ends_at - timedelta(seconds=seconds)


def won_and_lost() -> tuple[float, ...]:
    return tuple(metrics.HEAD_STARTS.labels(outcome=outcome)._value.get() for outcome in ("won", "lost"))


def test_the_leader_starts_rendering_a_render_s_time_before_the_close_and_nobody_hears_of_it(
    rnd, send_task, published
):
    kite, whale = propose("a red kite"), propose("a blue whale")
    vote(rnd.pk, whale, 2)
    vote(rnd.pk, kite, 1)

    due = TO_AIRABLE_S + timing.LEAD_MARGIN_S  # a render's time to airable, and the margin
    assert head_start.follow(rnd, before_close(rnd, due + 0.1)) is None  # not yet
    clip = head_start.follow(rnd, before_close(rnd, due - 0.1))

    assert clip is not None and clip.provisional and clip.prompt_id == whale
    assert send_task.call_args_list == [render_of(clip)]
    assert head_start.follow(rnd, before_close(rnd, 0.5)) == clip  # one while the leader leads
    assert send_task.call_count == 1
    # Made far enough to air, it is nobody's news yet: not the viewers', the moderators', the broadcaster's.
    Clip.objects.filter(pk=clip.pk).update(status=Clip.Status.RENDERING, airable_at=timezone.now())
    assert [e for c in published.call_args_list if (e := c.args[1]).get("clip_id") == clip.pk] == []
    assert asyncio.run(snapshot.build_snapshot(Viewer.objects.create()))["rendering"] is None
    assert panel.clips_in_play() == []
    assert airing.read_snapshot(frozenset()).ready == []


def test_a_head_start_whose_prompt_wins_is_the_round_s_clip_announced_as_far_as_it_got(
    rnd, send_task, published
):
    whale = propose("a blue whale")
    vote(rnd.pk, whale, 2)
    clip = head_start.follow(rnd, before_close(rnd, 1))
    Clip.objects.filter(pk=clip.pk).update(status=Clip.Status.RENDERING, progress=0.5)
    won, lost = won_and_lost()

    rounds.close_round(rnd)

    confirmed = Clip.objects.get(round=rnd)
    assert confirmed.pk == clip.pk and not confirmed.provisional
    assert send_task.call_args_list == [render_of(clip)]  # its render was sent once, at the head start
    news = [e for c in published.call_args_list if (e := c.args[1]).get("clip_id") == clip.pk]
    assert [(e["status"], e["progress"]) for e in news] == [("rendering", 0.5)]
    assert won_and_lost() == (won + 1, lost)


def test_a_late_swing_withdraws_the_head_start_with_its_frames_and_the_winner_renders(rnd, send_task):
    kite, whale = propose("a red kite"), propose("a blue whale")
    vote(rnd.pk, kite, 1)
    early = head_start.follow(rnd, before_close(rnd, 1))
    assert early.prompt_id == kite
    store_frames(early.pk, np.zeros((2, 4, 4, 3), np.uint8))  # one attempt whole,
    GrowingFrames(early.pk, (2, 4, 4, 3))  # another under way
    vote(rnd.pk, whale, 2)
    won, lost = won_and_lost()

    closed = rounds.close_round(rnd)

    clip = Clip.objects.get(round=rnd)
    assert closed.winner_id == whale and clip.prompt_id == whale and clip.pk != early.pk
    assert not clip.provisional and not Clip.objects.filter(pk=early.pk).exists()
    assert send_task.call_args_list == [render_of(early), render_of(clip)]
    assert not list(frames_path(early.pk).parent.glob(f"*{early.pk}.npy*"))
    assert Prompt.objects.filter(pk=kite).exists()  # a candidate that lost stays a candidate that lost
    assert won_and_lost() == (won, lost + 1)


def test_the_head_start_follows_a_swing_before_the_close(rnd, send_task):
    kite, whale = propose("a red kite"), propose("a blue whale")
    vote(rnd.pk, kite, 1)
    first = head_start.follow(rnd, before_close(rnd, 1.5))
    GrowingFrames(first.pk, (2, 4, 4, 3))  # its render under way
    vote(rnd.pk, whale, 2)
    won, lost = won_and_lost()

    second = head_start.follow(rnd, before_close(rnd, 1.0))
    rounds.close_round(rnd)

    assert second.prompt_id == whale and not Clip.objects.filter(pk=first.pk).exists()
    assert not list(frames_path(first.pk).parent.glob(f"*{first.pk}.npy*"))
    assert send_task.call_args_list == [render_of(first), render_of(second)]
    assert Clip.objects.get(round=rnd).pk == second.pk
    assert won_and_lost() == (won + 1, lost + 1)


def test_without_candidates_the_house_prompt_gets_the_head_start_and_is_saved_once(rnd, send_task):
    HousePrompt.objects.all().delete()
    HousePrompt.objects.create(text="a paper boat on a rain puddle")
    early = head_start.follow(rnd, before_close(rnd, 1))
    assert early.prompt.text == "a paper boat on a rain puddle" and early.prompt.round_id is None

    closed = rounds.close_round(rnd)

    assert closed.winner_id == early.prompt_id and Clip.objects.get(round=rnd).pk == early.pk
    assert Prompt.objects.filter(text="a paper boat on a rain puddle").count() == 1
    assert HousePrompt.objects.get().last_used_at is not None


def test_a_house_prompt_saved_for_a_head_start_that_lost_goes_with_it(rnd, send_task):
    HousePrompt.objects.all().delete()
    HousePrompt.objects.create(text="a paper boat on a rain puddle")
    early = head_start.follow(rnd, before_close(rnd, 1))
    vote(rnd.pk, propose("a blue whale"), 1)

    rounds.close_round(rnd)

    assert not Prompt.objects.filter(pk=early.prompt_id).exists()
    assert HousePrompt.objects.get().last_used_at is None  # it did not air


@pytest.mark.parametrize(
    "busy",
    [
        {"status": Clip.Status.QUEUED},
        {"status": Clip.Status.RENDERING},
        {"status": Clip.Status.ON_AIR},  # on air while it is still made
    ],
)
def test_no_head_start_while_the_worker_is_busy(rnd, send_task, busy):
    make_clip(0, **busy)
    assert head_start.follow(rnd, before_close(rnd, 1)) is None
    assert send_task.call_count == 0


def test_no_head_start_when_the_setting_is_off_or_no_render_has_timed_it(rnd, send_task, settings):
    settings.HEAD_START = False
    assert head_start.follow(rnd, before_close(rnd, 1)) is None
    settings.HEAD_START = True
    Clip.objects.update(airable_at=None)  # how long a render takes is not known yet
    assert head_start.follow(rnd, before_close(rnd, 1)) is None
    assert send_task.call_count == 0


def test_a_head_start_that_failed_gives_way_to_a_render_of_its_own_winner(rnd, send_task):
    whale = propose("a blue whale")
    vote(rnd.pk, whale, 1)
    early = head_start.follow(rnd, before_close(rnd, 1))
    Clip.objects.filter(pk=early.pk).update(status=Clip.Status.FAILED, error="RuntimeError: boom")

    rounds.close_round(rnd)

    clip = Clip.objects.get(round=rnd)
    assert clip.prompt_id == whale and clip.pk != early.pk and clip.status == Clip.Status.QUEUED
    assert send_task.call_args_list == [render_of(early), render_of(clip)]
