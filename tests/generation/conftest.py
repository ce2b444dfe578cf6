"""Fixtures of the generation tests: the tiny pipeline at test sizes, one torch thread, no old frames."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from generation import loader
from generation.presets import get_preset
from generation.renderer import CacheSettings, Renderer
from tests.helpers.generation import NO_CACHES, SECONDS
from tests.helpers.training import one_thread  # noqa: F401  (autouse)


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
    loader.use_renderer(renderer)
    yield renderer
    loader.drop_renderer()
