"""The frames store: `CLIPS_DIR/<clip id>.npy`, (frames, height, width, 3) uint8 RGB. The worker writes a
clip's frames, the broadcaster reads them, and they are deleted once the clip has aired and been archived.

Why .npy: the broadcaster feeds ffmpeg raw RGB frames, and an uncompressed array is exactly that. Writing
is sequential at disk speed (about 106 MB for 10 s at 512x288, 283 MB at 768x512) with no encoder on the
render path, and the reader can memory-map it (np.load(mmap_mode="r")) and stream frames without a decode
step or a copy of the whole clip in memory.

A clip is written as it is made (`GrowingFrames`): at a partial name whose header holds the whole clip's
shape from the start, its frames filled in order, the count written so far kept in the database
(`Clip.frames_made`), so the broadcaster may air the clip's first seconds while the rest renders. Once whole
it is renamed into place: a file at the final name is always a whole clip, and a reader's map of the partial
file stays valid across the rename.
"""

from __future__ import annotations

import math
import os
from datetime import datetime
from pathlib import Path

import numpy as np
from django.conf import settings

from yolive.clips.models import Clip

# A clip still rendering may go on air once this much of it is made: the render then stays ahead of the air
# as long as it makes frames faster than they air, and a clip that falls behind waits on filler. The worker
# writes its first frames in one piece of about 3 s (generation/frame_stream.py).
AIR_AHEAD_S = 2.5


def frames_path(clip_id: int) -> Path:
    return Path(settings.CLIPS_DIR) / f"{clip_id}.npy"


def airable(made: int, total: int, fps: int) -> bool:
    """Whether a clip with `made` of its `total` frames may go on air."""
    return made >= min(total, math.ceil(AIR_AHEAD_S * fps)) and made > 0


class GrowingFrames:
    """A clip's frames, written as they are made."""

    def __init__(self, clip_id: int, shape: tuple[int, int, int, int]) -> None:
        self.final = frames_path(clip_id)
        self.final.parent.mkdir(parents=True, exist_ok=True)
        # An earlier attempt's partial file (its worker died): a reader that mapped it keeps its copy.
        for stale in _partials(self.final):
            stale.unlink(missing_ok=True)
        self.path = self.final.with_name(f".{self.final.name}.{os.getpid()}.partial")
        self._frames: np.memmap | None = np.lib.format.open_memmap(
            self.path, mode="w+", dtype=np.uint8, shape=shape
        )
        self.made = 0

    def write(self, frames: np.ndarray, start: int | None = None) -> None:
        """Frames from `start` on (by default after those written before; a render that starts again
        writes from its first frame, over what it had made)."""
        assert self._frames is not None, "finished"
        start = self.made if start is None else start
        if frames.dtype != np.uint8 or frames.shape[1:] != self._frames.shape[1:]:
            raise ValueError(
                f"frames must be (n, *{self._frames.shape[1:]}) uint8, got {frames.shape} {frames.dtype}"
            )
        if start + len(frames) > len(self._frames):
            raise ValueError(f"frames up to {start + len(frames)} written to a clip of {len(self._frames)}")
        self._frames[start : start + len(frames)] = frames
        self.made = max(self.made, start + len(frames))

    def finish(self) -> Path:
        """The whole clip, renamed into place."""
        assert self._frames is not None, "finished"
        if self.made != len(self._frames):
            raise ValueError(f"{self.made} of {len(self._frames)} frames written")
        self._frames.flush()
        self._frames = None
        os.replace(self.path, self.final)
        return self.final

    def discard(self) -> None:
        """A render that stopped: its frames go (a reader that mapped them keeps its copy)."""
        self._frames = None
        self.path.unlink(missing_ok=True)


def store_frames(clip_id: int, frames: np.ndarray) -> Path:
    """A whole clip at once."""
    if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[-1] != 3:
        raise ValueError(f"frames must be (n, h, w, 3) uint8, got {frames.shape} {frames.dtype}")
    growing = GrowingFrames(clip_id, frames.shape)
    growing.write(frames)
    return growing.finish()


def _partials(final: Path) -> list[Path]:
    return list(final.parent.glob(f".{final.name}.*.partial"))


def remove(clip_id: int) -> None:
    """Every file of a clip that never airs, whole or partial (a reader that mapped one keeps its copy)."""
    final = frames_path(clip_id)
    for path in [final, *_partials(final)]:
        path.unlink(missing_ok=True)


def locate(stored: str) -> Path:
    """A Clip.frames_path as a file: absolute as written, or relative to MEDIA_DIR (then CLIPS_DIR)."""
    path = Path(stored)
    if path.is_absolute():
        return path
    for base in (Path(settings.MEDIA_DIR), Path(settings.CLIPS_DIR)):
        if (base / path).exists():
            return base / path
    return Path(settings.MEDIA_DIR) / path


def delete(stored: str) -> None:
    locate(stored).unlink(missing_ok=True)


def frames_shape(path: Path) -> tuple[int, ...]:
    try:
        return tuple(np.load(path, mmap_mode="r").shape)
    except (OSError, ValueError):
        return ()


def last_frames(path: Path, count: int) -> np.ndarray | None:
    """The last `count` frames of a stored clip, or None if the file is gone or unreadable."""
    try:
        frames = np.load(path, mmap_mode="r")
    except (OSError, ValueError):
        return None
    if frames.ndim != 4 or len(frames) < count:
        return None
    return np.array(frames[-count:])


def drop_spent(older_than: datetime) -> int:
    """Delete the raw frames of clips that finished airing before `older_than` (about 106 MB per 10 s at
    512x288; the archive keeps the encoded clip). The next render only reads the previous clip's frames,
    which by then it has done. Their frames_path is cleared, so nobody looks for them again."""
    spent = Clip.objects.filter(
        status__in=[Clip.Status.AIRED, Clip.Status.SKIPPED], finished_at__lt=older_than
    ).exclude(frames_path="")
    dropped: list[int] = []
    for clip_id, stored in spent.values_list("id", "frames_path"):
        delete(stored)
        dropped.append(clip_id)
    return Clip.objects.filter(id__in=dropped).update(frames_path="")
