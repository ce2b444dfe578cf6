import numpy as np
import pytest

from streaming import picture
from tests.helpers.streaming import HEIGHT, WIDTH, moving_gradient


def test_a_caption_changes_only_the_band_at_the_bottom():
    frame = moving_gradient(1, hue=90)[0]
    caption = picture.caption("a fox crosses a frozen lake at dawn", WIDTH, HEIGHT)
    out = caption.apply(frame)
    assert out.shape == frame.shape and out.dtype == np.uint8
    assert np.array_equal(out[: caption.top], frame[: caption.top])
    assert not np.array_equal(out[caption.top :], frame[caption.top :])
    assert caption.top > HEIGHT // 2  # a lower third, not a curtain
    assert (out[caption.top :] == 255).all(axis=2).sum() > 100  # white letters were drawn


def test_a_long_prompt_is_wrapped_to_two_lines_and_ellipsised():
    face = picture.font(picture.BOLD, 18)
    lines = picture.wrap("word " * 200, face, 400, max_lines=2)
    assert len(lines) == 2
    assert lines[-1].endswith("…")
    assert all(face.getlength(line) <= 400 for line in lines)


def test_the_slate_shows_progress_over_the_last_frame_dimmed():
    last = np.full((HEIGHT, WIDTH, 3), 240, dtype=np.uint8)
    half = picture.slate(WIDTH, HEIGHT, "Rendering round 3", "a fox", 0.5, last)
    full = picture.slate(WIDTH, HEIGHT, "Rendering round 3", "a fox", 1.0, last)
    assert half.shape == (HEIGHT, WIDTH, 3)
    assert half[5, 5].max() < 100  # dimmed, so the text reads
    assert (half != full).any()  # the bar moved
    blank = picture.slate(WIDTH, HEIGHT, "Waiting", "", None, None)
    assert len(np.unique(blank.reshape(-1, 3), axis=0)) > 20  # a gradient and text, not a flat colour


def test_clip_frames_are_memory_mapped_and_their_last_frame_is_held(tmp_path):
    path = tmp_path / "clip.npy"
    np.save(path, moving_gradient(5, hue=10))
    frames = picture.load_clip_frames(path, WIDTH, HEIGHT)
    assert isinstance(frames, np.memmap)
    assert np.array_equal(picture.clip_frame(frames, 99), frames[4])


@pytest.mark.parametrize(
    "array",
    [
        np.zeros((3, 100, 100, 3), dtype=np.uint8),
        np.zeros((3, HEIGHT, WIDTH, 3), dtype=np.float32),
        np.zeros((0, HEIGHT, WIDTH, 3), dtype=np.uint8),
        np.zeros((HEIGHT, WIDTH, 3), dtype=np.uint8),
    ],
)
def test_frames_of_the_wrong_shape_are_refused_with_a_clear_error(tmp_path, array):
    path = tmp_path / "clip.npy"
    np.save(path, array)
    with pytest.raises(picture.BadClipFrames, match="the stream needs"):
        picture.load_clip_frames(path, WIDTH, HEIGHT)


def test_a_missing_frame_file_is_a_clear_error(tmp_path):
    with pytest.raises(picture.BadClipFrames, match="cannot read"):
        picture.load_clip_frames(tmp_path / "gone.npy", WIDTH, HEIGHT)
