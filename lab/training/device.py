"""Where training runs and in what precision.

A CUDA GPU when there is one (the same stages then run there; the transformer stage ran on an H200), else
the CPU. The VAE trains in the product's mixed precision (generation/precision.py: bfloat16 where the device
has it natively; weights, optimiser state and losses stay float32), and the transformer stage encodes its
clips in it. The transformer itself trains in bfloat16 autocast on a GPU only (Trainer): narrow and
dominated by overheads rather than arithmetic on a CPU, it stays in float32 there.
"""

from __future__ import annotations

import torch


def training_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
