import math
import threading
import time

import pytest

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
