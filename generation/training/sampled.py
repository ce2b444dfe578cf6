"""The transformer's own latents, paired with the frames they should decode to, for the decoder to learn on.

The decoder learned to draw the encoder's latents, which write a sprite's shape in detail; the transformer
writes a subject's place, colours and the identity the probe taught the encoder to state plainly, but not
that detail (docs/model.md: past half noise it keeps little of a shape beyond what the noisy latents show).
Here training scenes are drawn and encoded, noised part of the way (SAMPLE_NOISE) and sampled back by the
shipped transformer along the preset's schedule, prompted with their captions: latents as the transformer
writes them, with the subject where the scene has it, so the scene's own frames can teach the decoder to
draw them as that subject. A render's latents come from pure noise, through the same steps below 0.9.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from generation.training.architecture import CLIP_FRAMES, TOKEN_CELLS
from generation.training.precision import mixed_precision
from generation.training.samples import frames_of, training_caption
from generation.world.clips import to_uint8

SEED = 5
SAMPLE_NOISE = (0.6, 0.9)  # the sigma a draft starts from: the subject's place still shows, its shape not


@dataclass
class Draft:
    latents: torch.Tensor  # (C, F, h, w) float16, as the decoder reads them (denormalised)
    frames: np.ndarray  # (F, H, W, 3) uint8: the scene the transformer was shown at SAMPLE_NOISE
    mask: np.ndarray  # (F, H, W) uint8, the subjects' coverage x 255


def sample_from(pipe: Any, x0: torch.Tensor, text: str, start: float, noise: torch.Tensor) -> torch.Tensor:
    """Normalised clip latents (1, C, F, h, w) noised to sigma `start`, then stepped to 0 by the pipeline's
    transformer along the preset's sigmas below `start` (Euler steps of the flow it learned)."""
    from generation.pipeline import PatchedLTXConditionPipeline as Pipeline
    from generation.presets import get_preset
    from generation.training.transformer import pack, prompt_embeddings, velocity, video_coords

    sigmas = [t / 1000 for t in get_preset("world").timesteps if t / 1000 < start] + [0.0]
    f, h, w = x0.shape[2:]
    coords = video_coords(1, f, h, w)
    prompt = prompt_embeddings(pipe.tokenizer, pipe.text_encoder, [text], x0.device)
    x = pack((1 - start) * x0 + start * noise)
    for now, after in zip([start, *sigmas[:-1]], sigmas, strict=True):
        timestep = torch.full(x.shape[:2], now * 1000)
        with mixed_precision():
            v = velocity(pipe.transformer, x, prompt, timestep, coords).float()
        x = x + (after - now) * v
    return Pipeline._unpack_latents(x, f, h, w, TOKEN_CELLS, 1)


@torch.no_grad()
def draw_drafts(pipe: Any, folder: Path, count: int, seed: int = SEED) -> list[Path]:
    """Drafts 0 to count-1 in `folder` (one file each, kept: a stopped run goes on where it stopped)."""
    from generation.training.transformer import normalised

    folder.mkdir(parents=True, exist_ok=True)
    vae = pipe.vae
    paths = [folder / f"{i:05d}.pt" for i in range(count)]
    for i, path in enumerate(tqdm(paths, desc="drafts", mininterval=10)):
        if path.exists():
            continue
        rng = np.random.default_rng([seed, i])
        text, scene = training_caption(rng)
        frames, mask = frames_of(scene, CLIP_FRAMES)
        video = torch.from_numpy(frames).permute(3, 0, 1, 2)[None].float()
        with mixed_precision():
            x0 = normalised(vae, vae.encode(video).latent_dist.mode().float())
        noise = torch.from_numpy(rng.standard_normal(x0.shape, dtype=np.float32))
        sampled = sample_from(pipe, x0, text, float(rng.uniform(*SAMPLE_NOISE)), noise)
        latents = pipe._denormalize_latents(
            sampled, vae.latents_mean, vae.latents_std, vae.config.scaling_factor
        )
        draft = Draft(latents[0].half(), to_uint8((frames + 1) / 2), (mask * 255).round().astype(np.uint8))
        partial = path.with_suffix(".partial")
        torch.save(draft.__dict__, partial)
        partial.replace(path)  # last: a draft counts only once it is whole
    return paths


def load_draft(path: Path) -> Draft:
    return Draft(**torch.load(path, weights_only=False))
