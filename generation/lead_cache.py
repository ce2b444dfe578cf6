"""The previous clip's lead frames, encoded before the next render needs them: a memo on the VAE's encoder.

A clip goes on from the previous clip's last frames, which the pipeline encodes through the VAE as its render
starts: on 2 CPU cores about 1.2 s of a continuing clip's 2 s of denoising, all of it before the clip's first
frames, which the crowd waits for (docs/benchmarks.md, "The lead encoded ahead"). The worker that made a clip
encodes its lead once the clip's frames are all made (`Renderer.prepare_continuation`, from
generation/clip_job.py), while the crowd still votes, and keeps the encoder's output here; the next render's
pipeline finds it instead of encoding again.

Exact by construction: the key is the encoder's input, byte for byte, and what is kept is the encoder's
output, the latent distribution, from which the pipeline samples with the render's own generator as it would
have. A worker that did not make the previous clip (a restart, another GPU) misses, and encodes as before.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import torch


@dataclass
class LeadStats:
    hits: int = 0
    misses: int = 0


def _key(video: torch.Tensor) -> tuple[Any, ...]:
    data = video.detach().cpu().contiguous()
    digest = hashlib.blake2b(data.view(torch.uint8).numpy().tobytes(), digest_size=16).hexdigest()
    return (tuple(data.shape), str(data.dtype), str(video.device), digest)


class LeadEncodingCache:
    """Holds the last encoding asked of `vae` (one lead: the next clip's), answering `vae.encode` from it when
    the same frames come again. `remove()` gives the VAE its own `encode` back."""

    def __init__(self, vae: Any) -> None:
        self.vae = vae
        self.stats = LeadStats()
        self._entry: tuple[tuple[Any, ...], Any] | None = None
        self._encode = vae.encode
        vae.encode = self.encode

    def encode(self, video: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        key = (_key(video), args, tuple(sorted(kwargs.items())))
        if self._entry is not None and self._entry[0] == key:
            self.stats.hits += 1
            return self._entry[1]
        self.stats.misses += 1
        output = self._encode(video, *args, **kwargs)
        self._entry = (key, output)
        return output

    def clear(self) -> None:
        self._entry = None

    def remove(self) -> None:
        self.clear()
        self.vae.encode = self._encode
