"""A clip's frames as they are made: decoded a chunk at a time, rated and scaled as their pictures come, and
handed on before the render ends."""

from __future__ import annotations

import dataclasses

import numpy as np

from generation.frame_stream import StreamFrames, resize, to_rate
from generation.presets import get_preset
from generation.renderer import Renderer
from tests.helpers.generation import FPS, NO_CACHES, SIZE, request
from yolive.clips.frames import AIR_AHEAD_S


def test_frames_made_piece_by_piece_are_the_frames_made_at_once_and_none_comes_early():
    rng = np.random.default_rng(3)
    pictures = rng.integers(0, 255, (30, 12, 20, 3), dtype=np.uint8)
    kept, count = 24, 70  # 24 pictures at 8 fps give 70 frames at 24 fps (the last held); 6 more are spare
    rated = StreamFrames(kept=kept, rendered_fps=8, fps=24, count=count, width=40, height=24)
    given: list[np.ndarray] = []
    seen = 0
    for size in (3, 4, 1, 7, 2, 6, 7):  # 30 pictures in uneven pieces
        made = rated.push(pictures[seen : seen + size])
        seen += size
        come = min(seen, kept)
        for i in range(sum(map(len, given)), sum(map(len, given)) + len(made)):
            assert come == kept or int(i * 8 / 24) + 1 < come  # both pictures it blends had come
        given.append(made)
    assert rated.done
    at_once = resize(to_rate(pictures[:kept], 8, 24, count), 40, 24)
    assert np.array_equal(np.concatenate(given), at_once)


def test_a_clip_decoded_in_chunks_matches_one_decode_and_shows_no_seam():
    preset = get_preset("world")
    renderer = Renderer(preset, preset.build(), NO_CACHES)
    clip = dataclasses.replace(request("a penguin bouncing in the desert", seed=3), fps=24, num_frames=144)
    runs: list[int] = []
    pieces = renderer.render(clip, on_frames=lambda start, frames: runs.append(start)).frames.astype(float)
    renderer.first_latents = 100  # the whole clip in one decode
    whole = renderer.render(clip).frames.astype(float)

    assert len(runs) >= 2
    assert np.abs(pieces - whole).mean() < 2  # grey levels: the decoder sees one frame past each seam
    steps = np.abs(np.diff(whole, axis=0)).mean(axis=(1, 2, 3))
    for seam in runs[1:]:  # no jump at a seam larger than the clip's own largest step
        assert np.abs(pieces[seam] - pieces[seam - 1]).mean() <= steps.max()


def test_a_render_hands_on_its_frames_in_runs_the_first_long_enough_to_air(make_renderer):
    runs: list[tuple[int, np.ndarray]] = []
    seconds = 6
    longer = dataclasses.replace(request(), num_frames=FPS * seconds)
    result = make_renderer().render(longer, on_frames=lambda start, frames: runs.append((start, frames)))
    assert len(runs) >= 2  # so the first came while the rest was still decoding
    assert [start for start, _ in runs] == list(np.cumsum([0] + [len(f) for _, f in runs[:-1]]))
    assert np.array_equal(np.concatenate([f for _, f in runs]), result.frames)
    assert result.frames.shape == (FPS * seconds, SIZE, SIZE, 3)
    assert len(runs[0][1]) >= AIR_AHEAD_S * FPS  # the broadcaster may air it from the first run
