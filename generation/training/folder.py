"""The model folder (generation/model/): a diffusers pipeline folder, fp16 safetensors, plus the vocabulary.

Parts are written one at a time, each as soon as its stage has a better one, so a stopped run keeps what it
had finished. Weights are kept in fp32 while training and halved only here.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import torch

from generation.training.architecture import MODEL_DIR
from generation.world.vocabulary import SUBJECTS, as_json


def save_part(model: Any, name: str, folder: Path = MODEL_DIR) -> None:
    half = copy.deepcopy(model).to(torch.float16)
    half.save_pretrained(folder / name, safe_serialization=True)
    forget_origin(folder / name / "config.json")


def forget_origin(config: Path) -> None:
    """A part loaded from a folder remembers that folder's path in its config: not for a shipped file."""
    saved = json.loads(config.read_text())
    if saved.pop("_name_or_path", None) is not None:
        config.write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")


def recorded_steps(stage: str, folder: Path = MODEL_DIR) -> int:
    """How many steps the shipped part of `stage` was trained for (training.json), 0 if unknown."""
    record = folder / "training.json"
    return int(json.loads(record.read_text()).get(stage, 0)) if record.exists() else 0


def record_steps(stage: str, steps: int, folder: Path = MODEL_DIR) -> None:
    record = folder / "training.json"
    steps_by_stage = json.loads(record.read_text()) if record.exists() else {}
    record.write_text(json.dumps({**steps_by_stage, stage: steps}, indent=1, sort_keys=True) + "\n")


def write_vocabulary(folder: Path = MODEL_DIR) -> None:
    """vocabulary.json (the words the model knows) and LICENSES.md (where every picture it learned from
    came from)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocabulary.json").write_text(json.dumps(as_json(), indent=1, ensure_ascii=False) + "\n")
    (folder / "LICENSES.md").write_text(licences())


def licences() -> str:
    rows = "\n".join(
        f"| {e.name} | {e.emoji} | {' '.join(f'U+{ord(c):04X}' for c in e.emoji)} | Apache-2.0 |"
        for e in SUBJECTS
    )
    return f"""# What this model learned from

The weights are trained by this project (`make model`) on clips its own code draws
(`generation/world/`): nothing else went in.

- Subjects: Noto Color Emoji, as Debian's `fonts-noto-color-emoji` (2.042) ships them. The emoji images
  are under the Apache License 2.0 and the font under the SIL Open Font License 1.1
  (https://github.com/googlefonts/noto-emoji, LICENSE and fonts/LICENSE). Drawn with Pillow, resized and
  rotated; no other change.
- Settings: drawn procedurally by `generation/world/backdrops.py` (this project's code and licence).

| subject | emoji | code points | licence |
| --- | --- | --- | --- |
{rows}
"""


@torch.no_grad()
def pin_log_variance(vae: Any) -> None:
    """The encoder's one log-variance channel, fixed at the floor: the VAE was trained on the posterior's
    mode, so the pipeline's sampled latents (conditioning on the previous clip) must equal the mode."""
    conv = vae.encoder.conv_out.conv
    conv.weight[-1].zero_()
    conv.bias[-1].fill_(-30.0)


@torch.no_grad()
def set_latent_statistics(vae: Any, clips: list[torch.Tensor]) -> None:
    """Per-channel mean and std of the encoder's latents, so the pipeline's normalisation matches training."""
    latents = torch.cat([vae.encode(clip).latent_dist.mode() for clip in clips])  # B, C, F, H, W
    channels = latents.transpose(0, 1).flatten(1)
    vae.latents_mean.copy_(channels.mean(dim=1))
    vae.latents_std.copy_(channels.std(dim=1).clamp(min=1e-3))
