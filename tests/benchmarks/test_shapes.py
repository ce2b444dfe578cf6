"""The shapes benchmark's stills and the prompts it judges: every subject, each named by its own prompt."""

import subprocess
import sys

import numpy as np
import pytest
import torch

from benchmarks.shapes import CROSSINGS, JUDGED, judged_prompts, placed, stills
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


def test_anywhere_stills_cross_the_sky_with_every_subject_at_many_places():
    from generation.training.samples import frames_of

    scenes = [placed("anywhere", index) for index in range(48)]
    assert {scene.subjects[0] for scene, _ in scenes} == {entry.name for entry in SUBJECTS}
    assert {scene.setting for scene, _ in scenes} == {"sky"}
    assert {scene.motion for scene, _ in scenes} == set(CROSSINGS)
    places = set()
    for scene, start in scenes[:16]:
        mask = frames_of(scene, 1, start)[1][0]
        ys, xs = np.nonzero(mask > 0.5)
        places.add((round(xs.mean() / 16), round(ys.mean() / 16)))  # the token the subject centres on
    assert len(places) >= 8


def test_the_judged_prompts_name_the_subject_they_are_judged_on():
    for place in ("one", "anywhere", "world"):
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
