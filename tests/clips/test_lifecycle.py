"""Every status change of a clip is guarded by the statuses it may leave, and tells viewers exactly once."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from unittest import mock

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from tests.helpers.streaming import make_clip
from yolive.clips import lifecycle
from yolive.clips.models import Clip
from yolive.plumbing import events
from yolive.voting.models import Prompt, Viewer

pytestmark = pytest.mark.django_db


@pytest.fixture
def published():
    with mock.patch("yolive.plumbing.events.publish", autospec=True) as spy:
        yield spy


def sent(spy, kind: str = "clip") -> list[dict]:
    return [c.args[1] for c in spy.call_args_list if c.args[1]["type"] == kind]


def test_a_change_tells_viewers_once_and_a_change_that_lost_the_race_tells_nobody(tmp_path, published):
    clip = make_clip(tmp_path, 1, status=Clip.Status.ON_AIR)
    assert lifecycle.finish_airing(clip.id, Clip.Status.AIRED)
    assert not lifecycle.finish_airing(clip.id, Clip.Status.SKIPPED)  # a second broadcaster, too late
    assert Clip.objects.get(id=clip.id).status == Clip.Status.AIRED
    assert sent(published) == [events.clip(clip.id, 1, "aired", clip.prompt.text, 0.0)]
    assert published.call_args.args[0] == events.VIEWERS


def test_a_clip_that_aired_cannot_be_failed_afterwards(tmp_path, published):
    clip = make_clip(tmp_path, 1, status=Clip.Status.AIRED)
    assert not lifecycle.fail_to_air(clip.id, "frames unreadable")
    clip.refresh_from_db()
    assert clip.status == Clip.Status.AIRED and clip.error == ""
    assert sent(published) == []


def test_a_ready_clip_whose_frames_cannot_be_read_fails_and_says_so(tmp_path, published):
    clip = make_clip(tmp_path, 1)
    assert lifecycle.fail_to_air(clip.id, "frames unreadable")
    clip.refresh_from_db()
    assert clip.status == Clip.Status.FAILED and clip.error == "frames unreadable" and clip.finished_at
    assert [e["status"] for e in sent(published)] == ["failed"]


def test_a_render_ends_only_as_ready_failed_or_skipped(tmp_path):
    clip = make_clip(tmp_path, 1, status=Clip.Status.RENDERING)
    with pytest.raises(ValueError, match="does not end as aired"):
        lifecycle.finish_rendering(clip.id, Clip.Status.AIRED)
    assert Clip.objects.get(id=clip.id).status == Clip.Status.RENDERING


def test_clips_that_waited_too_long_are_given_up_and_viewers_hear_of_it(tmp_path, published):
    stale = make_clip(tmp_path, 1, status=Clip.Status.QUEUED)
    fresh = make_clip(tmp_path, 2, status=Clip.Status.QUEUED)
    Clip.objects.filter(id=stale.id).update(created_at=timezone.now() - timedelta(minutes=10))

    assert lifecycle.give_up_waiting(timezone.now() - timedelta(minutes=5), "too late") == [stale.id]
    assert Clip.objects.get(id=stale.id).status == Clip.Status.FAILED
    assert Clip.objects.get(id=fresh.id).status == Clip.Status.QUEUED
    assert [(e["clip_id"], e["status"]) for e in sent(published)] == [(stale.id, "failed")]


def test_a_skip_requested_before_airing_marks_the_clip_skipped_but_not_the_one_on_air(tmp_path, published):
    waiting = make_clip(tmp_path, 1, frames=2)
    on_air = make_clip(tmp_path, 2, frames=2)
    Clip.objects.update(skip_requested=True)
    assert lifecycle.skip_unaired(frozenset({on_air.id})) == [waiting.id]
    waiting.refresh_from_db()
    on_air.refresh_from_db()
    assert waiting.status == Clip.Status.SKIPPED and waiting.finished_at is not None
    assert on_air.status == Clip.Status.READY  # the feeder cuts it at the next segment boundary
    assert [(e["clip_id"], e["status"]) for e in sent(published)] == [(waiting.id, "skipped")]


def test_a_clip_on_air_is_announced_and_its_prompt_marked_aired_with_news_for_its_author(tmp_path):
    clip = make_clip(tmp_path, 3, frames=2)
    author = Viewer.objects.create()
    Prompt.objects.filter(id=clip.prompt_id).update(author=author)

    async def listen_while_airing() -> list[dict]:
        layer = get_channel_layer()
        mine, everyone = await layer.new_channel(), await layer.new_channel()
        await layer.group_add(events.viewer_group(author.key), mine)
        await layer.group_add(events.VIEWERS, everyone)
        await asyncio.sleep(0.2)  # the subscription is made asynchronously after the group join
        await sync_to_async(lifecycle.put_on_air)(clip.id)
        async with asyncio.timeout(5):
            heard = [(await layer.receive(everyone))["event"] for _ in range(2)]
            return [*heard, (await layer.receive(mine))["event"]]

    on_air, now_playing, news = async_to_sync(listen_while_airing)()

    assert Prompt.objects.get(id=clip.prompt_id).status == Prompt.Status.AIRED
    assert (on_air["type"], on_air["status"]) == ("clip", "on_air")
    assert (now_playing["type"], now_playing["clip_id"]) == ("now_playing", clip.id)
    assert news == {
        "type": "prompt_status",
        "prompt_id": clip.prompt_id,
        "status": "aired",
        "reason": "",
        "clip_url": f"/clips/{clip.id}/",
    }


def test_a_clip_aired_while_it_renders_keeps_its_airing_status_when_the_render_ends(tmp_path, published):
    clip = make_clip(tmp_path, 1, status=Clip.Status.RENDERING)
    assert lifecycle.report_frames(clip.id, "clips/.1.npy.9.partial", 72)
    assert sent(published) == []  # frames made are no news for viewers
    lifecycle.put_on_air(clip.id)
    assert Clip.objects.get(id=clip.id).status == Clip.Status.ON_AIR

    assert lifecycle.report_frames(clip.id, "clips/.1.npy.9.partial", 144)
    assert lifecycle.report_progress(clip.id, 0.75) is not None  # so its render goes on
    ended = lifecycle.finish_rendering(clip.id, Clip.Status.READY, frames_path="clips/1.npy", frames_made=240)
    assert ended is not None
    clip.refresh_from_db()
    assert (clip.status, clip.frames_path, clip.frames_made) == (Clip.Status.ON_AIR, "clips/1.npy", 240)


def test_a_render_that_fails_on_air_leaves_its_error_for_the_broadcaster(tmp_path):
    clip = make_clip(tmp_path, 1, status=Clip.Status.ON_AIR)
    lifecycle.finish_rendering(clip.id, Clip.Status.FAILED, error="RuntimeError: gone")
    clip.refresh_from_db()
    assert (clip.status, clip.error) == (Clip.Status.ON_AIR, "RuntimeError: gone")
    done = make_clip(tmp_path, 2, status=Clip.Status.FAILED)
    assert not lifecycle.report_frames(done.id, "clips/2.npy", 10)  # no longer made nor aired
