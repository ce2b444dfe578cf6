import asyncio
import math
import threading
import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from streaming import airing
from tests.streaming.conftest import make_clip
from yolive.events import viewer_group
from yolive.voting.models import Clip, Prompt, Viewer

pytestmark = pytest.mark.django_db


def test_the_snapshot_lists_ready_clips_in_round_order_and_what_renders_next(tmp_path):
    later = make_clip(tmp_path, 5, frames=2)
    sooner = make_clip(tmp_path, 4, frames=2)
    skipped = make_clip(tmp_path, 6, frames=2)
    Clip.objects.filter(id=skipped.id).update(skip_requested=True)
    make_clip(tmp_path, 8, status=Clip.Status.QUEUED)
    rendering = make_clip(tmp_path, 9, status=Clip.Status.RENDERING)
    Clip.objects.filter(id=rendering.id).update(progress=0.25)

    snapshot = airing.read_snapshot(watched=frozenset({later.id}))
    assert [c.id for c in snapshot.ready] == [sooner.id, later.id]  # the skipped one never airs
    assert snapshot.upcoming == airing.Upcoming(9, rendering.prompt.text, "rendering", 0.25)
    assert snapshot.skip_requested == frozenset()


def test_a_skip_requested_before_airing_marks_the_clip_skipped_but_not_the_one_on_air(tmp_path):
    waiting = make_clip(tmp_path, 1, frames=2)
    on_air = make_clip(tmp_path, 2, frames=2)
    Clip.objects.update(skip_requested=True)
    airing.skip_unaired(frozenset({on_air.id}))
    waiting.refresh_from_db()
    on_air.refresh_from_db()
    assert waiting.status == Clip.Status.SKIPPED and waiting.finished_at is not None
    assert on_air.status == Clip.Status.READY  # the feeder cuts it at the next segment boundary
    assert airing.read_snapshot(frozenset({on_air.id})).skip_requested == {on_air.id}


def test_relative_frame_paths_are_found_under_the_media_folder(settings, tmp_path):
    settings.MEDIA_DIR = tmp_path
    settings.CLIPS_DIR = tmp_path / "clips"
    (tmp_path / "clips").mkdir()
    (tmp_path / "clips" / "3.npy").write_bytes(b"")
    assert airing.frames_file("clips/3.npy") == str(tmp_path / "clips" / "3.npy")
    assert airing.frames_file("3.npy") == str(tmp_path / "clips" / "3.npy")
    assert airing.frames_file("/elsewhere/3.npy") == "/elsewhere/3.npy"


def test_raw_frames_of_clips_that_aired_a_while_ago_are_deleted(tmp_path):
    old = make_clip(tmp_path, 1, frames=2)
    recent = make_clip(tmp_path, 2, frames=2)
    waiting = make_clip(tmp_path, 3, frames=2)
    now = timezone.now()
    Clip.objects.filter(id=old.id).update(status=Clip.Status.AIRED, finished_at=now - timedelta(minutes=20))
    Clip.objects.filter(id=recent.id).update(status=Clip.Status.AIRED, finished_at=now - timedelta(minutes=1))

    assert airing.drop_spent_frames(now - timedelta(minutes=10)) == 1
    recent.refresh_from_db()
    assert not (tmp_path / f"clip-{old.id}.npy").exists()
    assert Clip.objects.get(id=old.id).frames_path == ""
    assert (tmp_path / f"clip-{recent.id}.npy").exists() and recent.frames_path
    assert (tmp_path / f"clip-{waiting.id}.npy").exists()


def test_on_shutdown_the_announcer_runs_what_is_left_in_order():
    done: list[str] = []
    announcer = airing.Announcer(threading.Event())
    announcer.at(math.inf, lambda: done.append("finish"))
    announcer.at(time.monotonic() + 60, lambda: done.append("on air"))
    announcer.at(0, lambda: done.append("failed"))
    announcer.drain()
    assert done == ["failed", "on air", "finish"]
    assert announcer.pending() == 0


def test_a_clip_on_air_marks_its_prompt_aired_and_tells_its_author(tmp_path):
    clip = make_clip(tmp_path, 3, frames=2)
    author = Viewer.objects.create()
    Prompt.objects.filter(id=clip.prompt_id).update(author=author)

    async def listen_while_airing() -> dict:
        layer = get_channel_layer()
        inbox = await layer.new_channel()
        await layer.group_add(viewer_group(author.key), inbox)
        await asyncio.sleep(0.2)  # the subscription is made asynchronously after the group join
        await sync_to_async(airing.mark_on_air)(clip.id)
        async with asyncio.timeout(5):
            while True:
                message = await layer.receive(inbox)
                if message["event"]["type"] == "prompt_status":
                    return message["event"]

    event = async_to_sync(listen_while_airing)()

    assert Prompt.objects.get(id=clip.prompt_id).status == Prompt.Status.AIRED
    assert event == {
        "type": "prompt_status",
        "prompt_id": clip.prompt_id,
        "status": "aired",
        "reason": "",
        "clip_url": f"/clips/{clip.id}/",
    }
