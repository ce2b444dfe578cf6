"""The autoencoder's architecture and loss, chosen by a race: each candidate trains for the same CPU time on
the same batches, taking turns step by step so that a noisy machine slows them alike, then reconstructs the
same unseen frames.

    python -m lab.experiments.vae_race [--minutes 3] [--threads 2]

Candidates, each with the identity probe's loss beside the reconstruction, as `make model` trains:
`16x, 48 channels` (LTX-Video 0.9.5's blocks over 2x2 pixel patches, what the default model used before);
`8x, 16 channels` (lab/training/architecture.py's VAE_CONFIG: the same blocks over single pixels);
`8x, 16 channels, plain` (0.9.1's blocks: strided convolutions with no space-to-channel shortcut).
Reported per candidate: parameters, steps done in its time, seconds a step, the subject's L1 error
(summed over the channels, frames in [-1, 1]) and the whole frame's on 32 unseen frames and 6 unseen clips
of 17 frames, and how often the judge names the right subject on single unseen frames: the subject's error
decides whether the judge can tell one emoji from another.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from lab.evaluation.judge import subject_scores
from lab.evaluation.rows import reconstruct
from lab.training.architecture import VAE_CONFIG
from lab.training.scenes import frames_of
from lab.training.vae import (
    LEARNING_RATE,
    Batch,
    clip_batch,
    frame_batch,
    identity_probe,
    reconstruction_loss,
)
from lab.world.clips import Scene
from lab.world.vocabulary import SETTINGS, SUBJECTS

SIXTEEN_X = {**VAE_CONFIG, "patch_size": 2, "latent_channels": 48}
PLAIN: dict[str, Any] = {
    **VAE_CONFIG,
    "block_out_channels": (16, 48, 96),
    "down_block_types": ("LTXVideoDownBlock3D",) * 3,
    "downsample_type": ("conv",) * 3,
    "decoder_block_out_channels": (16, 48, 96),
    "upsample_residual": (False, False, False),
    "upsample_factor": (1, 1, 1),
}
CANDIDATES: dict[str, dict[str, Any]] = {
    "16x, 48 channels": SIXTEEN_X,
    "8x, 16 channels": VAE_CONFIG,
    "8x, 16 channels, plain": PLAIN,
}
JUDGED_FRAMES = 9  # one clip per subject, two latent frames


@dataclass
class Runner:
    name: str
    vae: Any
    probe: torch.nn.Module | None
    opt: Any
    spent: float = 0.0
    steps: int = 0
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(5))

    def step(self) -> None:
        # The same seed for every candidate: they see the same batches in the same order.
        batch = clip_batch(self.rng) if self.steps % 2 else frame_batch(self.rng)
        start = time.process_time()
        loss, _ = reconstruction_loss(self.vae, batch, self.probe)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        self.spent += time.process_time() - start
        self.steps += 1


@torch.no_grad()
def errors(vae: Any, batches: list[Batch]) -> tuple[float, float]:
    subject, whole = [], []
    for batch in batches:
        out = vae.decode(vae.encode(batch.video).latent_dist.mode()).sample
        diff = (out - batch.video).abs()
        subject.append(float((diff * batch.mask).sum() / batch.mask.sum().clamp(min=1)))
        whole.append(float(diff.mean()))
    return float(np.mean(subject)), float(np.mean(whole))


@torch.no_grad()
def identity(vae: Any, count: int = len(SUBJECTS)) -> float:
    """The share of subjects (the first `count`) the judge names right on the reconstruction of a short
    clip of each alone."""
    right = 0
    for k, entry in enumerate(SUBJECTS[:count]):
        scene = Scene((entry.name,), SETTINGS[k % len(SETTINGS)].name, "float", 1000 + k)
        frames, _ = frames_of(scene, JUDGED_FRAMES, 20)
        scores = subject_scores(reconstruct(vae, (frames + 1) / 2))
        right += max(scores, key=lambda name: scores[name]) == entry.name
    return right / count


def main() -> None:
    from diffusers import AutoencoderKLLTXVideo

    parser = argparse.ArgumentParser(prog="python -m lab.experiments.vae_race")
    parser.add_argument("--minutes", type=float, default=3.0, help="CPU minutes of training per candidate")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    runners = []
    for name, config in CANDIDATES.items():
        torch.manual_seed(1)
        vae: Any = AutoencoderKLLTXVideo(**config)
        vae.train()
        probe = identity_probe(config["latent_channels"])
        parameters = [*vae.parameters(), *probe.parameters()]
        runners.append(Runner(name, vae, probe, torch.optim.AdamW(parameters, lr=LEARNING_RATE)))
    # CPU time, not wall time: each candidate is charged for its own steps only.
    budget = args.minutes * 60 * args.threads
    while any(r.spent < budget for r in runners):
        for runner in runners:
            if runner.spent < budget:
                runner.step()
    unseen = np.random.default_rng(2026)
    held = [frame_batch(unseen) for _ in range(2)] + [clip_batch(unseen) for _ in range(2)]
    print(f"\nEach candidate trained for {args.minutes:g} CPU minutes x {args.threads} threads.\n")
    print("| candidate | parameters | steps | s a step | subject L1 | frame L1 | subject named right |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for runner in runners:
        runner.vae.eval()
        subject, whole = errors(runner.vae, held)
        params = sum(p.numel() for p in runner.vae.parameters()) / 1e6
        per_step = runner.spent / args.threads / runner.steps
        cells = (
            runner.name,
            f"{params:.1f} M",
            runner.steps,
            f"{per_step:.2f}",
            f"{subject:.3f}",
            f"{whole:.3f}",
            f"{100 * identity(runner.vae):.0f} % (chance {100 / len(SUBJECTS):.0f} %)",
        )
        print("| " + " | ".join(str(c) for c in cells) + " |")


if __name__ == "__main__":
    main()
