"""Fixtures of the voting tests: viewers on real consumers over the real Redis channel layer."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.voting import Viewer


@pytest.fixture
async def make_viewer():
    """Viewers made by a test are disconnected at its end."""
    made: list[Viewer] = []

    async def make(**kwargs: Any) -> Viewer:
        viewer = await Viewer(**kwargs).connect()
        made.append(viewer)
        return viewer

    yield make
    for viewer in made:
        await viewer.close()
