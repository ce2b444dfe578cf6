"""Diffusion forcing: the transformer stage's Trainer with every latent frame at its own noise level, in one
block-causal pass.

Each clip's latent frames draw their sigmas independently from the shifted schedule the stage samples with,
and the transformer reads the clip under the block-causal mask that generation/block_causal.py generates
with (`BlockCausal.masked`: a frame sees itself, the sink frames and the window before it), at the video
coordinates that pass gives. The loss is the stage's, over every frame's tokens. A frame so learns to denoise
from any mix of noise levels in the frames it sees, clean ones included, which is what `make_blocks` gives
it: the finished blocks before it, clean in the cache.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from generation.block_causal import BlockCausal, Grid, cache_for
from generation.pipeline import velocity
from lab.training.architecture import FPS, SPATIAL, TEMPORAL
from lab.training.schedule import shifted
from lab.training.transformer import Latents, Trainer

SINK, WINDOW = 1, 6  # frames the mask (and the cache at generation) keeps: docs/benchmarks.md's defaults


def block_causal(
    transformer: Any, frame_cells: tuple[int, int], sink: int = SINK, window: int = WINDOW
) -> BlockCausal:
    """`transformer`'s self-attention made block-causal, for latent frames of `frame_cells` (h, w) cells,
    with a cache of `sink` + `window` frames (only a block pass fills it; a masked pass reads its sizes)."""
    patch = int(transformer.config.patch_size)
    grid = Grid(frame_cells[0] // patch, frame_cells[1] // patch, patch, SPATIAL, TEMPORAL / FPS)
    return BlockCausal(transformer, cache_for(transformer, grid, sink, window), grid)


class DiffusionForcingTrainer(Trainer):
    def __init__(
        self,
        latents: Latents,
        *args: Any,
        sink: int = SINK,
        window: int = WINDOW,
        clean_context: float = 0.0,
        context_noise: float = 0.0,
        **kwargs: Any,
    ):
        """The Trainer's arguments; `sink` and `window`: the block-causal mask's, as the cache will hold;
        `clean_context`: the share of clips whose first frames are given as the cache holds finished blocks,
        at `context_noise` (0: clean; generation reads the cache at the same sigma)."""
        if not 0.0 <= clean_context <= 1.0:
            raise ValueError(f"clean_context is a share from 0 to 1, not {clean_context}")
        if not 0.0 <= context_noise < 1.0:
            raise ValueError(f"context_noise is a sigma from 0 to below 1, not {context_noise}")
        super().__init__(latents, *args, **kwargs)
        self.clean_context = clean_context
        self.context_noise = context_noise
        frames, height, width = latents.x0.shape[2:]
        self.frames = list(range(frames))
        self.causal = block_causal(self.transformer, (height, width), sink, window)

    def noise_levels(self, rng: np.random.Generator) -> torch.Tensor:
        """One sigma a latent frame, each drawn on its own; in `clean_context` of the clips, the frames before
        a random one (not the first) at the context noise."""
        sigma = shifted(torch.from_numpy(rng.random((self.batch, len(self.frames)))).float())
        frames = torch.arange(len(self.frames))
        for clip in np.flatnonzero(rng.random(self.batch) < self.clean_context):
            sigma[clip, frames < rng.integers(1, len(self.frames))] = self.context_noise
        return sigma

    def predict(
        self,
        xt: torch.Tensor,
        prompt: tuple[torch.Tensor, torch.Tensor],
        timestep: torch.Tensor,
        index: torch.Tensor,
        rng: np.random.Generator,
    ) -> torch.Tensor:
        with self.causal.masked(self.frames) as coords:
            coords = coords.to(self.device).expand(len(xt), -1, -1)
            return velocity(self.transformer, xt, prompt, timestep, coords)
