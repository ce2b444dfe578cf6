"""The default model's shapes: one place for the frame size, rate and every component's configuration.

The facts the product renders by are written into the model folder's preset.json (model_folder.py).
"""

from __future__ import annotations

from typing import Any

HEIGHT, WIDTH = 96, 160  # the pipeline's frames: multiples of 32 near 16:9, sized for 2 CPU cores
FPS = 8  # rendered rate; the engine brings frames to the stream's rate and size
CLIP_FRAMES = 89  # 9 lead frames (continuity) + 80 aired (10 s): 12 latent frames
LEAD_FRAMES = 9
# The VAE compresses 8x in space, and the transformer reads 2x2 latent cells as one token: 720 tokens for a
# clip, as many as a 16x VAE read cell by cell, while each cell spans 8 pixels rather than 16. A 16x VAE
# (48 channels) trained 18,091 steps still returned sprites as blurs its judge named 36 % of the time: a
# cell a sprite mostly fits inside left its decoder to draw the whole emoji from one vector.
SPATIAL, TEMPORAL = 8, 8  # the VAE's compression
LATENT_GRID = (1 + (CLIP_FRAMES - 1) // TEMPORAL, HEIGHT // SPATIAL, WIDTH // SPATIAL)  # a clip's (F, h, w)
TOKEN_CELLS = 2  # the transformer's patch: latent cells per token side
LATENT_CHANNELS = 16
TEXT_DIM = 64
MAX_TOKENS = 128  # words: a prompt of PROMPT_MAX_CHARS (200) characters has at most 100
# What a dropped caption becomes in training, and the negative prompt at render time: classifier-free
# guidance steers each step away from what the model draws for it (any scene at all) toward the prompt.
NO_PROMPT = ""

# LTX-Video 0.9.5's down and up blocks, whose resampling keeps a space-to-channel shortcut beside the
# convolution (it averages or repeats pixels across channels): the autoencoder starts near a patch average
# and learns the rest, and a step costs about 70 % of one with 0.9.1's plain strided convolutions at a
# similar size (`python -m lab.experiments.vae_race` races the two; lab/ledger.md has the figures).
VAE_CONFIG: dict[str, Any] = {
    "in_channels": 3,
    "out_channels": 3,
    "latent_channels": LATENT_CHANNELS,
    "block_out_channels": (16, 32, 64, 128),
    "down_block_types": ("LTXVideo095DownBlock3D",) * 3,
    "downsample_type": ("spatiotemporal",) * 3,
    "decoder_block_out_channels": (32, 64, 128),
    "layers_per_block": (1, 1, 1, 1),
    "decoder_layers_per_block": (1, 1, 1, 1),
    "spatio_temporal_scaling": (True, True, True),
    "decoder_spatio_temporal_scaling": (True, True, True),
    "decoder_inject_noise": (False, False, False, False),
    "upsample_residual": (True, True, True),
    "upsample_factor": (2, 2, 2),
    "timestep_conditioning": False,
    "patch_size": 1,
    "patch_size_t": 1,
    "encoder_causal": True,
    "decoder_causal": False,
}

HEADS, HEAD_WIDTH = 4, 32  # attention heads; the blocks and the text's projection are heads x width wide

TRANSFORMER_CONFIG: dict[str, Any] = {
    "in_channels": LATENT_CHANNELS * TOKEN_CELLS**2,  # the pipeline packs a token's cells channel-first
    "out_channels": LATENT_CHANNELS * TOKEN_CELLS**2,
    "patch_size": TOKEN_CELLS,
    "patch_size_t": 1,
    "num_attention_heads": HEADS,
    "attention_head_dim": HEAD_WIDTH,
    "cross_attention_dim": HEADS * HEAD_WIDTH,
    "num_layers": 6,
    "caption_channels": TEXT_DIM,
}

TEXT_CONFIG: dict[str, Any] = {
    "d_model": TEXT_DIM,
    "d_kv": 16,
    "d_ff": 128,
    "num_layers": 2,
    "num_heads": 4,
    "relative_attention_num_buckets": 16,
    "dropout_rate": 0.0,
}


def build_vae() -> Any:
    from diffusers import AutoencoderKLLTXVideo

    return AutoencoderKLLTXVideo(**VAE_CONFIG)


def build_transformer(heads: int = HEADS, cells: int = TOKEN_CELLS) -> Any:
    """A new transformer; more `heads` (each HEAD_WIDTH wide) widen every block and the text's projection
    with them, and `cells` sets its patch, latent cells per token side (`python -m lab.experiments.shapes
    --heads / --patch` measure what each buys)."""
    from diffusers import LTXVideoTransformer3DModel

    width = {"num_attention_heads": heads, "cross_attention_dim": heads * HEAD_WIDTH}
    token = LATENT_CHANNELS * cells**2  # the values the pipeline packs into a token, channel-first
    patch = {"patch_size": cells, "in_channels": token, "out_channels": token}
    return LTXVideoTransformer3DModel(**{**TRANSFORMER_CONFIG, **width, **patch})
