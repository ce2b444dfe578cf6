"""In what precision the default model's autoencoder runs on a CPU.

bfloat16 for its convolutions, the bulk of a decode's cost, on a GPU and on a CPU that has it natively
(AVX-512 BF16); float32 elsewhere. The lab trains in the same precision (lab/training/).
"""

from __future__ import annotations

from typing import Any

import torch

BFLOAT16 = bool(getattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)())
CPU = torch.device("cpu")


def mixed_precision(device: torch.device = CPU, enabled: bool | None = None) -> Any:
    """bfloat16 autocast on `device` where it has native bfloat16 (a CUDA GPU, or a CPU with BFLOAT16), or
    as `enabled` says."""
    native = device.type == "cuda" or BFLOAT16
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=native if enabled is None else enabled)
