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

from generation.block_causal import BlockCausal, Grid, block_causal_mask, cache_for
from generation.pipeline import velocity
from lab.training.architecture import FPS, SPATIAL, TEMPORAL
from lab.training.schedule import shifted
from lab.training.transformer import Latents, Trainer, pack

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


def teacher_forcing_mask(frames: int, tokens: int, sink: int, window: int) -> torch.Tensor:
    """(2 x frames x tokens)² booleans over a pass of a clip's clean frames, then the same frames noisy: the
    clean ones see one another block-causally, as their pass at timestep 0 filled the cache; a noisy frame
    sees itself and the clean frames a cache holds when it is made (the sink and the window before it, not
    its own clean copy); no clean frame sees a noisy one."""
    order = torch.arange(frames)
    query, key = order[:, None], order[None, :]
    cached = (key < query) & ((key < sink) | (key >= query - window))
    clean = block_causal_mask(list(range(frames)), 1, sink, window)
    seen = torch.cat(
        [
            torch.cat([clean, torch.zeros(frames, frames, dtype=torch.bool)], dim=1),
            torch.cat([cached, torch.eye(frames, dtype=torch.bool)], dim=1),
        ]
    )
    return seen.repeat_interleave(tokens, 0).repeat_interleave(tokens, 1)


class TeacherForcingTrainer(DiffusionForcingTrainer):
    """Every latent frame at its own noise level, each denoised against a clean copy of the clip's frames
    before it, exactly as `make_blocks` makes it against the cache: the pass reads the clip twice, clean (at
    the context noise, as the cache is filled) and noisy, and only the noisy half carries the loss. Diffusion
    forcing gives a frame a past as noisy as its own draw; here every frame of every clip trains on the past
    generation gives it (CausVid's and Self-Forcing's teacher-forcing baseline)."""

    def __init__(self, latents: Latents, *args: Any, **kwargs: Any):
        if kwargs.get("clean_context"):
            raise ValueError("teacher forcing gives every frame a clean past: clean_context does not apply")
        super().__init__(latents, *args, **kwargs)
        grid = self.causal.grid
        self.mask = teacher_forcing_mask(
            len(self.frames), grid.tokens, self.causal.cache.sink, self.causal.cache.window
        )
        self.pair_coords = grid.coords(self.frames + self.frames, 0).to(self.device)

    def predict(
        self,
        xt: torch.Tensor,
        prompt: tuple[torch.Tensor, torch.Tensor],
        timestep: torch.Tensor,
        index: torch.Tensor,
        rng: np.random.Generator,
    ) -> torch.Tensor:
        clean = pack(self.data.x0[index].to(xt), self.cells)
        if self.context_noise:
            clean = (1 - self.context_noise) * clean + self.context_noise * torch.randn_like(clean)
        tokens = torch.cat([clean, xt], dim=1)
        timesteps = torch.cat([torch.full_like(timestep, self.context_noise * 1000), timestep], dim=1)
        with self.causal.attending(self.mask):
            coords = self.pair_coords.expand(len(xt), -1, -1)
            return velocity(self.transformer, tokens, prompt, timesteps, coords)[:, xt.shape[1] :]
