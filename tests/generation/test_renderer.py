"""The renderer on the real tiny pipeline: determinism, smooth frames, continuity, stopping, out-of-memory."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from generation.frame_stream import to_rate
from generation.presets import get_preset
from generation.renderer import OOM_COUNTS, CacheSettings, OutOfMemoryGiveUp, rendered_frames
from tests.helpers.generation import FRAMES, SIZE, RunsOutOfMemory, request


def test_a_clip_has_the_asked_frames_at_the_asked_size(make_renderer):
    result = make_renderer().render(request())
    assert result.frames.shape == (FRAMES, SIZE, SIZE, 3) and result.frames.dtype == np.uint8
    assert set(result.timings) == {"text_encoding", "denoising", "decoding", "total", "seconds"}


def test_the_same_seed_gives_the_same_clip_and_another_seed_another(make_renderer):
    first = make_renderer().render(request(seed=11))
    again = make_renderer().render(request(seed=11))  # a fresh process would build the same weights
    other = make_renderer().render(request(seed=12))
    assert np.array_equal(first.frames, again.frames)
    assert not np.array_equal(first.frames, other.frames)


def test_tiny_frames_are_smooth_motion_not_noise(make_renderer):
    frames = make_renderer().render(request()).frames.astype(np.float64)
    spread = frames.std()
    across = np.abs(np.diff(frames, axis=2)).mean()  # neighbouring pixels
    along = np.abs(np.diff(frames, axis=0)).mean()  # neighbouring frames
    assert spread > 10  # there is something to see
    assert across < spread / 5 and along < spread / 3  # white noise would have both above the spread
    assert along > 0  # and it moves


def test_continuity_brings_the_first_frames_close_to_the_previous_clip_end(make_renderer):
    renderer = make_renderer()
    previous = renderer.render(request(prompt="a lighthouse", seed=1)).frames
    tail = previous[-9:]
    alone = renderer.render(request(prompt="a whale", seed=2)).frames
    continued = renderer.render(request(prompt="a whale", seed=2, condition=tail)).frames

    def distance(frames: np.ndarray) -> float:
        return float(np.abs(frames[:3].astype(np.float64) - previous[-1]).mean())

    assert distance(continued) < distance(alone) / 2
    assert continued.shape == alone.shape  # what airs is the same length either way


def test_conditioning_needs_8k_plus_1_frames(make_renderer):
    with pytest.raises(ValueError, match="8k\\+1"):
        make_renderer().render(request(condition=np.zeros((4, SIZE, SIZE, 3), np.uint8)))


def test_rendered_frames_cover_the_clip_after_the_lead_frames():
    assert rendered_frames(240, 1, 8) == 241
    assert rendered_frames(240, 9, 8) == 249
    assert rendered_frames(16, 1, 8) == 17
    assert rendered_frames(80, 9, 4) == 89


def test_frames_rendered_at_a_lower_rate_are_blended_up_to_the_streams():
    frames = np.stack([np.full((2, 2, 3), v, np.uint8) for v in (0, 30, 60)])
    out = to_rate(frames, 8, 24, 9)
    assert [int(f[0, 0, 0]) for f in out] == [0, 10, 20, 30, 40, 50, 60, 60, 60]
    assert np.array_equal(to_rate(frames, 24, 24, 2), frames[:2])


def test_a_condition_at_the_streams_rate_gives_its_last_frames_at_the_rendered_rate(make_renderer):
    renderer = make_renderer()
    renderer.preset = dataclasses.replace(renderer.preset, render_fps=8)
    stream = np.arange(25)[:, None, None, None].repeat(2, 1).repeat(2, 2).repeat(3, 3).astype(np.uint8)
    assert renderer.condition_frames(24, 9) == 25
    picked = renderer.lead_frames(stream, 24, 9)
    assert [int(f[0, 0, 0]) for f in picked] == list(range(0, 25, 3))
    with pytest.raises(ValueError, match="25 frames"):
        renderer.lead_frames(stream[:20], 24, 9)


def test_a_stop_request_ends_the_render_within_one_step(make_renderer):
    renderer = make_renderer()
    seen: list[int] = []

    def on_step(done: int, total: int) -> bool:
        seen.append(done)
        return done == 2

    result = renderer.render(request(), on_step)
    blocks = len(renderer.pipe.transformer.transformer_blocks)
    assert result.interrupted and result.frames is None
    assert seen == [1, 2]
    assert result.cache_stats["self_attention_computed"] == 2 * blocks  # no transformer work after the stop


def test_progress_is_reported_after_every_step(make_renderer):
    seen: list[tuple[int, int]] = []
    make_renderer().render(request(), lambda done, total: seen.append((done, total)) or False)
    steps = get_preset("tiny").steps
    assert seen == [(n, steps) for n in range(1, steps + 1)]


def test_out_of_memory_once_frees_the_caches_and_retries_at_full_quality(make_renderer):
    renderer = make_renderer(CacheSettings())
    renderer.embeddings.get("warm the cache")
    expected = make_renderer(CacheSettings()).render(request()).frames
    before = OOM_COUNTS[1]
    RunsOutOfMemory(renderer.pipe.transformer, times=1)
    result = renderer.render(request())
    assert result.oom_levels == [1] and OOM_COUNTS[1] == before + 1
    assert len(renderer.embeddings) == 1  # emptied, then the retry encoded its own prompt again
    assert not result.cache_stats["degraded"]
    assert np.array_equal(result.frames, expected)


def test_out_of_memory_twice_renders_with_fewer_steps_and_a_smaller_size(make_renderer):
    renderer = make_renderer()
    RunsOutOfMemory(renderer.pipe.transformer, times=2)
    result = renderer.render(request())
    assert result.oom_levels == [1, 2]
    assert result.cache_stats["degraded"] and result.cache_stats["steps"] < get_preset("tiny").steps
    assert result.frames.shape == (FRAMES, SIZE, SIZE, 3)  # still the stream's size and length


def test_out_of_memory_three_times_gives_the_clip_up(make_renderer):
    renderer = make_renderer()
    before = OOM_COUNTS[3]
    RunsOutOfMemory(renderer.pipe.transformer, times=3)
    with pytest.raises(OutOfMemoryGiveUp):
        renderer.render(request())
    assert OOM_COUNTS[3] == before + 1
