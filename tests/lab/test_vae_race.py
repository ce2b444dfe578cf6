"""The VAE race's identity figure: the judge on reconstructions, high for a perfect autoencoder, at chance
for one that keeps nothing."""

import torch

from lab.experiments.vae_race import identity
from tests.helpers.autoencoders import Forgetful, Passthrough


def test_the_race_names_subjects_on_a_perfect_reconstruction_and_not_on_a_flat_one():
    torch.set_num_threads(1)
    assert identity(Passthrough(), count=6) >= 4 / 6  # the ground truth's own rate is near 90 %
    assert identity(Forgetful(), count=6) <= 1 / 6
