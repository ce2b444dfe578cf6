"""`tiny`: the LTX-Video pipeline with tiny random weights, built offline from config; the CPU stand-in.

Real parts: LTXConditionPipeline, LTXVideoTransformer3DModel (12 blocks, 2 heads of 8), a T5 encoder with
a byte-level tokenizer that needs no files, FlowMatchEulerDiscreteScheduler, the distilled 8-step schedule.
Stand-in part: the VAE (generation/smooth_vae.py), because a random LTX VAE decodes to white noise.

Its frames are abstract motion, soft colour fields drifting over a 9x5 latent grid, not pictures: the
weights are random. Seeded construction means every worker builds the same model, so the same seed gives
the same clip anywhere.
"""

from __future__ import annotations

from typing import Any

import torch
from diffusers import LTXVideoTransformer3DModel
from transformers import ByT5Tokenizer, T5Config, T5EncoderModel

from generation.presets import LTX_DISTILLED_TIMESTEPS, Preset, assemble_pipeline
from generation.smooth_vae import SmoothVideoVAE

WEIGHTS_SEED = 0
TEXT_DIM = 32  # the T5 width, which is also the transformer's caption_channels
LATENT_CHANNELS = 8
# Sized by measurement (docs/benchmarks.md): the transformer dominates the render, as on a GPU, yet a
# 10 s clip stays well under real time on 2 CPU cores.
NUM_LAYERS = 12
NUM_HEADS = 2
HEAD_DIM = 8
# 9 latent cells across (288 px at LTX's 32 px per latent); rows follow the stream's aspect ratio.
LATENT_COLUMNS = 9
SPATIAL_RATIO = 32


def build_text_encoder() -> tuple[ByT5Tokenizer, T5EncoderModel]:
    tokenizer = ByT5Tokenizer()  # byte-level: no vocabulary file, so no download
    torch.manual_seed(WEIGHTS_SEED)
    config = T5Config(
        vocab_size=len(tokenizer),  # not tokenizer.vocab_size: ids of the extra tokens reach len(tokenizer)
        d_model=TEXT_DIM,
        d_kv=8,
        d_ff=37,
        num_layers=2,
        num_heads=4,
        relative_attention_num_buckets=8,
        dropout_rate=0.0,
    )
    return tokenizer, T5EncoderModel(config).eval()


def build_transformer(num_layers: int = NUM_LAYERS) -> Any:
    torch.manual_seed(WEIGHTS_SEED)
    model: Any = LTXVideoTransformer3DModel(
        in_channels=LATENT_CHANNELS,
        out_channels=LATENT_CHANNELS,
        patch_size=1,
        patch_size_t=1,
        num_attention_heads=NUM_HEADS,
        attention_head_dim=HEAD_DIM,
        cross_attention_dim=NUM_HEADS * HEAD_DIM,
        num_layers=num_layers,
        caption_channels=TEXT_DIM,
    )
    return model.eval()


def build(num_layers: int = NUM_LAYERS) -> Any:
    tokenizer, text_encoder = build_text_encoder()
    vae = SmoothVideoVAE(latent_channels=LATENT_CHANNELS, seed=WEIGHTS_SEED)
    return assemble_pipeline(build_transformer(num_layers), vae, text_encoder, tokenizer)


def pipeline_size(width: int, height: int) -> tuple[int, int]:
    columns = min(LATENT_COLUMNS, max(2, width // SPATIAL_RATIO))
    rows = max(1, round(columns * height / width))
    return columns * SPATIAL_RATIO, rows * SPATIAL_RATIO


def decode(pipe: Any, latents: torch.Tensor, width: int, height: int) -> torch.Tensor:
    vae: SmoothVideoVAE = pipe.vae
    return vae.decode_uint8(latents, height, width)


PRESET = Preset(
    name="tiny",
    build=build,
    timesteps=LTX_DISTILLED_TIMESTEPS,
    guidance_scale=1.0,
    max_sequence_length=64,
    pipeline_size=pipeline_size,
    decode=decode,
    # Measured (docs/benchmarks.md): skips 6 of 8 steps' remaining blocks, about 45 dB PSNR against none.
    fbc_threshold=0.1,
)
