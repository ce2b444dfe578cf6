"""`render_clip` against the real database and Redis: claim, progress events, frames, skip, redelivery."""

from __future__ import annotations

import os
import socket
import subprocess
from unittest import mock

import numpy as np
import pytest
from django.conf import settings

from generation import clip_job, loader
from tests.helpers.generation import FPS, FRAMES, SIZE, RunsOutOfMemory, make_clip
from tests.helpers.processes import ROOT, subprocess_env
from yolive.clips import lifecycle
from yolive.clips.frames import frames_path, store_frames
from yolive.clips.models import Clip
from yolive.plumbing import events
from yolive.plumbing.redis_client import get_redis

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def published():
    with mock.patch("yolive.plumbing.events.publish", autospec=True, side_effect=events.publish) as spy:
        yield spy


def clip_events(spy, clip_id: int) -> list[dict]:
    return [c.args[1] for c in spy.call_args_list if c.args[1].get("clip_id") == clip_id]


def test_a_rendered_clip_is_stored_and_marked_ready_with_timings(worker_renderer, published):
    clip = make_clip(1)
    assert clip_job.render_clip(clip.id) == "ready"

    clip.refresh_from_db()
    assert clip.status == Clip.Status.READY and clip.progress == 1.0 and clip.ready_at
    frames = np.load(clip.frames_path)
    assert frames.shape == (FRAMES, SIZE, SIZE, 3) and frames.dtype == np.uint8
    assert (clip.num_frames, clip.width, clip.height, clip.fps) == (FRAMES, SIZE, SIZE, FPS)
    expected = {"queue_wait", "text_encoding", "denoising", "decoding", "storing", "total", "seconds"}
    assert set(clip.timings) == expected
    parts = ("text_encoding", "denoising", "decoding")  # storing overlaps decoding: frames go as they come
    assert clip.timings["total"] >= sum(clip.timings[part] for part in parts) - 0.001
    assert 0 < clip.timings["storing"] <= clip.timings["total"]
    assert clip.frames_made == FRAMES and clip.created_at < clip.airable_at <= clip.ready_at
    assert clip.cache_stats["step_cache"] == "fbc" and "kv_projected" in clip.cache_stats
    assert not clip.cache_stats["continuity"]  # the first clip starts from text alone
    assert not list(frames_path(clip.id).parent.glob("*.partial"))


def test_every_step_and_every_status_change_is_published(worker_renderer, published):
    clip = make_clip(1, "a lighthouse")
    clip_job.render_clip(clip.id)
    sent = clip_events(published, clip.id)
    steps = worker_renderer.preset.steps
    assert all(set(e) == {"type", "clip_id", "round_number", "status", "progress", "prompt"} for e in sent)
    assert [e["status"] for e in sent] == ["rendering"] * (steps + 1) + ["ready"]
    assert [e["progress"] for e in sent[1:-1]] == [round(n / steps, 3) for n in range(1, steps + 1)]
    assert sent[0]["prompt"] == "a lighthouse" and sent[0]["round_number"] == 1
    assert all(c.args[0] == events.VIEWERS for c in published.call_args_list)


def test_the_next_clip_continues_from_the_previous_rounds_frames(worker_renderer, settings):
    first = make_clip(1, seed=1)
    second = make_clip(2, "a whale", seed=2)
    clip_job.render_clip(first.id)
    clip_job.render_clip(second.id)
    second.refresh_from_db()
    assert second.cache_stats["continuity"]
    assert second.cache_stats["lead_encoded_ahead"]  # encoded when the first was ready

    settings.GENERATION_CONTINUITY = False
    third = make_clip(3, seed=3)
    clip_job.render_clip(third.id)
    third.refresh_from_db()
    assert not third.cache_stats["continuity"]


def test_a_lead_that_cannot_be_encoded_ahead_leaves_the_clip_ready_and_the_next_encodes_it(
    worker_renderer, monkeypatch
):
    def broken(*_):  # type: ignore[no-untyped-def]
        raise RuntimeError("no memory for the encode")

    monkeypatch.setattr(worker_renderer, "prepare_continuation", broken)
    first, second = make_clip(1, seed=1), make_clip(2, "a whale", seed=2)
    assert clip_job.render_clip(first.id) == "ready"
    assert clip_job.render_clip(second.id) == "ready"
    second.refresh_from_db()
    assert second.cache_stats["continuity"] and not second.cache_stats["lead_encoded_ahead"]


def test_a_skipped_clip_is_never_continued_from(worker_renderer):
    skipped = make_clip(1, status=Clip.Status.SKIPPED)
    store_frames(skipped.id, np.zeros((FRAMES, SIZE, SIZE, 3), np.uint8))
    Clip.objects.filter(id=skipped.id).update(frames_path=str(frames_path(skipped.id)))
    after = make_clip(2)
    clip_job.render_clip(after.id)
    after.refresh_from_db()
    assert not after.cache_stats["continuity"]


def test_a_redelivered_task_for_a_rendered_clip_does_nothing(worker_renderer, published):
    clip = make_clip(1)
    clip_job.render_clip(clip.id)
    written = os.stat(frames_path(clip.id)).st_mtime_ns
    published.reset_mock()
    for status in (Clip.Status.READY, Clip.Status.ON_AIR, Clip.Status.AIRED):
        Clip.objects.filter(id=clip.id).update(status=status)
        assert clip_job.render_clip(clip.id) == "done"
    assert os.stat(frames_path(clip.id)).st_mtime_ns == written
    assert not published.called


def test_frames_stored_before_a_crash_are_adopted_not_rendered_again(worker_renderer):
    clip = make_clip(1, status=Clip.Status.RENDERING)
    store_frames(clip.id, np.full((FRAMES, SIZE, SIZE, 3), 9, np.uint8))
    assert clip_job.render_clip(clip.id) == "adopted"
    clip.refresh_from_db()
    assert clip.status == Clip.Status.READY and clip.num_frames == FRAMES
    assert int(np.load(clip.frames_path)[0, 0, 0, 0]) == 9


def claimed_by(clip: Clip, pid: int) -> None:
    Clip.objects.filter(id=clip.id).update(status=Clip.Status.RENDERING)
    get_redis().set(f"{_prefix()}:render-claim:{clip.id}", f"{socket.gethostname()}:{pid}")


def _prefix() -> str:
    return str(settings.CHANNEL_PREFIX)


def test_a_render_claimed_by_a_live_worker_is_left_to_it(worker_renderer):
    clip = make_clip(1)
    claimed_by(clip, os.getppid())
    assert clip_job.render_clip(clip.id) == "busy"
    clip.refresh_from_db()
    assert clip.status == Clip.Status.RENDERING and not clip.frames_path


def test_a_render_claimed_by_a_dead_worker_is_taken_over(worker_renderer):
    gone = subprocess.Popen(["true"])
    gone.wait()
    clip = make_clip(1)
    claimed_by(clip, gone.pid)
    assert clip_job.render_clip(clip.id) == "ready"


def test_a_moderator_skip_during_the_render_stops_it_within_one_step(worker_renderer, published):
    clip = make_clip(1)
    calls = []

    def moderator_clicks_skip(*_):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 2:  # during the second denoising step
            Clip.objects.filter(id=clip.id).update(skip_requested=True)

    worker_renderer.pipe.transformer.register_forward_pre_hook(moderator_clicks_skip)
    assert clip_job.render_clip(clip.id) == "skipped"
    clip.refresh_from_db()
    assert clip.status == Clip.Status.SKIPPED and not clip.frames_path
    assert not frames_path(clip.id).exists()
    assert len(calls) == 2  # no transformer call after the step in which the skip came
    statuses = [e["status"] for e in clip_events(published, clip.id)]
    assert statuses == ["rendering", "rendering", "rendering", "skipped"]


def test_a_clip_skipped_before_its_render_is_never_rendered(worker_renderer, published):
    clip = make_clip(1, skip_requested=True)
    assert clip_job.render_clip(clip.id) == "skipped"
    clip.refresh_from_db()
    assert clip.status == Clip.Status.SKIPPED and not frames_path(clip.id).exists()
    assert [e["status"] for e in clip_events(published, clip.id)] == ["skipped"]


def test_out_of_memory_at_every_level_fails_the_clip_counts_it_and_drops_the_model(worker_renderer):
    RunsOutOfMemory(worker_renderer.pipe.transformer, times=3)
    clip = make_clip(1)
    assert clip_job.render_clip(clip.id) == "failed"
    clip.refresh_from_db()
    assert clip.status == Clip.Status.FAILED and "out of memory" in clip.error
    assert get_redis().hget(f"{_prefix()}:generation:oom", "level3") == "1"
    assert loader.get_renderer() is not worker_renderer  # the next clip gets a fresh model


def test_out_of_memory_recovered_at_level_one_is_recorded_on_the_clip(worker_renderer):
    RunsOutOfMemory(worker_renderer.pipe.transformer, times=1)
    clip = make_clip(1)
    assert clip_job.render_clip(clip.id) == "ready"
    clip.refresh_from_db()
    assert clip.cache_stats["oom_levels"] == [1]
    assert get_redis().hget(f"{_prefix()}:generation:oom", "level1") == "1"


def test_a_broken_render_fails_the_clip_with_the_reason(worker_renderer, monkeypatch):
    def broken(*_, **__):  # type: ignore[no-untyped-def]
        raise RuntimeError("the pipeline broke")

    monkeypatch.setattr(type(worker_renderer.pipe), "__call__", broken)
    clip = make_clip(1)
    assert clip_job.render_clip(clip.id) == "failed"
    clip.refresh_from_db()
    assert clip.status == Clip.Status.FAILED and "the pipeline broke" in clip.error


def test_a_missing_clip_is_reported_not_raised(worker_renderer):
    assert clip_job.render_clip(987654) == "missing"


def test_torch_is_not_imported_by_the_task_module():
    script = "import sys, django; django.setup(); import generation.tasks; print('torch' in sys.modules)"
    done = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "-c", script],
        cwd=ROOT,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip() == "False", done.stderr[-2000:]


def test_a_render_taken_over_midway_leaves_the_clip_to_the_worker_that_took_it(worker_renderer, monkeypatch):
    clip = make_clip(1)
    render = worker_renderer.render

    def taken_over_meanwhile(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = render(*args, **kwargs)
        for partial in frames_path(clip.id).parent.glob(f".{clip.id}.npy.*.partial"):
            partial.unlink()  # what the other worker's GrowingFrames does to an earlier attempt's file
        return result

    monkeypatch.setattr(worker_renderer, "render", taken_over_meanwhile)
    assert clip_job.render_clip(clip.id) == "busy"
    clip.refresh_from_db()
    assert clip.status == Clip.Status.RENDERING and not frames_path(clip.id).exists()


def gone_first(clip: Clip, real):  # type: ignore[no-untyped-def]
    """`real`, called once the clip is gone: its head start lost the vote just then."""

    def withdrawn_then(*args, **kwargs):  # type: ignore[no-untyped-def]
        Clip.objects.filter(id=clip.id).delete()
        return real(*args, **kwargs)

    return withdrawn_then


def no_frames_left(clip: Clip) -> bool:
    folder = frames_path(clip.id).parent
    return not frames_path(clip.id).exists() and not list(folder.glob(f".{clip.id}.npy.*.partial"))


def test_a_withdrawn_head_start_stops_within_a_step_and_leaves_no_frames(worker_renderer, published):
    clip = make_clip(1, provisional=True)
    calls: list[int] = []

    def vote_swings(*_):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 2:
            Clip.objects.filter(id=clip.id).delete()

    worker_renderer.pipe.transformer.register_forward_pre_hook(vote_swings)
    assert clip_job.render_clip(clip.id) == "withdrawn"
    assert len(calls) == 2  # no transformer call after the step in which it went
    assert no_frames_left(clip)
    assert clip_events(published, clip.id) == []  # nobody heard of it


@pytest.mark.parametrize("when", ["between pieces of the decode", "after its last frames"])
def test_a_head_start_withdrawn_late_in_its_render_leaves_no_frames(worker_renderer, monkeypatch, when):
    clip = make_clip(1, provisional=True)
    name = "report_frames" if when == "between pieces of the decode" else "finish_rendering"
    monkeypatch.setattr(lifecycle, name, gone_first(clip, getattr(lifecycle, name)))
    assert clip_job.render_clip(clip.id) == "withdrawn"
    assert no_frames_left(clip)
