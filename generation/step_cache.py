"""Step caches from diffusers, configured for the LTX-Video transformer's real module names.

Each one reuses work across denoising steps (lossy, unlike the text K/V cache). The identifiers matter: the
library defaults hook nothing on LTX for TaylorSeer (its `fullmatch` patterns do not match `attn1`), and PAB's
defaults would also hook the cross-attention as if it were self-attention, so the patterns below name LTX's
modules exactly, and `enable_step_cache` refuses a configuration that hooks nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from diffusers.hooks import (
    FirstBlockCacheConfig,
    HookRegistry,
    PyramidAttentionBroadcastConfig,
    TaylorSeerCacheConfig,
)

STEP_CACHES = ("none", "fbc", "pab", "taylorseer")

LTX_SELF_ATTENTION = r"transformer_blocks\.\d+\.attn1$"  # PAB matches with re.search
LTX_CACHED_MODULES = r"transformer_blocks\.\d+\.(attn1|attn2|ff)"  # TaylorSeer matches with re.fullmatch
# The distilled schedule is 1000, 993, 987, 981, 975, 909, 725, 0.03: PAB's default window (100, 800) would
# cover one step, so the window covers every step but the first and the last.
PAB_TIMESTEP_WINDOW = (100, 999)


class StepCacheError(RuntimeError):
    pass


def step_cache_config(name: str, current_timestep: Callable[[], Any], fbc_threshold: float) -> Any:
    if name == "fbc":
        return FirstBlockCacheConfig(threshold=fbc_threshold)
    if name == "pab":
        return PyramidAttentionBroadcastConfig(
            spatial_attention_block_skip_range=2,
            spatial_attention_timestep_skip_range=PAB_TIMESTEP_WINDOW,
            spatial_attention_block_identifiers=(LTX_SELF_ATTENTION,),
            current_timestep_callback=current_timestep,
        )
    if name == "taylorseer":
        # Eight steps: compute steps 0 and 1, then every other step; predict the rest to first order.
        return TaylorSeerCacheConfig(
            cache_interval=2,
            disable_cache_before_step=2,
            max_order=1,
            taylor_factors_dtype=torch.float32,
            cache_identifiers=[LTX_CACHED_MODULES],
        )
    raise StepCacheError(f"unknown step cache {name!r}: use one of {', '.join(STEP_CACHES)}")


def hooked_modules(transformer: torch.nn.Module) -> int:
    """How many modules under the transformer carry a step-cache hook."""
    count = 0
    for module in transformer.modules():
        registry = getattr(module, "_diffusers_hook", None)
        if registry is not None and any(not name.startswith("yolive_") for name in registry.hooks):
            count += 1
    return count


def enable_step_cache(
    transformer: Any, name: str, current_timestep: Callable[[], Any], fbc_threshold: float
) -> int:
    """Enable one step cache (or none); returns the number of hooked modules, never zero for a real cache."""
    if transformer.is_cache_enabled:
        transformer.disable_cache()
    if name == "none":
        return 0
    transformer.enable_cache(step_cache_config(name, current_timestep, fbc_threshold))
    HookRegistry.check_if_exists_or_initialize(transformer).invalidate_child_registries_cache()
    hooked = hooked_modules(transformer)
    if hooked == 0:
        transformer.disable_cache()
        raise StepCacheError(f"step cache {name!r} matched no module of {type(transformer).__name__}")
    return hooked
