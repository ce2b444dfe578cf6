"""python -m generation.training {vae,clips,transformer,decoder,evaluate,all} [--minutes N] [--threads N]
    [--steps N] [--shifts W] [--clips N] [--workers N] [--batch N] [--rate R] [--layers N] [--prompts N]
    [--rows ground vae backdrop random generated blurred denoised swapped] [--guidance G] [--denoise N]
    [--noise S] [--blur PX]

The stages run in this order for `all` (what `make model` does); `decoder` may also run beside
`transformer`, since it never changes the latents the transformer learns on. `clips` draws and encodes the
transformer's training clips on its own (the transformer stage does it first where they are missing): on a GPU
machine, many CPU workers draw more of them while the GPU does other work (scripts/gpu-check.sh).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from generation.training.architecture import CLIP_FRAMES, MODEL_DIR, TRANSFORMER_CONFIG

if TYPE_CHECKING:
    from generation.training.transformer import Latents

VAR = Path(os.environ.get("VAR_DIR", "var")) / "training"
CLIPS = 1500
ROWS = ("ground", "vae", "backdrop", "random", "generated")
DIAGNOSTICS = ("blurred", "denoised", "swapped")  # rows judged only when asked for by name


def finish_vae(vae: Any) -> Any:
    """A trained VAE as the pipeline samples it: the log-variance pinned, the latents' statistics filled."""
    from generation.training.folder import pin_log_variance, set_latent_statistics
    from generation.training.samples import frames_of, random_scene

    rng = np.random.default_rng(7)
    clips = [
        torch.from_numpy(frames_of(random_scene(rng), CLIP_FRAMES)[0]).permute(3, 0, 1, 2)[None]
        for _ in range(24)
    ]
    pin_log_variance(vae)
    set_latent_statistics(vae, clips)
    return vae


def export_vae(vae: Any) -> None:
    from generation.training.architecture import build_transformer
    from generation.training.folder import record_steps, save_part, write_vocabulary

    save_part(finish_vae(vae), "vae")
    write_vocabulary()
    if not fits("transformer", but="num_layers"):
        # A new latent space (VAE_CONFIG changed): the shipped transformer cannot even read it. The folder
        # keeps one that fits, untrained, so that it still loads and renders until the transformer stage.
        save_part(build_transformer(), "transformer")
        record_steps("transformer", 0)


def part(name: str) -> tuple[Any, dict[str, Any]]:
    """A trained part of the folder: (the class that loads it, today's configuration of it)."""
    from diffusers import AutoencoderKLLTXVideo, LTXVideoTransformer3DModel
    from transformers import T5EncoderModel

    from generation.training.architecture import TEXT_CONFIG, TRANSFORMER_CONFIG, VAE_CONFIG

    return {
        "vae": (AutoencoderKLLTXVideo, VAE_CONFIG),
        "transformer": (LTXVideoTransformer3DModel, TRANSFORMER_CONFIG),
        "text_encoder": (T5EncoderModel, TEXT_CONFIG),
    }[name]


def fits(name: str, folder: Path = MODEL_DIR, but: str = "") -> bool:
    """Whether the folder holds `name` built with today's configuration in architecture.py (all of it
    but the setting `but`)."""
    config = folder / name / "config.json"
    if not config.exists():
        return False
    saved = json.loads(config.read_text())
    wanted = json.loads(json.dumps(part(name)[1]))  # tuples as the saved JSON has them, lists
    return all(saved.get(k) == v for k, v in wanted.items() if k != but)


def shipped(name: str, folder: Path = MODEL_DIR, layers: int | None = None) -> Any:
    """A part of the shipped folder in float32, to go on training; None where the folder has none of
    today's architecture (a changed configuration starts afresh). A transformer of fewer blocks than
    `layers` grows to that depth computing what it computed (`growth.deepen`); one of more starts afresh."""
    from generation.training.growth import deepen

    if name != "transformer" or layers is None:
        return load_part(name, folder) if fits(name, folder) else None
    if not fits(name, folder, but="num_layers"):
        return None
    transformer = load_part(name, folder)
    had = len(transformer.transformer_blocks)
    if had == layers:
        return transformer
    return deepen(transformer, layers) if had < layers else None


def shipped_vae(folder: Path = MODEL_DIR) -> Any:
    """The shipped VAE, whatever its architecture, to judge or to encode with."""
    return load_part("vae", folder).eval()


def load_part(name: str, folder: Path) -> Any:
    # Plain loading, as the world preset loads: no low-memory path, which wants `accelerate` (GPU-only).
    return part(name)[0].from_pretrained(folder / name, dtype=torch.float32, low_cpu_mem_usage=False)


def export_pipeline(trainer: Any, vae: Any) -> None:
    from diffusers import FlowMatchEulerDiscreteScheduler, LTXConditionPipeline

    from generation.training.folder import forget_origin

    pipe: Any = LTXConditionPipeline(
        transformer=copy.deepcopy(trainer.transformer).eval(),
        vae=vae,
        scheduler=FlowMatchEulerDiscreteScheduler(shift=1.0),  # the preset passes its shifted timesteps
        text_encoder=copy.deepcopy(trainer.text_encoder).eval(),
        tokenizer=trainer.tokenizer,
    )
    pipe.to(torch.float16).save_pretrained(MODEL_DIR, safe_serialization=True)
    for config in MODEL_DIR.glob("*/config.json"):
        forget_origin(config)


def draw_and_encode(clips: int, workers: int = 1, minutes: float = math.inf) -> tuple[Any, Latents]:
    """The transformer's training clips: at least `clips` drawn (fewer where `minutes` run out first),
    every drawn one encoded by the shipped VAE, once. Returns (the VAE, the latents)."""
    from generation.training.dataset import draw_all
    from generation.training.evaluate import check_vae
    from generation.training.precision import training_device
    from generation.training.transformer import encode_clips

    vae = shipped_vae().to(training_device())
    digest = hashlib.sha256(
        (MODEL_DIR / "vae" / "diffusion_pytorch_model.safetensors").read_bytes()
    ).hexdigest()
    encoded = VAR / f"latents-{digest[:12]}.pt"
    if not encoded.exists():  # else this VAE passed the check when it encoded them
        print(f"VAE reconstructions name the subject in {100 * check_vae(vae):.1f} % of held-out prompts")
        held = draw_all(VAR / "clips", clips, workers=workers, deadline=time.monotonic() + minutes * 60)
        print(f"{held} clips drawn")
    return vae, encode_clips(vae, VAR / "clips", encoded)


def train_transformer(
    minutes: float, threads: int, steps: int, batch: int | None, layers: int, rate: float | None
) -> None:
    from generation.training.folder import record_steps, recorded_steps
    from generation.training.transformer import LEARNING_RATE, Trainer, subject_share

    torch.set_num_threads(threads)
    vae, latents = draw_and_encode(CLIPS)
    tokens, weight = subject_share(latents.masks)
    print(f"the subject touches {100 * tokens:.1f} % of the tokens, {100 * weight:.1f} % of the loss weight")
    # With no checkpoint here (a new machine), go on from the shipped weights rather than from nothing.
    fresh = not (VAR / "transformer.pt").exists()
    transformer = shipped("transformer", layers=layers) if fresh else None
    text_encoder = shipped("text_encoder") if fresh else None
    peak_rate = LEARNING_RATE if rate is None else rate
    trainer = Trainer(latents, threads, transformer, text_encoder, batch, peak_rate=peak_rate)
    first_step = recorded_steps("transformer") if transformer is not None else 0
    done = trainer.train(minutes, VAR / "transformer.pt", steps, first_step)
    export_pipeline(trainer, vae)
    record_steps("transformer", done)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m generation.training")
    parser.add_argument("stage", choices=("vae", "clips", "decoder", "transformer", "evaluate", "all"))
    parser.add_argument(
        "--minutes", type=float, default=60, help="training time for the stage (each, for all)"
    )
    parser.add_argument("--steps", type=int, default=10**9, help="stop a stage once it has trained this many")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--clips", type=int, default=CLIPS, help="clips: training clips to draw (--minutes may stop it first)"
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
    parser.add_argument("--prompts", type=int, default=72, help="held-out prompts to evaluate")
    parser.add_argument(
        "--trained",
        action="store_true",
        help="evaluate on combinations training named, not held-out ones (no strips, no continuity)",
    )
    parser.add_argument(
        "--rows",
        nargs="+",
        choices=ROWS + DIAGNOSTICS,
        default=ROWS,
        help="the evaluation's rows to judge (the continuity table comes with 'generated')",
    )
    parser.add_argument(
        "--guidance", type=float, help="the generated row's guidance scale (the world preset's by default)"
    )
    parser.add_argument(
        "--denoise", type=int, help="the generated row's sampling steps (the world preset's by default)"
    )
    parser.add_argument(
        "--noise", type=float, default=0.5, help="the denoised row's noise level, 0 (clean) to 1 (pure noise)"
    )
    parser.add_argument(
        "--blur",
        type=float,
        default=4.0,
        help="the blurred row's Gaussian in pixels (4: about an eighth of a lone subject's 35)",
    )
    args = parser.parse_args()
    if args.blur < 0:
        parser.error(f"--blur must be 0 or more pixels, not {args.blur:g}")
    if args.rate is not None and args.rate <= 0:
        parser.error(f"--rate must be above 0, not {args.rate:g}")
    if args.shifts < 0:
        parser.error(f"--shifts must be 0 or more, not {args.shifts:g}")
    torch.set_num_threads(args.threads)
    if args.stage in ("vae", "all"):
        from generation.training.folder import record_steps, recorded_steps
        from generation.training.vae import LEARNING_RATE as VAE_RATE
        from generation.training.vae import train

        shipped_part = None if (VAR / "vae.pt").exists() else shipped("vae")
        fresh = shipped_part is not None
        vae, done = train(
            args.minutes,
            VAR / "vae.pt",
            args.threads,
            start_from=shipped_part,
            max_steps=args.steps,
            first_step=recorded_steps("vae") if fresh else 0,
            shifts=args.shifts,
            rate=VAE_RATE if args.rate is None else args.rate,
        )
        export_vae(vae)
        record_steps("vae", done)
    if args.stage == "clips":
        draw_and_encode(args.clips, args.workers, args.minutes)
    if args.stage in ("transformer", "all"):
        train_transformer(args.minutes, args.threads, args.steps, args.batch, args.layers, args.rate)
    if args.stage in ("decoder", "all"):
        # The latents are fixed now (the transformer learned on them): only the decoder goes on learning.
        from generation.training.folder import record_steps, recorded_steps, save_part
        from generation.training.vae import train

        fresh = not (VAR / "decoder.pt").exists()
        vae, done = train(
            args.minutes,
            VAR / "decoder.pt",
            args.threads,
            start_from=shipped_vae(),
            max_steps=args.steps,
            decoder_only=True,
            first_step=recorded_steps("decoder") if fresh else 0,
        )
        save_part(vae, "vae")
        record_steps("decoder", done)
    if args.stage in ("evaluate", "all"):
        from generation.training.evaluate import (
            backdrop_only,
            blurred,
            continuity,
            denoised,
            evaluate,
            ground_truth,
            reconstruction,
            rendered,
        )

        rows: dict[str, tuple[str, Callable[[], Any]]] = {  # each row's strips are docs/model/<key>-*.png
            "ground": ("ground truth", lambda: ground_truth),
            "vae": ("VAE reconstructions", lambda: reconstruction(shipped_vae())),
            "backdrop": ("backdrop only", lambda: backdrop_only),
            "blurred": (f"blurred subjects (ground truth, {args.blur:g} px)", lambda: blurred(args.blur)),
            "random": ("random stand-in (tiny)", lambda: rendered("tiny")),
            "generated": (
                "generated (world, default caches"
                + (f", guidance {args.guidance:g}" if args.guidance is not None else "")
                + (f", {args.denoise} steps" if args.denoise is not None else "")
                + ")",
                lambda: rendered("world", args.guidance, args.denoise),
            ),
            "denoised": (f"denoised in one step from noise {args.noise:g}", lambda: denoised(args.noise)),
            "swapped": (
                f"swapped subject: denoised in one step from noise {args.noise:g}",
                lambda: denoised(args.noise, swap=True),
            ),
        }
        sources = {key: (rows[key][0], rows[key][1]()) for key in args.rows}
        strips = None if args.trained else Path("docs/model")
        for line in evaluate(args.prompts, sources, strips, args.trained):
            print(line, flush=True)
        if "generated" in args.rows and not args.trained:
            print("\nContinuity: mean absolute pixel change (0-255) at 512x288, 24 fps\n")
            for line in continuity():
                print(line, flush=True)


if __name__ == "__main__":
    main()
