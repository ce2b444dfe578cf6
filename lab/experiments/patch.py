"""What tokens of one latent cell would cost a render: the shipped transformer beside a fresh one of its
width and depth whose tokens are `--patch` cells a side, both without caches (a random model's frames would
decide what a step cache skips). Timed by the product's generation benchmark, side by side.

    python -m lab.experiments.patch [--patch 1] [--frames 240] [--rounds 3] [--threads 1]
"""

from __future__ import annotations

import argparse
from typing import Any

import torch

from benchmarks.generation import SETTINGS, report, take_turns
from generation.presets import get_preset
from generation.renderer import Renderer
from lab.training.architecture import build_transformer


def repatched(pipe: Any, cells: int) -> Any:
    """`pipe` with a fresh transformer of its own width and depth whose tokens are `cells` cells a side."""
    old = pipe.transformer.config
    torch.manual_seed(0)
    transformer = build_transformer(heads=old.num_attention_heads, cells=cells)
    assert transformer.config.num_layers == old.num_layers, (
        "the fresh transformer's depth is the shipped one's"
    )
    # A new pipeline, not an assignment: the pipeline reads its transformer's patch when it is made.
    fresh = type(pipe)(**{**pipe.components, "transformer": transformer.eval()})
    fresh.set_progress_bar_config(disable=True)
    return fresh


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m lab.experiments.patch", description=__doc__)
    parser.add_argument("--patch", type=int, choices=(1, 2), default=1, help="the fresh one's cells a side")
    parser.add_argument("--frames", type=int, default=240, help="frames that air (240 = 10 s at 24 fps)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    args.width, args.height, args.device = 512, 288, "cpu"
    preset = get_preset("world")
    shipped = preset.build()
    patch = shipped.transformer.config.patch_size
    renderers = {
        f"shipped, {patch}x{patch} cells a token": Renderer(preset, shipped, SETTINGS["none"]),
        f"fresh, {args.patch}x{args.patch} cells a token": Renderer(
            preset, repatched(preset.build(), args.patch), SETTINGS["none"]
        ),
    }
    rows = take_turns(renderers, args)
    report(rows, args, f"Tokens ({preset.name}, no caches)", base_row=next(iter(renderers)))


if __name__ == "__main__":
    main()
