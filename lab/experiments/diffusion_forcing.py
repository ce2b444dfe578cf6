"""The pilot of diffusion forcing: does fine-tuning the shipped transformer under the block-causal mask, each
latent frame at its own noise level, make clips generated block by block as good as the bidirectional ones?

    python -m lab.experiments.diffusion_forcing [--steps 400 400] [--clips 160] [--prompts 36] [--threads 1]
        [--clean-context 0.5] [--context-noise 0.1] [--teacher-forcing] [--forcing-only]

Two copies of the shipped transformer (and its text encoder) go on learning from the same seed and batches of
`--clips` of the transformer stage's training clips (drawn and encoded into var/training/diffusion-forcing/):
one under the block-causal mask with a sigma a latent frame (lab/training/diffusion_forcing.py), the other as
the transformer stage trains (one sigma a clip, bidirectional), the control at equal steps. The judge
(lab/evaluation) names the subject and motion of a 10-second clip for each of `--prompts` held-out prompts,
the same prompts and seeds in every row:
1. bidirectional, shipped: the shipped model through the renderer, as lab.evaluation's generated row;
2. blocks, shipped: the shipped weights made block by block against the cache (generation/block_causal.py's
   make_blocks: 1 sink + 6 frames, the blocks clean in the cache), no fine-tune: the floor;
3. blocks, diffusion forcing: the fine-tune made block by block the same way;
4. bidirectional, fine-tuned: the control, through the renderer.
Rows 3 and 4 are judged after each run of `--steps`. `--clean-context` gives that share of the forcing run's
clips a clean past (lab/training/diffusion_forcing.py), or one at `--context-noise`, the sigma its blocks are
then cached at when made (generation/block_causal.py's make_blocks); `--teacher-forcing` gives every frame
of every clip the clean past generation gives it instead (lab/training/diffusion_forcing.py's
TeacherForcingTrainer: the clip read twice, clean and noisy); `--forcing-only` trains and judges row 3
alone (rows 1, 2 and 4 are the same prompts and seeds in every run, so an earlier run's stand). A block-made
clip has the renderer's 12 latent frames (its 9 lead frames dropped after decoding, as the renderer drops
them) and no step cache; the renderer's rows keep its default caches. Checkpoints and the fine-tunes' model
folders go to var/training/diffusion-forcing/: a run stopped part way goes on from its last checkpoint.
"""

from __future__ import annotations

import argparse
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from generation.block_causal import make_blocks, unpacked
from generation.model_folder import MODEL_DIR
from lab.evaluation.rows import AIRED, Case, Row, cases, rendered, world_pipeline
from lab.training import VAR
from lab.training.architecture import HEIGHT, LEAD_FRAMES, SPATIAL, WIDTH
from lab.training.clips import draw_all
from lab.training.diffusion_forcing import DiffusionForcingTrainer, TeacherForcingTrainer, block_causal
from lab.training.model_folder import save_part, shipped, shipped_vae
from lab.training.transformer import Trainer, encode_clips

FOLDER = VAR / "diffusion-forcing"
CLIPS, PROMPTS = 160, 36


def made_in_blocks(folder: Path, context_noise: float = 0.0) -> Callable[[Case], np.ndarray]:
    """The model in `folder` made block by block, one latent frame a block, against a cache of SINK + WINDOW
    frames filled at `context_noise`, along the world preset's sigmas; decoded as the renderer decodes, its
    lead frames dropped."""
    from generation.presets import get_preset

    preset, pipe = get_preset("world"), world_pipeline(folder)
    frames = range(1 + (LEAD_FRAMES + AIRED - 1) // pipe.vae_temporal_compression_ratio)
    sigmas = [t / 1000 for t in preset.timesteps]
    channels = pipe.transformer.config.in_channels

    @torch.no_grad()
    def run(case: Case) -> np.ndarray:
        embeds, mask, _, _ = pipe.encode_prompt(
            case.prompt, do_classifier_free_guidance=False, max_sequence_length=preset.max_sequence_length
        )
        causal = block_causal(pipe.transformer, (HEIGHT // SPATIAL, WIDTH // SPATIAL))  # an empty cache
        generator = torch.Generator().manual_seed(case.scene.seed % 10_000)
        blocks = list(make_blocks(causal, (embeds, mask), frames, sigmas, channels, generator, context_noise))
        video = preset.decode(pipe, unpacked(blocks, causal.grid), WIDTH, HEIGHT)
        return video[LEAD_FRAMES : LEAD_FRAMES + AIRED].numpy()

    return run


def judged(source: Callable[[Case], np.ndarray], chosen: list[Case]) -> Row:
    row = Row()
    for case in chosen:
        row.add(source(case), case.scene)
    return row


def model_folder(trainer: Trainer, name: str) -> Path:
    """The shipped folder with `trainer`'s transformer and text encoder in place of its own."""
    folder = FOLDER / name
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(MODEL_DIR, folder)
    save_part(trainer.transformer, "transformer", folder)
    save_part(trainer.text_encoder, "text_encoder", folder)
    return folder


def line(label: str, steps: str, row: Row, began: float) -> str:
    subject, motion = row.cells()[1:3]
    return f"| {label} | {steps} | {subject} | {motion} | {time.monotonic() - began:.0f} |"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m lab.experiments.diffusion_forcing", description=__doc__)
    parser.add_argument("--steps", nargs="+", type=int, default=[400, 400], help="steps a run, both models")
    parser.add_argument("--clips", type=int, default=CLIPS, help="training clips both learn on")
    parser.add_argument("--batch", type=int, default=8, help="clips a step")
    parser.add_argument("--prompts", type=int, default=PROMPTS, help="held-out prompts judged a row")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--clean-context", type=float, default=0.0, help="share of clips with a clean past")
    parser.add_argument("--context-noise", type=float, default=0.0, help="the sigma of that past")
    parser.add_argument("--teacher-forcing", action="store_true", help="every frame a clean past")
    parser.add_argument("--forcing-only", action="store_true", help="train and judge row 3 alone")
    args = parser.parse_args()
    if not 0 < args.batch <= args.clips or min([*args.steps, args.prompts]) <= 0:
        parser.error("--steps and --prompts must be above 0, and --batch above 0 and at most --clips")
    if not 0 <= args.clean_context <= 1 or not 0 <= args.context_noise < 1:
        parser.error("--clean-context is a share from 0 to 1, --context-noise a sigma from 0 to below 1")
    if args.teacher_forcing and args.clean_context:
        parser.error("--teacher-forcing gives every frame a clean past: leave out --clean-context")
    torch.set_num_threads(args.threads)
    began = time.monotonic()
    draw_all(FOLDER / "clips", args.clips)
    data = encode_clips(shipped_vae(), FOLDER / "clips", FOLDER / f"latents-{args.clips}.pt")
    chosen = cases(args.prompts)
    print(f"{len(data.x0)} training clips, batch {args.batch}; {len(chosen)} held-out prompts\n")
    print("| row | fine-tune steps | subject | motion | s |")
    print("| --- | --- | --- | --- | --- |", flush=True)
    if not args.forcing_only:
        print(line("1. bidirectional, shipped", "0", judged(rendered("world"), chosen), began), flush=True)
        print(line("2. blocks, shipped", "0", judged(made_in_blocks(MODEL_DIR), chosen), began), flush=True)
    base = (data, args.threads, shipped("transformer"), shipped("text_encoder"), args.batch)
    forcing = f"forcing-clean{args.clean_context:g}" if args.clean_context else "forcing"
    forcing = "teacher-forcing" if args.teacher_forcing else forcing
    forcing += f"-noise{args.context_noise:g}" if args.context_noise else ""
    kind = TeacherForcingTrainer if args.teacher_forcing else DiffusionForcingTrainer
    trainers: dict[str, Trainer] = {
        forcing: kind(*base, clean_context=args.clean_context, context_noise=args.context_noise)
    }
    if not args.forcing_only:
        trainers["bidirectional"] = Trainer(*base)
    done = 0
    for steps in args.steps:
        target = done + steps
        for name, trainer in trainers.items():
            reached = trainer.train(10**6, FOLDER / f"{name}.pt", max_steps=target)
            if reached < target:  # SIGTERM or SIGINT: the Trainer checkpointed and ended early
                raise SystemExit(f"stopped after {reached:,} steps of the {name} run")
        done = target
        made = made_in_blocks(model_folder(trainers[forcing], forcing), args.context_noise)
        blocks = judged(made, chosen)
        label = "3. blocks, teacher forcing" if args.teacher_forcing else "3. blocks, diffusion forcing"
        print(line(label, f"{done:,}", blocks, began), flush=True)
        if args.forcing_only:
            continue
        control = judged(
            rendered("world", folder=model_folder(trainers["bidirectional"], "bidirectional")), chosen
        )
        print(line("4. bidirectional, fine-tuned", f"{done:,}", control, began), flush=True)


if __name__ == "__main__":
    main()
