"""The stages `make model` runs, each from its checkpoint in var/training/ to a candidate folder, and from
there into the shipped folder only where the candidate beats it (model_folder.keep_if_better)."""

from __future__ import annotations

import hashlib
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from generation.model_folder import MODEL_DIR
from lab.training import VAR
from lab.training.model_folder import (
    candidate_folder,
    finish_vae,
    fits,
    keep_if_better,
    record_steps,
    recorded_steps,
    save_part,
    save_pipeline,
    shipped,
    shipped_vae,
    write_descriptions,
)

if TYPE_CHECKING:
    from lab.training.transformer import Latents

CLIPS = 1500  # the transformer's training clips
JUDGED_PROMPTS = 36  # held-out prompts a candidate and the shipped model are judged on before it ships
PIPELINE_PARTS = ("transformer", "text_encoder", "tokenizer", "model_index.json", "scheduler")


def subject_in_reconstructions(folder: Path) -> float:
    """The share of held-out prompts whose reconstruction through `folder`'s VAE the judge names the
    subject of."""
    from lab.evaluation.rows import reconstructions_judged

    row = reconstructions_judged(shipped_vae(folder), JUDGED_PROMPTS)
    return row.subject / max(1, row.n)


def subject_and_motion_generated(folder: Path) -> float:
    """The share of subjects and motions named in `folder`'s renders of held-out prompts (both counted)."""
    from lab.evaluation.rows import Row, cases, rendered

    row, render = Row(), rendered("world", folder=folder)
    for case in cases(JUDGED_PROMPTS):
        row.add(render(case), case.scene)
    return (row.subject + row.motion) / max(1, 2 * row.n)


def train_vae(minutes: float, threads: int, steps: int, shifts: float, rate: float | None) -> None:
    from lab.training.architecture import build_transformer
    from lab.training.vae import LEARNING_RATE, train

    start_from = None if (VAR / "vae.pt").exists() else shipped("vae")
    vae, done = train(
        minutes,
        VAR / "vae.pt",
        threads,
        start_from=start_from,
        max_steps=steps,
        first_step=recorded_steps("vae") if start_from is not None else 0,
        shifts=shifts,
        rate=LEARNING_RATE if rate is None else rate,
    )
    folder = candidate_folder()
    save_part(finish_vae(vae), "vae", folder)
    write_descriptions(folder)
    parts = ["vae", "training.json", "preset.json", "vocabulary.json", "LICENSES.md"]
    if not fits("transformer", but="num_layers"):
        # A new latent space (VAE_CONFIG changed): the shipped transformer cannot even read it. The folder
        # keeps one that fits, untrained, so that it still loads and renders until the transformer stage.
        save_part(build_transformer(), "transformer", folder)
        record_steps("transformer", 0, folder)
        parts.append("transformer")
    record_steps("vae", done, folder)
    keep_if_better(tuple(parts), subject_in_reconstructions, "VAE reconstructions name the subject")


def draw_and_encode(clips: int, workers: int = 1, minutes: float = math.inf) -> tuple[Any, Latents]:
    """The transformer's training clips: at least `clips` drawn (fewer where `minutes` run out first),
    every drawn one encoded by the shipped VAE, once. Returns (the VAE, the latents)."""
    from lab.evaluation.rows import check_vae
    from lab.training.clips import draw_all
    from lab.training.device import training_device
    from lab.training.transformer import encode_clips

    vae = shipped_vae().to(training_device())
    digest = hashlib.sha256((MODEL_DIR / "vae" / "diffusion_pytorch_model.safetensors").read_bytes())
    encoded = VAR / f"latents-{digest.hexdigest()[:12]}.pt"
    if not encoded.exists():  # else this VAE passed the check when it encoded them
        print(f"VAE reconstructions name the subject in {100 * check_vae(vae):.1f} % of held-out prompts")
        held = draw_all(VAR / "clips", clips, workers=workers, deadline=time.monotonic() + minutes * 60)
        print(f"{held} clips drawn")
    return vae, encode_clips(vae, VAR / "clips", encoded)


def train_transformer(
    minutes: float, threads: int, steps: int, batch: int | None, layers: int, rate: float | None
) -> None:
    from lab.training.transformer import LEARNING_RATE, Trainer, subject_share

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
    folder = candidate_folder()
    save_pipeline(trainer.transformer, trainer.text_encoder, trainer.tokenizer, vae.cpu(), folder)
    record_steps("transformer", done, folder)
    keep_if_better(
        (*PIPELINE_PARTS, "training.json"),
        subject_and_motion_generated,
        "renders of held-out prompts name the subject and motion",
    )


def train_decoder(minutes: float, threads: int, steps: int) -> None:
    """The latents are fixed now (the transformer learned on them): only the decoder goes on learning."""
    from lab.training.vae import train

    fresh = not (VAR / "decoder.pt").exists()
    vae, done = train(
        minutes,
        VAR / "decoder.pt",
        threads,
        start_from=shipped_vae(),
        max_steps=steps,
        decoder_only=True,
        first_step=recorded_steps("decoder") if fresh else 0,
    )
    folder = candidate_folder()
    save_part(vae, "vae", folder)
    record_steps("decoder", done, folder)
    keep_if_better(
        ("vae", "training.json"), subject_in_reconstructions, "VAE reconstructions name the subject"
    )
