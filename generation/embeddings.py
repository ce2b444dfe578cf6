"""Prompt embeddings, encoded once per distinct prompt (an LRU) and once for the negative prompt.

The key is the text encoded: the viewer's words as stored (already in their shown form: composed characters,
single spaces), so a hit gives exactly what a miss would have.

Crowd prompts repeat (house prompts, re-submitted favourites, the fallback prompt), and the text encoder of
the real model (T5-XXL) is the heaviest thing after the transformer, so a hit saves real time on a GPU.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class PromptEmbedding:
    embeds: torch.Tensor
    mask: torch.Tensor


@dataclass
class EmbeddingStats:
    hits: int = 0
    misses: int = 0

    @property
    def hit_rate(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


class PromptEmbeddingCache:
    """`capacity` 0 turns the cache off (every call encodes), which is what the benchmark compares against."""

    def __init__(self, pipe: Any, capacity: int, max_sequence_length: int) -> None:
        self.pipe = pipe
        self.capacity = capacity
        self.max_sequence_length = max_sequence_length
        self.stats = EmbeddingStats()
        self._entries: OrderedDict[str, PromptEmbedding] = OrderedDict()
        self._negative: dict[str, PromptEmbedding] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, prompt: str) -> PromptEmbedding:
        key = prompt
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
            self.stats.hits += 1
            return found
        self.stats.misses += 1
        encoded = self._encode(key)
        if self.capacity:
            self._entries[key] = encoded
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return encoded

    def negative(self, text: str) -> PromptEmbedding:
        """Encoded once per worker process (only needed when guidance > 1)."""
        found = self._negative.get(text)
        if found is None:
            found = self._encode(text)
            if self.capacity:
                self._negative[text] = found
        return found

    def clear(self) -> None:
        self._entries.clear()
        self._negative.clear()

    @torch.no_grad()
    def _encode(self, text: str) -> PromptEmbedding:
        embeds, mask, _, _ = self.pipe.encode_prompt(
            prompt=text,
            do_classifier_free_guidance=False,
            max_sequence_length=self.max_sequence_length,
            device=self.pipe._execution_device,
        )
        return PromptEmbedding(embeds=embeds, mask=mask)
