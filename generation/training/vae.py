"""Stage 1: the autoencoder, trained until its reconstructions keep each subject recognisable.

Two kinds of batch take turns: single frames (cheap, where spatial detail is learned: the causal encoder
reads a lone frame as a clip of one) and short clips cropped around the subject (where motion inside a latent
frame is learned). The loss leans on the subject's pixels and edges, because a backdrop is easy and a sprite
is what the crowd asked for; a plain L1/L2 loss returns sprites as blobs.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from generation.training.architecture import HEIGHT, WIDTH, build_vae
from generation.training.checkpoints import load_checkpoint, save_checkpoint, stop_requested
from generation.training.samples import frames_of, random_scene

SEED = 1
LEARNING_RATE = 5e-4
FRAME_BATCH, CLIP_BATCH = 16, 3
CLIP_LEN = 17  # 1 + 2 x 8: three latent frames
CROP = (64, 96)
SUBJECT_WEIGHT = 6.0
EDGE_WEIGHT = 1.0


def frame_batch(rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    return _cropped_batch(rng, FRAME_BATCH, 1)


def clip_batch(rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    return _cropped_batch(rng, CLIP_BATCH, CLIP_LEN)


def _cropped_batch(rng: np.random.Generator, size: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    # Crops, mostly around the subject: a convolution learns the same from a crop as from the whole frame,
    # and the subject is where the detail is; the backdrop around it comes along for free.
    clips, masks = [], []
    for _ in range(size):
        frames, mask = frames_of(random_scene(rng), length, int(rng.integers(0, 90 - length)))
        y, x = _crop_origin(mask, rng)
        clips.append(frames[:, y : y + CROP[0], x : x + CROP[1]])
        masks.append(mask[:, y : y + CROP[0], x : x + CROP[1]])
    return _tensors(np.stack(clips), np.stack(masks))


def _crop_origin(mask: np.ndarray, rng: np.random.Generator) -> tuple[int, int]:
    ys, xs = np.nonzero(mask.max(axis=0) > 0.5)
    if len(ys) and rng.random() < 0.8:  # mostly around the subject
        cy, cx = int(ys.mean()), int(xs.mean())
        y = cy - CROP[0] // 2 + int(rng.integers(-12, 13))
        x = cx - CROP[1] // 2 + int(rng.integers(-16, 17))
    else:
        y, x = int(rng.integers(0, HEIGHT - CROP[0] + 1)), int(rng.integers(0, WIDTH - CROP[1] + 1))
    return int(np.clip(y, 0, HEIGHT - CROP[0])), int(np.clip(x, 0, WIDTH - CROP[1]))


def _tensors(frames: np.ndarray, masks: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    # (B, F, H, W, 3) -> (B, 3, F, H, W); masks (B, F, H, W) -> (B, 1, F, H, W)
    video = torch.from_numpy(frames).permute(0, 4, 1, 2, 3).contiguous()
    return video, torch.from_numpy(masks).unsqueeze(1)


def reconstruction_loss(
    vae: Any, video: torch.Tensor, mask: torch.Tensor
) -> tuple[torch.Tensor, dict[str, float]]:
    # The mode, not a sample: the encoder's one log-variance channel starts near 0, so sampled latents would
    # carry unit noise and the decoder would learn the blurred mean. The export pins that channel instead.
    with torch.set_grad_enabled(vae.encoder.training):
        latents = vae.encode(video).latent_dist.mode()
    out = vae.decode(latents).sample
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
    return loss, {k: v.detach().item() for k, v in (("l1", l1), ("subject_l1", subject))}


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
    `decoder_only`, the latent space stays exactly as it is while the pictures it decodes to sharpen."""
    torch.set_num_threads(threads)
    torch.manual_seed(SEED)
    vae = (build_vae() if start_from is None else start_from).train()
    if decoder_only:
        vae.encoder.eval().requires_grad_(False)
    trained = [p for p in vae.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trained, lr=LEARNING_RATE, betas=(0.9, 0.99), weight_decay=0.0)
    state = load_checkpoint(checkpoint, vae, opt)
    step = state.get("step", first_step)
    rng = np.random.default_rng(SEED + step)  # a resumed run draws new samples, not the same ones again
    deadline = time.monotonic() + minutes * 60
    last_save = time.monotonic()
    bar = tqdm(desc="vae", initial=step, unit="step", mininterval=10)
    ema: dict[str, float] = {}
    stop = stop_requested()
    while time.monotonic() < deadline and not stop.is_set() and step < max_steps:
        video, mask = clip_batch(rng) if step % 3 == 2 else frame_batch(rng)
        for group in opt.param_groups:
            group["lr"] = LEARNING_RATE * min(1.0, (step + 1) / 100)
        loss, parts = reconstruction_loss(vae, video, mask)
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
            save_checkpoint(checkpoint, vae, opt, step=step, ema=ema)
            last_save = time.monotonic()
    save_checkpoint(checkpoint, vae, opt, step=step, ema=ema)
    bar.close()
    return vae.eval(), step
