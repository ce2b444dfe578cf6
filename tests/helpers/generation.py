"""Generation at test sizes: requests for the tiny pipeline, clips in the database, faults to inject."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import torch
from django.utils import timezone

from generation.renderer import CacheSettings, RenderRequest
from yolive.clips.models import Clip
from yolive.voting.models import Prompt, Round

# Test sizes: a 2x2 latent grid and 17 rendered frames keep each render well under a second on 2 cores.
SIZE, FPS, SECONDS = 64, 8, 2
FRAMES = FPS * SECONDS
NO_CACHES = CacheSettings(embeddings=0, text_kv=False, lead=False, step="none")

# Prompts the default model's vocabulary is read from, in Python and on the viewer page alike.
WORLD_PROMPTS = [
    "a red ball bouncing on the beach",
    "a blue whale swimming in the deep sea at night",
    "a rocket launching into space",
    "A Kitten, jumping!! in the SNOW",
    "the hot air balloon drifts to the left over the city while a puppy spins",
    "deep sea",
    "nothing the model knows about",
    "cat " * 60 + "falling in the desert",  # past any 64-token cut: read in full
    "",
]


def request(prompt: str = "a red fox runs through snow", seed: int = 7, **extra: Any) -> RenderRequest:
    return RenderRequest(
        prompt=prompt, seed=seed, width=SIZE, height=SIZE, fps=FPS, num_frames=FRAMES, **extra
    )


def make_clip(number: int, text: str = "a lighthouse in a storm", *, seed: int = 1, **fields: Any) -> Clip:
    now = timezone.now()
    round_ = Round.objects.create(
        number=number, opens_at=now - timedelta(seconds=10), ends_at=now, state=Round.State.CLOSED
    )
    prompt = Prompt.objects.create(
        text=text, normalized_text=text.lower(), round=round_, status=Prompt.Status.APPROVED
    )
    values = {"width": SIZE, "height": SIZE, "fps": FPS, **fields}
    return Clip.objects.create(round=round_, prompt=prompt, seed=seed, preset="tiny", **values)


class RunsOutOfMemory:
    """A forward pre-hook on the transformer: torch.OutOfMemoryError for its first `times` calls."""

    def __init__(self, transformer: torch.nn.Module, times: int) -> None:
        self.left = times
        transformer.register_forward_pre_hook(self)

    def __call__(self, *_: object) -> None:
        if self.left:
            self.left -= 1
            raise torch.OutOfMemoryError("CUDA out of memory (raised by the test)")
