"""Model presets: one small module each, chosen by the MODEL_PRESET setting.

A preset says how to build its pipeline (once per worker process), its sampling schedule, the size the
pipeline itself renders at, and how latents become uint8 frames. Adding a model (Wan, AnyFlow-FAR) is one
more module here and one more name in the setting; the renderer does not change.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

# LTX-Video 0.9.x distilled: eight steps with these timesteps and no guidance (the model card's recipe).
LTX_DISTILLED_TIMESTEPS = (1000.0, 993.0, 987.0, 981.0, 975.0, 909.0, 725.0, 0.03)


@dataclass(frozen=True)
class Preset:
    name: str
    build: Callable[[], Any]  # -> an LTXConditionPipeline, ready on its device
    timesteps: tuple[float, ...]
    guidance_scale: float
    max_sequence_length: int
    # (stream width, stream height) -> the (width, height) the pipeline renders at
    pipeline_size: Callable[[int, int], tuple[int, int]]
    # (pipe, latents, stream width, stream height) -> (frames, height, width, 3) uint8 on the CPU
    decode: Callable[[Any, torch.Tensor, int, int], torch.Tensor]
    fbc_threshold: float = 0.05  # FirstBlockCache default for this model, chosen by measurement
    negative_prompt: str = ""
    render_fps: int = 0  # the rate the pipeline renders at (0: the stream's); the renderer blends up to it
    lead_frames: int = 1  # frames rendered ahead of the clip and dropped when no previous clip leads it

    @property
    def steps(self) -> int:
        return len(self.timesteps)


def get_preset(name: str) -> Preset:
    try:
        module = importlib.import_module(f"generation.presets.{name}")
    except ModuleNotFoundError:
        raise ValueError(f"unknown model preset {name!r}") from None
    preset: Preset = module.PRESET
    return preset


@torch.no_grad()
def decode_with_vae(
    pipe: Any, latents: torch.Tensor, width: int, height: int, timestep: Any = None
) -> torch.Tensor:
    """Latents through the pipeline's VAE into (frames, height, width, 3) uint8 on the CPU, resized to fit."""
    vae = pipe.vae
    latents = pipe._denormalize_latents(latents, vae.latents_mean, vae.latents_std, vae.config.scaling_factor)
    video = vae.decode(latents.to(vae.dtype), timestep, return_dict=False)[0][0]  # 3, F, H, W in [-1, 1]
    frames = ((video.float().clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8).permute(1, 0, 2, 3)
    if frames.shape[-2:] != (height, width):
        frames = torch.nn.functional.interpolate(
            frames.contiguous(memory_format=torch.channels_last), size=(height, width), mode="bilinear"
        )
    return frames.permute(0, 2, 3, 1).cpu()


def assemble_pipeline(transformer: Any, vae: Any, text_encoder: Any, tokenizer: Any) -> Any:
    """An LTXConditionPipeline from built parts, with the flow-matching scheduler and no progress bar."""
    from diffusers import FlowMatchEulerDiscreteScheduler, LTXConditionPipeline

    pipe: Any = LTXConditionPipeline(
        transformer=transformer,
        vae=vae,
        scheduler=FlowMatchEulerDiscreteScheduler(),
        text_encoder=text_encoder,
        tokenizer=tokenizer,
    )
    pipe.set_progress_bar_config(disable=True)
    return pipe
