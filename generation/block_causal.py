"""Block-causal passes of the LTX-Video transformer: a clip made one latent frame (a block) at a time, each
block attending to itself and to the cached keys and values of the blocks before it (generation/kv_cache.py).

`BlockCausal(transformer, cache)` puts its attention on every block's self-attention (attn1). Then
- `with causal.masked(frames):` one forward pass over the latent frames `frames` is block-causal by mask
  (each frame sees itself, the sink frames and the `window` frames before it): what training with diffusion
  forcing runs, and what the cached passes must equal;
- `with causal.block(frame, fill=False):` one forward pass over one block's tokens reads the cache; with
  `fill=True` it also writes the block's keys and values into it (run once a block is finished, at a clean
  or slightly noised timestep, not at every step);
- `with causal.attending(mask):` one forward pass under any mask (the lab's teacher forcing reads a clip
  twice, clean and noisy, each noisy frame seeing the clean frames the cache would hold).
Outside these, attention is the stock bidirectional one. A frame's time coordinate counts from an origin that
`rebase` moves (the renderer moves it at each clip, so a stream of any length reads small coordinates and
float32's rotations stay exact); cached keys are kept before their rotation and rotated at read time, so
moving the origin changes nothing but rounding, since rotary attention depends only on differences.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import torch
from diffusers.models.attention_dispatch import dispatch_attention_fn
from diffusers.models.transformers.transformer_ltx import (
    LTXAttention,
    LTXVideoAttnProcessor,
    apply_rotary_emb,
)

from generation.kv_cache import FrameKVCache
from generation.pipeline import PatchedLTXConditionPipeline as Pipeline
from generation.pipeline import velocity


@dataclass
class Grid:
    """A latent frame's token grid and the clip's rate, to place tokens in time and space."""

    height: int  # tokens a frame, down and across
    width: int
    patch: int  # latent cells a token side
    spatial: int  # pixels a latent cell side
    seconds_a_frame: float  # a latent frame's length

    @property
    def tokens(self) -> int:
        return self.height * self.width

    def coords(self, frames: list[int], origin: int) -> torch.Tensor:
        """(1, 3, tokens) video coordinates of `frames`' tokens: seconds from frame `origin`, and pixels down
        and across to each token's corner, as the pipeline places them."""
        step = self.patch * self.spatial
        rows = (torch.arange(self.height) * step).repeat_interleave(self.width).float()
        cols = (torch.arange(self.width) * step).repeat(self.height).float()
        parts = [
            torch.stack([torch.full_like(rows, (f - origin) * self.seconds_a_frame), rows, cols])
            for f in frames
        ]
        return torch.cat(parts, dim=1)[None]


def grid_of(pipe: Any) -> Grid:
    """The token grid and rate of the clips `pipe` renders, from its model folder's facts."""
    from generation.model_folder import render_facts

    facts = render_facts()
    patch = int(pipe.transformer.config.patch_size)
    spatial, temporal = pipe.vae_spatial_compression_ratio, pipe.vae_temporal_compression_ratio
    return Grid(
        height=facts.height // spatial // patch,
        width=facts.width // spatial // patch,
        patch=patch,
        spatial=spatial,
        seconds_a_frame=temporal / facts.fps,
    )


def cache_for(transformer: Any, grid: Grid, sink: int, window: int, int8: bool = False) -> FrameKVCache:
    """A cache of `sink` + `window` frames sized for `transformer`'s layers and `grid`'s tokens."""
    config = transformer.config
    width = config.num_attention_heads * config.attention_head_dim
    return FrameKVCache(config.num_layers, grid.tokens, width, sink, window, int8=int8)


def unpacked(blocks: list[torch.Tensor], grid: Grid) -> torch.Tensor:
    """Finished blocks, (1, tokens, channels) each and in order, as the (1, C, F, h, w) latents the VAE
    decodes."""
    cells = (grid.height * grid.patch, grid.width * grid.patch)
    return Pipeline._unpack_latents(torch.cat(blocks, dim=1), len(blocks), *cells, grid.patch, 1)


@dataclass
class _State:
    cache: FrameKVCache
    grid: Grid
    mask: torch.Tensor | None = None  # a masked whole-clip pass
    frame: int | None = None  # a block pass: the frame being made
    filling: bool = False  # ... and whether its keys and values go into the cache once the pass ends
    context_rope: tuple[torch.Tensor, torch.Tensor] | None = None
    pending: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)


def block_causal_mask(frames: list[int], tokens: int, sink: int, window: int) -> torch.Tensor:
    """(frames x tokens)² booleans over a pass of `frames` (latent frame numbers, `tokens` each): a frame's
    tokens see its own frame, the first `sink` frames and the `window` frames before it (what a cache of
    sink + window pages holds when the frame is made)."""
    f = torch.tensor(frames)
    query, key = f[:, None], f[None, :]
    seen = (key <= query) & ((key < sink) | (key >= query - window))
    return seen.repeat_interleave(tokens, 0).repeat_interleave(tokens, 1)


class BlockCausalAttention(LTXVideoAttnProcessor):
    """Self-attention that is block-causal in a masked pass, and reads (and fills) the cache in a block
    pass."""

    def __init__(self, state: _State, layer: int) -> None:
        super().__init__()
        self.state, self.layer = state, layer

    def __call__(
        self,
        attn: LTXAttention,
        hidden_states: torch.Tensor,
        encoder_hidden_states: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        image_rotary_emb: Any = None,
    ) -> torch.Tensor:
        state = self.state
        if encoder_hidden_states is not None or (state.mask is None and state.frame is None):
            return super().__call__(
                attn, hidden_states, encoder_hidden_states, attention_mask, image_rotary_emb
            )
        query = attn.norm_q(attn.to_q(hidden_states))
        key = attn.norm_k(attn.to_k(hidden_states))  # pre-RoPE: what the cache keeps
        value = attn.to_v(hidden_states)
        mask = state.mask
        if state.frame is not None:
            if hidden_states.shape[0] != 1:
                raise ValueError("block-causal passes make one clip at a time (batch 1, no guidance)")
            if state.filling:
                state.pending[self.layer] = (key[0], value[0])
            held_keys, held_values = state.cache.read(self.layer, before=state.frame)
            query = apply_rotary_emb(query, image_rotary_emb)
            rotated = apply_rotary_emb(key, image_rotary_emb)
            if len(held_keys):
                assert state.context_rope is not None
                held = apply_rotary_emb(held_keys[None].to(key), state.context_rope)
                rotated = torch.cat([held, rotated], dim=1)
                value = torch.cat([held_values[None].to(value), value], dim=1)
            key = rotated
        else:
            query, key = apply_rotary_emb(query, image_rotary_emb), apply_rotary_emb(key, image_rotary_emb)
        out = dispatch_attention_fn(
            query.unflatten(2, (attn.heads, -1)),
            key.unflatten(2, (attn.heads, -1)),
            value.unflatten(2, (attn.heads, -1)),
            attn_mask=None if mask is None else mask.to(query.device),
            dropout_p=0.0,
            is_causal=False,
            backend=self._attention_backend,
            parallel_config=self._parallel_config,
        )
        out = out.flatten(2, 3).to(query.dtype)
        return attn.to_out[1](attn.to_out[0](out))


class BlockCausal:
    def __init__(
        self, transformer: Any, cache: FrameKVCache, grid: Grid, sink_beside_window: bool = False
    ) -> None:
        """With `sink_beside_window`, the sink frames are read as if they came just before the window's
        oldest frame (StreamingLLM's positions within the cache), not where they were made: in a long stream
        the first frames fall further behind than any clip the model learned on, which only a masked pass
        over the whole stream would reproduce."""
        self.transformer, self.cache, self.grid = transformer, cache, grid
        self.sink_beside_window = sink_beside_window
        self.origin = 0  # the frame time coordinates count from
        self.state = _State(cache, grid)
        for layer, block in enumerate(transformer.transformer_blocks):
            block.attn1.set_processor(BlockCausalAttention(self.state, layer))

    def use_cache(self, cache: FrameKVCache) -> None:
        """Read and fill `cache` from now on (a smaller one when memory runs short)."""
        self.cache = self.state.cache = cache

    def rebase(self, origin: int) -> None:
        """Count time coordinates from frame `origin` from now on."""
        self.origin = origin

    def placed(self, held: list[int]) -> list[int]:
        """Where the held frames (in time order) are read in time: where they were made, or with
        `sink_beside_window` the sinks moved up to just before the window's oldest frame."""
        window = [frame for frame in held if frame not in self.cache.sinks]
        if not self.sink_beside_window or not window:
            return held
        sinks = [frame for frame in held if frame in self.cache.sinks]
        return [max(frame, window[0] - len(sinks) + i) for i, frame in enumerate(sinks)] + window

    @contextmanager
    def masked(self, frames: list[int]) -> Iterator[torch.Tensor]:
        """One pass over `frames` (latent frame numbers, in order), block-causal by mask; yields its video
        coordinates."""
        with self.attending(block_causal_mask(frames, self.grid.tokens, self.cache.sink, self.cache.window)):
            yield self.grid.coords(frames, self.origin)

    @contextmanager
    def attending(self, mask: torch.Tensor) -> Iterator[None]:
        """One pass whose self-attention is `mask` ((tokens x tokens) booleans, True where a query token
        sees a key token), the keys rotated at the coordinates the pass is given."""
        self.state.mask = mask
        try:
            yield
        finally:
            self.state.mask = None

    @contextmanager
    def block(self, frame: int, fill: bool = False) -> Iterator[torch.Tensor]:
        """One block's pass against the cache; yields the block's video coordinates. With `fill`, the
        block's keys and values go into the cache when the pass ends."""
        held = self.cache.held(before=frame)  # a frame made again sees only the frames before it
        if held:
            coords = self.grid.coords(self.placed(held), self.origin)
            dummy = torch.empty(1, coords.shape[-1], 1)
            self.state.context_rope = self.transformer.rope(dummy, video_coords=coords)
        # A page is taken only once the pass has read the cache: a full pool evicts after the read.
        self.state.frame, self.state.filling, self.state.pending = frame, fill, {}
        try:
            yield self.grid.coords([frame], self.origin)
            if fill:
                page = self.cache.admit(frame)
                for layer, (key, value) in self.state.pending.items():
                    self.cache.write(layer, page, key, value)
        finally:
            self.state.frame, self.state.filling, self.state.context_rope = None, False, None
            self.state.pending = {}


@torch.no_grad()
def make_blocks(
    causal: BlockCausal,
    prompt: tuple[torch.Tensor, torch.Tensor],
    frames: range,
    sigmas: list[float],
    channels: int,
    generator: torch.Generator,
    context_noise: float = 0.0,
) -> Iterator[torch.Tensor]:
    """Each of `frames` made in turn, from noise along `sigmas` (the Euler steps of the flow the model
    learned), against the cache; yields each finished block's (1, tokens, channels) latents. A finished block
    fills the cache once, at `context_noise` (0: clean), and every step of the next block reads it."""

    def predicted(x: torch.Tensor, sigma: float, frame: int, fill: bool = False) -> torch.Tensor:
        with causal.block(frame, fill=fill) as coords:
            return velocity(causal.transformer, x, prompt, torch.full(x.shape[:2], sigma * 1000), coords)

    for frame in frames:
        x = torch.randn(1, causal.grid.tokens, channels, generator=generator)
        for now, after in itertools.pairwise([*sigmas, 0.0]):
            x = x + (after - now) * predicted(x, now, frame)
        noisy = (1 - context_noise) * x + context_noise * torch.randn(x.shape, generator=generator)
        predicted(noisy, context_noise, frame, fill=True)
        yield x
