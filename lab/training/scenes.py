"""Training samples drawn from the world: random scenes, their captions, frames and subject masks.

The held-out combinations (a seeded tenth of every subject x setting x motion triple) never appear in a
training caption; the evaluation asks for exactly those.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from lab.training.architecture import CLIP_FRAMES, FPS, HEIGHT, WIDTH
from lab.world.captions import GRAMMAR_WORDS, caption, scene_for
from lab.world.clips import Scene, draw
from lab.world.vocabulary import MOTIONS, SETTINGS, SUBJECTS

HELD_OUT_SEED = 1234
HELD_OUT_SHARE = 0.1


def all_triples() -> list[tuple[str, str, str]]:
    return list(
        itertools.product([e.name for e in SUBJECTS], [e.name for e in SETTINGS], [e.name for e in MOTIONS])
    )


@cache
def held_out() -> frozenset[tuple[str, str, str]]:
    triples = all_triples()
    rng = np.random.default_rng(HELD_OUT_SEED)
    picked = rng.choice(len(triples), int(len(triples) * HELD_OUT_SHARE), replace=False)
    return frozenset(triples[i] for i in picked)


def seen() -> frozenset[tuple[str, str, str]]:
    """The triples training captions may name: every one but the held-out."""
    return frozenset(all_triples()) - held_out()


def is_held_out(scene: Scene) -> bool:
    return any((s, scene.setting, scene.motion) in held_out() for s in scene.subjects)


NAMELESS_SHARE = 0.04  # captions that name nothing known: the model learns the vocabulary's default scene


def nameless_caption(rng: np.random.Generator) -> str:
    return " ".join(str(w) for w in rng.choice(GRAMMAR_WORDS, int(rng.integers(1, 6))))


def training_caption(rng: np.random.Generator) -> tuple[str, Scene]:
    if rng.random() < NAMELESS_SHARE:
        text = nameless_caption(rng)
        return text, scene_for(text, int(rng.integers(2**31)))
    while True:
        text = caption(rng)
        scene = scene_for(text, int(rng.integers(2**31)))
        if not is_held_out(scene):
            return text, scene


def random_scene(rng: np.random.Generator) -> Scene:
    return training_caption(rng)[1]


def frames_of(
    scene: Scene, count: int, start: int = 0, height: int = HEIGHT, width: int = WIDTH, grid: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Frames start..start+count of the scene's clip (CLIP_FRAMES long at FPS), in [-1, 1], with masks;
    sprites on a `grid` of pixels (world.clips.draw)."""
    frames, masks = draw(
        scene, count, FPS, height, width, start=start, duration_frames=CLIP_FRAMES, grid=grid
    )
    return frames * 2 - 1, masks
