"""`world`: the default model, a small LTX-Video trained by this project on the world it draws (lab/).

It knows the subjects, settings and motions in its folder's vocabulary.json and nothing else: a prompt with
none of those words gets the vocabulary's default scene. It renders at the small size and rate its folder's
preset.json states (96x160 at 8 fps), which 2 CPU cores turn into a 10 s clip in a few seconds; the
renderer blends the frames up to the stream's rate and scales them to its size. Loaded with
`from_pretrained` from the folder, offline, the same path the `ltx` preset takes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from generation.model_folder import MODEL_DIR, check_model_folder, render_facts
from generation.precision import mixed_precision
from generation.presets import Preset, decode_with_vae

FACTS = render_facts()


def build(folder: Path = MODEL_DIR) -> Any:
    """The model in `folder` (the shipped one, or one the lab trained) as the renderer runs it."""
    from generation.pipeline import PatchedLTXConditionPipeline

    # fp16 on disk (half the size); float32 to run, because CPUs have no fast fp16 arithmetic. The patched
    # pipeline, because the transformer reads 2x2 latent cells as one token (generation/pipeline.py). Plain
    # loading: 13 MB need no low-memory path, and asking for it without `accelerate` (a GPU-only
    # requirement) logs a warning at every worker start.
    pipe = PatchedLTXConditionPipeline.from_pretrained(
        check_model_folder(folder), dtype=torch.float32, local_files_only=True, low_cpu_mem_usage=False
    )
    pipe.set_progress_bar_config(disable=True)
    return pipe


def pipeline_size(width: int, height: int) -> tuple[int, int]:
    return FACTS.width, FACTS.height  # the size it was trained at, whatever the stream's


def decode(pipe: Any, latents: torch.Tensor, width: int, height: int) -> torch.Tensor:
    # The decoder's full-size convolutions are the largest part of a render: bfloat16 where the CPU has it.
    with mixed_precision():
        return decode_with_vae(pipe, latents, width, height)


PRESET = Preset(
    name="world",
    build=build,
    timesteps=FACTS.timesteps,
    guidance_scale=1.0,  # one transformer pass a step
    negative_prompt=FACTS.negative_prompt,  # the caption training drops to, for when guidance is on
    max_sequence_length=FACTS.max_tokens,
    pipeline_size=pipeline_size,
    decode=decode,
    fbc_threshold=0.05,
    render_fps=FACTS.fps,
    lead_frames=FACTS.lead_frames,  # trained on clips that always carry the lead: a first clip renders it too
)
