"""python -m lab.training {vae,clips,transformer,decoder,all} [--minutes N] [--threads N] [--steps N]
    [--shifts W] [--clips N] [--workers N] [--batch N] [--rate R] [--layers N]

The stages run in this order for `all` (what `make model` does, before `python -m lab.evaluation`);
`decoder` may also run beside `transformer`, since it never changes the latents the transformer learns on.
`clips` draws and encodes the transformer's training clips on its own (the transformer stage does it first
where they are missing): on a GPU machine, many CPU workers draw more of them while the GPU does other work
(scripts/gpu-check.sh).
"""

from __future__ import annotations

import argparse

import torch

from lab.training import stages
from lab.training.architecture import TRANSFORMER_CONFIG


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m lab.training")
    parser.add_argument("stage", choices=("vae", "clips", "transformer", "decoder", "all"))
    parser.add_argument(
        "--minutes", type=float, default=60, help="training time for the stage (each, for all)"
    )
    parser.add_argument("--steps", type=int, default=10**9, help="stop a stage once it has trained this many")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--clips",
        type=int,
        default=stages.CLIPS,
        help="clips: training clips to draw (--minutes may stop it first)",
    )
    parser.add_argument("--workers", type=int, default=1, help="clips: processes that draw them")
    parser.add_argument("--batch", type=int, help="transformer: clips a step (8 on a CPU, 128 on a GPU)")
    parser.add_argument(
        "--rate",
        type=float,
        help="vae, transformer: the run's peak learning rate (the stage's own by default)",
    )
    parser.add_argument(
        "--shifts",
        type=float,
        default=0.0,
        help="vae: the weight of the terms that teach its latents to move with the picture (0: none)",
    )
    parser.add_argument(
        "--layers",
        type=int,
        default=TRANSFORMER_CONFIG["num_layers"],
        help="transformer: its blocks; a shipped transformer of fewer grows to them",
    )
    args = parser.parse_args()
    if args.rate is not None and args.rate <= 0:
        parser.error(f"--rate must be above 0, not {args.rate:g}")
    if args.shifts < 0:
        parser.error(f"--shifts must be 0 or more, not {args.shifts:g}")
    return args


def main() -> None:
    args = arguments()
    torch.set_num_threads(args.threads)
    if args.stage in ("vae", "all"):
        stages.train_vae(args.minutes, args.threads, args.steps, args.shifts, args.rate)
    if args.stage == "clips":
        stages.draw_and_encode(args.clips, args.workers, args.minutes)
    if args.stage in ("transformer", "all"):
        stages.train_transformer(args.minutes, args.threads, args.steps, args.batch, args.layers, args.rate)
    if args.stage in ("decoder", "all"):
        stages.train_decoder(args.minutes, args.threads, args.steps)


if __name__ == "__main__":
    main()
