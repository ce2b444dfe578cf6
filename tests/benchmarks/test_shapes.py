"""The shapes benchmark's stills and the prompts it judges: every subject, each named by its own prompt."""

import subprocess
import sys

import pytest
import torch

from benchmarks.shapes import JUDGED, judged_prompts, stills
from generation.training.architecture import HEIGHT, LATENT_CHANNELS, SPATIAL, WIDTH, build_vae
from generation.world.captions import scene_for
from generation.world.vocabulary import SUBJECTS


def test_one_place_holds_each_subject_once_on_the_same_sky_with_captions_that_name_it():
    torch.set_num_threads(1)
    data = stills("one", build_vae().eval())
    assert data.x0.shape == (len(SUBJECTS), LATENT_CHANNELS, 1, HEIGHT // SPATIAL, WIDTH // SPATIAL)
    assert all(mask.max() > 0.5 for mask in data.masks)  # the subject is there in every still
    for entry, captions in zip(SUBJECTS, data.captions, strict=True):
        assert {scene_for(text, 0).subjects for text in captions} == {(entry.name,)}
        assert {scene_for(text, 0).setting for text in captions} == {"sky"}


def test_the_judged_prompts_name_the_subject_they_are_judged_on():
    for place in ("one", "world"):
        prompts = judged_prompts(place)
        assert len(prompts) == JUDGED
        assert all(scene_for(text, 0).subjects[0] == subject for text, subject in prompts)
    assert {subject for _, subject in judged_prompts("one")} == {entry.name for entry in SUBJECTS}


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (["--heads", "0"], "--heads must be above 0, not 0"),
        (["--heads", "8", "--runs", "world:shipped"], "the shipped one keeps its width"),
    ],
)
def test_a_width_no_run_can_take_is_refused_before_anything_trains(arguments: list[str], error: str):
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.shapes", *arguments], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 2
    assert error in run.stderr
