"""Stage 2: the text encoder and the transformer, trained together on the VAE's latents of the drawn clips.

The transformer sees exactly what LTXConditionPipeline gives it at render time: packed latents, per-token
timesteps (zero on the conditioning frames of a continuation), the pipeline's video coordinates and the
T5 encoder's output with its attention mask. It learns the rectified flow the pipeline's scheduler steps
along: x_s = (1 - s) x0 + s noise, target noise - x0, with s drawn from the shifted schedule the preset
samples with. The loss leans on the tokens the subject touches (a sixth of a clip's 720, SUBJECT_WEIGHT).
A tenth of the captions are dropped, so that a render may use classifier-free guidance.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from generation.pipeline import PatchedLTXConditionPipeline as Pipeline
from generation.pipeline import velocity
from generation.precision import mixed_precision
from lab.training.architecture import (
    FPS,
    HEADS,
    LEAD_FRAMES,
    NO_PROMPT,
    SPATIAL,
    TEMPORAL,
    TOKEN_CELLS,
    build_transformer,
)
from lab.training.checkpoints import load_checkpoint, save_checkpoint, stop_requested
from lab.training.device import training_device
from lab.training.schedule import learning_rate, run_progress, shifted
from lab.training.text_encoder import build_text_encoder, build_tokenizer

SEED = 3
BATCH = 8  # clips a step on a CPU
GPU_BATCH = 128  # on a GPU, where a step of 8 is bound by the CPU launching it (docs/model.md)
LEARNING_RATE = 5e-4
# A subject touches about a sixth of the tokens (16.4 % over the drawn clips): at 4 they held two fifths of
# the loss's weight, and 9,143 steps learned the subject's colours but not its shape; at 16, two thirds, and
# 15,142 steps drew the motion in half the held-out prompts; at 48, 85 %, and 4,239 steps more in two thirds.
SUBJECT_WEIGHT = 48.0
CONDITIONED_SHARE = 0.5  # plain clips also learn to continue themselves half of the time
UNCAPTIONED_SHARE = 0.1  # captions dropped to NO_PROMPT, so that the model can be guided
CONDITION_NOISE = 0.15  # the pipeline's image_cond_noise_scale
LEAD_LATENTS = (LEAD_FRAMES - 1) // TEMPORAL + 1
ENCODE_GROUP = 32  # clips a GPU encodes in one call


@dataclass
class Latents:
    x0: torch.Tensor  # (N, C, F, h, w) normalised as the pipeline normalises
    masks: torch.Tensor  # (N, F, h, w)
    captions: list[list[str]]
    continuation: torch.Tensor  # (N,) bool


@torch.no_grad()
def encode_clips(vae: Any, folder: Path, out: Path) -> Latents:
    """Every drawn clip through the trained encoder, once; kept in `out` for resumed runs."""
    if out.exists():
        saved = torch.load(out, weights_only=False)
        return Latents(**saved)
    infos = sorted(folder.glob("*.json"))
    x0, masks, captions, continuation = [], [], [], []
    device = vae.device
    group = ENCODE_GROUP if device.type == "cuda" else 1  # a CPU gains nothing from grouping
    for start in tqdm(range(0, len(infos), group), desc="encode", mininterval=10):
        stems = [path.name.removesuffix(".json") for path in infos[start : start + group]]
        frames = np.stack([np.load(folder / f"{stem}.frames.npy") for stem in stems])
        video = torch.from_numpy(frames).permute(0, 4, 1, 2, 3).to(device).float() / 127.5 - 1
        with mixed_precision(device):
            latent = vae.encode(video).latent_dist.mode().float()
        x0.append(normalised(vae, latent).cpu().half())
        for stem in stems:
            masks.append(torch.from_numpy(np.load(folder / f"{stem}.mask.npy")))
            info = json.loads((folder / f"{stem}.json").read_text())
            captions.append(info["captions"])
            continuation.append(bool(info["continuation"]))
    latents = Latents(torch.cat(x0), torch.stack(masks), captions, torch.tensor(continuation))
    torch.save(latents.__dict__, out)
    return latents


def normalised(vae: Any, latent: torch.Tensor) -> torch.Tensor:
    """The VAE's latents as the pipeline normalises them before the transformer reads them."""
    return Pipeline._normalize_latents(latent, vae.latents_mean, vae.latents_std, vae.config.scaling_factor)


def prompt_embeddings(
    tokenizer: Any, text_encoder: Any, texts: list[str], device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """(the text encoder's output, the attention mask) for `texts`, padded to the tokenizer's length."""
    tokens = tokenizer(
        texts,
        padding="max_length",
        max_length=tokenizer.model_max_length,
        truncation=True,
        return_tensors="pt",
    ).to(device)
    return text_encoder(tokens.input_ids, attention_mask=tokens.attention_mask)[0], tokens.attention_mask


def video_coords(batch: int, frames: int, height: int, width: int, cells: int = TOKEN_CELLS) -> torch.Tensor:
    ids = Pipeline._prepare_video_ids(batch, frames, height, width, cells, 1)
    ids = Pipeline._scale_video_ids(ids, SPATIAL, TEMPORAL, 0).float()
    ids[:, 0] = ids[:, 0] * (1.0 / FPS)
    return ids


def pack(latents: torch.Tensor, cells: int = TOKEN_CELLS) -> torch.Tensor:
    """(B, C, F, h, w) -> (B, tokens, C x cells²): a token is a square of `cells`-by-`cells` latent cells,
    packed as the pipeline packs them."""
    return Pipeline._pack_latents(latents, cells, 1)


def token_weights(masks: torch.Tensor, cells: int = TOKEN_CELLS) -> torch.Tensor:
    """(B, F, h, w) the subject's share of each latent cell -> (B, tokens, 1): its largest in a token."""
    pooled = torch.nn.functional.max_pool3d(masks.unsqueeze(1), (1, cells, cells))
    return pooled.flatten(1).unsqueeze(-1)


def loss_weights(masks: torch.Tensor, cells: int = TOKEN_CELLS) -> torch.Tensor:
    """(B, F, h, w) subject masks -> (B, tokens, 1): each token's weight in the loss."""
    return 1 + SUBJECT_WEIGHT * token_weights(masks.float(), cells)


def subject_share(masks: torch.Tensor) -> tuple[float, float]:
    """(the share of tokens the subject touches, the share of the loss's weight they hold) over `masks`."""
    weight = loss_weights(masks)
    touched = weight > 1
    return float(touched.float().mean()), float(weight[touched].sum() / weight.sum())


class Trainer:
    def __init__(
        self,
        latents: Latents,
        threads: int = 2,
        transformer: Any = None,
        text_encoder: Any = None,
        batch: int | None = None,
        autocast: bool | None = None,
        peak_rate: float = LEARNING_RATE,
        heads: int = HEADS,
        cells: int = TOKEN_CELLS,
    ) -> None:
        """`transformer`, `text_encoder`: parts to go on training (the shipped ones); new ones where None.
        They train on training_device(); the latents stay in memory, a batch at a time goes there.
        `latents` may also be stills, clips of one latent frame (lab/experiments/shapes.py learns on those).
        `batch`: clips a step (BATCH, or GPU_BATCH on a GPU, where None). `autocast`: their forward passes
        in bfloat16 autocast; by default on a GPU (1.4x the clips a second at a batch of 128 on an H200,
        lab/experiments/transformer_step.py), not on a CPU, where overheads rather than arithmetic bound them.
        `peak_rate`: each run's learning rate after its warm-up (lab/ledger.md has others measured). `heads`,
        `cells`: a new transformer's width, in attention heads, and patch, in latent cells a token side (the
        latents are packed by the transformer's own patch, a given one's too)."""
        torch.set_num_threads(threads)
        torch.manual_seed(SEED)
        self.device = training_device()
        self.batch = batch or (GPU_BATCH if self.device.type == "cuda" else BATCH)
        self.autocast = self.device.type == "cuda" if autocast is None else autocast
        if len(latents.x0) < self.batch:
            raise ValueError(
                f"{len(latents.x0)} clips cannot fill a batch of {self.batch}: draw more (--clips) or ask "
                "for a smaller batch (--batch)"
            )
        self.data, self.peak_rate = latents, peak_rate
        self.tokenizer = build_tokenizer()
        if transformer is None:
            transformer = build_transformer(heads, cells)
        if text_encoder is None:
            text_encoder = build_text_encoder(len(self.tokenizer))
        self.transformer = transformer.to(self.device).train()
        self.cells = int(transformer.config.patch_size)
        self.text_encoder = text_encoder.to(self.device).train()
        self.parameters = [*self.transformer.parameters(), *self.text_encoder.parameters()]
        self.opt = torch.optim.AdamW(
            self.parameters,
            lr=self.peak_rate,
            betas=(0.9, 0.99),
            weight_decay=0.01,
            fused=self.device.type == "cuda",  # one kernel: a third of a small step's GPU time went to AdamW
        )
        f, h, w = latents.x0.shape[2:]
        self.coords = video_coords(self.batch, f, h, w, self.cells).to(self.device)
        # A clip may continue from its lead frames; a still (one latent frame) has none.
        self.lead_tokens = LEAD_LATENTS * (h // self.cells) * (w // self.cells) if f > LEAD_LATENTS else 0

    def modules(self) -> torch.nn.ModuleDict:
        return torch.nn.ModuleDict({"transformer": self.transformer, "text_encoder": self.text_encoder})

    def captions(self, index: list[int], rng: np.random.Generator) -> list[str]:
        """One of each clip's captions, or NO_PROMPT for UNCAPTIONED_SHARE of them."""
        texts = [str(rng.choice(self.data.captions[i])) for i in index]
        return [NO_PROMPT if rng.random() < UNCAPTIONED_SHARE else text for text in texts]

    def loss(self, rng: np.random.Generator) -> torch.Tensor:
        index = torch.from_numpy(rng.choice(len(self.data.x0), self.batch, replace=False))
        x0 = self.data.x0[index].to(self.device).float()
        texts = self.captions(index.tolist(), rng)
        with mixed_precision(self.device, self.autocast):
            prompt = prompt_embeddings(self.tokenizer, self.text_encoder, texts, self.device)
        sigma = self.noise_levels(rng).to(self.device)  # (B, F)
        noise = torch.randn_like(x0)
        s = sigma[:, None, :, None, None]
        xt, target = pack((1 - s) * x0 + s * noise, self.cells), pack(noise - x0, self.cells)
        sigma = sigma.repeat_interleave(xt.shape[1] // sigma.shape[1], dim=1)  # a frame's tokens in a row
        timestep = sigma * 1000
        # A frame given clean (sigma 0) is context: its velocity, noise - x0, cannot be told from x0 alone.
        weight = loss_weights(self.data.masks[index].to(self.device), self.cells) * (sigma > 0)[..., None]
        if self.lead_tokens:
            chosen = torch.from_numpy(rng.random(self.batch) < CONDITIONED_SHARE)
            conditioned = (self.data.continuation[index] | chosen).to(self.device)
            lead = slice(0, self.lead_tokens)
            noise_scale = CONDITION_NOISE * sigma[:, lead, None] ** 2
            clean = pack(x0, self.cells)[:, lead] + noise_scale * torch.randn_like(xt[:, lead])
            xt[conditioned, lead] = clean[conditioned]
            timestep[conditioned, lead] = 0.0
            weight[conditioned, lead] = 0.0
        with mixed_precision(self.device, self.autocast):
            pred = self.predict(xt, prompt, timestep, index, rng).float()
        return (weight * (pred - target) ** 2).sum() / (weight.sum() * xt.shape[-1])

    def noise_levels(self, rng: np.random.Generator) -> torch.Tensor:
        """(batch, latent frames) sigmas from the shifted schedule: one a clip, shared by its frames (a
        subclass may draw one a frame)."""
        sigma = shifted(torch.from_numpy(rng.random(self.batch)).float())
        return sigma[:, None].expand(-1, self.data.x0.shape[2])

    def predict(
        self,
        xt: torch.Tensor,
        prompt: tuple[torch.Tensor, torch.Tensor],
        timestep: torch.Tensor,
        index: torch.Tensor,
        rng: np.random.Generator,
    ) -> torch.Tensor:
        """The transformer's velocity for the batch of clips `index` (a subclass adds what else it reads)."""
        return velocity(self.transformer, xt, prompt, timestep, self.coords)

    def train(self, minutes: float, checkpoint: Path, max_steps: int = 10**9, first_step: int = 0) -> int:
        state = load_checkpoint(checkpoint, self.modules(), self.opt)
        step = state.get("step", first_step)
        rng = np.random.default_rng(SEED + step)
        started, first = time.monotonic(), step
        deadline, last_save = started + minutes * 60, started
        bar = tqdm(desc="transformer", initial=step, unit="step", mininterval=10)
        ema = state.get("ema")
        stop = stop_requested()
        while time.monotonic() < deadline and not stop.is_set() and step < max_steps:
            progress = run_progress(started, minutes, step - first, max_steps - first)
            for group in self.opt.param_groups:
                group["lr"] = learning_rate(self.peak_rate, step - first, progress)
            loss = self.loss(rng)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.parameters, 1.0)
            self.opt.step()
            step += 1
            ema = loss.item() if ema is None else 0.99 * ema + 0.01 * loss.item()
            bar.update()
            if step % 25 == 0:
                bar.set_postfix(loss=f"{ema:.4f}")
            if time.monotonic() - last_save > 180:
                save_checkpoint(checkpoint, self.modules(), self.opt, step=step, ema=ema)
                last_save = time.monotonic()
        save_checkpoint(checkpoint, self.modules(), self.opt, step=step, ema=ema)
        bar.close()
        return step
