"""The model folder (generation/model/) as the lab writes it: a diffusers pipeline folder of fp16 safetensors,
plus the facts the product renders by (preset.json), the vocabulary and the licences.

Weights are kept in fp32 while training and halved only here. A stage writes its part into a candidate
folder (var/training/candidate/, a copy of the shipped one) and the part moves into the shipped folder only
when the candidate beats the shipped model by its evaluation (`keep_if_better`), so a run that trains for
hours and ends worse leaves the shipped model as it was.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from generation.model_folder import MODEL_DIR, PRESET_FILE, RenderFacts
from lab.training import VAR
from lab.training.architecture import (
    CLIP_FRAMES,
    FPS,
    HEIGHT,
    LEAD_FRAMES,
    MAX_TOKENS,
    NO_PROMPT,
    TEXT_CONFIG,
    TRANSFORMER_CONFIG,
    VAE_CONFIG,
    WIDTH,
)
from lab.training.schedule import SAMPLING_STEPS, sampling_timesteps
from lab.world.vocabulary import SUBJECTS, as_json

CANDIDATE_DIR = VAR / "candidate"


def candidate_folder() -> Path:
    """A fresh copy of the shipped folder for a stage to write its part into."""
    shutil.rmtree(CANDIDATE_DIR, ignore_errors=True)
    shutil.copytree(MODEL_DIR, CANDIDATE_DIR)
    return CANDIDATE_DIR


def keep_if_better(
    parts: tuple[str, ...],
    score: Callable[[Path], float],
    what: str,
    shipped: Path = MODEL_DIR,
    candidate: Path = CANDIDATE_DIR,
) -> bool:
    """Move `parts` from the candidate folder into the shipped one if the candidate scores higher by
    `score` (measured on both folders in this run, side by side); a tie keeps the shipped model. A shipped
    part of another architecture than today's is replaced whatever it scored: it no longer fits."""
    if all(fits(name, shipped) for name in parts if name in PARTS):
        shipped_score, candidate_score = score(shipped), score(candidate)
        print(f"{what}: shipped {100 * shipped_score:.1f} %, this run {100 * candidate_score:.1f} %")
        if candidate_score <= shipped_score:
            print("the shipped model stays: this run does not beat it")
            return False
    for name in parts:
        source, target = candidate / name, shipped / name
        if source.is_dir():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target)
        else:
            shutil.copy2(source, target)
    print(f"shipped: {', '.join(parts)} written into {shipped}")
    return True


def render_facts() -> RenderFacts:
    """What the product's world preset renders by, from the lab's architecture and schedule."""
    return RenderFacts(
        width=WIDTH,
        height=HEIGHT,
        fps=FPS,
        lead_frames=LEAD_FRAMES,
        max_tokens=MAX_TOKENS,
        timesteps=sampling_timesteps(SAMPLING_STEPS),
        negative_prompt=NO_PROMPT,
    )


def write_descriptions(folder: Path) -> None:
    """The folder's own files beside the diffusers components: preset.json, vocabulary.json (the words the
    model knows) and LICENSES.md (where every picture it learned from came from)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / PRESET_FILE).write_text(json.dumps(render_facts().as_json(), indent=1) + "\n")
    (folder / "vocabulary.json").write_text(json.dumps(as_json(), indent=1, ensure_ascii=False) + "\n")
    (folder / "LICENSES.md").write_text(licences())


PARTS: dict[str, tuple[str, dict[str, Any]]] = {  # a trained part: (the class that loads it, its config)
    "vae": ("diffusers.AutoencoderKLLTXVideo", VAE_CONFIG),
    "transformer": ("diffusers.LTXVideoTransformer3DModel", TRANSFORMER_CONFIG),
    "text_encoder": ("transformers.T5EncoderModel", TEXT_CONFIG),
}


def fits(name: str, folder: Path = MODEL_DIR, but: str = "") -> bool:
    """Whether the folder holds `name` built with today's configuration in architecture.py (all of it
    but the setting `but`)."""
    config = folder / name / "config.json"
    if not config.exists():
        return False
    saved = json.loads(config.read_text())
    wanted = json.loads(json.dumps(PARTS[name][1]))  # tuples as the saved JSON has them, lists
    return all(saved.get(k) == v for k, v in wanted.items() if k != but)


def load_part(name: str, folder: Path = MODEL_DIR) -> Any:
    import importlib

    module, _, cls = PARTS[name][0].rpartition(".")
    # Plain loading, as the world preset loads: no low-memory path, which wants `accelerate` (GPU-only).
    loader = getattr(importlib.import_module(module), cls)
    return loader.from_pretrained(folder / name, dtype=torch.float32, low_cpu_mem_usage=False)


def shipped(name: str, folder: Path = MODEL_DIR, layers: int | None = None) -> Any:
    """A part of the shipped folder in float32, to go on training; None where the folder has none of
    today's architecture (a changed configuration starts afresh). A transformer of fewer blocks than
    `layers` grows to that depth computing what it computed (`growth.deepen`); one of more starts afresh."""
    from lab.training.growth import deepen

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


def finish_vae(vae: Any) -> Any:
    """A trained VAE as the pipeline samples it: the log-variance pinned, the latents' statistics filled."""
    from lab.training.scenes import frames_of, random_scene

    rng = np.random.default_rng(7)
    clips = [
        torch.from_numpy(frames_of(random_scene(rng), CLIP_FRAMES)[0]).permute(3, 0, 1, 2)[None]
        for _ in range(24)
    ]
    pin_log_variance(vae)
    set_latent_statistics(vae, clips)
    return vae


def save_pipeline(transformer: Any, text_encoder: Any, tokenizer: Any, vae: Any, folder: Path) -> None:
    from diffusers import FlowMatchEulerDiscreteScheduler, LTXConditionPipeline

    pipe: Any = LTXConditionPipeline(
        transformer=copy.deepcopy(transformer).eval(),
        vae=vae,
        scheduler=FlowMatchEulerDiscreteScheduler(shift=1.0),  # the preset passes its shifted timesteps
        text_encoder=copy.deepcopy(text_encoder).eval(),
        tokenizer=tokenizer,
    )
    pipe.to(torch.float16).save_pretrained(folder, safe_serialization=True)
    for config in folder.glob("*/config.json"):
        forget_origin(config)


def save_part(model: Any, name: str, folder: Path) -> None:
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


def record_steps(stage: str, steps: int, folder: Path) -> None:
    record = folder / "training.json"
    steps_by_stage = json.loads(record.read_text()) if record.exists() else {}
    record.write_text(json.dumps({**steps_by_stage, stage: steps}, indent=1, sort_keys=True) + "\n")


def licences() -> str:
    rows = "\n".join(
        f"| {e.name} | {e.emoji} | {' '.join(f'U+{ord(c):04X}' for c in e.emoji)} | Apache-2.0 |"
        for e in SUBJECTS
    )
    return f"""# What this model learned from

The weights are trained by this project (`make model`) on clips its own code draws
(`lab/world/`): nothing else went in.

- Subjects: Noto Color Emoji, as Debian's `fonts-noto-color-emoji` (2.042) ships them. The emoji images
  are under the Apache License 2.0 and the font under the SIL Open Font License 1.1
  (https://github.com/googlefonts/noto-emoji, LICENSE and fonts/LICENSE). Drawn with Pillow, resized and
  rotated; no other change.
- Settings: drawn procedurally by `lab/world/backdrops.py` (this project's code and licence).

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
