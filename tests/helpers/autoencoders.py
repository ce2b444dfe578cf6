"""Stand-in autoencoders at the judge's two extremes, for the checks that read reconstructions."""

from __future__ import annotations

from types import SimpleNamespace

import torch


class Passthrough:
    """Gives back exactly what it was given: the judge's best case."""

    device = torch.device("cpu")  # where it runs, as a diffusers model says

    def encode(self, video: torch.Tensor) -> SimpleNamespace:
        return SimpleNamespace(latent_dist=SimpleNamespace(mode=lambda: video))

    def decode(self, latents: torch.Tensor) -> SimpleNamespace:
        return SimpleNamespace(sample=latents)


class Forgetful(Passthrough):
    """Keeps only the frame's mean colour."""

    def decode(self, latents: torch.Tensor) -> SimpleNamespace:
        return SimpleNamespace(sample=latents.mean(dim=(3, 4), keepdim=True).expand_as(latents))
