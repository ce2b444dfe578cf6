import math
import threading
import time

import pytest
from django.utils import timezone

from streaming import airing
from tests.helpers.streaming import make_clip
from yolive.clips.models import Clip

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


def test_on_shutdown_the_announcer_runs_what_is_left_in_order():
    done: list[str] = []
    announcer = airing.Announcer(threading.Event())
    announcer.at(math.inf, lambda: done.append("finish"))
    announcer.at(time.monotonic() + 60, lambda: done.append("on air"))
    announcer.at(0, lambda: done.append("failed"))
    announcer.drain()
    assert done == ["failed", "on air", "finish"]
    assert announcer.pending() == 0


def test_the_snapshot_names_the_clip_on_air_a_moderator_skipped(tmp_path):
    on_air = make_clip(tmp_path, 2, frames=2)
    other = make_clip(tmp_path, 3, frames=2)
    Clip.objects.update(skip_requested=True)
    assert airing.read_snapshot(frozenset({on_air.id})).skip_requested == {on_air.id}
    assert other.id not in airing.read_snapshot(frozenset()).skip_requested


@pytest.mark.parametrize("air_while_rendering", [True, False])
def test_a_clip_rendering_far_enough_is_listed_to_air_with_what_is_made(
    tmp_path, settings, air_while_rendering
):
    settings.AIR_WHILE_RENDERING = air_while_rendering
    started = make_clip(tmp_path, 4, status=Clip.Status.RENDERING)  # nothing made yet
    far = make_clip(tmp_path, 5, status=Clip.Status.RENDERING)
    Clip.objects.filter(id=far.id).update(
        frames_path="clips/.5.npy.7.partial", frames_made=60, airable_at=timezone.now()
    )
    whole = make_clip(tmp_path, 6, frames=2)

    ready = airing.read_snapshot(frozenset()).ready
    listed = [(c.id, c.made) for c in ready]
    if air_while_rendering:
        assert listed == [(far.id, 60), (whole.id, None)]
    else:
        assert listed == [(whole.id, None)]
    assert started.id not in {c.id for c in ready}


def test_the_snapshot_follows_the_render_of_a_clip_on_air_until_it_is_whole(tmp_path):
    on_air = make_clip(tmp_path, 4, status=Clip.Status.ON_AIR)
    Clip.objects.filter(id=on_air.id).update(frames_path=str(tmp_path / "a.partial"), frames_made=72)
    snapshot = airing.read_snapshot(frozenset({on_air.id}))
    assert snapshot.watched == {on_air.id}
    assert snapshot.making == {on_air.id: airing.Making(str(tmp_path / "a.partial"), 72, True)}

    Clip.objects.filter(id=on_air.id).update(error="RuntimeError: the render stopped")
    assert not airing.read_snapshot(frozenset({on_air.id})).making[on_air.id].more

    Clip.objects.filter(id=on_air.id).update(ready_at=timezone.now(), error="")
    assert airing.read_snapshot(frozenset({on_air.id})).making == {}  # whole
