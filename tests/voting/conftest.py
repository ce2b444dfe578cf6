"""Fixtures of the voting tests: viewers on real consumers over the real Redis channel layer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest

from tests.helpers.voting import Viewer
from yolive.celery import app


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


@pytest.fixture
def send_task() -> Iterator[mock.MagicMock]:
    """The Celery app's one way out to the broker, watched instead of used: what the conductor sent."""
    with mock.patch.object(app, "send_task", autospec=True) as sent:
        yield sent
