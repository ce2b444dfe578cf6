"""A clip's pictures as they are made: latent frames decoded a few at a time, then cut, blended up to the
stream's rate and scaled, so that the clip's first seconds can be written (and aired) while the rest is
still decoding, or, on the block path, still denoising.

The VAE's decoder is not causal: a latent frame's pictures depend on its neighbours. Each decode therefore
starts one latent frame early and drops that frame's picture (the first latent frame of a decode gives one
picture, each later one `ratio` pictures), so every seam is decoded with the frame before it, as the block
renderer decodes across a clip's seam. The frame after a seam is not seen, which `benchmarks.block_stream`
measures against one decode of the whole clip.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import numpy as np
import torch

# Latent frames per decode. Each decode costs one more latent frame of context, so fewer, larger ones are
# cheaper; smaller ones give pictures sooner. The first (after any lead) holds about 3 s of the clip (at the
# default model's 8 pictures a latent frame and 8 fps), enough for the broadcaster to put it on air
# (yolive.clips.frames.AIR_AHEAD_S); each later one adds 3 s, which a render makes in well under 3 s, so the
# air never catches up with it (`python -m benchmarks.block_stream` measures both).
FIRST_LATENTS = 3
CHUNK_LATENTS = 3

Decode = Callable[[torch.Tensor], torch.Tensor]  # (1, C, F, h, w) latents -> (pictures, H, W, 3) uint8
FramesCallback = Callable[[int, np.ndarray], object]  # (index of the first frame, frames) as they are made


def to_rate(frames: np.ndarray, rendered_fps: float, fps: float, count: int, first: int = 0) -> np.ndarray:
    """Frames `first` to `count` - 1 at `fps` from frames rendered at `rendered_fps`, each a blend of its two
    neighbours (`frames` may stop once those frames' neighbours are in: see `StreamFrames`)."""
    if rendered_fps == fps and len(frames) >= count:
        return frames[first:count]
    position = np.arange(first, count) * (rendered_fps / fps)
    before = np.minimum(position.astype(int), len(frames) - 1)
    after = np.minimum(before + 1, len(frames) - 1)
    weight = (position - before)[:, None, None, None].astype(np.float32)
    blended = frames[before] * (1 - weight) + frames[after] * weight
    return np.round(blended).astype(np.uint8)


def resize(frames: np.ndarray, width: int, height: int) -> np.ndarray:
    """(n, h, w, 3) uint8 scaled to (n, height, width, 3), bilinear, in uint8 (channels-last: torch's fast
    path, several times quicker than a float round trip)."""
    if frames.shape[1:3] == (height, width):
        return frames
    video = torch.from_numpy(frames).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
    scaled = torch.nn.functional.interpolate(video, size=(height, width), mode="bilinear", antialias=False)
    return scaled.permute(0, 2, 3, 1).contiguous().numpy()


class ChunkedDecoder:
    """Latent frames in, in order, as they are made; their pictures out, a chunk at a time."""

    def __init__(
        self,
        decode: Decode,
        *,
        before: torch.Tensor | None = None,
        lead: int = 0,
        first: int = FIRST_LATENTS,
        chunk: int = CHUNK_LATENTS,
    ) -> None:
        """`before`: the latent frame before the first (the previous clip's last), decoded with the first
        chunk and its picture dropped; `lead`: the first latent frames pushed are the lead, not the clip:
        none is decoded but the last, in the place of `before`."""
        self.decode = decode
        self.before = before
        self.lead = lead
        self.size = first
        self.chunk = chunk
        self.pending: list[torch.Tensor] = []
        self.seconds = 0.0  # spent decoding

    def push(self, latents: torch.Tensor) -> Iterator[torch.Tensor]:
        """(1, C, F, h, w) more latent frames; yields the pictures of each chunk they complete."""
        for frame in latents.split(1, dim=2):
            if self.lead:
                self.before, self.lead = frame, self.lead - 1
            else:
                self.pending.append(frame)
        while len(self.pending) >= self.size:
            yield self._decode(self.size)

    def flush(self) -> Iterator[torch.Tensor]:
        """The pictures of the latent frames left."""
        if self.pending:
            yield self._decode(len(self.pending))

    @torch.no_grad()  # the VAE's weights want gradients: without this, each decode records a graph
    def _decode(self, count: int) -> torch.Tensor:
        started = time.perf_counter()
        frames, self.pending = self.pending[:count], self.pending[count:]
        context = [] if self.before is None else [self.before]
        pictures = self.decode(torch.cat([*context, *frames], dim=2))[len(context) :]
        self.before, self.size = frames[-1], self.chunk
        self.seconds += time.perf_counter() - started
        return pictures


class StreamFrames:
    """Decoded pictures in, in order; the clip's frames out at the stream's rate and size, each as soon as
    the pictures it blends have come: the first `kept` pictures, at `rendered_fps`, become `count` frames at
    `fps`, as `to_rate` makes them at once."""

    def __init__(
        self, *, kept: int, rendered_fps: int, fps: int, count: int, width: int, height: int
    ) -> None:
        self.kept = kept
        self.rendered_fps, self.fps, self.count = rendered_fps, fps, count
        self.width, self.height = width, height
        self.pictures: list[np.ndarray] = []
        self.made = 0  # frames given out

    def push(self, pictures: torch.Tensor | np.ndarray) -> np.ndarray:
        """The frames these pictures complete, (n, height, width, 3) uint8 (n may be 0)."""
        self.pictures.extend(np.asarray(pictures)[: self.kept - len(self.pictures)])
        upto = self._makeable()
        if upto <= self.made:
            return np.empty((0, self.height, self.width, 3), np.uint8)
        rated = to_rate(np.stack(self.pictures), self.rendered_fps, self.fps, upto, first=self.made)
        self.made = upto
        return resize(rated, self.width, self.height)

    @property
    def done(self) -> bool:
        return self.made == self.count

    def _makeable(self) -> int:
        """Frames whose two neighbours have come (all of them once every kept picture has)."""
        have = len(self.pictures)
        if have >= self.kept:
            return self.count
        # Frame i blends pictures floor(i * step) and the one after; the last picture kept caps both.
        step = self.rendered_fps / self.fps
        made = self.made
        while made < self.count and int(made * step) + 1 < have:
            made += 1
        return made


class ClipFrames:
    """A clip's frames from its latent frames as they come: decoded a chunk at a time, cut and blended to
    the stream's rate and size, and each new run handed to `on_frames` as soon as it is made."""

    def __init__(
        self, decoder: ChunkedDecoder, rated: StreamFrames, on_frames: FramesCallback | None = None
    ) -> None:
        self.decoder, self.rated, self.on_frames = decoder, rated, on_frames
        self.made: list[np.ndarray] = []

    def push(self, latents: torch.Tensor) -> None:
        self._take(self.decoder.push(latents))

    def finish(self) -> np.ndarray:
        """Every frame of the clip, once the last latent frames are pushed."""
        self._take(self.decoder.flush())
        return np.concatenate(self.made)

    def _take(self, chunks: Iterator[torch.Tensor]) -> None:
        for pictures in chunks:
            frames = self.rated.push(pictures)
            if len(frames):
                if self.on_frames is not None:
                    self.on_frames(sum(map(len, self.made)), frames)
                self.made.append(frames)
