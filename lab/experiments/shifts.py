"""Whether the VAE's latents move with what they show: the shipped VAE beside one trained on shifted crops.

    python -m lab.experiments.shifts [--minutes 50] [--steps N] [--rate 5e-4] [--weight 1] [--threads 2]
        [--batches 16] [--prompts 36]

The transformer learns a subject's shape slowly because a sprite falls on the latent cells in many ways
(lab/ledger.md): moved by less than a cell, the shipped encoder writes other latents, not the
same ones moved. This goes on training the shipped VAE for `--minutes` (or `--steps`, whichever ends first:
a run's length in steps is the same on every machine, in minutes it is not) with the VAE stage's loss plus its
`shifts` terms, weighing `--weight` beside the reconstruction, at a peak rate of `--rate`
(lab/training/vae.py: each batch also cropped up to half a cell further on, its latents held to the
first crop's moved by interpolation, and those decoded held to the shifted pixels), resumable from
var/training/shifted-vae.pt (a run at another `--weight` is refused until it is moved aside; one at another
`--rate` goes on from it), and writes it as a model folder's part to var/training/shifted/vae (for
`lab.experiments.shapes --vae`). Then, for both VAEs, on `--batches` unseen shifted batches (frames and
clips in turn): how far the shifted crop's latents are from the first crop's moved, on the subject's cells
(in the latents' standard deviations; 0 is moving with the picture), and the subject's L1 error (0 to 2 a
channel) where those moved latents are decoded, beside its error where the first crop is reconstructed; and
the evaluation's reconstruction row on `--prompts` held-out prompts, which must not fall.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import torch

from lab.training import VAR

FOLDER = VAR / "shifted"


@torch.no_grad()
def moving(vae: Any, batches: int) -> list[float]:
    """The subject's latents' error from moving with the picture, its L1 error where the moved latents are
    decoded and where the unmoved ones are, averaged over unseen shifted batches."""
    from lab.training.vae import CLIP_LEN, reconstruction_loss, shifted_batch

    rng = np.random.default_rng(123)  # the training runs draw from SEED + step, small numbers
    judged = ("subject_equivariance", "moved_subject_l1", "subject_l1")
    found: list[list[float]] = [[] for _ in judged]
    for k in range(batches):
        batch, shifted = shifted_batch(rng, CLIP_LEN if k % 2 else 1)
        _, parts = reconstruction_loss(vae, batch, shifted=shifted)
        for into, name in zip(found, judged, strict=True):
            into.append(parts[name])
    return [float(np.mean(values)) for values in found]


def main() -> None:
    from generation.model_folder import MODEL_DIR
    from lab.evaluation.rows import reconstructions_judged
    from lab.training.model_folder import finish_vae, save_part, shipped_vae
    from lab.training.vae import LEARNING_RATE, train

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=50, help="training on shifted crops (0: judge only)")
    parser.add_argument("--steps", type=int, default=10**9, help="stop training at this step")
    parser.add_argument("--rate", type=float, default=LEARNING_RATE, help="peak learning rate of the run")
    parser.add_argument("--weight", type=float, default=1.0, help="the shift terms beside the reconstruction")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batches", type=int, default=16, help="unseen shifted batches judged")
    parser.add_argument("--prompts", type=int, default=36, help="held-out prompts reconstructed and judged")
    args = parser.parse_args()
    if args.minutes < 0 or min(args.steps, args.rate, args.weight, args.batches, args.prompts) <= 0:
        parser.error("--minutes must be 0 or more; --steps, --rate, --weight, --batches, --prompts above 0")
    torch.set_num_threads(args.threads)
    if args.minutes:
        vae, steps = train(
            args.minutes,
            VAR / "shifted-vae.pt",
            args.threads,
            shipped_vae(),
            max_steps=args.steps,
            shifts=args.weight,
            rate=args.rate,
        )
        save_part(finish_vae(vae), "vae", FOLDER)
        print(f"trained on shifted crops to step {steps:,}: {FOLDER / 'vae'}", flush=True)
    if not (FOLDER / "vae").exists():
        raise SystemExit(f"no VAE trained on shifted crops in {FOLDER}: run with --minutes above 0 first")
    print(
        f"\n{args.batches} unseen shifted batches; "
        f"the evaluation's reconstruction row on {args.prompts} held-out prompts\n"
    )
    print(
        "| VAE | subject's latents off the moved ones (std) | subject L1, moved latents decoded | "
        "subject L1, reconstructed | setting | subject | motion | visible |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, folder in (("shipped", MODEL_DIR), ("trained on shifted crops", FOLDER)):
        vae = shipped_vae(folder)
        figures = " | ".join(f"{value:.3f}" for value in moving(vae, args.batches))
        row = reconstructions_judged(vae, args.prompts)
        print(f"| {name} | {figures} | " + " | ".join(row.cells()) + " |", flush=True)


if __name__ == "__main__":
    main()
