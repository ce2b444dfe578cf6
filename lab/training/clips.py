"""The transformer's training clips, drawn once and kept on disk (var/training/clips/), resumable.

Each clip is CLIP_FRAMES long, as the renderer asks for. Half of them are continuations: their first
LEAD_FRAMES frames are the end of another scene and the new scene dissolves in over the next few frames,
which is what a render conditioned on the previous clip must learn to do. Every clip keeps its captions
(several phrasings of one Scene) and its subject mask pooled to the latent grid, for the loss weighting.
A still (draw_still) is one frame of such a scene, which lab/experiments/shapes.py learns on.
"""

from __future__ import annotations

import functools
import json
import math
import multiprocessing
import os
import time
from contextlib import nullcontext
from pathlib import Path

import numpy as np
from tqdm import tqdm

from lab.training.architecture import CLIP_FRAMES, LEAD_FRAMES, SPATIAL, TEMPORAL
from lab.training.scenes import frames_of, training_caption
from lab.world.captions import caption, scene_for
from lab.world.clips import Scene, to_uint8

DISSOLVE_FRAMES = 4
CAPTIONS_PER_CLIP = 4


def latent_mask(masks: np.ndarray) -> np.ndarray:
    """(F, H, W) subject coverage -> (1 + (F-1)/8, H/8, W/8): the share of each latent cell it covers."""
    f, h, w = masks.shape
    groups = [masks[:1]] + [masks[1 + i : 1 + i + TEMPORAL] for i in range(0, f - 1, TEMPORAL)]
    pooled = np.stack([g.max(axis=0) for g in groups])
    return pooled.reshape(len(groups), h // SPATIAL, SPATIAL, w // SPATIAL, SPATIAL).mean(axis=(2, 4))


def phrasings(first: str, scene: Scene, rng: np.random.Generator) -> list[str]:
    """Other captions that read as the same Scene."""
    found = [first]
    for _ in range(40):
        if len(found) == CAPTIONS_PER_CLIP:
            break
        text = caption(rng, scene.subjects, scene.setting, scene.motion)
        if scene_for(text, scene.seed) == scene and text not in found:
            found.append(text)
    return found


def draw_clip(index: int, seed: int) -> tuple[np.ndarray, np.ndarray, dict[str, object]]:
    rng = np.random.default_rng([seed, index])
    text, scene = training_caption(rng)
    frames, masks = frames_of(scene, CLIP_FRAMES)
    continuation = bool(index % 2)
    if continuation:
        previous = training_caption(rng)[1]
        tail, _ = frames_of(previous, LEAD_FRAMES, start=CLIP_FRAMES - LEAD_FRAMES)
        frames[:LEAD_FRAMES] = tail
        masks[:LEAD_FRAMES] = 0
        for k in range(DISSOLVE_FRAMES):
            a = (k + 1) / (DISSOLVE_FRAMES + 1)
            frames[LEAD_FRAMES + k] = (1 - a) * tail[-1] + a * frames[LEAD_FRAMES + k]
    return drawn(frames, masks, text, scene, rng, continuation)


def draw_still(index: int, seed: int, grid: int = 1) -> tuple[np.ndarray, np.ndarray, dict[str, object]]:
    """One frame of a training scene at a random moment of its clip, its sprites on a `grid` of pixels
    (world.clips.draw)."""
    rng = np.random.default_rng([seed, index])
    text, scene = training_caption(rng)
    frames, masks = frames_of(scene, 1, start=int(rng.integers(CLIP_FRAMES)), grid=grid)
    return drawn(frames, masks, text, scene, rng, continuation=False)


def drawn(
    frames: np.ndarray,
    masks: np.ndarray,
    text: str,
    scene: Scene,
    rng: np.random.Generator,
    continuation: bool,
) -> tuple[np.ndarray, np.ndarray, dict[str, object]]:
    """What is kept of a drawn clip or still: its frames, its latent mask and its captions."""
    info = {
        "captions": phrasings(text, scene, rng),
        "continuation": continuation,
        "scene": [list(scene.subjects), scene.setting, scene.motion],
    }
    return to_uint8((frames + 1) / 2), latent_mask(masks).astype(np.float16), info


def draw_one(folder: Path, index: int, seed: int) -> None:
    done = folder / f"{index:05d}.json"
    if done.exists():
        return
    frames, mask, info = draw_clip(index, seed)
    np.save(folder / f"{index:05d}.frames.npy", frames)
    np.save(folder / f"{index:05d}.mask.npy", mask)
    partial = done.with_suffix(".partial")
    partial.write_text(json.dumps(info))
    os.replace(partial, done)  # last: a clip counts only once all its files are there


def draw_all(folder: Path, count: int, seed: int = 2, workers: int = 1, deadline: float = math.inf) -> int:
    """Clips 0 to count-1 that are not drawn yet, in order, by `workers` processes, until time.monotonic()
    passes `deadline` (a GPU machine draws what its CPUs can while it is busy with something else). Returns
    how many clips the folder holds."""
    folder.mkdir(parents=True, exist_ok=True)
    missing = [i for i in range(count) if not (folder / f"{i:05d}.json").exists()]
    draw = functools.partial(draw_one, folder, seed=seed)
    with multiprocessing.get_context("spawn").Pool(workers) if workers > 1 else nullcontext() as pool:
        drawn = pool.imap(draw, missing, chunksize=4) if pool else map(draw, missing)
        for _ in tqdm(drawn, desc="clips", total=len(missing), mininterval=10):
            if time.monotonic() > deadline:
                break  # leaving the pool stops its workers; a clip cut off mid-write never counts
    return len(list(folder.glob("*.json")))


if __name__ == "__main__":
    import sys

    draw_all(Path(sys.argv[1]), int(sys.argv[2]))
