"""Resumable training state: weights and optimiser written atomically, so a kill mid-write loses nothing."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import torch


def save_checkpoint(path: Path, model: Any, optimizer: Any, **state: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), **state}, partial)
    os.replace(partial, path)


class StaleCheckpoint(SystemExit):
    """A checkpoint of another architecture: the stage stops rather than guess what to do with it."""


def load_checkpoint(path: Path, model: Any, optimizer: Any | None = None) -> dict[str, Any]:
    """The saved state beyond the weights ({} when there is no checkpoint yet)."""
    if not path.exists():
        return {}
    saved = torch.load(path, map_location="cpu", weights_only=False)
    try:
        model.load_state_dict(saved.pop("model"))
    except RuntimeError as error:  # missing, unexpected or reshaped weights
        raise StaleCheckpoint(
            f"{path} holds a model of another architecture (architecture.py changed since it was written): "
            "move it aside to start this stage afresh, or from the shipped part where that one fits"
        ) from error
    optimizer_state = saved.pop("optimizer")
    if optimizer is not None:
        optimizer.load_state_dict(optimizer_state)
    return saved


def stop_requested() -> threading.Event:
    """Set by SIGTERM or SIGINT: the training loop finishes its step, checkpoints and exports, then ends."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    return stop
