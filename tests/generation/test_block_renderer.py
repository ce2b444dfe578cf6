"""The worker's block path on the shipped model: a stream goes on in the KV cache from clip to clip, re-cached
with each new prompt, started again from frames it did not make, in memory that never grows, and the cache
gives way in tiers when memory runs short."""

import numpy as np
import pytest
import torch

from generation import block_renderer
from generation.block_renderer import BlockRenderer, BlockSettings
from generation.model_folder import render_facts
from generation.presets import get_preset
from generation.renderer import OutOfMemoryGiveUp, RenderRequest
from tests.helpers.generation import NO_CACHES

FACTS = render_facts()
SECONDS = 2  # two blocks a continued clip at the model's 8 fps
LEAD = 9  # the previous frames a request carries (GENERATION_CONTINUITY_FRAMES)


def renderer(**settings) -> BlockRenderer:  # type: ignore[no-untyped-def]
    preset = get_preset("world")
    return BlockRenderer(preset, preset.build(), NO_CACHES, BlockSettings(**{"window": 2, **settings}))


def ask(prompt: str = "a kitten bouncing in the snow", before: np.ndarray | None = None) -> RenderRequest:
    return RenderRequest(
        prompt=prompt,
        seed=3,
        width=FACTS.width,
        height=FACTS.height,
        fps=FACTS.fps,
        num_frames=SECONDS * FACTS.fps,
        condition=None if before is None else before[-LEAD:],
        condition_lead=LEAD,
    )


def test_a_stream_goes_on_in_the_cache_and_its_memory_never_grows():
    stream = renderer()
    first = stream.render(ask())
    assert first.frames is not None and first.frames.shape == (16, FACTS.height, FACTS.width, 3)
    assert first.cache_stats["start"] == "new" and first.cache_stats["blocks"] == 4  # lead frames too
    made, bytes_ = [first.cache_stats["blocks"]], stream.cache.bytes
    before = first.frames
    for prompt in ("a rocket rising in space", "a puppy spinning on the beach", "a whale in the deep sea"):
        clip = stream.render(ask(prompt, before))
        assert clip.frames is not None and clip.frames.shape == first.frames.shape
        assert clip.cache_stats["start"] == "cache" and clip.cache_stats["blocks"] == 2
        assert stream.cache.bytes == bytes_ and stream.cache.pages_in_use == 3  # 1 sink + 2
        assert len(stream.latents) == 3  # what the cache holds, nothing more
        made.append(clip.cache_stats["blocks"])
        before = clip.frames
    assert stream.cache.counters.evictions == sum(made) - 3
    assert stream.cache.held(before=10**6) == [0, sum(made) - 2, sum(made) - 1]  # the sink and the newest


def test_each_clip_re_caches_the_window_with_its_prompt_unless_told_not_to():
    layers = get_preset("world").build().transformer.config.num_layers
    for recache, refilled in ((True, 3), (False, 0)):
        stream = renderer(recache=recache)
        first = stream.render(ask())
        sink_keys = stream.cache.keys[:, stream.cache.frames.index(0)].clone()
        clip = stream.render(ask("a rocket rising in space", first.frames))
        assert clip.cache_stats["kv_cache"]["fills"] == (refilled + 2) * layers
        changed = not torch.equal(stream.cache.keys[:, stream.cache.frames.index(0)], sink_keys)
        assert changed is recache  # the sink's keys were computed again under the new prompt


def test_frames_the_renderer_did_not_make_start_the_cache_again_from_them():
    stream = renderer()
    first = stream.render(ask())
    other = renderer().render(ask("a rocket rising in space")).frames  # another worker's clip
    clip = stream.render(ask("a puppy spinning on the beach", other))
    assert clip.cache_stats["start"] == "frames" and clip.frames is not None
    assert stream.cache.held(before=10**6) == [0, 2, 3]  # the lead's two latent frames, then the clip's
    assert stream.render(ask("a whale in the deep sea", first.frames)).cache_stats["start"] == "frames"


def test_a_skip_between_blocks_stops_the_clip_and_the_stream_starts_again():
    stream = renderer()
    first = stream.render(ask())
    calls = []
    stopped = stream.render(
        ask("a rocket", first.frames), on_step=lambda done, total: calls.append(done) or True
    )
    assert stopped.interrupted and stopped.frames is None and calls == [1]
    assert stream.cache.pages_in_use == 0
    assert stream.render(ask("a rocket", first.frames)).cache_stats["start"] == "frames"


@pytest.mark.parametrize(("failures", "levels", "window", "int8"), [(1, [1], 1, False), (2, [1, 2], 1, True)])
def test_out_of_memory_the_cache_gives_way_in_tiers(monkeypatch, failures, levels, window, int8):
    stream = renderer(window=2)
    real, calls = block_renderer.make_blocks, []

    def short_of_memory(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) <= failures:
            raise torch.OutOfMemoryError("CUDA out of memory")
        return real(*args, **kwargs)

    monkeypatch.setattr(block_renderer, "make_blocks", short_of_memory)
    result = stream.render(ask())
    assert result.frames is not None and result.oom_levels == levels
    assert (stream.cache.window, stream.cache.int8) == (window, int8)
    assert result.cache_stats["kv_cache"]["window"] == window


def test_out_of_memory_at_every_tier_gives_the_clip_up(monkeypatch):
    stream = renderer()

    def short_of_memory(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise torch.OutOfMemoryError("CUDA out of memory")

    monkeypatch.setattr(block_renderer, "make_blocks", short_of_memory)
    with pytest.raises(OutOfMemoryGiveUp):
        stream.render(ask())
