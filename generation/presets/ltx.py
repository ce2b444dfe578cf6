"""`ltx`: LTX-Video 2B distilled from a local diffusers folder (YOLIVE_MODEL_PATH), bf16 on CUDA.

Eight steps with the distilled timesteps, guidance 1, 768x512 at 24 fps. Nothing is downloaded at run time:
a missing or wrong folder is one error that names the setting. `build_random` makes the same architecture at
full size with random weights (no download) for the GPU benchmark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from generation.presets import LTX_DISTILLED_TIMESTEPS, Preset, assemble_pipeline, decode_with_vae

DTYPE = torch.bfloat16
# The distilled model decodes with a little noise at a small timestep (the model card's values).
DECODE_TIMESTEP = 0.05
DECODE_NOISE_SCALE = 0.025
# The VAE of LTX-Video 0.9.5 and later (the distilled 2B models use it), as diffusers' conversion script
# writes it: 128 latent channels, 32x spatial and 8x temporal compression, timestep-conditioned decoder.
VAE_095_CONFIG: dict[str, Any] = {
    "latent_channels": 128,
    "block_out_channels": (128, 256, 512, 1024, 2048),
    "down_block_types": ("LTXVideo095DownBlock3D",) * 4,
    "decoder_block_out_channels": (256, 512, 1024),
    "layers_per_block": (4, 6, 6, 2, 2),
    "decoder_layers_per_block": (5, 5, 5, 5),
    "spatio_temporal_scaling": (True,) * 4,
    "decoder_spatio_temporal_scaling": (True,) * 3,
    "decoder_inject_noise": (False,) * 4,
    "downsample_type": ("spatial", "temporal", "spatiotemporal", "spatiotemporal"),
    "upsample_residual": (True,) * 3,
    "upsample_factor": (2,) * 3,
    "timestep_conditioning": True,
    "patch_size": 4,
    "patch_size_t": 1,
    "encoder_causal": True,
    "decoder_causal": False,
    "spatial_compression_ratio": 32,
    "temporal_compression_ratio": 8,
}
REQUIRED = ("model_index.json", "transformer", "vae", "text_encoder", "tokenizer", "scheduler")


def check_model_folder(path: str) -> Path:
    folder = Path(path) if path else None
    if folder is None or not folder.is_dir():
        raise ImproperlyConfigured(
            f"YOLIVE_MODEL_PATH={path!r} is not a folder: point it at a local LTX-Video diffusers folder "
            "(e.g. a snapshot of Lightricks/LTX-Video-0.9.8-2B-distilled), or use MODEL_PRESET=tiny"
        )
    missing = [name for name in REQUIRED if not (folder / name).exists()]
    if missing:
        raise ImproperlyConfigured(
            f"YOLIVE_MODEL_PATH={path!r} is not an LTX-Video diffusers folder: {', '.join(missing)} missing"
        )
    return folder


def _device() -> str:
    if not torch.cuda.is_available():
        raise ImproperlyConfigured("MODEL_PRESET=ltx needs a CUDA GPU; use MODEL_PRESET=tiny on a CPU")
    return "cuda"


def build() -> Any:
    from diffusers import LTXConditionPipeline

    folder = check_model_folder(settings.MODEL_PATH)
    device = _device()
    pipe = LTXConditionPipeline.from_pretrained(folder, dtype=DTYPE, local_files_only=True)
    pipe.set_progress_bar_config(disable=True)
    return pipe.to(device)


def build_random(device: str = "cuda", dtype: torch.dtype = DTYPE, num_layers: int = 28) -> Any:
    """Full-size LTX-Video 2B transformer and VAE with random weights; a 2-layer T5-width text encoder.

    The text encoder is cut to two layers (T5-XXL has 24) because its cost is one call per distinct prompt
    and the embedding cache removes it on a hit; its width (4096) matches, so the transformer sees real
    shapes.
    """
    from diffusers import AutoencoderKLLTXVideo, LTXVideoTransformer3DModel
    from transformers import ByT5Tokenizer, T5Config, T5EncoderModel

    transformer_cls: Any = LTXVideoTransformer3DModel
    vae_cls: Any = AutoencoderKLLTXVideo
    text_cls: Any = T5EncoderModel
    torch.manual_seed(0)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)  # built in bf16 directly: no 8 GB float32 copy of the transformer
    try:
        with torch.device(device):
            transformer = transformer_cls(num_layers=num_layers)  # the 2B defaults
            vae = vae_cls(**VAE_095_CONFIG)
            tokenizer = ByT5Tokenizer()
            config = T5Config(
                vocab_size=len(tokenizer), d_model=4096, d_kv=64, d_ff=10240, num_layers=2, num_heads=64
            )
            text_encoder = text_cls(config)
    finally:
        torch.set_default_dtype(previous)
    return assemble_pipeline(transformer.eval(), vae.eval(), text_encoder.eval(), tokenizer)


def pipeline_size(width: int, height: int) -> tuple[int, int]:
    return width - width % 32, height - height % 32  # the pipeline needs multiples of 32


@torch.no_grad()
def decode(pipe: Any, latents: torch.Tensor, width: int, height: int) -> torch.Tensor:
    timestep = None
    if pipe.vae.config.timestep_conditioning:
        # A fixed generator: the same latents decode to the same frames (same seed, same clip).
        generator = torch.Generator(latents.device).manual_seed(0)
        noise = torch.randn(latents.shape, generator=generator, device=latents.device, dtype=latents.dtype)
        noise = pipe._normalize_latents(noise, pipe.vae.latents_mean, pipe.vae.latents_std)
        latents = (1 - DECODE_NOISE_SCALE) * latents + DECODE_NOISE_SCALE * noise
        timestep = torch.tensor([DECODE_TIMESTEP], device=latents.device, dtype=pipe.vae.dtype)
    return decode_with_vae(pipe, latents, width, height, timestep)


PRESET = Preset(
    name="ltx",
    build=build,
    timesteps=LTX_DISTILLED_TIMESTEPS,
    guidance_scale=1.0,
    max_sequence_length=256,
    pipeline_size=pipeline_size,
    decode=decode,
    fbc_threshold=0.05,  # diffusers' default; skips nothing on random weights: tune on the real ones
)
