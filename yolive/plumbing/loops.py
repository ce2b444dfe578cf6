"""One object per running event loop: what asyncio code shares within a loop and must not share across loops
(a Redis pool, the fan-out, the pipeline of pending script calls). A server has one loop; tests start one
per test, and each gets its own."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def per_loop(factory: Callable[[], T]) -> Callable[[], T]:
    """A getter of the running loop's `factory()`, made on first use and forgotten with its loop."""
    made: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = weakref.WeakKeyDictionary()

    def get() -> T:
        loop = asyncio.get_running_loop()
        if loop not in made:
            made[loop] = factory()
        return made[loop]

    return get
