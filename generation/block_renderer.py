"""The block renderer: the worker's clips made one latent frame (a block) at a time against the rolling KV
cache (generation/block_causal.py), the cache kept from one clip to the next (`GENERATION_BLOCKS`).

A clip continues the stream in the cache: its first block attends to the sink and the window of the clips
before it, so nothing of the previous clip goes back through the VAE and nothing is recomputed at every
step. How each clip began is in its cache stats (`start`):
- `cache`: the request's previous frames are the last ones this renderer made; at the switch the window is
  re-cached with the new prompt (LongLive's re-cache: the held frames' keys and values computed again under
  the new prompt, so the old one does not linger), unless `recache` is off;
- `frames`: the previous frames are someone else's (a restarted worker, another GPU, a clip skipped after
  this one was made): the cache starts again from those frames, encoded as the bidirectional renderer
  encodes its lead frames;
- `new`: no previous clip; the model's lead frames are made too and dropped, as the renderer drops them.
A clip's latents are decoded after the last latent frame before them, whose own picture is dropped, so the
VAE's decoder (not causal) sees across the seam.

Out of memory, the cache gives way in tiers before the clip does: 1. the oldest quarter of the window goes,
2. the cache keeps int8 keys and values, 3. the clip is given up and the worker process restarts (as the
renderer's last level). A worker stays at the tier it reached until it restarts; each retry starts the
cache again from the request's frames.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import torch

from generation.block_causal import BlockCausal, cache_for, grid_of, make_blocks, unpacked
from generation.frame_stream import FramesCallback, resize
from generation.kv_cache import FrameKVCache
from generation.pipeline import PatchedLTXConditionPipeline as Pipeline
from generation.pipeline import velocity
from generation.precision import mixed_precision
from generation.presets import Preset
from generation.renderer import (
    OOM_COUNTS,
    CacheSettings,
    OutOfMemoryGiveUp,
    Renderer,
    RenderRequest,
    RenderResult,
    StepCallback,
    stage_timings,
)

log = logging.getLogger(__name__)

TIERS = {
    1: "dropping the oldest quarter of the cache's window",
    2: "keeping the cache in int8",
    3: "giving up",
}


@dataclass(frozen=True)
class BlockSettings:
    sink: int = 1  # frames the cache never evicts
    window: int = 6  # the most recent frames it keeps
    int8: bool = False
    recache: bool = True  # re-cache the window with each clip's prompt
    context_noise: float = 0.0  # the sigma a finished block is cached at
    sink_beside_window: bool = False  # read the sinks just before the window (generation/block_causal.py)


class BlockRenderer(Renderer):
    def __init__(self, preset: Preset, pipe: Any, caches: CacheSettings, blocks: BlockSettings) -> None:
        # No step cache (it skips a pass by how little its input changed, across blocks as across steps) and
        # no text K/V cache (measured on the bidirectional path only): the KV cache here is the block cache.
        super().__init__(preset, pipe, replace(caches, text_kv=False, step="none"))
        self.blocks = blocks
        self.grid = grid_of(pipe)
        transformer = pipe.transformer
        cache = cache_for(transformer, self.grid, blocks.sink, blocks.window, blocks.int8)
        self.causal = BlockCausal(transformer, cache, self.grid, blocks.sink_beside_window)
        self.latents: dict[int, torch.Tensor] = {}  # the finished blocks the cache holds, clean, by frame
        self.next_frame = 0
        self.last_picture: np.ndarray | None = None  # the last frame of the last clip made

    @property
    def cache(self) -> FrameKVCache:
        return self.causal.cache

    def render(
        self,
        request: RenderRequest,
        on_step: StepCallback | None = None,
        on_frames: FramesCallback | None = None,
    ) -> RenderResult:
        levels: list[int] = []
        while True:
            try:
                result = self._render_once(request, on_step, on_frames, degraded=False)
                result.oom_levels = levels
                return result
            except torch.OutOfMemoryError:
                level = len(levels) + 1
                levels.append(level)
                OOM_COUNTS[level] += 1
                log.warning(
                    "out of memory rendering %r: tier %d, %s", request.prompt[:40], level, TIERS[level]
                )
                self.free_memory()
                if level == 3:
                    raise OutOfMemoryGiveUp(
                        f"out of memory at every tier for {request.prompt[:40]!r}"
                    ) from None
                self.give_way(level)

    def prepare_continuation(self, frames: np.ndarray, fps: int, width: int, height: int, lead: int) -> bool:
        return False  # the next clip goes on in the KV cache; frames it did not make are encoded as it starts

    def give_way(self, tier: int) -> None:
        """A smaller cache for `tier` (1: a quarter less window, 2: int8); the stream starts again."""
        window, int8 = self.cache.window, self.cache.int8
        if tier == 1:
            window = max(1, window - math.ceil(window / 4))
        else:
            int8 = True
        self.causal.use_cache(cache_for(self.pipe.transformer, self.grid, self.cache.sink, window, int8))
        self.forget()

    def forget(self) -> None:
        """Start the stream again at the next clip: an empty cache, no frames carried."""
        self.cache.clear()
        self.latents, self.next_frame, self.last_picture = {}, 0, None

    def _render_once(
        self,
        request: RenderRequest,
        on_step: StepCallback | None,
        on_frames: FramesCallback | None,
        degraded: bool,
    ) -> RenderResult:
        started = time.perf_counter()
        render_fps = self.render_fps(request.fps)
        kept = math.ceil(request.num_frames * render_fps / request.fps)  # frames at the rendered rate
        ratio = self.temporal_ratio
        hits_before = self.embeddings.stats.hits
        embedding = self.embeddings.get(request.prompt)
        prompt = (embedding.embeds, embedding.mask)
        encoded = time.perf_counter()

        before = asdict(self.cache.counters)
        start = self._start(request, prompt)
        # A new stream makes the model's lead frames first, as the renderer does, and drops them.
        lead = 0
        if start == "new":
            lead = (self.preset.lead_frames - 1) // ratio + 1
            count = 1 + math.ceil((self.preset.lead_frames + kept - 1) / ratio)
        else:
            count = math.ceil(kept / ratio)
        frames = range(self.next_frame, self.next_frame + count)
        seam = None if start == "new" else self.latents[frames.start - 1]
        self.causal.rebase(frames.start)
        sigmas = [t / 1000 for t in self.preset.timesteps]
        channels = self.pipe.transformer.config.in_channels
        generator = torch.Generator().manual_seed(request.seed)
        # Blending up to the stream's rate is cheaper before scaling up to its size, as in the renderer.
        size = (request.width, request.height)
        if render_fps != request.fps:
            size = self.preset.pipeline_size(*size)
        # Each block is decoded as the chunk it completes is whole, so the clip's frames come while its
        # later blocks denoise; a seam's picture (the clip before's last, or the lead's) is decoded for
        # context and dropped.
        clip = self.clip_frames(
            request,
            lambda part: self.preset.decode(self.pipe, part, *size),
            kept,
            on_frames,
            before=None if seam is None else unpacked([seam], self.grid),
            lead=lead,
        )
        made = 0
        interrupted = False
        blocks = make_blocks(
            self.causal, prompt, frames, sigmas, channels, generator, self.blocks.context_noise
        )
        for frame, block in zip(frames, blocks, strict=False):
            made += 1
            self.latents[frame] = block
            if on_step is not None and on_step(made, count):
                interrupted = True
                break
            clip.push(unpacked([block], self.grid))
        self.latents = {f: self.latents[f] for f in self.cache.held(before=frames.stop)}  # flat memory

        picture = None
        if interrupted:
            self.forget()  # the cache holds a clip that will not air
        else:
            picture = clip.finish()
            self.next_frame, self.last_picture = frames.stop, picture[-1].copy()
        # The decode ran between the blocks: its seconds are the decoding stage's, the rest denoising's.
        decoded = time.perf_counter()
        denoised = decoded - clip.decoder.seconds

        counters = asdict(self.cache.counters)
        cache_stats: dict[str, Any] = {
            "embedding_hit": self.embeddings.stats.hits > hits_before,
            "embedding_hit_rate": round(self.embeddings.stats.hit_rate, 4),
            "blocks": made,
            "start": start,
            "kv_cache": {
                **{name: counters[name] - before[name] for name in counters},
                "pages_in_use": self.cache.pages_in_use,
                "bytes": self.cache.bytes,
                "window": self.cache.window,
                "int8": self.cache.int8,
            },
            "steps": len(sigmas),
        }
        timings = stage_timings(started, encoded, denoised, decoded, request.num_frames / request.fps)
        return RenderResult(picture, interrupted, timings, cache_stats)

    def _start(self, request: RenderRequest, prompt: tuple[torch.Tensor, torch.Tensor]) -> str:
        """How this clip starts (`cache`, `frames` or `new`), with the cache made ready for it."""
        condition = request.condition
        if (
            condition is not None
            and self.last_picture is not None
            and np.array_equal(condition[-1], self.last_picture)
        ):
            if self.blocks.recache:
                self._fill(self.cache.held(before=self.next_frame), prompt)
            return "cache"
        self.forget()
        if condition is None:
            return "new"
        lead = request.condition_lead or len(condition)
        if (lead - 1) % self.temporal_ratio:
            raise ValueError(f"conditioning needs {self.temporal_ratio}k+1 frames, got {lead}")
        latents = self._encoded(self.lead_frames(condition, request.fps, lead))
        self.next_frame = latents.shape[2]
        for frame in range(self.next_frame):
            self.latents[frame] = Pipeline._pack_latents(latents[:, :, frame : frame + 1], self.grid.patch, 1)
        self._fill(list(range(self.next_frame)), prompt)
        return "frames"

    @torch.no_grad()
    def _fill(self, frames: list[int], prompt: tuple[torch.Tensor, torch.Tensor]) -> None:
        """The cache's pages for `frames` (finished, in `self.latents`) computed under `prompt`, in order."""
        noise = self.blocks.context_noise
        self.causal.rebase(frames[0] if frames else 0)
        for frame in frames:
            x = self.latents[frame]
            noisy = (1 - noise) * x + noise * torch.randn_like(x)
            with self.causal.block(frame, fill=True) as coords:
                velocity(self.pipe.transformer, noisy, prompt, torch.full(x.shape[:2], noise * 1000), coords)

    @torch.no_grad()
    def _encoded(self, frames: np.ndarray) -> torch.Tensor:
        """(n, h, w, 3) uint8 frames as the normalised (1, C, F, h, w) latents the transformer reads."""
        vae = self.pipe.vae
        width, height = self.preset.pipeline_size(frames.shape[2], frames.shape[1])
        video = torch.from_numpy(resize(frames, width, height)).permute(3, 0, 1, 2)[None].float() / 127.5 - 1
        with mixed_precision():
            latent = vae.encode(video.to(vae.dtype)).latent_dist.mode().float()
        return Pipeline._normalize_latents(
            latent, vae.latents_mean, vae.latents_std, vae.config.scaling_factor
        )
