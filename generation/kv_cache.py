"""A rolling, capped key/value cache for block-causal generation: a fixed pool of pages, each one latent
frame of one transformer layer.

The pool holds `sink` frames that are never evicted (the first ones admitted) and a window of the `window`
most recent; a new frame evicts the oldest frame that is not a sink. Memory is fixed when the cache is made,
so a ten-minute stream holds exactly what a ten-second one does. Keys are kept before their rotary position
embedding (pre-RoPE) and rotated by the reader at positions it chooses, so positions stay right however many
frames were evicted. With `int8`, each page's keys and values are stored as int8 with one float scale each,
a quarter of float32's bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class CacheCounters:
    hits: int = 0  # pages read by an attention layer
    fills: int = 0  # pages written (one a layer a frame)
    evictions: int = 0  # frames dropped to make room


class FrameKVCache:
    def __init__(
        self,
        layers: int,
        tokens: int,
        width: int,
        sink: int,
        window: int,
        *,
        int8: bool = False,
        dtype: torch.dtype = torch.float32,
        device: torch.device | str = "cpu",
    ) -> None:
        if sink < 0 or window < 1:
            raise ValueError(
                f"a cache needs a window of at least one frame and no negative sink, not {sink}+{window}"
            )
        pages = sink + window
        self.sink, self.window, self.int8, self.dtype = sink, window, int8, dtype
        stored = torch.int8 if int8 else dtype
        self.keys = torch.zeros(layers, pages, tokens, width, dtype=stored, device=device)
        self.values = torch.zeros_like(self.keys)
        self.scales = torch.ones(2, layers, pages, dtype=torch.float32, device=device)  # keys', values'
        self.frames: list[int | None] = [None] * pages  # the latent frame a page holds, in every layer
        self.sinks: list[int] = []
        self.counters = CacheCounters()

    @property
    def pages_in_use(self) -> int:
        return sum(frame is not None for frame in self.frames)

    @property
    def bytes(self) -> int:
        scales = self.scales.nbytes if self.int8 else 0
        return self.keys.nbytes + self.values.nbytes + scales

    def admit(self, frame: int) -> int:
        """The page a new frame's keys and values go to: its own if it is held (written again), else a free
        one, else the oldest non-sink frame's, evicted."""
        if frame in self.frames:
            return self.frames.index(frame)
        if len(self.sinks) < self.sink:
            self.sinks.append(frame)
        if None in self.frames:
            page = self.frames.index(None)
        else:
            evictable = [(held, page) for page, held in enumerate(self.frames) if held not in self.sinks]
            _, page = min(evictable)
            self.counters.evictions += 1
        self.frames[page] = frame
        return page

    def write(self, layer: int, page: int, key: torch.Tensor, value: torch.Tensor) -> None:
        """One frame's pre-RoPE keys and its values, (tokens, width) each, into `page` of `layer`."""
        for kind, (tensor, store) in enumerate(((key, self.keys), (value, self.values))):
            if self.int8:
                scale = tensor.detach().abs().amax().clamp(min=1e-8) / 127
                store[layer, page] = (tensor / scale).round().clamp(-127, 127).to(torch.int8)
                self.scales[kind, layer, page] = scale
            else:
                store[layer, page] = tensor.detach().to(self.dtype)
        self.counters.fills += 1

    def held(self, before: int) -> list[int]:
        """The frames held from before frame `before`, in time order."""
        return sorted(frame for frame in self.frames if frame is not None and frame < before)

    def read(self, layer: int, before: int) -> tuple[torch.Tensor, torch.Tensor]:
        """`layer`'s keys and values of the frames held from before frame `before`, in time order:
        (frames x tokens, width) each."""
        held = sorted((frame, page) for page, frame in enumerate(self.frames) if frame is not None)
        held = [(frame, page) for frame, page in held if frame < before]
        pages = [page for _, page in held]
        keys, values = self.keys[layer, pages], self.values[layer, pages]
        if self.int8:
            keys = keys.to(self.dtype) * self.scales[0, layer, pages].view(-1, 1, 1).to(self.dtype)
            values = values.to(self.dtype) * self.scales[1, layer, pages].view(-1, 1, 1).to(self.dtype)
        self.counters.hits += len(pages)
        return keys.flatten(0, 1), values.flatten(0, 1)

    def clear(self) -> None:
        self.frames = [None] * len(self.frames)
        self.sinks = []
