"""Stage 1: the autoencoder, trained until its reconstructions keep each subject recognisable.

Two kinds of batch take turns: single frames (cheap, where spatial detail is learned: the causal encoder
reads a lone frame as a clip of one) and short clips cropped around the subject (where motion inside a latent
frame is learned). The loss leans on the subject's pixels and edges, because a backdrop is easy and a sprite
is what the crowd asked for; a plain L1/L2 loss returns sprites as blobs. An identity probe beside it asks
the latent to say plainly which subject each cell holds. With `shifts`, each batch also comes cropped a few
pixels further on, and the latents must move with it: a sprite that moves by less than a latent cell must
move its latents smoothly, by interpolation, rather than rewrite them (lab/ledger.md: not kept).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from generation.precision import mixed_precision
from lab.training.architecture import HEIGHT, LATENT_CHANNELS, SPATIAL, WIDTH, build_vae
from lab.training.checkpoints import StaleCheckpoint, load_checkpoint, save_checkpoint, stop_requested
from lab.training.clips import latent_mask
from lab.training.device import training_device
from lab.training.scenes import frames_of, random_scene
from lab.training.schedule import learning_rate, run_progress
from lab.world.vocabulary import SUBJECTS

SEED = 1
LEARNING_RATE = 5e-4
FRAME_BATCH, CLIP_BATCH = 16, 3
CLIP_LEN = 17  # 1 + 2 x 8: three latent frames
CROP = (64, 96)
SUBJECT_WEIGHT = 6.0
EDGE_WEIGHT = 1.0
IDENTITY_WEIGHT = 0.2  # the probe's cross-entropy (about 3.2 untrained) beside a reconstruction loss near 1
SHIFT_WEIGHT = 1.0  # shifted crops' latents off the moved ones (in the latents' std), beside the moved decode
COVERED, UNCOVERED = 0.3, 0.0  # a latent cell is the subject's above this share of it, backdrop at none
BACKDROP = len(SUBJECTS)  # the probe's class for a cell with no subject in it
IGNORED = -100  # cross_entropy's ignore_index: partly covered cells, and a pair's cells
_INDEX = {entry.name: i for i, entry in enumerate(SUBJECTS)}


@dataclass
class Batch:
    video: torch.Tensor  # (B, 3, F, H, W) in [-1, 1]
    mask: torch.Tensor  # (B, 1, F, H, W) the subjects' coverage
    cells: torch.Tensor  # (B, F', h, w) the share of each latent cell they cover
    subject: torch.Tensor  # (B,) the lone subject's index in SUBJECTS; -1 for a pair

    def to(self, device: torch.device) -> Batch:
        return Batch(*(t.to(device) for t in (self.video, self.mask, self.cells, self.subject)))


@dataclass
class Shifted:
    """A batch's frames cropped `by` (down, across) latent cells further on: their content moved that far."""

    batch: Batch
    by: tuple[float, float]

    def to(self, device: torch.device) -> Shifted:
        return Shifted(self.batch.to(device), self.by)


def frame_batch(rng: np.random.Generator) -> Batch:
    return _cropped_batches(rng, FRAME_BATCH, 1)[0]


def clip_batch(rng: np.random.Generator) -> Batch:
    return _cropped_batches(rng, CLIP_BATCH, CLIP_LEN)[0]


def shifted_batch(rng: np.random.Generator, length: int) -> tuple[Batch, Shifted]:
    """Frames or clips (`length` 1 or CLIP_LEN) and the same cropped up to half a latent cell further on."""
    down, across = (int(v) for v in rng.integers(-SPATIAL // 2, SPATIAL // 2 + 1, size=2))
    size = FRAME_BATCH if length == 1 else CLIP_BATCH
    batch, moved_batch = _cropped_batches(rng, size, length, (down, across))
    return batch, Shifted(moved_batch, (down / SPATIAL, across / SPATIAL))


def _cropped_batches(
    rng: np.random.Generator, size: int, length: int, shift: tuple[int, int] | None = None
) -> list[Batch]:
    """Crops, and with `shift` the same crops' content moved that far (down, across pixels; so taken that
    much up and left of them). Mostly around the subject: a convolution learns the same from a crop as from
    the whole frame, and the subject is where the detail is; the backdrop around it comes along for free."""
    offsets = [(0, 0)] if shift is None else [(0, 0), shift]
    crops: list[tuple[list[np.ndarray], list[np.ndarray]]] = [([], []) for _ in offsets]  # frames, masks
    subjects = []
    for _ in range(size):
        scene = random_scene(rng)
        frames, mask = frames_of(scene, length, int(rng.integers(0, 90 - length)))
        y, x = _crop_origin(mask, rng, shift or (0, 0))
        for (down, across), (into_frames, into_masks) in zip(offsets, crops, strict=True):
            top, left = y - down, x - across
            into_frames.append(frames[:, top : top + CROP[0], left : left + CROP[1]])
            into_masks.append(mask[:, top : top + CROP[0], left : left + CROP[1]])
        subjects.append(_INDEX[scene.subjects[0]] if len(scene.subjects) == 1 else -1)
    return [_batch(clips, masks, subjects) for clips, masks in crops]


def _batch(clips: list[np.ndarray], masks: list[np.ndarray], subjects: list[int]) -> Batch:
    # (B, F, H, W, 3) -> (B, 3, F, H, W); masks (B, F, H, W) -> (B, 1, F, H, W)
    video = torch.from_numpy(np.stack(clips)).permute(0, 4, 1, 2, 3).contiguous()
    cells = torch.from_numpy(np.stack([latent_mask(m) for m in masks]))
    return Batch(video, torch.from_numpy(np.stack(masks)).unsqueeze(1), cells, torch.tensor(subjects))


def _crop_origin(mask: np.ndarray, rng: np.random.Generator, shift: tuple[int, int]) -> tuple[int, int]:
    """A crop's top-left corner, where the crop `shift` pixels up and left of it fits in the frame too."""
    ys, xs = np.nonzero(mask.max(axis=0) > 0.5)
    if len(ys) and rng.random() < 0.8:  # mostly around the subject
        cy, cx = int(ys.mean()), int(xs.mean())
        y = cy - CROP[0] // 2 + int(rng.integers(-12, 13))
        x = cx - CROP[1] // 2 + int(rng.integers(-16, 17))
    else:
        y, x = int(rng.integers(0, HEIGHT - CROP[0] + 1)), int(rng.integers(0, WIDTH - CROP[1] + 1))
    (down, across) = shift
    y = np.clip(y, max(0, down), HEIGHT - CROP[0] + min(0, down))
    x = np.clip(x, max(0, across), WIDTH - CROP[1] + min(0, across))
    return int(y), int(x)


def moved(grid: torch.Tensor, down: float, across: float) -> torch.Tensor:
    """(..., h, w) values moved `down` and `across` cells, each at most one, by interpolating between each
    cell and its neighbour on the side the values come from (the edge's cells repeated past it)."""
    for axis, by in ((-2, down), (-1, across)):
        if by:
            size = grid.shape[axis]
            source = (torch.arange(size, device=grid.device) - (1 if by > 0 else -1)).clamp(0, size - 1)
            grid = (1 - abs(by)) * grid + abs(by) * grid.index_select(axis, source)
    return grid


def identity_probe(channels: int = LATENT_CHANNELS) -> torch.nn.Module:
    """Reads each latent cell's subject (or none) linearly. Trained beside the VAE and never shipped: its
    loss makes the encoder write which emoji is there into the latent, plainly, where reconstruction alone
    took thousands of steps to carry more than a blob of the average emoji's colour, and where the
    transformer must find it from the prompt."""
    return torch.nn.Conv3d(channels, len(SUBJECTS) + 1, kernel_size=1)


def cell_targets(batch: Batch) -> torch.Tensor:
    """(B, F', h, w) class per latent cell: the subject where it covers most of the cell, the backdrop
    where nothing does, ignored in between (and under a pair, whose cells the mask does not tell apart)."""
    coverage = batch.cells
    lone = batch.subject.view(-1, 1, 1, 1).expand_as(coverage)
    targets = torch.full_like(coverage, IGNORED, dtype=torch.long)
    targets[coverage <= UNCOVERED] = BACKDROP
    covered = (coverage > COVERED) & (lone >= 0)
    targets[covered] = lone[covered]
    return targets


def reconstruction_loss(
    vae: Any,
    batch: Batch,
    probe: torch.nn.Module | None = None,
    shifted: Shifted | None = None,
    shift_weight: float = 1.0,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The batch through the VAE and back; with `shifted`, also its latents moved `shifted.by` by
    interpolation, decoded and held to the shifted crops, and the shifted crops' own latents held to them,
    those two terms weighing `shift_weight` beside the reconstruction."""
    # The mode, not a sample: the encoder's one log-variance channel starts near 0, so sampled latents would
    # carry unit noise and the decoder would learn the blurred mean. The export pins that channel instead.
    video, mask = batch.video, batch.mask
    with mixed_precision(video.device):
        with torch.set_grad_enabled(vae.encoder.training):
            latents = vae.encode(video).latent_dist.mode()
        out = vae.decode(latents).sample
    latents = latents.float()
    loss, l1, subject = _pixel_loss(out.float(), video, mask)
    parts = {"l1": l1, "subject_l1": subject}
    if probe is not None:
        targets = cell_targets(batch)
        identity = F.cross_entropy(probe(latents), targets, ignore_index=IGNORED)
        loss = loss + IDENTITY_WEIGHT * identity
        parts["identity"] = identity
    if shifted is not None:
        target = moved(latents, *shifted.by)
        with mixed_precision(video.device):
            encoded = vae.encode(shifted.batch.video).latent_dist.mode()
            out = vae.decode(target).sample
        # Cells and pixels at the crop's edge see content the other crop does not hold: left out. The
        # subject's cells weigh as its pixels do.
        inner = (..., slice(1, -1), slice(1, -1))
        error = (encoded.float() - target).abs().mean(dim=1)[inner] / latents.detach().std()
        cells = shifted.batch.cells[inner]
        equivariance = (error * (1 + SUBJECT_WEIGHT * cells)).mean()
        pixels = (..., slice(SPATIAL, -SPATIAL), slice(SPATIAL, -SPATIAL))
        drawn, _, subject = _pixel_loss(
            out.float()[pixels], shifted.batch.video[pixels], shifted.batch.mask[pixels]
        )
        loss = loss + shift_weight * (drawn + SHIFT_WEIGHT * equivariance)
        parts |= {
            "moved_subject_l1": subject,
            "equivariance": equivariance,
            "subject_equivariance": (error * cells).sum() / cells.sum().clamp(min=1e-6),
        }
    return loss, {k: v.detach().item() for k, v in parts.items()}


def _pixel_loss(
    out: torch.Tensor, video: torch.Tensor, mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(the loss, its L1, the subject's L1): L1 + L2 + an edge term, leaning on the subject's pixels."""
    weight = 1 + SUBJECT_WEIGHT * F.max_pool3d(mask, (1, 5, 5), stride=1, padding=(0, 2, 2))
    l1 = ((out - video).abs() * weight).mean()
    l2 = (((out - video) ** 2) * weight).mean()
    edges = sum(
        (
            (torch.diff(out, dim=d) - torch.diff(video, dim=d)).abs()
            * weight.narrow(d, 1, video.shape[d] - 1)
        ).mean()
        for d in (3, 4)
    )
    subject = ((out - video).abs() * mask).sum() / mask.sum().clamp(min=1)
    return l1 + l2 + EDGE_WEIGHT * edges, l1, subject


def train(
    minutes: float,
    checkpoint: Path,
    threads: int = 2,
    start_from: Any = None,
    max_steps: int = 10**9,
    decoder_only: bool = False,
    first_step: int = 0,
    shifts: float = 0.0,
    rate: float = LEARNING_RATE,
) -> tuple[Any, int]:
    """Train the VAE (from `start_from`, or new; a checkpoint, when there is one, wins over both). With
    `decoder_only`, the latent space stays exactly as it is while the pictures it decodes to sharpen; with
    `shifts` above 0, its latents learn to move with what they show, that much beside the reconstruction
    (reconstruction_loss's `shift_weight`). `rate` is the run's peak learning rate: a run that goes on from
    trained weights may want less than a run from nothing.
    It trains on training_device() (batches are drawn on the CPU) and comes back on the CPU."""
    torch.set_num_threads(threads)
    torch.manual_seed(SEED)
    device = training_device()
    vae = (build_vae() if start_from is None else start_from).train()
    # The probe teaches the encoder; with the encoder frozen there is nothing for it to teach.
    probe = None if decoder_only else identity_probe()
    if decoder_only:
        vae.encoder.eval().requires_grad_(False)
    modules = torch.nn.ModuleDict({"vae": vae, **({"probe": probe} if probe is not None else {})}).to(device)
    trained = [p for p in modules.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trained, lr=rate, betas=(0.9, 0.99), weight_decay=0.0)
    state = load_checkpoint(checkpoint, modules, opt)
    if state and state.get("shifts", 0.0) != shifts:  # another weight is another objective, not more of it
        raise StaleCheckpoint(
            f"{checkpoint} was trained with the shift terms at {state.get('shifts', 0.0)}, not {shifts}: "
            "move it aside to start this run afresh"
        )
    step = state.get("step", first_step)
    rng = np.random.default_rng(SEED + step)  # a resumed run draws new samples, not the same ones again
    started, first = time.monotonic(), step
    deadline = started + minutes * 60
    last_save = started
    bar = tqdm(desc="vae", initial=step, unit="step", mininterval=10)
    ema: dict[str, float] = {}
    stop = stop_requested()
    while time.monotonic() < deadline and not stop.is_set() and step < max_steps:
        # Half the batches are clips: every latent frame after the first sums up eight frames, and that
        # is what a rendered clip is made of.
        shifted = None
        if shifts > 0:
            batch, shifted = shifted_batch(rng, CLIP_LEN if step % 2 else 1)
            shifted = shifted.to(device)
        else:
            batch = clip_batch(rng) if step % 2 else frame_batch(rng)
        batch = batch.to(device)
        progress = run_progress(started, minutes, step - first, max_steps - first)
        for group in opt.param_groups:
            group["lr"] = learning_rate(rate, step - first, progress)
        loss, parts = reconstruction_loss(vae, batch, probe, shifted, shifts)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, 1.0)
        opt.step()
        step += 1
        for k, v in parts.items():
            ema[k] = v if k not in ema else 0.98 * ema[k] + 0.02 * v
        bar.update()
        if step % 25 == 0:
            bar.set_postfix({k: f"{v:.4f}" for k, v in ema.items()})
        if time.monotonic() - last_save > 180:
            save_checkpoint(checkpoint, modules, opt, step=step, ema=ema, shifts=shifts)
            last_save = time.monotonic()
    save_checkpoint(checkpoint, modules, opt, step=step, ema=ema, shifts=shifts)
    bar.close()
    return vae.cpu().eval(), step
