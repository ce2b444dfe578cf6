"""The settings, drawn procedurally and moving: each is a function of time over a layout drawn from a seed.

Every setting has its own palette (the metric tells them apart by colour statistics) and its own motion
(clouds drift, waves roll, stars twinkle, trees sway, dunes shift, snow falls, windows flicker, stars
stream past, surf breaks), so a clip is alive even where the subject is still.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Frame = np.ndarray  # (height, width, 3) float32 in [0, 1]


class Canvas:
    """Pixel coordinates in [0, 1) for one frame size, shared by every drawing call."""

    def __init__(self, height: int, width: int) -> None:
        self.height, self.width = height, width
        self.y, self.x = np.meshgrid(
            np.linspace(0, 1, height, dtype=np.float32),
            np.linspace(0, 1, width, dtype=np.float32),
            indexing="ij",
        )
        self.aspect = width / height

    def vertical(self, top: tuple[float, ...], bottom: tuple[float, ...]) -> Frame:
        t = self.y[..., None]
        return (1 - t) * np.array(top, np.float32) + t * np.array(bottom, np.float32)

    def disc(
        self, cx: np.ndarray, cy: np.ndarray, r: np.ndarray, weight: np.ndarray | None = None
    ) -> np.ndarray:
        """Soft coverage in [0, 1] of discs (arrays of centres and radii in height units), each drawn only
        over its own bounding box: a sky of forty stars costs forty small stamps, not forty frames."""
        cover = np.zeros((self.height, self.width), np.float32)
        h, w = self.height, self.width
        for i in range(len(cx)):
            px, py, pr = cx[i] * (w - 1), cy[i] * (h - 1), r[i] * (h - 1) + 1
            x0, x1 = max(0, int(px - pr)), min(w, int(px + pr) + 2)
            y0, y1 = max(0, int(py - pr)), min(h, int(py + pr) + 2)
            if x0 >= x1 or y0 >= y1:
                continue
            gy, gx = np.ogrid[y0:y1, x0:x1]
            d = np.sqrt((gx - px) ** 2 + (gy - py) ** 2)
            stamp = np.clip(r[i] * (h - 1) - d + 0.5, 0, 1) * (1.0 if weight is None else weight[i])
            np.maximum(cover[y0:y1, x0:x1], stamp, out=cover[y0:y1, x0:x1])
        return cover


def paint(frame: Frame, coverage: np.ndarray, colour: tuple[float, ...]) -> Frame:
    a = coverage[..., None]
    return frame * (1 - a) + a * np.array(colour, np.float32)


def _sky(c: Canvas, t: float, r: np.random.Generator) -> Frame:
    f = c.vertical((0.30, 0.55, 0.92), (0.62, 0.80, 0.98))
    n = 5
    cx = (r.random(n) + t * r.uniform(0.015, 0.04, n)) % 1.3 - 0.15
    cy = r.uniform(0.1, 0.7, n)
    cover = np.zeros_like(c.x)
    for dx, dy, s in ((0, 0, 1.0), (0.05, 0.02, 0.8), (-0.05, 0.02, 0.8)):
        cover = np.maximum(cover, c.disc(cx + dx, cy + dy, 0.09 * s * np.ones(n)))
    return paint(f, cover, (0.97, 0.97, 0.99))


def _sea(c: Canvas, t: float, r: np.random.Generator) -> Frame:
    f = c.vertical((0.05, 0.35, 0.60), (0.02, 0.12, 0.35))
    phase = r.random() * 6.28
    wave = np.sin(c.x * 18 + c.y * 9 - t * 1.6 + phase) * np.sin(c.y * 25 + t * 0.7)
    return paint(f, np.clip(wave - 0.6, 0, 1) * 1.5, (0.55, 0.80, 0.90))


def _night(c: Canvas, t: float, r: np.random.Generator) -> Frame:
    f = c.vertical((0.02, 0.03, 0.15), (0.08, 0.08, 0.30))
    n = 30
    twinkle = 0.5 + 0.5 * np.sin(t * r.uniform(1.5, 4.0, n) + r.random(n) * 6.28)
    f = paint(f, c.disc(r.random(n), r.random(n) * 0.9, np.full(n, 0.012), twinkle), (1.0, 1.0, 0.85))
    moon_x = r.uniform(0.1, 0.9)
    return paint(f, c.disc(np.array([moon_x]), np.array([0.2]), np.array([0.11])), (0.98, 0.95, 0.75))


def _forest(c: Canvas, t: float, r: np.random.Generator) -> Frame:
    f = c.vertical((0.55, 0.75, 0.60), (0.15, 0.40, 0.15))
    n = 7
    base = np.sort(r.random(n))
    for i in range(n):
        sway = 0.01 * np.sin(t * 1.3 + i)
        top = r.uniform(0.15, 0.45)
        half = 0.04 + 0.35 * np.clip(c.y - top, 0, None) / c.aspect
        inside = (np.abs(c.x - base[i] - sway * (1 - c.y)) < half) & (c.y > top)
        f = paint(f, inside.astype(np.float32), (0.05, 0.30 + 0.1 * (i % 2), 0.10))
    return paint(f, (c.y > 0.88).astype(np.float32), (0.25, 0.18, 0.08))


def _desert(c: Canvas, t: float, r: np.random.Generator) -> Frame:
    f = c.vertical((0.95, 0.60, 0.30), (0.98, 0.85, 0.55))
    phase = r.random() * 6.28
    for k, (level, colour) in enumerate(((0.55, (0.90, 0.70, 0.35)), (0.72, (0.82, 0.58, 0.25)))):
        ridge = level + 0.06 * np.sin(c.x * (5 + 3 * k) + phase + t * 0.25 * (1 + k))
        f = paint(f, np.clip((c.y - ridge) * c.height, 0, 1), colour)
    return paint(f, c.disc(np.array([0.8]), np.array([0.18]), np.array([0.09])), (1.0, 0.95, 0.6))


def _snow(c: Canvas, t: float, r: np.random.Generator) -> Frame:
    f = c.vertical((0.62, 0.68, 0.78), (0.85, 0.88, 0.93))
    f = paint(f, np.clip((c.y - 0.75 - 0.03 * np.sin(c.x * 7)) * c.height, 0, 1), (0.97, 0.98, 1.0))
    n = 40
    fx = (r.random(n) + 0.02 * np.sin(t + np.arange(n))) % 1
    fy = (r.random(n) + t * r.uniform(0.05, 0.12, n)) % 1
    return paint(f, c.disc(fx, fy, np.full(n, 0.012)), (1.0, 1.0, 1.0))


def _city(c: Canvas, t: float, r: np.random.Generator) -> Frame:
    f = c.vertical((0.35, 0.20, 0.45), (0.90, 0.50, 0.45))
    edges = np.sort(np.concatenate([[0, 1], r.random(8)]))
    tops = r.uniform(0.3, 0.65, len(edges) - 1)
    which = np.clip(np.searchsorted(edges, c.x[0], side="right") - 1, 0, len(tops) - 1)  # per column
    gap = c.x[0] >= edges[which + 1] - 0.01
    block = (c.y > tops[which][None, :]) & ~gap[None, :]
    f = paint(f, block.astype(np.float32), (0.15, 0.13, 0.22))
    flicker = 0.6 + 0.4 * np.sin(t * 2 + which * 1.7)
    lit = (np.sin(c.x * 160) > 0.3) & (np.sin(c.y * 90) > 0.4) & block
    return paint(f, lit * flicker[None, :].astype(np.float32), (1.0, 0.85, 0.35))


def _space(c: Canvas, t: float, r: np.random.Generator) -> Frame:
    f = np.zeros((c.height, c.width, 3), np.float32) + np.array((0.01, 0.01, 0.04), np.float32)
    n = 40
    sx = (r.random(n) - t * r.uniform(0.01, 0.05, n)) % 1
    f = paint(f, c.disc(sx, r.random(n), np.full(n, 0.01)), (0.9, 0.9, 1.0))
    planet = c.disc(np.array([r.uniform(0.15, 0.85)]), np.array([r.uniform(0.2, 0.8)]), np.array([0.16]))
    return paint(f, planet, (0.75, 0.35, 0.55))


def _beach(c: Canvas, t: float, r: np.random.Generator) -> Frame:
    f = c.vertical((0.35, 0.65, 0.95), (0.65, 0.85, 1.0))
    shore = 0.62 + 0.04 * np.sin(c.x * 6 + r.random() * 6.28)
    surf = shore + 0.03 * np.sin(t * 1.2)
    f = paint(f, np.clip((c.y - 0.42) * c.height, 0, 1), (0.10, 0.50, 0.75))
    f = paint(f, np.clip((c.y - surf) * c.height, 0, 1), (0.95, 0.90, 0.95))
    return paint(f, np.clip((c.y - surf - 0.03) * c.height, 0, 1), (0.94, 0.84, 0.60))


BACKDROPS: dict[str, Callable[[Canvas, float, np.random.Generator], Frame]] = {
    "sky": _sky,
    "sea": _sea,
    "night": _night,
    "forest": _forest,
    "desert": _desert,
    "snow": _snow,
    "city": _city,
    "space": _space,
    "beach": _beach,
}


def backdrop(name: str, canvas: Canvas, t: float, layout_seed: int) -> Frame:
    """The setting at time t (seconds); the same layout seed gives the same place at every t."""
    return BACKDROPS[name](canvas, t, np.random.default_rng(layout_seed))
