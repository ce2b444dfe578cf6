"""The renderer: one loaded pipeline plus its caches, turning a prompt and a seed into uint8 frames.

A render reads as numbered steps: (1) prompt embeddings from the cache, (2) denoise to latents with the
step cache and the text K/V cache in place, reporting every step and obeying a stop request through the
pipeline's interrupt flag, (3) decode to frames a few latent frames at a time, handing each run of frames
on as it is made (generation/frame_stream.py). Out-of-memory is met in levels (see `render`).
"""

from __future__ import annotations

import gc
import logging
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch
from diffusers.pipelines.ltx.pipeline_ltx_condition import LTXVideoCondition

from generation.embeddings import PromptEmbeddingCache
from generation.frame_stream import (
    FIRST_LATENTS,
    ChunkedDecoder,
    ClipFrames,
    Decode,
    FramesCallback,
    StreamFrames,
)
from generation.lead_cache import LeadEncodingCache
from generation.presets import Preset
from generation.step_cache import enable_step_cache
from generation.text_kv import TextKVStore, apply_text_kv_cache

log = logging.getLogger(__name__)


class _QuietTimesteps(logging.Filter):
    # The distilled recipe passes timesteps on purpose; the scheduler warns about that on every call.
    def filter(self, record: logging.LogRecord) -> bool:
        return "were passed without `sigmas`" not in record.getMessage()


logging.getLogger("diffusers.schedulers.scheduling_flow_match_euler_discrete").addFilter(_QuietTimesteps())

OOM_LEVELS = {
    1: "freed caches, retrying",
    2: "retrying with half the steps and half the size",
    3: "giving up",
}
OOM_COUNTS: Counter[int] = Counter()  # per worker process, by level

StepCallback = Callable[[int, int], bool]  # (steps done, total) -> True to stop the render


@dataclass(frozen=True)
class CacheSettings:
    embeddings: int = 256  # LRU capacity; 0 = off
    text_kv: bool = True
    lead: bool = True  # the next clip's lead encoded once a clip is made (generation/lead_cache.py)
    step: str = "fbc"  # none | fbc | pab | taylorseer
    fbc_threshold: float = 0.0  # 0 = the preset's measured default


@dataclass
class RenderRequest:
    prompt: str
    seed: int
    width: int
    height: int
    fps: int
    num_frames: int  # frames kept (what airs)
    # (n, height, width, 3) uint8 at `fps`: the previous clip's last frames, at least
    # `Renderer.condition_frames(fps, condition_lead)` of them
    condition: np.ndarray | None = None
    condition_lead: int = 0  # frames at the rendered rate to condition on (8k+1); 0: all of `condition`


@dataclass
class RenderResult:
    frames: np.ndarray | None  # (num_frames, height, width, 3) uint8; None when stopped
    interrupted: bool
    timings: dict[str, float]
    cache_stats: dict[str, Any]
    oom_levels: list[int] = field(default_factory=list)


class OutOfMemoryGiveUp(RuntimeError):
    """Every out-of-memory level failed: give the clip up and restart the worker process."""

    levels = [1, 2, 3]


def rendered_frames(num_frames: int, lead: int, temporal_ratio: int) -> int:
    """Frames the pipeline renders so that `num_frames` follow the `lead` conditioning (or first) frames.

    LTX latents hold `temporal_ratio` frames each plus a causal first frame: clips are k x ratio + 1 long.
    """
    return temporal_ratio * math.ceil((num_frames + lead - 1) / temporal_ratio) + 1


def stage_timings(
    started: float, encoded: float, denoised: float, decoded: float, seconds: float
) -> dict[str, float]:
    """A render's seconds by stage, from the moments each ended, and the clip's length in seconds."""
    timings = {
        "text_encoding": encoded - started,
        "denoising": denoised - encoded,
        "decoding": decoded - denoised,
        "total": decoded - started,
        "seconds": seconds,
    }
    return {stage: round(value, 4) for stage, value in timings.items()}


class Renderer:
    def __init__(self, preset: Preset, pipe: Any, caches: CacheSettings) -> None:
        self.preset = preset
        self.pipe = pipe
        self.caches = caches
        self.fbc_threshold = caches.fbc_threshold or preset.fbc_threshold
        self.embeddings = PromptEmbeddingCache(pipe, caches.embeddings, preset.max_sequence_length)
        self.kv: TextKVStore | None = apply_text_kv_cache(pipe.transformer) if caches.text_kv else None
        self.leads = LeadEncodingCache(pipe.vae) if caches.lead else None
        self.hooked_modules = enable_step_cache(
            pipe.transformer, caches.step, lambda: pipe.current_timestep, self.fbc_threshold
        )
        self.attention_calls = 0
        # Latent frames in a clip's first decode, past any lead (generation/frame_stream.py); more than a
        # clip has decodes it in one piece, as before clips aired while they were made.
        self.first_latents = FIRST_LATENTS
        for block in pipe.transformer.transformer_blocks:
            # Counts self-attention really computed: a step cache that skips work lowers it.
            block.attn1.to_q.register_forward_hook(self._count_attention)

    @torch.compiler.disable  # traced, the count is a constant: each new value would recompile the block
    def _count_attention(self, *_: Any) -> None:
        self.attention_calls += 1

    @property
    def temporal_ratio(self) -> int:
        return int(self.pipe.vae_temporal_compression_ratio)

    def render_fps(self, fps: int) -> int:
        return self.preset.render_fps or fps

    def condition_frames(self, fps: int, lead: int) -> int:
        """The previous clip's frames (at the stream's `fps`) that give `lead` frames to condition on."""
        return math.ceil((lead - 1) * fps / self.render_fps(fps)) + 1

    def lead_frames(self, condition: np.ndarray, fps: int, lead: int) -> np.ndarray:
        """The last `lead` frames of `condition` at the rendered rate, the newest the previous clip's last."""
        step = fps / self.render_fps(fps)
        picks = [len(condition) - 1 - round(i * step) for i in reversed(range(lead))]
        if picks[0] < 0:
            raise ValueError(
                f"conditioning needs {self.condition_frames(fps, lead)} frames, got {len(condition)}"
            )
        return condition[picks]

    def render(
        self,
        request: RenderRequest,
        on_step: StepCallback | None = None,
        on_frames: FramesCallback | None = None,
    ) -> RenderResult:
        """`on_frames` gets the clip's frames as they are made (a retry gives them again from its first).
        Out-of-memory levels: 1 free caches and retry; 2 half the steps and half the size; 3 give up."""
        levels: list[int] = []
        for level in (0, 1, 2):
            try:
                result = self._render_once(request, on_step, on_frames, degraded=level >= 2)
                result.oom_levels = levels
                return result
            except torch.OutOfMemoryError:
                levels.append(level + 1)
                OOM_COUNTS[level + 1] += 1
                log.warning(
                    "out of memory rendering %r: level %d, %s",
                    request.prompt[:40],
                    level + 1,
                    OOM_LEVELS[level + 1],
                )
                self.free_memory()
        raise OutOfMemoryGiveUp(f"out of memory at every level for {request.prompt[:40]!r}")

    def free_memory(self) -> None:
        self.embeddings.clear()
        if self.kv is not None:
            self.kv.clear()
        if self.leads is not None:
            self.leads.clear()
        self.pipe.transformer._reset_stateful_cache()
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def _render_once(
        self,
        request: RenderRequest,
        on_step: StepCallback | None,
        on_frames: FramesCallback | None,
        degraded: bool,
    ) -> RenderResult:
        started = time.perf_counter()
        pipe, preset = self.pipe, self.preset
        timesteps = list(preset.timesteps)
        width, height = preset.pipeline_size(request.width, request.height)
        if degraded:
            timesteps = (
                timesteps[::2] if timesteps[-1] in timesteps[::2] else [*timesteps[::2], timesteps[-1]]
            )
            width, height = max(32, width // 64 * 32), max(32, height // 64 * 32)
        render_fps = self.render_fps(request.fps)
        kept = math.ceil(request.num_frames * render_fps / request.fps)  # frames at the rendered rate
        condition, lead = None, preset.lead_frames
        if request.condition is not None:
            lead = request.condition_lead or len(request.condition)
            if (lead - 1) % self.temporal_ratio:
                raise ValueError(f"conditioning needs {self.temporal_ratio}k+1 frames, got {lead}")
            condition = self.lead_frames(request.condition, request.fps, lead)

        # 1. Prompt embeddings (the text encoder runs only on a miss).
        hits_before = self.embeddings.stats.hits
        prompt = self.embeddings.get(request.prompt)
        negative = None
        if preset.guidance_scale > 1:
            negative = self.embeddings.negative(preset.negative_prompt)
        encoded = time.perf_counter()

        # 2. Denoise to latents (the lead's encoding found ready when this worker made the previous clip).
        pipe.transformer._reset_stateful_cache()
        leads_before = self.leads.stats.hits if self.leads else 0
        kv_before = (self.kv.stats.projected, self.kv.stats.reused) if self.kv else (0, 0)
        attention_before = self.attention_calls
        steps_done = 0

        def step_end(pipeline: Any, step: int, timestep: Any, tensors: dict[str, Any]) -> dict[str, Any]:
            nonlocal steps_done
            steps_done = step + 1
            if on_step is not None and on_step(step + 1, len(timesteps)):
                pipeline._interrupt = True
            return {}

        with torch.no_grad():
            latents = pipe(
                conditions=self._conditions(condition),
                prompt_embeds=prompt.embeds,
                prompt_attention_mask=prompt.mask,
                negative_prompt_embeds=negative.embeds if negative else None,
                negative_prompt_attention_mask=negative.mask if negative else None,
                width=width,
                height=height,
                num_frames=rendered_frames(kept, lead, self.temporal_ratio),
                frame_rate=render_fps,
                timesteps=timesteps,
                guidance_scale=preset.guidance_scale,
                max_sequence_length=preset.max_sequence_length,
                generator=torch.Generator(pipe.device).manual_seed(request.seed),
                callback_on_step_end=step_end,
                output_type="latent",
            ).frames
        interrupted = bool(pipe.interrupt)
        denoised = time.perf_counter()

        # 3. Decode (not when stopped: nobody will air it), a chunk at a time, the first past the lead.
        frames = None
        if not interrupted:
            # Blending up to the stream's rate is cheaper before scaling up to its size.
            size = (request.width, request.height) if render_fps == request.fps else (width, height)
            # The lead's frames are the previous clip's (or the model's lead-in): only the last of their
            # latent frames is decoded, for the clip's first pictures to be seen in context.
            lead_latents = (lead - 1) // self.temporal_ratio + 1
            clip = self.clip_frames(
                request, lambda part: preset.decode(pipe, part, *size), kept, on_frames, lead=lead_latents
            )
            clip.push(latents)
            frames = clip.finish()
        decoded = time.perf_counter()

        kv_stats = {}
        if self.kv is not None:
            kv_stats = {
                "kv_projected": self.kv.stats.projected - kv_before[0],
                "kv_reused": self.kv.stats.reused - kv_before[1],
            }
        cache_stats: dict[str, Any] = {
            "embedding_hit": self.embeddings.stats.hits > hits_before,
            "embedding_hit_rate": round(self.embeddings.stats.hit_rate, 4),
            "text_kv": self.kv is not None,
            **kv_stats,
            "lead_encoded_ahead": self.leads is not None and self.leads.stats.hits > leads_before,
            "step_cache": self.caches.step,
            "step_cache_modules": self.hooked_modules,
            "self_attention_computed": self.attention_calls - attention_before,
            "self_attention_full": steps_done * len(pipe.transformer.transformer_blocks),
            "steps": len(timesteps),
            "steps_done": steps_done,
            "degraded": degraded,
        }
        timings = stage_timings(started, encoded, denoised, decoded, request.num_frames / request.fps)
        return RenderResult(frames, interrupted, timings, cache_stats)

    def clip_frames(
        self,
        request: RenderRequest,
        decode: Decode,
        kept: int,
        on_frames: FramesCallback | None,
        **context: Any,
    ) -> ClipFrames:
        """A clip's frames from its latent frames as they come (generation/frame_stream.py): decoded a few at
        a time after `context` (the `lead` latent frames first pushed, or the latent frame `before`), their
        first `kept` pictures blended from the rendered rate to the request's and scaled to its size."""
        rated = StreamFrames(
            kept=kept,
            rendered_fps=self.render_fps(request.fps),
            fps=request.fps,
            count=request.num_frames,
            width=request.width,
            height=request.height,
        )
        return ClipFrames(ChunkedDecoder(decode, first=self.first_latents, **context), rated, on_frames)

    def prepare_continuation(self, frames: np.ndarray, fps: int, width: int, height: int, lead: int) -> bool:
        """Encode now the lead that a clip going on from `frames` (just made, at the stream's `fps` and size)
        will condition on, so that its render finds it ready; True when encoded. Costs the encode (1.2 s on
        2 cores) between renders instead of at the start of the next one."""
        if self.leads is None or (lead - 1) % self.temporal_ratio:
            return False
        condition = self.lead_frames(frames, fps, lead)
        size = self.preset.pipeline_size(width, height)
        video = self._video(condition)  # as the render hands it to the pipeline
        with torch.no_grad():
            # What LTXConditionPipeline.__call__ makes of a condition video before it encodes it
            data = self.pipe.video_processor.preprocess_video(video, size[1], size[0])
            self.pipe.vae.encode(data.to(self.pipe.device, dtype=self.pipe.vae.dtype))
        return True

    def _conditions(self, condition: np.ndarray | None) -> list[LTXVideoCondition] | None:
        if condition is None:
            return None
        return [LTXVideoCondition(video=cast(Any, self._video(condition)), frame_index=0, strength=1.0)]

    @staticmethod
    def _video(frames: np.ndarray) -> torch.Tensor:
        """(n, h, w, 3) uint8 frames as the pipeline takes a condition video: (n, 3, h, w) in [0, 1]."""
        return torch.from_numpy(np.ascontiguousarray(frames)).permute(0, 3, 1, 2).float() / 255.0
