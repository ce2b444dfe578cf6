"""The tiny preset's stand-in VAE: a fixed, smooth, invertible map between video and LTX-shaped latents.

Why not a random `AutoencoderKLLTXVideo`: with random weights its decoder turns any latent into white noise
(every 32x32 patch is an independent random mix of channels), and its random encoder keeps nothing of the
picture, so conditioning a clip on the previous clip's frames would carry nothing across. This stand-in keeps
the LTX latent layout and compression ratios (8 frames and 32x32 pixels per latent, causal first frame) so the
real LTXConditionPipeline runs unchanged, but:

- encode = every 8th frame, average-pooled to the latent grid, its RGB mixed into the latent channels with a
  fixed random matrix;
- decode = the transpose of that mix, then smooth (trilinear / bicubic) upsampling.

So decode(encode(video)) is a smoothed copy of the video, random latents decode to soft colour fields, and
decoding costs one interpolation. It is the offline stand-in, not a picture model.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from diffusers.configuration_utils import ConfigMixin, register_to_config
from diffusers.models.modeling_utils import ModelMixin


@dataclass
class SmoothEncoding:
    latents: torch.Tensor  # what the pipelines' retrieve_latents() reads


class SmoothVideoVAE(ModelMixin, ConfigMixin):  # type: ignore[misc]
    _supports_gradient_checkpointing = False

    @register_to_config
    def __init__(
        self,
        latent_channels: int = 8,
        spatial_compression_ratio: int = 32,
        temporal_compression_ratio: int = 8,
        colour_gain: float = 0.6,
        seed: int = 0,
        scaling_factor: float = 1.0,
        timestep_conditioning: bool = False,
    ) -> None:
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        # Orthonormal columns, so the transpose is the exact inverse on the colour subspace.
        mix, _ = torch.linalg.qr(torch.randn(latent_channels, 3, generator=generator))
        self.register_buffer("mix", mix, persistent=True)
        self.register_buffer("latents_mean", torch.zeros(latent_channels), persistent=True)
        self.register_buffer("latents_std", torch.ones(latent_channels), persistent=True)
        self.spatial_compression_ratio = spatial_compression_ratio
        self.temporal_compression_ratio = temporal_compression_ratio
        self.colour_gain = colour_gain

    def encode(self, video: torch.Tensor, return_dict: bool = True) -> SmoothEncoding:
        """(B, 3, 8k+1, H, W) in [-1, 1] -> (B, C, k+1, H/32, W/32).

        Latent k is frame 8k itself, where decode puts it back: so the last conditioning frame comes back
        as itself (spatially smoothed), and a continued clip starts where the previous one ended.
        """
        keyframes = video[:, :, :: self.temporal_compression_ratio]
        ratio = self.spatial_compression_ratio
        pooled = F.avg_pool3d(keyframes, kernel_size=(1, ratio, ratio), stride=(1, ratio, ratio))
        mix = self.mix.to(pooled.dtype)
        latents = torch.einsum("bcfhw,lc->blfhw", pooled, mix) / self.colour_gain
        return SmoothEncoding(latents=latents)

    def latents_to_rgb(self, latents: torch.Tensor) -> torch.Tensor:
        """(B, C, F, h, w) latents -> (B, 3, F, h, w) colours in [-1, 1] on the latent grid."""
        mix = self.mix.to(latents.dtype)
        rgb = torch.einsum("blfhw,lc->bcfhw", latents, mix) * self.colour_gain
        return rgb.clamp(-1.0, 1.0)

    def num_frames_for(self, latent_frames: int) -> int:
        return (latent_frames - 1) * self.temporal_compression_ratio + 1

    def decode(
        self, latents: torch.Tensor, temb: torch.Tensor | None = None, return_dict: bool = True
    ) -> tuple[torch.Tensor]:
        """The diffusers contract: (B, 3, 8k+1, H, W) float video in [-1, 1]."""
        rgb = self._in_time(self.latents_to_rgb(latents))
        batch, channels, frames, height, width = rgb.shape
        ratio = self.spatial_compression_ratio
        flat = rgb.permute(0, 2, 1, 3, 4).reshape(batch * frames, channels, height, width)
        # Pixel centres (align_corners=False): the block average of a decoded latent cell is that cell again.
        flat = F.interpolate(flat, scale_factor=ratio, mode="bilinear", align_corners=False)
        video = flat.reshape(batch, frames, channels, height * ratio, width * ratio).permute(0, 2, 1, 3, 4)
        return (video.clamp(-1.0, 1.0),)

    def _in_time(self, rgb: torch.Tensor) -> torch.Tensor:
        # Latent frame k sits on pixel frame 8k (first frame causal), hence align_corners=True in time.
        frames = self.num_frames_for(rgb.shape[2])
        return F.interpolate(rgb, size=(frames, *rgb.shape[3:]), mode="trilinear", align_corners=True)

    def decode_uint8(self, latents: torch.Tensor, height: int, width: int) -> torch.Tensor:
        """The fast path the tiny preset uses: (F, height, width, 3) uint8 for one video.

        Time is interpolated on the small latent grid, colours are quantised there, and only then is each
        frame upscaled (bicubic on uint8, channels-last), so the full-size video is touched once.
        """
        rgb = self._in_time(self.latents_to_rgb(latents[:1].float()))[0]
        small = ((rgb + 1.0) * 127.5).round().clamp(0, 255).to(torch.uint8)  # 3, F, h, w
        small = small.permute(1, 0, 2, 3).contiguous(memory_format=torch.channels_last)
        big = F.interpolate(small, size=(height, width), mode="bicubic", align_corners=False)
        return big.permute(0, 2, 3, 1)
