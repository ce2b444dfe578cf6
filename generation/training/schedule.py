"""The noise schedule the default model trains on and samples with (one definition for both)."""

from __future__ import annotations

import torch

SHIFT = 3.0  # leans toward high noise, where layout, subject and motion are decided


def shifted(u: torch.Tensor) -> torch.Tensor:
    return SHIFT * u / (1 + (SHIFT - 1) * u)


def sampling_timesteps(steps: int) -> tuple[float, ...]:
    """`steps` shifted sigmas from 1 down, as timesteps (sigma x 1000) for the pipeline's Euler scheduler."""
    u = torch.linspace(1.0, 0.0, steps + 1)[:-1]
    return tuple(round(float(s) * 1000, 3) for s in shifted(u))
