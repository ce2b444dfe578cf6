"""The `ltx` half of the benchmark: full-size LTX-Video 2B (random weights, or the real folder), bf16.

On a GPU: no cache, the default caches, and (--compile) the default caches with the transformer's repeated
blocks compiled, timed side by side on a 10-second 768x512 clip with the distilled 8 steps. On a CPU it is a
smoke run: it builds the full-size model and renders one small clip with the default caches.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import torch

from generation.presets import get_preset
from generation.presets.ltx import DTYPE, build_random
from generation.renderer import CacheSettings, Renderer, RenderRequest

DEFAULTS = CacheSettings()


def run_ltx(args: argparse.Namespace, measure: Callable[..., Any], report: Callable[..., Any]) -> None:
    preset = get_preset("ltx")
    if args.random_weights:

        def build() -> Any:
            return build_random(args.device, DTYPE, args.layers)  # built on the device
    else:
        import django

        django.setup()
        build = preset.build
    if args.device != "cuda":
        smoke(build, preset, args)
        return
    name = torch.cuda.get_device_name()
    print(
        f"ltx preset ({'random weights' if args.random_weights else 'weights from YOLIVE_MODEL_PATH'}), "
        f"{name}, {args.width}x{args.height}, {args.frames} frames at 24 fps, bf16, {args.rounds} rounds"
    )
    settings = {"none": CacheSettings(embeddings=0, text_kv=False, step="none"), "all (default)": DEFAULTS}
    report(measure(build, preset, settings, args), args, f"Cache settings (ltx, {name})")
    if args.compile:
        compiled = {"none": settings["none"], "all + compile": DEFAULTS}
        report(measure(compiling(build), preset, compiled, args), args, f"torch.compile (ltx, {name})")


def compiling(build: Callable[[], Any]) -> Callable[[], Any]:
    def build_compiled() -> Any:
        pipe = build()
        if not getattr(build_compiled, "plain_done", False):
            build_compiled.plain_done = True  # type: ignore[attr-defined]  # the first is the "none" row
            return pipe
        # fullgraph=False: the step-cache hooks call torch.compiler.disable'd functions.
        pipe.transformer.compile_repeated_blocks(fullgraph=False)
        return pipe

    return build_compiled


def smoke(build: Callable[[], Any], preset: Any, args: argparse.Namespace) -> None:
    started = time.perf_counter()
    pipe = build()
    params = sum(p.numel() for p in pipe.transformer.parameters())
    built = time.perf_counter()
    renderer = Renderer(preset, pipe, DEFAULTS)
    request = RenderRequest(
        "a smoke test", seed=1, width=args.width, height=args.height, fps=24, num_frames=args.frames
    )
    result = renderer.render(request)
    done = time.perf_counter()
    assert result.frames is not None
    print(
        f"ltx smoke on {args.device}: transformer {params / 1e9:.2f} B parameters, "
        f"{len(pipe.transformer.transformer_blocks)} blocks, built in {built - started:.1f} s; "
        f"rendered {result.frames.shape} in {done - built:.1f} s; cache stats {result.cache_stats}"
    )
