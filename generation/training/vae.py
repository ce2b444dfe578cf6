"""Stage 1: the autoencoder, trained until its reconstructions keep each subject recognisable.

Two kinds of batch take turns: single frames (cheap, where spatial detail is learned: the causal encoder
reads a lone frame as a clip of one) and short clips cropped around the subject (where motion inside a latent
frame is learned). The loss leans on the subject's pixels and edges, because a backdrop is easy and a sprite
is what the crowd asked for; a plain L1/L2 loss returns sprites as blobs. An identity probe beside it asks
the latent to say plainly which subject each cell holds.
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

from generation.training.architecture import HEIGHT, LATENT_CHANNELS, WIDTH, build_vae
from generation.training.checkpoints import load_checkpoint, save_checkpoint, stop_requested
from generation.training.dataset import latent_mask
from generation.training.precision import mixed_precision, training_device
from generation.training.samples import frames_of, random_scene
from generation.training.schedule import learning_rate, run_progress
from generation.world.vocabulary import SUBJECTS

SEED = 1
LEARNING_RATE = 5e-4
FRAME_BATCH, CLIP_BATCH = 16, 3
CLIP_LEN = 17  # 1 + 2 x 8: three latent frames
CROP = (64, 96)
SUBJECT_WEIGHT = 6.0
EDGE_WEIGHT = 1.0
IDENTITY_WEIGHT = 0.2  # the probe's cross-entropy (about 3.2 untrained) beside a reconstruction loss near 1
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


def frame_batch(rng: np.random.Generator) -> Batch:
    return _cropped_batch(rng, FRAME_BATCH, 1)


def clip_batch(rng: np.random.Generator) -> Batch:
    return _cropped_batch(rng, CLIP_BATCH, CLIP_LEN)


def _cropped_batch(rng: np.random.Generator, size: int, length: int) -> Batch:
    # Crops, mostly around the subject: a convolution learns the same from a crop as from the whole frame,
    # and the subject is where the detail is; the backdrop around it comes along for free.
    clips, masks, subjects = [], [], []
    for _ in range(size):
        scene = random_scene(rng)
        frames, mask = frames_of(scene, length, int(rng.integers(0, 90 - length)))
        y, x = _crop_origin(mask, rng)
        clips.append(frames[:, y : y + CROP[0], x : x + CROP[1]])
        masks.append(mask[:, y : y + CROP[0], x : x + CROP[1]])
        subjects.append(_INDEX[scene.subjects[0]] if len(scene.subjects) == 1 else -1)
    # (B, F, H, W, 3) -> (B, 3, F, H, W); masks (B, F, H, W) -> (B, 1, F, H, W)
    video = torch.from_numpy(np.stack(clips)).permute(0, 4, 1, 2, 3).contiguous()
    cells = torch.from_numpy(np.stack([latent_mask(m) for m in masks]))
    return Batch(video, torch.from_numpy(np.stack(masks)).unsqueeze(1), cells, torch.tensor(subjects))


def _crop_origin(mask: np.ndarray, rng: np.random.Generator) -> tuple[int, int]:
    ys, xs = np.nonzero(mask.max(axis=0) > 0.5)
    if len(ys) and rng.random() < 0.8:  # mostly around the subject
        cy, cx = int(ys.mean()), int(xs.mean())
        y = cy - CROP[0] // 2 + int(rng.integers(-12, 13))
        x = cx - CROP[1] // 2 + int(rng.integers(-16, 17))
    else:
        y, x = int(rng.integers(0, HEIGHT - CROP[0] + 1)), int(rng.integers(0, WIDTH - CROP[1] + 1))
    return int(np.clip(y, 0, HEIGHT - CROP[0])), int(np.clip(x, 0, WIDTH - CROP[1]))


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
    vae: Any, batch: Batch, probe: torch.nn.Module | None = None
) -> tuple[torch.Tensor, dict[str, float]]:
    # The mode, not a sample: the encoder's one log-variance channel starts near 0, so sampled latents would
    # carry unit noise and the decoder would learn the blurred mean. The export pins that channel instead.
    video, mask = batch.video, batch.mask
    with mixed_precision(video.device):
        with torch.set_grad_enabled(vae.encoder.training):
            latents = vae.encode(video).latent_dist.mode()
        out = vae.decode(latents).sample
    latents, out = latents.float(), out.float()
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
    loss = l1 + l2 + EDGE_WEIGHT * edges
    subject = ((out - video).abs() * mask).sum() / mask.sum().clamp(min=1)
    parts = {"l1": l1, "subject_l1": subject}
    if probe is not None:
        targets = cell_targets(batch)
        identity = F.cross_entropy(probe(latents), targets, ignore_index=IGNORED)
        loss = loss + IDENTITY_WEIGHT * identity
        parts["identity"] = identity
    return loss, {k: v.detach().item() for k, v in parts.items()}


def train(
    minutes: float,
    checkpoint: Path,
    threads: int = 2,
    start_from: Any = None,
    max_steps: int = 10**9,
    decoder_only: bool = False,
    first_step: int = 0,
) -> tuple[Any, int]:
    """Train the VAE (from `start_from`, or new; a checkpoint, when there is one, wins over both). With
    `decoder_only`, the latent space stays exactly as it is while the pictures it decodes to sharpen.
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
    opt = torch.optim.AdamW(trained, lr=LEARNING_RATE, betas=(0.9, 0.99), weight_decay=0.0)
    state = load_checkpoint(checkpoint, modules, opt)
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
        batch = (clip_batch(rng) if step % 2 else frame_batch(rng)).to(device)
        progress = run_progress(started, minutes, step - first, max_steps - first)
        for group in opt.param_groups:
            group["lr"] = learning_rate(LEARNING_RATE, step - first, progress)
        loss, parts = reconstruction_loss(vae, batch, probe)
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
            save_checkpoint(checkpoint, modules, opt, step=step, ema=ema)
            last_save = time.monotonic()
    save_checkpoint(checkpoint, modules, opt, step=step, ema=ema)
    bar.close()
    return vae.cpu().eval(), step
