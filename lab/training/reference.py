"""Reference conditioning: the transformer is shown the subject's picture, so that it copies the shape
rather than memorising it in every pose.

A reference is the subject's emoji at the lone size, upright, centred on a plain grey canvas of the frame's
size, encoded by the VAE as one latent frame (as many tokens as one latent frame of the clip). Its tokens are
prepended to the clip's, clean and at timestep 0, at a time coordinate one latent frame before the clip, and
the loss is taken on the clip's tokens only (LTX-Video-Trainer's reference strategy; VACE and Phantom strip
theirs the same way). A tenth of the time the reference is dropped to zeros, so that the text path still
draws alone. The picture carries the identity: a subject the transformer never trained on can be drawn
from its picture.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from generation.precision import mixed_precision
from lab.training.architecture import FPS, HEIGHT, SPATIAL, TEMPORAL, WIDTH
from lab.training.transformer import LEARNING_RATE, Latents, Trainer, normalised, pack, velocity, video_coords
from lab.world.clips import BASE_SIZE
from lab.world.sprites import sprite

DROPPED = 0.1  # references dropped to zeros in training
GREY = 0.5  # the reference's canvas: no setting's colour


def reference_picture(name: str, height: int = HEIGHT, width: int = WIDTH) -> np.ndarray:
    """(height, width, 3) uint8: the subject upright at the lone size, centred on grey."""
    side = round(BASE_SIZE * height)
    rgba = sprite(name, side)
    canvas = np.full((height, width, 3), GREY, np.float32)
    top, left = (height - side) // 2, (width - side) // 2
    alpha = rgba[..., 3:]
    patch = canvas[top : top + side, left : left + side]
    canvas[top : top + side, left : left + side] = alpha * rgba[..., :3] + (1 - alpha) * patch
    return (canvas * 255).round().astype(np.uint8)


@torch.no_grad()
def reference_tokens(vae: Any, names: list[str], cells: int) -> torch.Tensor:
    """(len(names), tokens, C x cells²): each subject's picture encoded and packed as the clip's tokens."""
    pictures = np.stack([reference_picture(name) for name in names])  # N, H, W, 3
    video = torch.from_numpy(pictures).permute(0, 3, 1, 2)[:, :, None].float() / 127.5 - 1  # N, 3, 1, H, W
    with mixed_precision():
        latents = vae.encode(video.to(vae.dtype)).latent_dist.mode().float()
    return pack(normalised(vae, latents), cells)


def reference_coords(batch: int, cells: int) -> torch.Tensor:
    """The reference's coordinates: the grid of a latent frame, one latent frame before the clip's first."""
    coords = video_coords(batch, 1, HEIGHT // SPATIAL, WIDTH // SPATIAL, cells)
    coords[:, 0] = -TEMPORAL / FPS
    return coords


def with_reference(
    transformer: Any,
    noisy: torch.Tensor,
    prompt: tuple[torch.Tensor, torch.Tensor],
    timestep: torch.Tensor,
    coords: torch.Tensor,
    reference: torch.Tensor,
) -> torch.Tensor:
    """The velocity of `noisy`'s tokens with the `reference` tokens (B, n, D) prepended clean, at t = 0."""
    batch, count = reference.shape[:2]
    cells = int(transformer.config.patch_size)
    hidden = torch.cat([reference.to(noisy), noisy], dim=1)
    steps = torch.cat([torch.zeros(batch, count).to(timestep), timestep], dim=1)
    where = torch.cat([reference_coords(batch, cells).to(coords), coords], dim=2)
    return velocity(transformer, hidden, prompt, steps, where)[:, count:]


class ReferenceTrainer(Trainer):
    """The transformer stage's Trainer with each clip's first subject shown as its reference."""

    def __init__(
        self,
        latents: Latents,
        subjects: list[str],
        vae: Any,
        threads: int = 2,
        batch: int | None = None,
        peak_rate: float = LEARNING_RATE,
        **parts: Any,
    ) -> None:
        """`subjects`: each clip's first subject, whose picture it is shown."""
        super().__init__(latents, threads, batch=batch, peak_rate=peak_rate, **parts)
        names = sorted(set(subjects))
        table = reference_tokens(vae, names, self.cells)
        self.references = table[torch.tensor([names.index(name) for name in subjects])]
        self.dropping = np.random.default_rng(len(subjects))  # apart: the batches are a plain run's

    def predict(
        self,
        xt: torch.Tensor,
        prompt: tuple[torch.Tensor, torch.Tensor],
        timestep: torch.Tensor,
        index: torch.Tensor,
        rng: np.random.Generator,
    ) -> torch.Tensor:
        reference = self.references[index].to(self.device).clone()
        reference[torch.from_numpy(self.dropping.random(len(index)) < DROPPED)] = 0.0
        return with_reference(self.transformer, xt, prompt, timestep, self.coords, reference)
