"""bfloat16 on the CPU, where it has it natively (AVX-512 BF16), for the autoencoder's convolutions, the
bulk of its cost: the VAE trains in it (weights, optimiser state and losses stay float32), the transformer
stage encodes its clips in it, and the default model decodes in it. The transformer itself, narrow and
dominated by overheads rather than arithmetic, stays in float32. Without native bfloat16 all runs in
float32."""

from __future__ import annotations

from typing import Any

import torch

BFLOAT16 = bool(getattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)())


def mixed_precision() -> Any:
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=BFLOAT16)
