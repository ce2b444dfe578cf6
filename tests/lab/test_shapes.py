"""The shapes benchmark's stills and the prompts it judges: every subject, each named by its own prompt."""

import numpy as np
import pytest
import torch

from lab.experiments.shapes import CROSSINGS, JUDGED, judged_prompts, placed, stills
from lab.training.architecture import HEIGHT, LATENT_CHANNELS, SPATIAL, WIDTH, build_vae
from lab.world.captions import scene_for
from lab.world.vocabulary import SUBJECTS
from tests.helpers.commands import refusal


def test_one_place_holds_each_subject_once_on_the_same_sky_with_captions_that_name_it():
    torch.set_num_threads(1)
    data = stills("one", build_vae().eval())
    assert data.x0.shape == (len(SUBJECTS), LATENT_CHANNELS, 1, HEIGHT // SPATIAL, WIDTH // SPATIAL)
    assert all(mask.max() > 0.5 for mask in data.masks)  # the subject is there in every still
    for entry, captions in zip(SUBJECTS, data.captions, strict=True):
        assert {scene_for(text, 0).subjects for text in captions} == {(entry.name,)}
        assert {scene_for(text, 0).setting for text in captions} == {"sky"}


def test_anywhere_stills_cross_the_sky_with_every_subject_at_many_places():
    from lab.training.scenes import frames_of

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


def test_backdrops_stills_are_the_snapped_ones_on_the_worlds_settings():
    snapped = [placed("snapped", index) for index in range(48)]
    backdrops = [placed("backdrops", index) for index in range(48)]
    assert [(scene.subjects, scene.motion, start) for scene, start in snapped] == [
        (scene.subjects, scene.motion, start) for scene, start in backdrops
    ]
    assert len({scene.setting for scene, _ in backdrops}) >= 6


def offsets_in_a_cell(place: str, subject: int, grid: int) -> set[tuple[int, int]]:
    """Where the subject-th subject's drawn pixels start inside a cell of `grid` pixels, over its first
    stills of `place` (`snapped` to that grid) that the frame does not cut."""
    from lab.experiments.shapes import snapped
    from lab.training.scenes import frames_of

    found = set()
    for index in range(subject, subject + 12 * len(SUBJECTS), len(SUBJECTS)):  # that subject, twelve times
        scene, start = placed(place, index)
        mask = snapped(scene, start, grid)[1][0] if place == "snapped" else frames_of(scene, 1, start)[1][0]
        ys, xs = np.nonzero(mask > 0)
        if min(xs.min(), ys.min()) > 0 and xs.max() < WIDTH - 1 and ys.max() < HEIGHT - 1:  # not cut
            found.add((int(xs.min()) % grid, int(ys.min()) % grid))
    return found


@pytest.mark.parametrize(("subject", "grid"), [(0, 16), (5, 16), (5, 8)])
def test_snapped_stills_fall_on_their_grid_one_way_where_anywhere_stills_fall_many(subject: int, grid: int):
    assert len(offsets_in_a_cell("snapped", subject, grid)) == 1
    assert len(offsets_in_a_cell("anywhere", subject, grid)) > 3


def test_the_worlds_stills_are_the_same_scenes_on_or_off_the_grid():
    torch.set_num_threads(1)
    vae = build_vae().eval()
    world, snapped = stills("world", vae, count=3), stills("world-snapped", vae, count=3)
    assert world.x0.shape == snapped.x0.shape == (3, LATENT_CHANNELS, 1, HEIGHT // SPATIAL, WIDTH // SPATIAL)
    assert world.captions == snapped.captions and all(world.captions)
    assert not torch.equal(world.x0, snapped.x0)  # the sprites moved onto the grid


def test_sized_spun_and_paired_stills_each_vary_the_snapped_ones_one_way():
    from lab.training.architecture import CLIP_FRAMES, FPS
    from lab.world.clips import BASE_SIZE, subject_poses

    def poses(place: str) -> list[list]:
        scenes = [placed(place, index) for index in range(48)]
        return [
            [p for _, p in subject_poses(scene, start / (CLIP_FRAMES - 1), start / FPS)]
            for scene, start in scenes
        ]

    snapped, sized, spun = ([pose for (pose,) in poses(place)] for place in ("snapped", "sized", "spun"))
    assert {p.size for p in snapped} == {p.size for p in spun} == {BASE_SIZE}
    sizes = [p.size / BASE_SIZE for p in sized]
    assert min(sizes) < 0.7 and max(sizes) > 1.3 and len({round(size, 2) for size in sizes}) > 20
    assert {p.angle for p in snapped} == {p.angle for p in sized} == {0.0}
    assert len({round(p.angle) % 360 for p in spun}) > 12  # a turn takes 20 frames
    paired = [scene.subjects for scene, _ in (placed("paired", index) for index in range(48))]
    assert all(len(set(subjects)) == 2 for subjects in paired)
    assert [subjects[0] for subjects in paired] == [
        placed("snapped", index)[0].subjects[0] for index in range(48)
    ]
    assert len({subjects[1] for subjects in paired}) > 12  # any other subject beside it
    assert all(len(pair) == 2 for pair in poses("paired"))
    # A few of those moments only: five sizes, four quarter turns
    assert {round(pose.size / BASE_SIZE, 6) for (pose,) in poses("sized-steps")} == {0.5, 0.75, 1, 1.25, 1.5}
    assert {round(pose.angle) % 360 for (pose,) in poses("spun-quarters")} == {0, 90, 180, 270}


def test_the_judged_prompts_name_the_subjects_they_are_judged_on():
    for place in ("one", "anywhere", "snapped", "backdrops", "sized", "spun", "paired", "spun-quarters"):
        prompts = judged_prompts(place)
        assert len(prompts) == JUDGED
        assert all(scene_for(text, 0).subjects == subjects for text, subjects in prompts)
    assert {len(subjects) for _, subjects in judged_prompts("paired")} == {2}
    for place in ("world", "world-snapped"):  # judged on the first subject, as the evaluation judges a clip
        prompts = judged_prompts(place)
        assert len(prompts) == JUDGED
        assert all(scene_for(text, 0).subjects[:1] == subjects for text, subjects in prompts)
    assert {subjects for _, subjects in judged_prompts("one")} == {(entry.name,) for entry in SUBJECTS}


def test_a_place_is_judged_on_the_stills_after_those_it_trained_on():
    judged = [scene_for(text, 0) for text, _ in judged_prompts("anywhere", trained=100)]
    after = [placed("anywhere", 100 + k)[0] for k in range(JUDGED)]
    assert [(s.subjects, s.motion) for s in judged] == [(s.subjects, s.motion) for s in after]


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (["--heads", "0"], "--heads must be above 0, not 0"),
        (["--heads", "8", "--runs", "world:shipped"], "the shipped one keeps its width"),
        (["--patch", "1", "--runs", "one:fresh", "world:shipped"], "the shipped one keeps its patch"),
        (["--patch", "3"], "argument --patch: invalid choice: 3"),
        (["--snap", "5"], "argument --snap: invalid choice: 5"),
        (["--batch", "0"], "--batch must be above 0 and at most --stills (720), not 0"),
        (["--batch", "96", "--stills", "48"], "--batch must be above 0 and at most --stills (48), not 96"),
        (["--batch", "48", "--runs", "one:fresh"], "--batch must be at most 24 with place one"),
        (["--vae", "docs"], "docs holds no VAE of today's architecture"),
    ],
)
def test_a_shape_no_run_can_take_is_refused_before_anything_trains(arguments: list[str], error: str, capsys):
    from lab.experiments.shapes import main

    assert error in refusal(main, arguments, capsys)


def test_shifted_stills_are_drawn_on_the_cells_and_moved_the_rest_of_the_way_to_where_anywhere_draws_them():
    from lab.experiments.shapes import snapped
    from lab.training.scenes import frames_of

    moved_by = set()
    for index in range(0, 8 * len(SUBJECTS), 7):
        scene, start = placed("shifted", index)
        _, mask, (down, across) = snapped(scene, start, 8)
        exact = frames_of(scene, 1, start)[1][0]
        ys, xs = np.nonzero(mask[0] > 0.5)
        exact_ys, exact_xs = np.nonzero(exact > 0.5)
        if min(xs.min(), exact_xs.min(), ys.min(), exact_ys.min()) == 0:
            continue  # cut by the frame's edge: the corner is not where the sprite starts
        assert abs(down) <= 4 and abs(across) <= 4  # at most half a cell: the nearest corner on the grid
        assert abs(xs.min() + across - exact_xs.min()) <= 1.5 and abs(ys.min() + down - exact_ys.min()) <= 1.5
        moved_by.add((round(down), round(across)))
    assert len(moved_by) > 5


@pytest.mark.parametrize("place", ["one", "world", "spun-quarters"])  # spun: judged at its turns
def test_the_ceiling_judges_each_still_decoded_against_its_own_subject(place: str):
    from generation.presets import get_preset
    from lab.experiments.shapes import ceiling, judged_subjects
    from lab.training.transformer import Latents

    torch.set_num_threads(1)
    pipe = get_preset("world").build()
    data = stills(place, pipe.vae.float(), count=12)
    for index, captions in enumerate(data.captions):  # a world still: the first subject its captions name
        assert set(judged_subjects(place, index)) <= set(scene_for(captions[0], 0).subjects)
    assert ceiling(pipe, place, data) > 0.5  # the shipped VAE keeps most subjects nameable
    others = Latents(data.x0.roll(1, 0), data.masks, data.captions, data.continuation)
    assert ceiling(pipe, place, others) < 0.2  # each still judged against the subject after its own


def test_a_world_runs_breakdown_judges_every_held_out_prompt_by_its_motion_and_as_many_trained_ones():
    from generation.presets import get_preset
    from lab.evaluation.rows import cases
    from lab.experiments.shapes import breakdown
    from lab.training.model_folder import shipped
    from lab.training.transformer import Trainer

    torch.set_num_threads(1)
    pipe = get_preset("world").build()
    data = stills("world", pipe.vae.float(), count=8)
    trainer = Trainer(data, 1, shipped("transformer"), shipped("text_encoder"), batch=8)
    by_motion, trained = breakdown(trainer, pipe, "world", count=12)
    motions = [case.scene.motion for case in cases(12)]
    assert by_motion.keys() == set(motions)
    assert all(len(named) == motions.count(motion) for motion, named in by_motion.items())
    assert sum(sum(named) for named in by_motion.values()) >= 1  # the shipped model names some of its draws
    assert len(trained) == 12 and sum(trained) >= 1  # and some of the trained triples' draws
