"""Generation benchmark: the same 10-second clip under each cache setting, measured side by side.

    python -m benchmarks.generation [--rounds 3] [--threads N]      (the default model, beside the stand-in)
    python -m benchmarks.generation --preset tiny
    python -m benchmarks.generation --preset ltx --random-weights [--compile] [--device cuda]
    python -m benchmarks.generation --preset ltx --random-weights --device cpu --size 64x64 --frames 8 (smoke)

Every setting gets its own renderer (same seeded weights), one warm-up render of another prompt, then
`rounds` timed renders of the clip, the settings taking turns within each round so that a noisy machine
slows them alike. The best of the rounds counts (noise only ever adds time), with the median beside it, and
the process CPU seconds too, which other processes disturb far less. Reported: render seconds, real-time
factor (render / clip length), speed-up over no cache from the same run, largest pixel difference and PSNR
against no cache, cross-attention K/V projections per clip, self-attention really computed, and peak
memory during a render (peak resident memory above the level before the render on a CPU; peak allocated
memory on a GPU). Then the embedding cache's hit rate over a simulated stream of winning prompts, and a
FirstBlockCache threshold sweep.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import torch

from benchmarks import charts
from benchmarks.instruments import psnr, resident_bytes
from generation.embeddings import PromptEmbeddingCache
from generation.presets import Preset, get_preset
from generation.renderer import CacheSettings, Renderer, RenderRequest

CLIP_PROMPT = "a paper boat drifts down a flooded neon street at night"
WARMUP_PROMPT = "a lighthouse in a storm"
SETTINGS = {
    "none": CacheSettings(embeddings=0, text_kv=False, lead=False, step="none"),
    "embeddings": CacheSettings(embeddings=256, text_kv=False, step="none"),
    "text K/V": CacheSettings(embeddings=0, text_kv=True, step="none"),
    "FBC": CacheSettings(embeddings=0, text_kv=False, step="fbc"),
    "PAB": CacheSettings(embeddings=0, text_kv=False, step="pab"),
    "TaylorSeer": CacheSettings(embeddings=0, text_kv=False, step="taylorseer"),
    "all (default)": CacheSettings(embeddings=256, text_kv=True, step="fbc"),
    "all but embeddings": CacheSettings(embeddings=0, text_kv=True, step="fbc"),
    "all but text K/V": CacheSettings(embeddings=256, text_kv=False, step="fbc"),
    "all but step cache": CacheSettings(embeddings=256, text_kv=True, step="none"),
}
FBC_SWEEP = (0.02, 0.05, 0.1, 0.2)
PSNR_CEILING = 60.0  # dB; frames equal to the uncached ones (infinite PSNR) are charted here


@contextmanager
def peak_memory(device: str) -> Iterator[list[float]]:
    """Yields a one-item list that holds the peak MiB above the starting level once the block ends."""
    out = [0.0]
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        yield out
        torch.cuda.synchronize()
        out[0] = (torch.cuda.max_memory_allocated() - base) / 2**20
        return
    base, peak, stop = resident_bytes(), [0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], resident_bytes())
            stop.wait(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    yield out
    stop.set()
    sampler.join()
    out[0] = max(0, max(peak[0], resident_bytes()) - base) / 2**20


def clip_request(args: argparse.Namespace, prompt: str = CLIP_PROMPT) -> RenderRequest:
    return RenderRequest(
        prompt, seed=1234, width=args.width, height=args.height, fps=24, num_frames=args.frames
    )


def measure(
    build: Callable[[], Any], preset: Preset, settings: dict[str, CacheSettings], args: argparse.Namespace
) -> dict[str, dict[str, Any]]:
    return take_turns({name: Renderer(preset, build(), caches) for name, caches in settings.items()}, args)


def take_turns(renderers: dict[str, Renderer], args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Each renderer's warm-up, then `args.rounds` timed renders of the clip, the renderers taking turns."""
    for renderer in renderers.values():
        renderer.render(clip_request(args, WARMUP_PROMPT))
    rows: dict[str, dict[str, Any]] = {name: {"times": [], "cpu": [], "memory": []} for name in renderers}
    order = list(renderers)
    for round_ in range(args.rounds):
        for name in order[round_ % len(order) :] + order[: round_ % len(order)]:
            with peak_memory(args.device) as memory:
                started, cpu = time.perf_counter(), time.process_time()
                result = renderers[name].render(clip_request(args))
                elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
            row = rows[name]
            row["times"].append(elapsed)
            row["cpu"].append(cpu)
            row["memory"].append(memory[0])
            row.setdefault("frames", result.frames)
            row["stats"] = result.cache_stats
    return rows


def report(
    rows: dict[str, dict[str, Any]], args: argparse.Namespace, title: str, base_row: str = "none"
) -> None:
    base = rows[base_row]
    base_time, base_cpu = min(base["times"]), min(base["cpu"])
    seconds = args.frames / 24
    print(f"\n### {title}\n")
    print(
        "| setting | render s (best) | render s (median) | real-time factor "
        f"| speed-up vs {base_row} | CPU s | CPU speed-up | max pixel diff | PSNR dB "
        "| K/V projections per clip | self-attention computed | peak memory MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, row in rows.items():
        took, cpu = min(row["times"]), min(row["cpu"])
        stats = row["stats"]
        diff = int(np.abs(row["frames"].astype(np.int16) - base["frames"].astype(np.int16)).max())
        quality = psnr(row["frames"], base["frames"])
        full = stats["steps"] * (stats["self_attention_full"] // max(1, stats["steps_done"]))
        kv = stats.get("kv_projected", full)
        print(
            f"| {name} | {took:.2f} | {statistics.median(row['times']):.2f} | {took / seconds:.3f} | "
            f"{base_time / took:.2f}x | {cpu:.2f} | {base_cpu / cpu:.2f}x | {diff} | {quality:.1f} | "
            f"{kv} of {full} | {stats['self_attention_computed']} of {stats['self_attention_full']} | "
            f"{max(row['memory']):.0f} |"
        )


def prompt_stream(rounds: int, seed: int = 7) -> Iterator[str]:
    """Winning prompts of a simulated channel: a third of rounds fall back to a house prompt, popular
    viewer prompts win again (Zipf), often retyped with other case or spacing, and the rest are new."""
    rng = random.Random(seed)
    house = [f"house story beat number {n}: the city wakes up" for n in range(12)]
    favourites = [f"favourite prompt {n}: a cat astronaut floats past the moon" for n in range(40)]
    weights = [1 / (rank + 1) for rank in range(len(favourites))]
    for number in range(rounds):
        draw = rng.random()
        if draw < 0.33:
            yield rng.choice(house)
        elif draw < 0.73:
            text = rng.choices(favourites, weights)[0]
            yield text.upper() if rng.random() < 0.2 else text.replace(" ", "  ", 1)
        else:
            yield f"a brand new idea {number} from a viewer"


def embedding_hit_rate(pipe: Any, preset: Preset, rounds: int = 300) -> None:
    cache = PromptEmbeddingCache(pipe, capacity=256, max_sequence_length=preset.max_sequence_length)
    hit_s: list[float] = []
    miss_s: list[float] = []
    for text in prompt_stream(rounds):
        hits = cache.stats.hits
        started = time.perf_counter()
        cache.get(text)
        (hit_s if cache.stats.hits > hits else miss_s).append(time.perf_counter() - started)
    print(
        f"\nEmbedding cache over {rounds} simulated winners (LRU 256): hit rate {cache.stats.hit_rate:.1%}; "
        f"text encoding {statistics.median(miss_s) * 1000:.2f} ms on a miss, "
        f"{statistics.median(hit_s) * 1000:.3f} ms on a hit"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--preset", default="world", choices=("world", "tiny", "ltx"))
    parser.add_argument("--random-weights", action="store_true", help="ltx: full-size model, random weights")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--rounds", type=int, default=5)
    # One thread by default: on a shared 2-core machine two OpenMP threads spin against other processes
    # and the wall-clock figures swing by several times (measured); --threads 2 on a quiet machine.
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's default)")
    parser.add_argument("--size", default="", help="WxH (default: the preset's stream size)")
    parser.add_argument("--frames", type=int, default=240, help="frames that air (240 = 10 s at 24 fps)")
    parser.add_argument("--layers", type=int, default=28, help="ltx --random-weights: transformer blocks")
    parser.add_argument("--compile", action="store_true", help="ltx: also time compile_repeated_blocks")
    parser.add_argument(
        "--charts", type=Path, default=charts.CHARTS_DIR, help="where generation.png is drawn"
    )
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    default_size = (768, 512) if args.preset == "ltx" else (512, 288)
    args.width, args.height = (int(v) for v in args.size.split("x")) if args.size else default_size
    if args.preset == "ltx":
        from benchmarks.ltx import run_ltx

        run_ltx(args, measure, report)
        return
    preset = get_preset(args.preset)
    print(
        f"{preset.name} preset, {args.width}x{args.height}, {args.frames} frames at 24 fps, "
        f"{torch.get_num_threads()} torch threads, {os.cpu_count()} CPUs, {args.rounds} rounds"
    )
    cached = measure(preset.build, preset, SETTINGS, args)
    if preset.name != "tiny":  # the random stand-in beside it, same clip, same run
        stand_in = get_preset("tiny")
        cached |= {
            f"stand-in (tiny), {name}": row
            for name, row in measure(
                stand_in.build, stand_in, {"all (default)": SETTINGS["all (default)"]}, args
            ).items()
        }
    report(cached, args, f"Cache settings ({preset.name})")
    sweep = {"none": SETTINGS["none"]} | {
        f"FBC {t}": CacheSettings(embeddings=0, text_kv=False, step="fbc", fbc_threshold=t) for t in FBC_SWEEP
    }
    swept = measure(preset.build, preset, sweep, args)
    report(swept, args, f"FirstBlockCache threshold ({preset.name})")
    embedding_hit_rate(preset.build(), preset)
    print(f"chart: {draw_chart(args, cached, swept)}")


def draw_chart(
    args: argparse.Namespace, cached: dict[str, dict[str, Any]], swept: dict[str, dict[str, Any]]
) -> Path:
    def best(rows: dict[str, dict[str, Any]]) -> list[float]:
        return [min(row["times"]) for row in rows.values()]

    def quality(rows: dict[str, dict[str, Any]]) -> list[float]:
        # PSNR against no cache; identical frames (infinite PSNR) are drawn at the top of the scale.
        return [min(psnr(row["frames"], rows["none"]["frames"]), PSNR_CEILING) for row in rows.values()]

    return charts.draw(
        args.charts / "generation.png",
        f"Generation: {args.preset} preset, {args.width}x{args.height}, {args.frames} frames, "
        f"best of {args.rounds}",
        [
            charts.Panel("Render seconds by cache setting", list(cached), {"best": best(cached)}, "s"),
            charts.Panel("FirstBlockCache threshold", list(swept), {"best": best(swept)}, "s"),
            charts.Panel("Quality against no cache", list(swept), {"PSNR": quality(swept)}, "dB"),
        ],
    )


if __name__ == "__main__":
    main()
