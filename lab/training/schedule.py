"""The schedules training follows: the noise the default model trains on and samples with (one definition
for both), and the learning rate of each run of a stage."""

from __future__ import annotations

import math
import time

import torch

SHIFT = 3.0  # leans toward high noise, where layout, subject and motion are decided
SAMPLING_STEPS = 8  # the world preset's steps a clip (written into the model folder's preset.json)
WARMUP = 100  # steps at the start of each run: a run on a new machine starts with a fresh optimiser
ANNEALED = 0.1  # the share of the peak rate left at the end of a run


def shifted(u: torch.Tensor) -> torch.Tensor:
    return SHIFT * u / (1 + (SHIFT - 1) * u)


def sampling_timesteps(steps: int) -> tuple[float, ...]:
    """`steps` shifted sigmas from 1 down, as timesteps (sigma x 1000) for the pipeline's Euler scheduler."""
    u = torch.linspace(1.0, 0.0, steps + 1)[:-1]
    return tuple(round(float(s) * 1000, 3) for s in shifted(u))


def learning_rate(peak: float, run_step: int, progress: float) -> float:
    """A warm-up, then a cosine down to ANNEALED x peak over the run (`progress` from 0 to 1). Every run
    ends annealed, so the part it exports is the best it holds (a constant rate leaves the weights jittering
    around it), and the next run warms up again: warm restarts."""
    cosine = 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
    return peak * min(1.0, (run_step + 1) / WARMUP) * (ANNEALED + (1 - ANNEALED) * cosine)


def run_progress(started: float, minutes: float, run_steps: int, allowed_steps: int) -> float:
    """How far a run is through its budget: in time or in steps, whichever ends it first."""
    return max((time.monotonic() - started) / (minutes * 60), run_steps / allowed_steps)
