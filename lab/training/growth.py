"""A deeper transformer that starts as a trained shallower one, so that added depth relearns nothing.

Each block the deeper model adds is a copy of the trained block before it (its attention and feed-forward
already read the features the residual stream carries) with its three output projections zeroed. A block
adds to the residual stream only through those projections, so at first every new block adds nothing and
the deeper model computes exactly what the shallow one did; their inputs are not zero, so gradients reach
them at the first step and the new blocks start learning at once (progressive stacking, with the
zero-initialised residual branches DiT's adaLN-Zero also starts from).
"""

from __future__ import annotations

from typing import Any

import torch

OUTPUTS = ("attn1.to_out.0", "attn2.to_out.0", "ff.net.2")  # where a block writes to the residual stream


def sources(shallow: int, deep: int) -> list[int]:
    """For each of the deep model's blocks, the shallow block it starts from, in order and spread evenly:
    (0, 0, 1, 1, 2, 2) for 3 -> 6."""
    return [index * shallow // deep for index in range(deep)]


@torch.no_grad()
def deepen(shallow: Any, layers: int) -> Any:
    """`shallow` (an LTXVideoTransformer3DModel) grown to `layers` blocks, computing what it computes."""
    had = len(shallow.transformer_blocks)
    if layers < had:
        raise ValueError(f"cannot deepen a transformer of {had} blocks to {layers}")
    deep = type(shallow).from_config({**shallow.config, "num_layers": layers}).to(shallow.dtype)
    outside = {k: v for k, v in shallow.state_dict().items() if not k.startswith("transformer_blocks.")}
    deep.load_state_dict(outside, strict=False)
    for index, source in enumerate(sources(had, layers)):
        block = deep.transformer_blocks[index]
        block.load_state_dict(shallow.transformer_blocks[source].state_dict())
        if index > 0 and sources(had, layers)[index - 1] == source:  # a copy, not the original
            for name in OUTPUTS:
                projection = block.get_submodule(name)
                projection.weight.zero_()
                projection.bias.zero_()
    return deep
