"""Block-causal passes with the rolling KV cache: block by block equals one masked pass of the whole clip,
the cache's memory is capped, and positions are what make it right."""

import pytest
import torch
from diffusers import LTXVideoTransformer3DModel

from generation.block_causal import BlockCausal, Grid, block_causal_mask
from generation.kv_cache import FrameKVCache

GRID = Grid(height=3, width=4, patch=1, spatial=8, seconds_a_frame=1.0)
FRAMES, SINK, WINDOW, LAYERS, WIDTH = 8, 1, 3, 2, 16


@pytest.fixture
def transformer() -> LTXVideoTransformer3DModel:
    torch.manual_seed(0)
    model = LTXVideoTransformer3DModel(
        in_channels=8,
        out_channels=8,
        patch_size=1,
        patch_size_t=1,
        num_attention_heads=2,
        attention_head_dim=8,
        cross_attention_dim=WIDTH,
        num_layers=LAYERS,
        caption_channels=8,
    )
    return model.eval()


def clip() -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    per_frame = torch.rand(1, FRAMES, 1, generator=g) * 1000  # each block at its own noise level
    return {
        "hidden_states": torch.randn(1, FRAMES * GRID.tokens, 8, generator=g),
        "encoder_hidden_states": torch.randn(1, 5, 8, generator=g),
        "encoder_attention_mask": torch.ones(1, 5),
        "timestep": per_frame.expand(1, FRAMES, GRID.tokens).reshape(1, -1),
    }


def block_by_block(transformer, cache: FrameKVCache, origin: int = 0, beside: bool = False) -> torch.Tensor:  # type: ignore[no-untyped-def]
    causal, inputs, outputs = BlockCausal(transformer, cache, GRID, sink_beside_window=beside), clip(), []
    causal.rebase(origin)
    tokens = slice(0, 0)
    for frame in range(FRAMES):
        tokens = slice(frame * GRID.tokens, (frame + 1) * GRID.tokens)
        with torch.no_grad(), causal.block(frame, fill=True) as coords:
            outputs.append(
                transformer(
                    hidden_states=inputs["hidden_states"][:, tokens],
                    encoder_hidden_states=inputs["encoder_hidden_states"],
                    encoder_attention_mask=inputs["encoder_attention_mask"],
                    timestep=inputs["timestep"][:, tokens],
                    video_coords=coords,
                    return_dict=False,
                )[0]
            )
    return torch.cat(outputs, dim=1)


def one_masked_pass(transformer) -> torch.Tensor:  # type: ignore[no-untyped-def]
    causal = BlockCausal(transformer, FrameKVCache(LAYERS, GRID.tokens, WIDTH, SINK, WINDOW), GRID)
    with torch.no_grad(), causal.masked(list(range(FRAMES))) as coords:
        return transformer(**clip(), video_coords=coords, return_dict=False)[0]


def test_block_by_block_with_the_cache_equals_one_block_causal_pass_of_the_whole_clip(transformer):
    cache = FrameKVCache(LAYERS, GRID.tokens, WIDTH, SINK, WINDOW)
    streamed = block_by_block(transformer, cache)
    assert (streamed - one_masked_pass(transformer)).abs().max() <= 1e-5
    assert cache.counters.evictions == FRAMES - SINK - WINDOW
    assert cache.pages_in_use == SINK + WINDOW
    assert cache.counters.fills == FRAMES * LAYERS


def test_cached_keys_at_positions_off_by_one_frame_give_another_result(transformer, monkeypatch):
    held = FrameKVCache.held
    monkeypatch.setattr(FrameKVCache, "held", lambda self, before: [f - 1 for f in held(self, before)])
    streamed = block_by_block(transformer, FrameKVCache(LAYERS, GRID.tokens, WIDTH, SINK, WINDOW))
    assert (streamed - one_masked_pass(transformer)).abs().max() > 1e-3


def test_the_mask_lets_a_frame_see_itself_the_sink_and_the_window_before_it():
    seen = block_causal_mask(list(range(6)), tokens=1, sink=1, window=2)
    assert seen[5].tolist() == [True, False, False, True, True, True]
    assert seen[1].tolist() == [True, True, False, False, False, False]
    assert not seen.triu(1).any()  # nothing from the future


def test_the_pool_keeps_its_sinks_and_the_newest_frames_and_never_grows():
    cache = FrameKVCache(layers=1, tokens=2, width=4, sink=2, window=3)
    size = cache.bytes
    for frame in range(600):  # ten minutes of one-second blocks
        page = cache.admit(frame)
        cache.write(0, page, torch.full((2, 4), float(frame)), torch.zeros(2, 4))
    assert sorted(f for f in cache.frames if f is not None) == [0, 1, 597, 598, 599]
    assert cache.counters.evictions == 600 - 5 and cache.bytes == size
    keys, _ = cache.read(0, before=600)
    assert keys[:, 0].tolist() == [0, 0, 1, 1, 597, 597, 598, 598, 599, 599]  # in time order


def test_int8_pages_take_a_quarter_of_the_memory_and_stay_close(transformer):
    exact = FrameKVCache(LAYERS, GRID.tokens, WIDTH, SINK, WINDOW)
    small = FrameKVCache(LAYERS, GRID.tokens, WIDTH, SINK, WINDOW, int8=True)
    assert small.bytes < 0.3 * exact.bytes
    reference, quantised = block_by_block(transformer, exact), block_by_block(transformer, small)
    error = (quantised - reference).abs().max() / reference.abs().max()
    assert 0 < error < 0.05


def test_moving_the_origin_of_time_changes_nothing_but_rounding(transformer):
    from_zero = block_by_block(transformer, FrameKVCache(LAYERS, GRID.tokens, WIDTH, SINK, WINDOW))
    moved = block_by_block(transformer, FrameKVCache(LAYERS, GRID.tokens, WIDTH, SINK, WINDOW), origin=-3)
    assert 0 < (moved - from_zero).abs().max() <= 1e-3


def test_blocks_made_against_the_cache_equal_blocks_that_recompute_their_context_at_every_step(transformer):
    from benchmarks.block_causal import recomputed_blocks
    from generation.block_causal import make_blocks

    inputs, sigmas = clip(), [1.0, 0.75, 0.5, 0.25]
    prompt = (inputs["encoder_hidden_states"], inputs["encoder_attention_mask"])

    def made(blocks) -> torch.Tensor:  # type: ignore[no-untyped-def]
        return torch.cat(list(blocks), dim=1)

    cache = FrameKVCache(LAYERS, GRID.tokens, WIDTH, sink=1, window=FRAMES)  # nothing evicted
    causal = BlockCausal(transformer, cache, GRID)
    with_cache = made(make_blocks(causal, prompt, range(FRAMES), sigmas, 8, torch.Generator().manual_seed(2)))
    causal = BlockCausal(transformer, FrameKVCache(LAYERS, GRID.tokens, WIDTH, 1, FRAMES), GRID)
    recomputed = made(
        recomputed_blocks(causal, prompt, range(FRAMES), sigmas, 8, torch.Generator().manual_seed(2))
    )
    assert (with_cache - recomputed).abs().max() <= 1e-5
    assert cache.counters.hits == LAYERS * (len(sigmas) + 1) * sum(range(FRAMES))  # every earlier frame, read


def test_a_sink_read_beside_the_window_sits_just_before_its_oldest_frame(transformer):
    cache = FrameKVCache(LAYERS, GRID.tokens, WIDTH, sink=2, window=3)
    beside = BlockCausal(transformer, cache, GRID, sink_beside_window=True)
    for frame in range(9):
        cache.admit(frame)
    assert beside.placed(cache.held(before=9)) == [4, 5, 6, 7, 8]  # sinks 0 and 1 read as 4 and 5
    assert BlockCausal(transformer, cache, GRID).placed(cache.held(before=9)) == [0, 1, 6, 7, 8]
    young = FrameKVCache(LAYERS, GRID.tokens, WIDTH, sink=2, window=3)
    for frame in range(4):
        young.admit(frame)
    assert BlockCausal(transformer, young, GRID, sink_beside_window=True).placed([0, 1, 2, 3]) == [0, 1, 2, 3]


def test_a_sink_read_beside_the_window_changes_a_long_stream_and_nothing_before_the_first_eviction(
    transformer,
):
    far = block_by_block(transformer, FrameKVCache(LAYERS, GRID.tokens, WIDTH, SINK, WINDOW))
    near = block_by_block(transformer, FrameKVCache(LAYERS, GRID.tokens, WIDTH, SINK, WINDOW), beside=True)
    before_eviction = (SINK + WINDOW + 1) * GRID.tokens  # the first frame that sees a gap behind its window
    assert torch.equal(far[:, :before_eviction], near[:, :before_eviction])
    assert (far[:, before_eviction:] - near[:, before_eviction:]).abs().max() > 1e-4
