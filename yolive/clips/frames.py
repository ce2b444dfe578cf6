"""The frames store: `CLIPS_DIR/<clip id>.npy`, (frames, height, width, 3) uint8 RGB. The worker writes a
clip's frames, the broadcaster reads them, and they are deleted once the clip has aired and been archived.

Why .npy: the broadcaster feeds ffmpeg raw RGB frames, and an uncompressed array is exactly that. Writing
is one sequential write at disk speed (about 106 MB for 10 s at 512x288, 283 MB at 768x512) with no
encoder on the render path, and the reader can memory-map it (np.load(mmap_mode="r")) and stream frames
without a decode step or a copy of the whole clip in memory. Files are written to a temporary name and
renamed into place, so a reader never sees half a clip.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import numpy as np
from django.conf import settings

from yolive.clips.models import Clip


def frames_path(clip_id: int) -> Path:
    return Path(settings.CLIPS_DIR) / f"{clip_id}.npy"


def store_frames(clip_id: int, frames: np.ndarray) -> Path:
    if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[-1] != 3:
        raise ValueError(f"frames must be (n, h, w, 3) uint8, got {frames.shape} {frames.dtype}")
    final = frames_path(clip_id)
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = final.with_name(f".{final.name}.{os.getpid()}.partial")
    with partial.open("wb") as fh:  # np.save on a handle: it would append ".npy" to a bare name
        np.save(fh, np.ascontiguousarray(frames))
    os.replace(partial, final)
    return final


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
