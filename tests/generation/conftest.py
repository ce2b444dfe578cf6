"""Actors of the generation tests: the tiny pipeline at test sizes, clips in the database."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import torch
from django.utils import timezone

from generation import loader
from generation.engine import CacheSettings, Renderer, RenderRequest
from generation.presets import get_preset
from yolive.clips.models import Clip
from yolive.voting.models import Prompt, Round

# Test sizes: a 2x2 latent grid and 17 rendered frames keep each render well under a second on 2 cores.
SIZE, FPS, SECONDS = 64, 8, 2
FRAMES = FPS * SECONDS
NO_CACHES = CacheSettings(embeddings=0, text_kv=False, step="none")


def request(prompt: str = "a red fox runs through snow", seed: int = 7, **extra: Any) -> RenderRequest:
    return RenderRequest(
        prompt=prompt, seed=seed, width=SIZE, height=SIZE, fps=FPS, num_frames=FRAMES, **extra
    )


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    # Two cores shared by several test suites: one thread is faster than two fighting over them.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(autouse=True)
def empty_clips_dir(settings) -> None:  # type: ignore[no-untyped-def]
    # Clip ids restart with every test database, so last test's frames must not look like this test's.
    for path in Path(settings.CLIPS_DIR).glob("*"):
        path.unlink()


@pytest.fixture
def make_renderer() -> Callable[..., Renderer]:
    preset = get_preset("tiny")

    def make(caches: CacheSettings = NO_CACHES) -> Renderer:
        return Renderer(preset, preset.build(), caches)

    return make


@pytest.fixture
def worker_renderer(make_renderer, settings) -> Iterator[Renderer]:  # type: ignore[no-untyped-def]
    """The renderer `render_clip` uses in this process, with the default caches, at test sizes."""
    settings.CLIP_SECONDS = SECONDS
    renderer = make_renderer(CacheSettings())
    loader._renderer = renderer
    yield renderer
    loader.drop_renderer()


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
