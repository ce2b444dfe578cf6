"""The worker's block path against its bidirectional path, clip after clip, as a stream airs them.

    python -m benchmarks.block_stream [--clips 12] [--warmup 2] [--seconds 10] [--window 6] [--folder PATH]
        [--threads 1]

A new prompt a clip, as the crowd's rounds give, through five renderers of the world model taking turns clip
by clip, each given the previous clip's last frames as the worker gives them (`GENERATION_CONTINUITY_FRAMES`):
- bidirectional: generation/renderer.py as the worker runs it by default (its caches; the previous clip's
  lead frames encoded again once that clip is made, generation/lead_cache.py, and denoised with the
  clip), decoding a few latent frames at a time;
- bidirectional, lead encoded at the start: the same with `GENERATION_LEAD_AHEAD` off, as before;
- bidirectional, one decode: the same, its clip decoded in one piece, as before clips aired while made;
- blocks, re-cached: generation/block_renderer.py (`GENERATION_BLOCKS`), the stream going on in its cache,
  the window re-cached with each clip's prompt;
- blocks, not re-cached: the same with `GENERATION_RECACHE` off.
Reported after `--warmup` clips: a clip's render seconds (p50: all, denoising, decoding) and their ratio to
the bidirectional path's; when its first frames were handed on (from them a clip may go on air); the seconds
spent encoding the next clip's lead between clips, where a path does; the seam, the
mean absolute difference (grey levels) between a clip's first frame and the previous clip's last, beside the
same between neighbouring frames inside the clips (p50 and p95); the block cache's bytes and the process's
resident memory after the warm-up and at the end. `--folder` reads another model folder (a fine-tune from
lab.experiments.diffusion_forcing); the shipped weights were trained bidirectionally, so with them the block
path's pictures are not the point, its costs are.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from benchmarks.instruments import resident_bytes
from generation.block_renderer import BlockRenderer, BlockSettings
from generation.model_folder import MODEL_DIR
from generation.presets import get_preset
from generation.presets.world import build
from generation.renderer import CacheSettings, Renderer, RenderRequest

PROMPTS = [
    "a kitten bouncing in the snow",
    "a rocket rising in space",
    "a puppy spinning on the beach",
    "a whale swimming in the deep sea",
    "a hot air balloon drifting over the city",
    "a red ball rolling in the desert",
]
WIDTH, HEIGHT, FPS, LEAD = 512, 288, 24, 9  # the stream's, as the worker renders for it


def differences(frames: np.ndarray) -> np.ndarray:
    """Mean absolute difference of each frame from the one before it."""
    pairs = frames.astype(np.int16)
    return np.abs(np.diff(pairs, axis=0)).mean(axis=(1, 2, 3))


def seam(before: np.ndarray, after: np.ndarray) -> float:
    return float(np.abs(after[0].astype(np.int16) - before[-1].astype(np.int16)).mean())


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.block_stream", description=__doc__)
    parser.add_argument("--clips", type=int, default=12, help="clips in the stream, each renderer")
    parser.add_argument("--warmup", type=int, default=2, help="clips left out of the figures")
    parser.add_argument("--seconds", type=int, default=10, help="a clip's length")
    parser.add_argument("--sink", type=int, default=1, help="frames the cache never evicts")
    parser.add_argument("--window", type=int, default=6, help="most recent frames the cache holds")
    parser.add_argument("--folder", type=Path, default=MODEL_DIR, help="the model folder")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args()
    if args.clips < max(args.warmup, 1) + 1 or args.warmup < 0 or args.seconds < 2:
        parser.error(
            "--clips must exceed --warmup (0 or more) and be at least 2; --seconds at least 2 (a clip holds "
            "the lead frames the next one continues from)"
        )
    torch.set_num_threads(args.threads)
    preset = get_preset("world")
    blocks = BlockSettings(sink=args.sink, window=args.window)
    renderers: dict[str, Renderer] = {  # each on its own copy of the model: they hook its attention
        "bidirectional": Renderer(preset, build(args.folder), CacheSettings()),
        "bidirectional, lead encoded at the start": Renderer(
            preset, build(args.folder), CacheSettings(lead=False)
        ),
        "bidirectional, one decode": Renderer(preset, build(args.folder), CacheSettings()),
        "blocks, re-cached": BlockRenderer(preset, build(args.folder), CacheSettings(), blocks),
        "blocks, not re-cached": BlockRenderer(
            preset, build(args.folder), CacheSettings(), BlockSettings(args.sink, args.window, recache=False)
        ),
    }
    renderers["bidirectional, one decode"].first_latents = 10**6
    print(
        f"world model from {args.folder}, {args.clips} clips of {args.seconds} s at {WIDTH}x{HEIGHT} "
        f"{FPS} fps, a cache of {args.sink} sink + {args.window} frames, "
        f"{torch.get_num_threads()} torch threads, {os.cpu_count()} CPUs\n"
    )
    seconds: dict[str, list[dict[str, float]]] = {name: [] for name in renderers}
    first_frames: dict[str, list[float]] = {name: [] for name in renderers}
    seams: dict[str, list[float]] = {name: [] for name in renderers}
    motion: dict[str, list[float]] = {name: [] for name in renderers}
    ahead: dict[str, list[float]] = {name: [] for name in renderers}  # the next lead, encoded between clips
    last: dict[str, np.ndarray | None] = dict.fromkeys(renderers)
    memory: dict[str, int] = {}
    for clip in range(args.clips):
        prompt = PROMPTS[clip % len(PROMPTS)]
        for name, renderer in renderers.items():
            before = last[name]
            request = RenderRequest(
                prompt,
                seed=clip,
                width=WIDTH,
                height=HEIGHT,
                fps=FPS,
                num_frames=args.seconds * FPS,
                condition=None if before is None else before[-renderer.condition_frames(FPS, LEAD) :],
                condition_lead=LEAD,
            )
            handed: list[float] = []
            started = time.perf_counter()
            result = renderer.render(request, on_frames=lambda *_, at=handed: at.append(time.perf_counter()))
            assert result.frames is not None
            if clip >= args.warmup and before is not None:
                seconds[name].append(result.timings)
                first_frames[name].append(handed[0] - started)
                seams[name].append(seam(before, result.frames))
                motion[name].extend(differences(result.frames))
            last[name] = result.frames
            began = time.perf_counter()
            if renderer.prepare_continuation(result.frames, FPS, WIDTH, HEIGHT, LEAD) and clip >= args.warmup:
                ahead[name].append(time.perf_counter() - began)
        if clip + 1 == args.warmup:
            memory["warm"] = resident_bytes()
    memory["end"] = resident_bytes()

    def p50(name: str, stage: str) -> float:
        return statistics.median(timings[stage] for timings in seconds[name])

    base = p50("bidirectional", "total")
    print(
        "| path | 10 s clip p50 (denoise, decode) | against bidirectional | first frames p50 | lead encoded "
        "ahead p50 | seam | inside clips p50 / p95 |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in renderers:
        total, inside = p50(name, "total"), np.percentile(motion[name], [50, 95])
        between = f"{statistics.median(ahead[name]):.2f} s" if ahead[name] else "-"
        print(
            f"| {name} | {total:.2f} s ({p50(name, 'denoising'):.2f}, {p50(name, 'decoding'):.2f}) | "
            f"{total / base:.2f}x | {statistics.median(first_frames[name]):.2f} s | {between} | "
            f"{statistics.mean(seams[name]):.1f} | {inside[0]:.1f} / {inside[1]:.1f} |"
        )
    cached = renderers["blocks, re-cached"]
    assert isinstance(cached, BlockRenderer)
    print(
        f"\nblock cache: {cached.cache.pages_in_use} of {args.sink + args.window} frames held, "
        f"{cached.cache.bytes / 2**10:.0f} KiB, {cached.cache.counters.evictions} frames evicted; resident "
        f"memory {memory.get('warm', 0) / 2**20:.0f} MiB after the warm-up, {memory['end'] / 2**20:.0f} MiB "
        f"after {args.clips} clips (all {len(renderers)} renderers)"
    )


if __name__ == "__main__":
    main()
