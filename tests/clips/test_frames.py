"""The frames store: where a clip's frames are, whole or not at all, and gone once they are spent."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from tests.helpers.streaming import make_clip
from yolive.clips import frames
from yolive.clips.models import Clip


def test_stored_frames_are_whole_and_their_last_ones_can_be_read(settings, tmp_path):
    settings.CLIPS_DIR = tmp_path
    video = np.random.default_rng(0).integers(0, 255, (6, 8, 10, 3), dtype=np.uint8)
    path = frames.store_frames(7, video)
    assert path == tmp_path / "7.npy" and frames.frames_shape(path) == (6, 8, 10, 3)
    assert np.array_equal(frames.last_frames(path, 2), video[-2:])
    assert frames.last_frames(path, 7) is None  # fewer frames than asked for
    assert not list(tmp_path.glob("*.partial"))


def test_only_rgb_video_is_stored(settings, tmp_path):
    settings.CLIPS_DIR = tmp_path
    with pytest.raises(ValueError, match="frames must be"):
        frames.store_frames(1, np.zeros((2, 4, 4), dtype=np.uint8))
    assert not list(tmp_path.iterdir())


def test_relative_frame_paths_are_found_under_the_media_folder(settings, tmp_path):
    settings.MEDIA_DIR = tmp_path
    settings.CLIPS_DIR = tmp_path / "clips"
    (tmp_path / "clips").mkdir()
    (tmp_path / "clips" / "3.npy").write_bytes(b"")
    assert frames.locate("clips/3.npy") == tmp_path / "clips" / "3.npy"
    assert frames.locate("3.npy") == tmp_path / "clips" / "3.npy"
    assert str(frames.locate("/elsewhere/3.npy")) == "/elsewhere/3.npy"


@pytest.mark.django_db
def test_raw_frames_of_clips_that_aired_a_while_ago_are_deleted(tmp_path):
    old = make_clip(tmp_path, 1, frames=2)
    recent = make_clip(tmp_path, 2, frames=2)
    waiting = make_clip(tmp_path, 3, frames=2)
    now = timezone.now()
    Clip.objects.filter(id=old.id).update(status=Clip.Status.AIRED, finished_at=now - timedelta(minutes=20))
    Clip.objects.filter(id=recent.id).update(status=Clip.Status.AIRED, finished_at=now - timedelta(minutes=1))

    assert frames.drop_spent(now - timedelta(minutes=10)) == 1
    recent.refresh_from_db()
    assert not (tmp_path / f"clip-{old.id}.npy").exists()
    assert Clip.objects.get(id=old.id).frames_path == ""
    assert (tmp_path / f"clip-{recent.id}.npy").exists() and recent.frames_path
    assert (tmp_path / f"clip-{waiting.id}.npy").exists()


def test_a_growing_clip_can_be_read_while_it_is_written_and_lands_whole(settings, tmp_path):
    settings.CLIPS_DIR = tmp_path
    video = np.random.default_rng(1).integers(0, 255, (6, 8, 10, 3), dtype=np.uint8)
    growing = frames.GrowingFrames(7, video.shape)
    assert growing.path.name.endswith(".partial") and not frames.frames_path(7).exists()
    growing.write(video[:2])
    reader = np.load(growing.path, mmap_mode="r")  # the broadcaster, airing the first frames
    assert reader.shape == video.shape and np.array_equal(reader[:2], video[:2])
    growing.write(video[2:])
    assert np.array_equal(reader[2:], video[2:])  # the same file, seen as it fills

    assert growing.finish() == frames.frames_path(7)
    assert np.array_equal(np.load(frames.frames_path(7)), video) and np.array_equal(reader, video)
    assert not list(tmp_path.glob("*.partial"))


def test_a_growing_clip_is_not_whole_until_every_frame_is_written(settings, tmp_path):
    settings.CLIPS_DIR = tmp_path
    growing = frames.GrowingFrames(7, (3, 4, 4, 3))
    growing.write(np.zeros((2, 4, 4, 3), np.uint8))
    with pytest.raises(ValueError, match="2 of 3 frames"):
        growing.finish()
    with pytest.raises(ValueError, match="frames up to 4"):
        growing.write(np.zeros((2, 4, 4, 3), np.uint8))
    growing.write(np.ones((2, 4, 4, 3), np.uint8), start=0)  # a render that started again
    assert growing.made == 2
    growing.discard()
    assert not list(tmp_path.iterdir())


def test_a_new_attempt_replaces_an_earlier_attempts_file_without_pulling_it_from_its_reader(
    settings, tmp_path
):
    settings.CLIPS_DIR = tmp_path
    earlier = frames.GrowingFrames(7, (2, 4, 4, 3))
    earlier.write(np.full((1, 4, 4, 3), 5, np.uint8))
    reader = np.load(earlier.path, mmap_mode="r")
    stale = tmp_path / ".7.npy.99999.partial"  # a dead worker's
    earlier.path.rename(stale)

    again = frames.GrowingFrames(7, (2, 4, 4, 3))
    assert not stale.exists() and again.path.exists()
    assert reader[0, 0, 0, 0] == 5  # still readable where it is mapped


def test_a_clip_may_air_once_enough_of_it_is_made():
    fps = 24
    ahead = int(frames.AIR_AHEAD_S * fps + 0.999)
    assert not frames.airable(0, 240, fps) and not frames.airable(ahead - 1, 240, fps)
    assert frames.airable(ahead, 240, fps)
    assert frames.airable(12, 12, fps)  # a clip shorter than that, once whole
