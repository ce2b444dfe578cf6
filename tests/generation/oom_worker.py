"""A Celery worker whose model runs out of memory on every transformer call (there is no GPU to fill here).

Run as `python -m tests.generation.oom_worker <celery worker arguments>`: it wraps the real renderer
builder so that each pool process's transformer raises torch.OutOfMemoryError, then starts Celery as usual.
"""

from __future__ import annotations

import sys
from typing import Any

from generation import loader

_build = loader.build_renderer


def _always_out_of_memory(*_: Any) -> None:
    import torch

    raise torch.OutOfMemoryError("CUDA out of memory (raised by the test worker)")


def build_renderer(*args: Any, **kwargs: Any) -> Any:
    renderer = _build(*args, **kwargs)
    renderer.pipe.transformer.register_forward_pre_hook(_always_out_of_memory)
    return renderer


loader.build_renderer = build_renderer

if __name__ == "__main__":
    from celery.bin.celery import main

    sys.argv = ["celery", *sys.argv[1:]]
    main()
