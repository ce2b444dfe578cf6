"""LTX-Video's condition pipeline, mended for a transformer whose patch spans several latent cells.

diffusers 0.42's LTXConditionPipeline packs latents by the transformer's patch size, but draws the noise with
as many channels as a token has, builds the tokens' video coordinates, and unpacks the denoised latents, as
if every patch were one cell: with a patch of 2 the noise has four times the VAE's channels, the
coordinates raise ("shape [1, -1, 2880] is invalid"), and the unpacking scrambles the channels. The
default model reads 2x2 latent cells as one token (its transformer's config.json: patch_size 2), so it
renders through this subclass; with a patch of 1, as the `ltx` model has, its three methods give what
diffusers' give. The folder still names LTXConditionPipeline, so stock diffusers loads it.
"""

from __future__ import annotations

from typing import Any

import torch
from diffusers.pipelines.ltx.pipeline_ltx_condition import LTXConditionPipeline


class PatchedLTXConditionPipeline(LTXConditionPipeline):
    def prepare_latents(self, *args: Any, **kwargs: Any) -> Any:
        # The pipeline passes the transformer's input width: a token's cells times the VAE's channels.
        cells = self.transformer_spatial_patch_size**2 * self.transformer_temporal_patch_size
        kwargs["num_channels_latents"] //= cells
        return super().prepare_latents(*args, **kwargs)

    @staticmethod
    def _prepare_video_ids(
        batch_size: int,
        num_frames: int,
        height: int,
        width: int,
        patch_size: int = 1,
        patch_size_t: int = 1,
        device: torch.device | None = None,
    ) -> torch.Tensor:
        """(batch, 3, tokens): each token's first latent frame, row and column, in packing order."""
        grid = torch.meshgrid(
            torch.arange(0, num_frames, patch_size_t, device=device),
            torch.arange(0, height, patch_size, device=device),
            torch.arange(0, width, patch_size, device=device),
            indexing="ij",
        )
        return torch.stack(grid).reshape(1, 3, -1).repeat(batch_size, 1, 1)

    @staticmethod
    def _unpack_latents(
        latents: torch.Tensor,
        num_frames: int,
        height: int,
        width: int,
        patch_size: int = 1,
        patch_size_t: int = 1,
    ) -> torch.Tensor:
        # The pipeline passes the latent grid's size; diffusers' method wants the token grid's.
        return LTXConditionPipeline._unpack_latents(
            latents,
            num_frames // patch_size_t,
            height // patch_size,
            width // patch_size,
            patch_size,
            patch_size_t,
        )


def velocity(
    transformer: Any,
    noisy: torch.Tensor,
    prompt: tuple[torch.Tensor, torch.Tensor],
    timestep: torch.Tensor,
    coords: torch.Tensor,
) -> torch.Tensor:
    """The transformer's prediction of noise - x0 for packed `noisy` latents at per-token `timestep`s, with
    `prompt` as (the text encoder's output, its attention mask): one call as the pipeline makes it."""
    embeds, mask = prompt
    return transformer(
        hidden_states=noisy,
        encoder_hidden_states=embeds,
        timestep=timestep,
        encoder_attention_mask=mask,
        video_coords=coords,
        return_dict=False,
    )[0]
