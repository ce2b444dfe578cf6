"""Reference conditioning: the subject's picture as clean tokens before the clip's, and its pilot."""

import numpy as np
import torch

from lab.training.architecture import HEIGHT, LATENT_CHANNELS, WIDTH, build_vae
from lab.training.reference import (
    GREY,
    ReferenceTrainer,
    reference_coords,
    reference_picture,
    reference_tokens,
    with_reference,
)
from lab.training.transformer import Latents, video_coords
from lab.world.vocabulary import SUBJECTS
from tests.helpers.training import losses_on_one_batch


def stills(count: int = 4) -> Latents:
    g = torch.Generator().manual_seed(0)
    return Latents(
        x0=torch.randn(count, LATENT_CHANNELS, 1, HEIGHT // 8, WIDTH // 8, generator=g).half(),
        masks=torch.rand(count, 1, HEIGHT // 8, WIDTH // 8, generator=g).half(),
        captions=[["a cat bouncing in the snow"], ["a rocket rising in space"]] * (count // 2),
        continuation=torch.zeros(count, dtype=torch.bool),
    )


def test_a_reference_is_the_subject_upright_in_the_middle_of_a_grey_frame():
    picture = reference_picture("cat")
    assert picture.shape == (HEIGHT, WIDTH, 3) and picture.dtype == np.uint8
    grey = round(GREY * 255)
    assert (picture[0] == grey).all() and (picture[:, 0] == grey).all()  # nothing at the edges
    assert (picture[HEIGHT // 2, WIDTH // 2] != grey).any()  # the subject in the middle
    assert not np.array_equal(picture, reference_picture("dog"))


def test_reference_tokens_are_one_latent_frame_packed_as_the_clips_tokens_before_its_first_frame():
    tokens = reference_tokens(build_vae().eval(), ["cat", "rocket"], cells=2)
    assert tokens.shape == (2, (HEIGHT // 16) * (WIDTH // 16), LATENT_CHANNELS * 4)
    coords = reference_coords(1, cells=2)
    clip = video_coords(1, 1, HEIGHT // 8, WIDTH // 8, 2)
    assert torch.equal(coords[:, 1:], clip[:, 1:])  # the same grid in space
    assert (coords[:, 0] < 0).all() and (clip[:, 0] == 0).all()  # a frame before the clip in time


def test_the_prediction_covers_the_clips_tokens_only_and_reads_the_reference():
    trainer = ReferenceTrainer(stills(), ["cat", "rocket"] * 2, build_vae().eval(), threads=1, batch=2)
    x = torch.randn(1, trainer.coords.shape[-1], LATENT_CHANNELS * 4)
    prompt = (torch.randn(1, 4, 64), torch.ones(1, 4, dtype=torch.long))
    timestep = torch.full(x.shape[:2], 500.0)
    coords = trainer.coords[:1]
    with torch.no_grad():
        cat = with_reference(trainer.transformer, x, prompt, timestep, coords, trainer.references[:1])
        rocket = with_reference(trainer.transformer, x, prompt, timestep, coords, trainer.references[1:2])
    assert cat.shape == x.shape
    assert not torch.allclose(cat, rocket)  # the picture shown changes what is drawn


def test_a_few_steps_with_references_lower_the_loss():
    trainer = ReferenceTrainer(stills(), ["cat", "rocket"] * 2, build_vae().eval(), threads=1, batch=4)
    losses = losses_on_one_batch(trainer)
    assert losses[-1] < 0.85 * losses[0]


def test_the_pilot_leaves_a_fifth_of_the_subjects_out_of_every_still_but_the_default():
    from lab.experiments.reference import unseen_subjects, world_stills
    from lab.world.vocabulary import as_json

    unseen = unseen_subjects()
    assert len(unseen) == round(len(SUBJECTS) / 5)
    assert as_json()["defaults"]["subject"] not in unseen
    data, firsts = world_stills(build_vae().eval(), 12, unseen)
    assert len(data.x0) == len(firsts) == 12
    assert not set(firsts) & set(unseen)
