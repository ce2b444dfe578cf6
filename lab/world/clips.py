"""A Scene (subjects, setting, motion, seed) drawn as frames: the ground truth the model learns from.

Motions run over the whole clip (`duration` seconds), so "left" crosses the frame once in a clip whatever its
length; positions and sizes are fractions of the frame, so any frame size draws the same story.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.world.backdrops import Canvas, backdrop
from lab.world.sprites import sprite

BASE_SIZE = 0.36  # a lone subject's height, as a fraction of the frame's
PAIR_SIZE = 0.30
BOUNCE_PERIOD_S = 1.6
SPIN_PERIOD_S = 2.5


@dataclass(frozen=True)
class Scene:
    subjects: tuple[str, ...]
    setting: str
    motion: str
    seed: int = 0


@dataclass(frozen=True)
class Pose:
    x: float  # centre, fraction of the width
    y: float  # centre, fraction of the height
    size: float  # fraction of the height
    angle: float  # degrees, counter-clockwise


def _jitter(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, 4)


def pose(motion: str, u: float, t: float, seed: int, size: float = BASE_SIZE) -> Pose:
    """Where a subject is at clip fraction u (0 to 1) and time t (seconds)."""
    j = _jitter(seed)
    x0, y0 = 0.5 + 0.2 * j[0], 0.5 + 0.12 * j[1]
    lo, hi = 0.2 + 0.04 * j[2], 0.8 + 0.04 * j[3]
    if motion == "left":
        return Pose(hi + (lo - hi) * u, y0, size, 0.0)
    if motion == "right":
        return Pose(lo + (hi - lo) * u, y0, size, 0.0)
    if motion == "up":
        return Pose(x0, hi + (lo - hi) * u, size, 0.0)
    if motion == "down":
        return Pose(x0, lo + (hi - lo) * u, size, 0.0)
    if motion == "bounce":
        return Pose(x0, 0.75 - 0.45 * abs(math.sin(math.pi * t / BOUNCE_PERIOD_S)), size, 0.0)
    if motion == "grow":
        return Pose(x0, 0.5, size * (0.5 + 1.0 * u), 0.0)
    if motion == "shrink":
        return Pose(x0, 0.5, size * (1.5 - 1.0 * u), 0.0)
    if motion == "spin":
        return Pose(x0, y0, size, -360.0 * t / SPIN_PERIOD_S)
    # float: the default when a prompt names no motion
    return Pose(
        x0 + 0.03 * math.sin(2 * math.pi * t / 5), y0 + 0.04 * math.sin(2 * math.pi * t / 3), size, 0.0
    )


def subject_poses(scene: Scene, u: float, t: float) -> list[tuple[str, Pose]]:
    if len(scene.subjects) == 1:
        return [(scene.subjects[0], pose(scene.motion, u, t, scene.seed))]
    placed = []
    for k, name in enumerate(scene.subjects):
        p = pose(scene.motion, u, t, scene.seed, PAIR_SIZE)
        offset = (-0.16, 0.16)[k]
        horizontal = scene.motion in ("up", "down", "bounce", "grow", "shrink", "spin", "float")
        placed.append(
            (
                name,
                Pose(p.x + offset, p.y, p.size, p.angle)
                if horizontal
                else Pose(p.x, p.y + offset, p.size, p.angle),
            )
        )
    return placed


def sprite_side(p: Pose, height: int) -> int:
    """The side, in pixels, of the square a subject in pose `p` is drawn in on a frame `height` high."""
    return max(4, round(p.size * height))


def composite(frame: np.ndarray, mask: np.ndarray, name: str, p: Pose, grid: int = 1) -> None:
    """Draw a subject in pose `p` onto the frame and its coverage into the mask, the sprite's top-left
    corner on the nearest multiple of `grid` pixels."""
    h, w = frame.shape[:2]
    side = sprite_side(p, h)
    rgba = sprite(name, side, p.angle)
    cx, cy = p.x * (w - 1), p.y * (h - 1)
    x0, y0 = grid * round((cx - side / 2) / grid), grid * round((cy - side / 2) / grid)
    fx0, fy0, fx1, fy1 = max(0, x0), max(0, y0), min(w, x0 + side), min(h, y0 + side)
    if fx0 >= fx1 or fy0 >= fy1:
        return
    part = rgba[fy0 - y0 : fy1 - y0, fx0 - x0 : fx1 - x0]
    alpha = part[..., 3:]
    region = frame[fy0:fy1, fx0:fx1]
    region[:] = region * (1 - alpha) + part[..., :3] * alpha
    np.maximum(mask[fy0:fy1, fx0:fx1], alpha[..., 0], out=mask[fy0:fy1, fx0:fx1])


def draw(
    scene: Scene,
    num_frames: int,
    fps: float,
    height: int,
    width: int,
    start: int = 0,
    duration_frames: int | None = None,
    grid: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """Frames start..start+num_frames of the scene: ((F, H, W, 3) float32 in [0, 1], (F, H, W) subject mask).

    `duration_frames` is the length the motion spans (the whole clip); it defaults to num_frames. Above 1,
    `grid` stands each sprite's top-left corner on a multiple of that many pixels: a moving subject steps
    from square to square rather than gliding, and on a grid of the transformer's token side its pixels
    fall on the tokens one way wherever it stands (lab/ledger.md has what that buys the model).
    """
    canvas = Canvas(height, width)
    total = duration_frames or num_frames
    frames = np.empty((num_frames, height, width, 3), np.float32)
    masks = np.zeros((num_frames, height, width), np.float32)
    for i in range(num_frames):
        index = start + i
        t = index / fps
        frame = backdrop(scene.setting, canvas, t, scene.seed)
        for name, p in subject_poses(scene, index / max(1, total - 1), t):
            composite(frame, masks[i], name, p, grid)
        frames[i] = frame
    return frames, masks


def to_uint8(frames: np.ndarray) -> np.ndarray:
    return (np.clip(frames, 0, 1) * 255 + 0.5).astype(np.uint8)
