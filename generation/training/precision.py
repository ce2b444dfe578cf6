"""Where training runs and in what precision.

A CUDA GPU when there is one (the same stages then run there; the transformer stage ran on an H200), else
the CPU. bfloat16 for the autoencoder's convolutions, the bulk of its cost, on a GPU and on a CPU that has it
natively (AVX-512 BF16): the VAE trains in it (weights, optimiser state and losses stay float32), the
transformer stage encodes its clips in it, and the default model decodes in it. The transformer itself trains
in bfloat16 autocast on a GPU only (Trainer): narrow and dominated by overheads rather than arithmetic on a
CPU, it stays in float32 there. Without native bfloat16 all runs in float32.
"""

from __future__ import annotations

from typing import Any

import torch

BFLOAT16 = bool(getattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)())
CPU = torch.device("cpu")


def training_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def mixed_precision(device: torch.device = CPU, enabled: bool | None = None) -> Any:
    """bfloat16 autocast on `device` where it has native bfloat16 (a CUDA GPU, or a CPU with BFLOAT16), or
    as `enabled` says."""
    native = device.type == "cuda" or BFLOAT16
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=native if enabled is None else enabled)
