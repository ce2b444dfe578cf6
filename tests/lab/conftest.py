"""Fixtures of the lab's tests: one torch thread, as the generation tests run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    # Two cores shared by several test suites: one thread is faster than two fighting over them.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
