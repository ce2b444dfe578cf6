"""Block-causal generation with the rolling KV cache, timed on the default model's transformer.

    python -m benchmarks.block_causal [--blocks 120] [--warmup 10] [--sink 1] [--window 6] [--int8]
        [--threads 1]

One stream of `--blocks` latent frames (a second each at the default model's 8 fps) made block by block
against the cache (generation/block_causal.py), beside the same with the cache off, where every step of a
block recomputes the frames the cache would hold in one block-causal pass over the sink, the window and the
block; the two take turns, block by block. Reported after `--warmup` blocks: each block's seconds (p50, p95)
as a share of the second it plays for, the cache-off to cache-on ratio, pages read a block, and the cache's
pages, bytes and evictions with the process's resident memory after the first minute and at the end; the
largest difference between blocks made against the cache and one block-causal pass over twice the cache's
frames; and, in the same run, a 10-second clip of the world preset as the worker renders it today
(bidirectional, default caches).

The shipped weights were trained bidirectionally: these are costs, not pictures. Decoding a block through
the VAE is not counted (its decoder is not causal yet).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import time
from collections.abc import Iterator

import torch

from benchmarks.instruments import resident_bytes
from generation.block_causal import BlockCausal, cache_for, grid_of, make_blocks
from generation.kv_cache import FrameKVCache
from generation.pipeline import velocity
from generation.presets import get_preset
from generation.renderer import CacheSettings, Renderer, RenderRequest

PROMPT = "a cat bouncing in the snow"
MINUTE = 60  # blocks in the first minute of the stream


def recomputed_blocks(
    causal: BlockCausal,
    prompt: tuple[torch.Tensor, torch.Tensor],
    frames: range,
    sigmas: list[float],
    channels: int,
    generator: torch.Generator,
) -> Iterator[torch.Tensor]:
    """make_blocks with the cache off: each step of a block is one block-causal pass over the frames the
    cache would hold (clean, at timestep 0) and the block."""
    tokens = causal.grid.tokens
    finished: dict[int, torch.Tensor] = {}
    for frame in frames:
        context = [f for f in finished if f < causal.cache.sink or f >= frame - causal.cache.window]
        x = torch.randn(1, tokens, channels, generator=generator)
        for now, after in itertools.pairwise([*sigmas, 0.0]):
            hidden = torch.cat([*(finished[f] for f in context), x], dim=1)
            timestep = torch.cat(
                [torch.zeros(1, tokens * len(context)), torch.full((1, tokens), now * 1000)], 1
            )
            with torch.no_grad(), causal.masked([*context, frame]) as coords:
                out = velocity(causal.transformer, hidden, prompt, timestep, coords)
            x = x + (after - now) * out[:, -tokens:]
        torch.randn(x.shape, generator=generator)  # make_blocks' draw for its fill pass: the same noise
        finished[frame] = x
        for old in [f for f in finished if f not in context and f != frame]:
            del finished[old]
        yield x


@torch.no_grad()
def largest_difference(causal: BlockCausal, prompt: tuple[torch.Tensor, torch.Tensor], frames: int) -> float:
    """Block by block against the cache (each block filling it) against one block-causal pass of all
    `frames`, on the same random latents and per-frame timesteps: the largest difference of the outputs."""
    g = torch.Generator().manual_seed(3)
    tokens, channels = causal.grid.tokens, causal.transformer.config.in_channels
    hidden = torch.randn(1, frames * tokens, channels, generator=g)
    timestep = (torch.rand(frames, 1, generator=g) * 1000).expand(frames, tokens).reshape(1, -1)
    with causal.masked(list(range(frames))) as coords:
        whole = velocity(causal.transformer, hidden, prompt, timestep, coords)
    blocks = []
    for frame in range(frames):
        part = slice(frame * tokens, (frame + 1) * tokens)
        with causal.block(frame, fill=True) as coords:
            blocks.append(velocity(causal.transformer, hidden[:, part], prompt, timestep[:, part], coords))
    return float((torch.cat(blocks, dim=1) - whole).abs().max())


def seconds_for(blocks: Iterator[torch.Tensor]) -> float:
    started = time.perf_counter()
    next(blocks)
    return time.perf_counter() - started


def share(seconds: list[float], playing: float) -> str:
    p50 = statistics.median(seconds)
    p95 = statistics.quantiles(seconds, n=20)[-1] if len(seconds) >= 20 else max(seconds)
    return f"{1000 * p50:.1f} / {1000 * p95:.1f} ms ({100 * p50 / playing:.1f} / {100 * p95 / playing:.1f} %)"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.block_causal", description=__doc__)
    parser.add_argument(
        "--blocks", type=int, default=120, help="latent frames in the stream (one second each)"
    )
    parser.add_argument("--warmup", type=int, default=10, help="blocks left out of the timings")
    parser.add_argument("--sink", type=int, default=1, help="frames the cache never evicts")
    parser.add_argument("--window", type=int, default=6, help="most recent frames the cache holds")
    parser.add_argument("--int8", action="store_true", help="keys and values stored as int8")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args()
    if args.blocks <= args.warmup or args.warmup < 0 or args.sink < 0 or args.window < 1:
        parser.error("--blocks must exceed --warmup (0 or more), --sink be 0 or more and --window 1 or more")
    torch.set_num_threads(args.threads)
    preset = get_preset("world")
    pipe = preset.build()
    grid = grid_of(pipe)
    sigmas = [t / 1000 for t in preset.timesteps]
    embeds, mask, _, _ = pipe.encode_prompt(
        PROMPT, do_classifier_free_guidance=False, max_sequence_length=preset.max_sequence_length
    )
    prompt = (embeds, mask)
    channels = pipe.transformer.config.in_channels
    playing = grid.seconds_a_frame
    print(
        f"world transformer, {grid.tokens} tokens a block, {len(sigmas)} steps and a fill pass a block, "
        f"cache of {args.sink} sink + {args.window} frames{' (int8)' if args.int8 else ''}, "
        f"{args.blocks} blocks, {torch.get_num_threads()} torch threads, {os.cpu_count()} CPUs\n"
    )

    # Each way on its own copy of the model (the attention is installed per transformer), taking turns
    # block by block for as long as the slow one runs, so that a noisy machine slows both alike.
    def new_cache() -> FrameKVCache:
        return cache_for(pipe.transformer, grid, args.sink, args.window, args.int8)

    cache = new_cache()
    causal = BlockCausal(pipe.transformer, cache, grid)
    uncached = BlockCausal(preset.build().transformer, new_cache(), grid)
    off_blocks = min(args.blocks, args.warmup + 30)  # enough for a median: the cache off is slow
    made = make_blocks(causal, prompt, range(args.blocks), sigmas, channels, torch.Generator().manual_seed(0))
    remade = recomputed_blocks(
        uncached, prompt, range(off_blocks), sigmas, channels, torch.Generator().manual_seed(0)
    )
    memory: dict[str, int] = {}
    cached: list[float] = []
    recomputed: list[float] = []
    for block in range(args.blocks):
        cached.append(seconds_for(made))
        if block < off_blocks:
            recomputed.append(seconds_for(remade))
        if block + 1 == MINUTE:
            memory["minute 1"], memory["cache at minute 1"] = resident_bytes(), cache.bytes
    memory["end"], memory["cache at end"] = resident_bytes(), cache.bytes
    hits_per_block = cache.counters.hits / args.blocks

    exact = BlockCausal(uncached.transformer, new_cache(), grid)
    difference = largest_difference(exact, prompt, frames=2 * (args.sink + args.window))

    renderer = Renderer(preset, preset.build(), CacheSettings())
    request = RenderRequest(PROMPT, seed=1, width=512, height=288, fps=24, num_frames=240)
    renderer.render(request)  # warm-up
    clip = renderer.render(request).timings

    on, off = cached[args.warmup :], recomputed[args.warmup :]
    print("| what | per block p50 / p95 (share of its second on air) |")
    print("| --- | --- |")
    print(f"| block-causal, cache on | {share(on, playing)} |")
    print(f"| block-causal, cache off (recomputes the window every step) | {share(off, playing)} |")
    paired = statistics.median(off) / statistics.median(cached[args.warmup : len(recomputed)])
    print(f"\ncache off / cache on, medians of the blocks they took turns on: {paired:.2f}x")
    print(
        f"block by block against the cache, against one block-causal pass of {2 * (args.sink + args.window)} "
        f"frames (float32, evicting): largest difference {difference:.1e}"
    )
    print(f"10 s of blocks (transformer only): {10 * statistics.median(on):.2f} s with the cache")
    print(
        f"10 s clip of the bidirectional preset, as the worker renders it: {clip['total']:.2f} s "
        f"(denoising {clip['denoising']:.2f} s, decoding {clip['decoding']:.2f} s)"
    )
    print(
        f"\ncache: {cache.pages_in_use} pages of {args.sink + args.window}, {cache.bytes / 2**10:.0f} KiB, "
        f"{cache.counters.fills} pages filled, {cache.counters.evictions} frames evicted "
        f"(blocks - pages = {args.blocks - cache.pages_in_use}), {hits_per_block:.1f} pages read a block"
    )
    if "minute 1" in memory:
        print(
            f"after minute 1: cache {memory['cache at minute 1'] / 2**10:.0f} KiB, resident "
            f"{memory['minute 1'] / 2**20:.1f} MiB; after {args.blocks} blocks: cache "
            f"{memory['cache at end'] / 2**10:.0f} KiB, resident {memory['end'] / 2**20:.1f} MiB"
        )


if __name__ == "__main__":
    main()
