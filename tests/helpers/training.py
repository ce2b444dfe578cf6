"""What the lab's tests share: one torch thread, and a trainer's losses over a few steps on one batch."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import torch


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    # Two cores shared by several test suites: one thread is faster than two fighting over them.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def losses_on_one_batch(trainer: Any, steps: int = 30) -> list[float]:
    """The trainer's loss at each of `steps` steps on the same batch, noise and timesteps."""
    losses = []
    for _ in range(steps):
        loss = trainer.loss(np.random.default_rng(0))
        trainer.opt.zero_grad()
        loss.backward()
        trainer.opt.step()
        losses.append(loss.item())
    return losses
