"""The transformer stage's step on this machine: how long it takes and where the time goes.

    python -m lab.experiments.transformer_step [--batch 8 128] [--layers 6 12] [--steps 20] [--profile]

For each batch and depth, one Trainer (lab/training/transformer.py) on random latents of the clips'
shape (how many clips there are does not change a step) takes its loss, backward pass and AdamW step in
float32, as the stage trains on a CPU, and in bfloat16 autocast, as it trains on a GPU; the settings take
turns, a step each, so that a noisy machine slows them alike. Reported: the median milliseconds a step after
warm-up and clips a second. --profile then prints the operators that cost most in a few steps of the
first setting.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np
import torch

from lab.training.architecture import LATENT_CHANNELS, LATENT_GRID
from lab.training.device import training_device
from lab.training.transformer import Latents, Trainer

WARMUP = 3
CAPTIONS = ["a cat bouncing in the snow", "a rocket rising in space at night", "a whale swims to the left"]


def random_latents(count: int) -> Latents:
    return Latents(
        x0=torch.randn(count, LATENT_CHANNELS, *LATENT_GRID).half(),
        masks=(torch.rand(count, *LATENT_GRID) < 0.2).half(),
        captions=[CAPTIONS] * count,
        continuation=torch.arange(count) % 2 == 1,
    )


def build(batch: int, layers: int, threads: int, bf16: bool) -> Trainer:
    from diffusers import LTXVideoTransformer3DModel

    from lab.training.architecture import TRANSFORMER_CONFIG

    transformer = LTXVideoTransformer3DModel(**{**TRANSFORMER_CONFIG, "num_layers": layers})
    return Trainer(random_latents(2 * batch), threads, transformer, batch=batch, autocast=bf16)


def step(trainer: Trainer, rng: np.random.Generator) -> None:
    loss = trainer.loss(rng)
    trainer.opt.zero_grad(set_to_none=True)
    loss.backward()
    trainer.opt.step()
    if trainer.device.type == "cuda":
        torch.cuda.synchronize()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--batch", type=int, nargs="+", default=[8, 128])
    parser.add_argument("--layers", type=int, nargs="+", default=[6, 12])
    parser.add_argument("--steps", type=int, default=20, help="timed steps of each setting")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    device = training_device()
    name = torch.cuda.get_device_name() if device.type == "cuda" else f"CPU, {args.threads} threads"
    settings: dict[tuple[int, int, bool], Any] = {
        (batch, layers, bf16): build(batch, layers, args.threads, bf16)
        for batch in args.batch
        for layers in args.layers
        for bf16 in (False, True)
    }
    times: dict[tuple[int, int, bool], list[float]] = {key: [] for key in settings}
    rng = np.random.default_rng(0)
    for index in range(WARMUP + args.steps):
        for key, trainer in settings.items():
            started = time.perf_counter()
            step(trainer, rng)
            if index >= WARMUP:
                times[key].append(time.perf_counter() - started)
    print(f"\n### Transformer training step ({name}, median of {args.steps})\n")
    print("| batch | blocks | precision | ms a step | clips a second |")
    print("|---|---|---|---|---|")
    for (batch, layers, bf16), taken in times.items():
        ms = 1000 * statistics.median(taken)
        precision = "bf16 autocast" if bf16 else "float32"
        print(f"| {batch} | {layers} | {precision} | {ms:.1f} | {batch / ms * 1000:.0f} |")
    if args.profile:
        from torch.profiler import ProfilerActivity, profile

        key = next(iter(settings))
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
        with profile(activities=activities) as prof:
            for _ in range(3):
                step(settings[key], rng)  # the first setting is float32
        sort = "cuda_time_total" if device.type == "cuda" else "cpu_time_total"
        print(f"\n### Where a step goes (batch {key[0]}, {key[1]} blocks, float32, 3 steps)\n")
        print(prof.key_averages().table(sort_by=sort, row_limit=15, max_name_column_width=60))


if __name__ == "__main__":
    main()
