"""The automatic judge of a clip: which setting, which subject, which motion, and is the subject there.

It reads decoded frames only (ground truth, reconstructions or generated clips alike):
- setting: nearest centroid of a 4x4 grid of median colours, centroids drawn from backdrops alone;
- subject: masked normalised cross-correlation of sampled frames against every subject's sprite at the
  world's sizes (minus a colour-error term, since correlation alone ignores colour), best average score;
- motion: the prompted subject's track (position, size, angle of its best match) read as one of the motions;
- visible: the share of tracked frames where the prompted subject's best match (at any of the world's sizes
  and angles) clears a threshold set between subject and no-subject frames.
Correlation runs through FFTs, so judging a clip costs about a second on one core.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import torch

from lab.world.backdrops import BACKDROPS, Canvas, backdrop
from lab.world.sprites import sprite
from lab.world.vocabulary import SUBJECTS

SIZES = (0.18, 0.26, 0.36, 0.46, 0.56)  # fractions of the frame height: the world's range of sizes
ANGLES = (0.0, 90.0, 180.0, 270.0)
IDENTITY_FRAMES = 10
TRACK_FRAMES = 40
COLOUR_WEIGHT = 1.5
VISIBLE_AT = 0.45  # a best match above this is a subject on screen (ground truth ~0.8+, backdrops ~0.3)
GRID = 4
VARIANCE_FLOOR = 0.003  # per masked pixel, summed over channels: a 0.03 standard deviation per channel


@dataclass(frozen=True)
class Judgement:
    setting: str
    subject: str
    motion: str
    visible: float  # share of sampled frames with a subject on screen
    subject_scores: dict[str, float]


@dataclass(frozen=True)
class _Bank:
    names: list[str]  # one per template
    sizes: list[float]
    angles: list[float]
    kernels: torch.Tensor  # (T, 3, k, k) zero-mean template colours inside the mask, per size group
    masks: torch.Tensor  # (T, 1, k, k)
    means: torch.Tensor  # (T, 3) template mean colour inside the mask
    norms: torch.Tensor  # (T,)
    side: int


def _templates(names: tuple[str, ...], size: float, angles: tuple[float, ...], height: int) -> _Bank:
    side = max(6, round(size * height))
    kernels, masks, means, norms, labels, angle_list = [], [], [], [], [], []
    for name in names:
        for angle in angles:
            rgba = sprite(name, side, angle)
            m = (rgba[..., 3] > 0.5).astype(np.float32)
            n = max(1.0, m.sum())
            rgb = rgba[..., :3]
            mean = (rgb * m[..., None]).sum(axis=(0, 1)) / n
            centred = (rgb - mean) * m[..., None]
            kernels.append(centred.transpose(2, 0, 1))
            masks.append(m[None])
            means.append(mean)
            norms.append(float(np.sqrt((centred**2).sum())) + 1e-6)
            labels.append(name)
            angle_list.append(angle)
    return _Bank(
        labels,
        [size] * len(labels),
        angle_list,
        torch.tensor(np.stack(kernels)),
        torch.tensor(np.stack(masks)),
        torch.tensor(np.stack(means)),
        torch.tensor(norms),
        side,
    )


@cache
def _bank(names: tuple[str, ...], angles: tuple[float, ...], height: int) -> list[_Bank]:
    return [_templates(names, size, angles, height) for size in SIZES]


def _correlate(frames: torch.Tensor, kernels: torch.Tensor) -> torch.Tensor:
    """(N, C, H, W) x (T, C, k, k) -> (N, T, H-k+1, W-k+1): sum over channels of valid cross-correlation."""
    h, w = frames.shape[-2:]
    k = kernels.shape[-1]
    spectrum = torch.fft.rfft2(frames, s=(h, w))  # N, C, h, w//2+1
    kernel_spectrum = torch.fft.rfft2(kernels, s=(h, w))  # T, C, ...
    product = (spectrum[:, None] * kernel_spectrum[None].conj()).sum(dim=2)
    return torch.fft.irfft2(product, s=(h, w))[..., : h - k + 1, : w - k + 1]


def _match(frames: torch.Tensor, bank: _Bank) -> torch.Tensor:
    """Masked NCC minus colour error for every template and position: (N, T, H', W')."""
    t = bank.masks.shape[0]
    masks = bank.masks.expand(t, 3, -1, -1)
    area = bank.masks.flatten(1).sum(dim=1).view(1, t, 1, 1)
    num = _correlate(frames, bank.kernels)
    sums = torch.stack([_correlate(frames[:, c : c + 1], bank.masks) for c in range(3)], dim=2)  # N,T,3,..
    squares = torch.stack([_correlate(frames[:, c : c + 1] ** 2, bank.masks) for c in range(3)], dim=2)
    local_mean = sums / area.unsqueeze(2)
    # A floor on the patch's variance: a flat patch (a sky, the inside of a balloon) has almost none, and
    # correlation divided by almost nothing would score it as a perfect match.
    variance = torch.maximum((squares - sums * local_mean).sum(dim=2), area * VARIANCE_FLOOR)
    ncc = (num / (bank.norms.view(1, t, 1, 1) * variance.sqrt())).clamp(-1, 1)
    colour_error = (local_mean - bank.means.view(1, t, 3, 1, 1)).abs().mean(dim=2)
    del masks
    return ncc - COLOUR_WEIGHT * colour_error


def _as_tensor(frames: np.ndarray) -> torch.Tensor:
    video = torch.from_numpy(np.ascontiguousarray(frames)).float()
    if frames.dtype == np.uint8:
        video = video / 255.0
    return video.permute(0, 3, 1, 2)  # N, 3, H, W


def _best(frames: torch.Tensor, banks: list[_Bank]) -> list[tuple[torch.Tensor, torch.Tensor, _Bank]]:
    out = []
    for bank in banks:
        scores = _match(frames, bank)  # N, T, H', W'
        best, where = scores.flatten(2).max(dim=2)
        out.append((best, where, bank))
    return out


def _sample(count: int, total: int) -> np.ndarray:
    return np.linspace(0, total - 1, min(count, total)).round().astype(int)


def subject_scores(frames: np.ndarray, angles: tuple[float, ...] = (0.0,)) -> dict[str, float]:
    """Each subject's mean best score over sampled frames, its sprite matched at these angles (upright by
    default: a clip's subject turns only when it spins, and then it is upright in some of its frames)."""
    names = tuple(e.name for e in SUBJECTS)
    video = _as_tensor(frames[_sample(IDENTITY_FRAMES, len(frames))])
    per_frame = torch.full((len(video), len(names)), -9.0)
    for best, _, bank in _best(video, _bank(names, angles, video.shape[-2])):
        for j, name in enumerate(bank.names):
            i = names.index(name)
            per_frame[:, i] = torch.maximum(per_frame[:, i], best[:, j])
    return {name: float(per_frame[:, i].mean()) for i, name in enumerate(names)}


def track(frames: np.ndarray, name: str) -> np.ndarray:
    """(n, 6): frame index, centre x and y (fractions), size (fraction of height), angle and score of the
    subject's best match in each sampled frame."""
    indices = _sample(TRACK_FRAMES, len(frames))
    video = _as_tensor(frames[indices])
    h, w = video.shape[-2:]
    best_score = torch.full((len(video),), -9.0)
    rows = np.zeros((len(video), 6))
    rows[:, 0] = indices
    for best, where, bank in _best(video, _bank((name,), ANGLES, h)):
        score, j = best.max(dim=1)
        width = w - bank.side + 1
        for i in range(len(video)):
            if score[i] > best_score[i]:
                best_score[i] = score[i]
                pos = int(where[i, j[i]])
                y, x = divmod(pos, width)
                rows[i, 1:] = (
                    (x + bank.side / 2) / w,
                    (y + bank.side / 2) / h,
                    bank.sizes[j[i]],
                    bank.angles[j[i]],
                    float(score[i]),
                )
    return rows


def motion_of(path: np.ndarray) -> str:
    x, y, size, angle = path[:, 1], path[:, 2], path[:, 3], path[:, 4]
    t = np.linspace(0, 1, len(path))
    dx, dy = np.polyfit(t, x, 1)[0], np.polyfit(t, y, 1)[0]
    growth = np.polyfit(t, np.log(size), 1)[0]
    if max(abs(dx), abs(dy)) > 0.3:
        if abs(dx) >= abs(dy):
            return "left" if dx < 0 else "right"
        return "up" if dy < 0 else "down"
    if abs(growth) > 0.5:
        return "grow" if growth > 0 else "shrink"
    if np.mean(angle != 0) > 0.4:
        return "spin"
    if np.std(y - np.polyval(np.polyfit(t, y, 1), t)) > 0.08:
        return "bounce"
    return "float"


@cache
def _centroids(height: int, width: int) -> dict[str, np.ndarray]:
    canvas = Canvas(height, width)
    return {
        name: np.mean(
            [_grid(backdrop(name, canvas, t, seed)[None]) for seed in range(6) for t in (0.0, 4.0, 9.0)],
            axis=0,
        )
        for name in BACKDROPS
    }


def _grid(frames: np.ndarray) -> np.ndarray:
    video = frames.astype(np.float32) / (255.0 if frames.dtype == np.uint8 else 1.0)
    n, h, w, _ = video.shape
    cells = video[:, : h // GRID * GRID, : w // GRID * GRID].reshape(n, GRID, h // GRID, GRID, w // GRID, 3)
    return np.median(cells, axis=(0, 2, 4)).ravel()


def setting_of(frames: np.ndarray) -> str:
    features = _grid(frames[_sample(IDENTITY_FRAMES, len(frames))])
    centroids = _centroids(frames.shape[1], frames.shape[2])
    return min(centroids, key=lambda name: float(np.sum((centroids[name] - features) ** 2)))


def judge(frames: np.ndarray, prompted_subject: str) -> Judgement:
    """frames: (F, H, W, 3), uint8 or float in [0, 1], at the model's size."""
    scores = subject_scores(frames)
    subject = max(scores, key=lambda name: scores[name])
    path = track(frames, prompted_subject)
    visible = float(np.mean(path[:, 5] > VISIBLE_AT))
    return Judgement(setting_of(frames), subject, motion_of(path), visible, scores)
