"""One renderer per worker process, built after the fork.

The prefork parent never imports torch (CUDA and OpenMP state do not survive a fork); each pool process
starts building its model from `worker_process_init`, in a thread because Celery gives that signal only a
few seconds, and the first task waits for it. Under the solo pool the first task builds it.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from celery.signals import worker_process_init
from django.conf import settings

if TYPE_CHECKING:
    from generation.renderer import CacheSettings, Renderer

log = logging.getLogger(__name__)

_lock = threading.Lock()
_renderer: Renderer | None = None


def cache_settings() -> CacheSettings:
    from generation.renderer import CacheSettings

    return CacheSettings(
        embeddings=settings.GENERATION_EMBEDDING_CACHE_SIZE,
        text_kv=settings.GENERATION_TEXT_KV_CACHE,
        lead=settings.GENERATION_LEAD_AHEAD,
        step=settings.GENERATION_STEP_CACHE,
        fbc_threshold=settings.GENERATION_FBC_THRESHOLD,
    )


def build_renderer(preset_name: str | None = None, caches: CacheSettings | None = None) -> Renderer:
    import torch

    from generation.block_renderer import BlockRenderer, BlockSettings
    from generation.presets import get_preset
    from generation.renderer import Renderer

    if settings.GENERATION_TORCH_THREADS:
        torch.set_num_threads(settings.GENERATION_TORCH_THREADS)
    preset = get_preset(preset_name or settings.MODEL_PRESET)
    log.info("building the %s pipeline", preset.name)
    if settings.GENERATION_BLOCKS:
        blocks = BlockSettings(
            sink=settings.GENERATION_CACHE_SINK,
            window=settings.GENERATION_CACHE_WINDOW,
            int8=settings.GENERATION_CACHE_INT8,
            recache=settings.GENERATION_RECACHE,
        )
        return BlockRenderer(preset, preset.build(), caches or cache_settings(), blocks)
    return Renderer(preset, preset.build(), caches or cache_settings())


def get_renderer() -> Renderer:
    global _renderer
    with _lock:
        if _renderer is None:
            _renderer = build_renderer()
        return _renderer


def use_renderer(renderer: Renderer) -> None:
    """Render with `renderer` in this process instead of one built from the settings (tests inject theirs)."""
    global _renderer
    with _lock:
        _renderer = renderer


def drop_renderer() -> None:
    """Forget the model (tests; out-of-memory give-up in a process that cannot restart)."""
    global _renderer
    with _lock:
        _renderer = None


@worker_process_init.connect
def load_after_fork(**_: Any) -> None:
    def load() -> None:
        try:
            get_renderer()
        except Exception:
            # The task reports the same error on the clip; the pool process stays up for other queues.
            log.exception("could not build the %s pipeline", settings.MODEL_PRESET)

    threading.Thread(target=load, name="model-loader", daemon=True).start()
