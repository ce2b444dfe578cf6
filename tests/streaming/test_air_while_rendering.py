"""A clip on air while its later seconds still render: a real broadcaster and ffmpeg, the frames store as the
worker writes it (frames as they are made, their count in the database)."""

from __future__ import annotations

import numpy as np
import pytest
from django.utils import timezone

from tests.helpers.streaming import FPS, SEGMENT, make_clip, moving_gradient, start_broadcaster
from yolive.clips import lifecycle
from yolive.clips.frames import AIR_AHEAD_S, GrowingFrames
from yolive.clips.models import Clip

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
CLIP_SECONDS = 3 * SEGMENT


def made_so_far(clip: Clip, growing: GrowingFrames, frames: np.ndarray, **fields: object) -> None:
    growing.write(frames)
    lifecycle.report_frames(clip.id, str(growing.path), growing.made, **fields)


def test_a_clip_airs_from_its_first_seconds_waits_on_filler_when_it_lags_and_airs_whole(tmp_path, settings):
    settings.CLIPS_DIR = tmp_path / "clips"
    clip = make_clip(tmp_path, 1, status=Clip.Status.RENDERING)
    video = moving_gradient(CLIP_SECONDS * FPS, hue=90)
    growing = GrowingFrames(clip.id, video.shape)
    first = int(AIR_AHEAD_S * FPS + 1)  # the first slot's frames and a little more, not the second's
    assert first < 2 * SEGMENT * FPS
    made_so_far(clip, growing, video[:first], airable_at=timezone.now())

    on_air = start_broadcaster(tmp_path, clip_seconds=CLIP_SECONDS)
    try:
        on_air.wait_for(lambda: on_air.clip_segments(clip.id), 30, "the clip's first seconds on air")
        opening = on_air.clip_segments(clip.id)[0]
        on_air.wait_for(lambda: on_air.segments[-1].sequence > opening.sequence, 30, "the next segment")
        lagging = on_air.segments[opening.sequence + 1 - on_air.segments[0].sequence]
        made_so_far(clip, growing, video[first:])
        path = growing.finish()
        lifecycle.finish_rendering(clip.id, Clip.Status.READY, frames_path=str(path), ready_at=timezone.now())
        on_air.wait_for(lambda: len(on_air.clip_segments(clip.id)) == 3, 30, "the rest of the clip")
        on_air.wait_for(lambda: Clip.objects.get(id=clip.id).archive_path, 30, "its replay")
    finally:
        on_air.finish()

    assert lagging.clip_id is None  # its second slot was not made: filler, not a stall
    assert [s.clip_id for s in on_air.segments].count(clip.id) == 3
    clip.refresh_from_db()
    assert clip.status == Clip.Status.AIRED and clip.aired_at is not None
    assert clip.archive_path  # the replay holds the whole clip, without the filler
