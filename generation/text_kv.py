"""Exact text K/V cache for the LTX-Video transformer.

Every denoising step of a clip sends the same prompt embeddings into every block's cross-attention, so the
caption projection and each block's cross-attention keys and values are the same at every step. This cache
computes them once per clip (per distinct prompt tensor) and reuses them: the output is unchanged, and the
K/V projections per clip drop from steps x blocks to blocks.

How it knows the prompt is the same: a hook on the transformer notes the prompt tensor it was called with
(the very object, and its in-place version counter); anything else, and every cached entry is dropped. The
pipeline resets it after each call (`maybe_free_model_hooks` -> `_reset_stateful_cache`), and the renderer
resets it before each clip too, so nothing leaks from one clip into the next.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from diffusers.hooks import HookRegistry, ModelHook
from diffusers.models.transformers.transformer_ltx import LTXAttention, LTXVideoAttnProcessor

_TRANSFORMER_HOOK = "yolive_text_kv_transformer"
_CAPTION_HOOK = "yolive_text_kv_caption"


@dataclass
class TextKVStats:
    projected: int = 0  # cross-attention K/V projections computed (one per block per distinct prompt)
    reused: int = 0  # ... served from the cache instead


@dataclass
class TextKVStore:
    prompt: torch.Tensor | None = None
    prompt_version: int = -1
    caption: torch.Tensor | None = None
    kv: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)
    stats: TextKVStats = field(default_factory=TextKVStats)

    def clear(self) -> None:
        self.prompt, self.prompt_version, self.caption = None, -1, None
        self.kv.clear()

    def note_prompt(self, prompt: torch.Tensor) -> None:
        if self.prompt is prompt and self.prompt_version == prompt._version:
            return
        self.clear()
        self.prompt, self.prompt_version = prompt, prompt._version


class _NotePrompt(ModelHook):
    """On the transformer: every call says which prompt tensor is in play."""

    _is_stateful = True

    def __init__(self, store: TextKVStore) -> None:
        super().__init__()
        self.store = store

    def pre_forward(self, module: torch.nn.Module, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        prompt = kwargs.get("encoder_hidden_states")
        if prompt is None and len(args) > 1:
            prompt = args[1]
        if prompt is not None:
            self.store.note_prompt(prompt)
        return args, kwargs

    def reset_state(self, module: torch.nn.Module) -> torch.nn.Module:
        self.store.clear()
        return module


class _CaptionOnce(ModelHook):
    """On caption_projection: the projected prompt is the same at every step of a clip."""

    def __init__(self, store: TextKVStore) -> None:
        super().__init__()
        self.store = store

    def new_forward(self, module: torch.nn.Module, *args: Any, **kwargs: Any) -> torch.Tensor:
        if self.store.caption is None or self.store.prompt is None:
            forward: Any = self.fn_ref.original_forward
            self.store.caption = forward(*args, **kwargs)
        return self.store.caption


class TextKVAttnProcessor(LTXVideoAttnProcessor):
    """LTXVideoAttnProcessor with the cross-attention keys and values projected once per prompt."""

    def __init__(self, store: TextKVStore, block: int) -> None:
        super().__init__()
        self.store = store
        self.block = block

    def __call__(
        self,
        attn: LTXAttention,
        hidden_states: torch.Tensor,
        encoder_hidden_states: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        image_rotary_emb: torch.Tensor | None = None,
    ) -> torch.Tensor:
        if encoder_hidden_states is None or self.store.prompt is None:
            return super().__call__(
                attn, hidden_states, encoder_hidden_states, attention_mask, image_rotary_emb
            )
        batch_size, sequence_length, _ = encoder_hidden_states.shape
        if attention_mask is not None:
            attention_mask = attn.prepare_attention_mask(attention_mask, sequence_length, batch_size)
            attention_mask = attention_mask.view(batch_size, attn.heads, -1, attention_mask.shape[-1])
        key, value = self._key_value(attn, encoder_hidden_states)
        query = attn.norm_q(attn.to_q(hidden_states)).unflatten(2, (attn.heads, -1))
        # Same call as the stock processor, so the result is the same to the last bit.
        from diffusers.models.attention_dispatch import dispatch_attention_fn

        out = dispatch_attention_fn(
            query,
            key,
            value,
            attn_mask=attention_mask,
            dropout_p=0.0,
            is_causal=False,
            backend=self._attention_backend,
            parallel_config=self._parallel_config,
        )
        out = out.flatten(2, 3).to(query.dtype)
        return attn.to_out[1](attn.to_out[0](out))

    # Eager under torch.compile: the blocks share one compiled forward, and a traced lookup would guard on
    # this block's number and recompile for every block.
    @torch.compiler.disable
    def _key_value(self, attn: LTXAttention, context: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        cached = self.store.kv.get(self.block)
        if cached is not None:
            self.store.stats.reused += 1
            return cached
        key = attn.norm_k(attn.to_k(context)).unflatten(2, (attn.heads, -1))
        value = attn.to_v(context).unflatten(2, (attn.heads, -1))
        self.store.kv[self.block] = (key, value)
        self.store.stats.projected += 1
        return key, value


def apply_text_kv_cache(transformer: Any) -> TextKVStore:
    """Install the cache on an LTXVideoTransformer3DModel; returns the store (stats live there)."""
    store = TextKVStore()
    HookRegistry.check_if_exists_or_initialize(transformer).register_hook(
        _NotePrompt(store), _TRANSFORMER_HOOK
    )
    HookRegistry.check_if_exists_or_initialize(transformer.caption_projection).register_hook(
        _CaptionOnce(store), _CAPTION_HOOK
    )
    for index, block in enumerate(transformer.transformer_blocks):
        block.attn2.set_processor(TextKVAttnProcessor(store, index))
    return store
