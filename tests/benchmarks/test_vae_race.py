"""The VAE race's identity figure: the judge on reconstructions, high for a perfect autoencoder, at chance
for one that keeps nothing."""

from types import SimpleNamespace

import torch

from benchmarks.vae import identity


class Passthrough:
    """Gives back exactly what it was given: the judge's best case."""

    def encode(self, video: torch.Tensor) -> SimpleNamespace:
        return SimpleNamespace(latent_dist=SimpleNamespace(mode=lambda: video))

    def decode(self, latents: torch.Tensor) -> SimpleNamespace:
        return SimpleNamespace(sample=latents)


class Forgetful(Passthrough):
    """Keeps only the frame's mean colour."""

    def decode(self, latents: torch.Tensor) -> SimpleNamespace:
        return SimpleNamespace(sample=latents.mean(dim=(3, 4), keepdim=True).expand_as(latents))


def test_the_race_names_subjects_on_a_perfect_reconstruction_and_not_on_a_flat_one():
    torch.set_num_threads(1)
    assert identity(Passthrough(), count=6) >= 4 / 6  # the ground truth's own rate is near 90 %
    assert identity(Forgetful(), count=6) <= 1 / 6
