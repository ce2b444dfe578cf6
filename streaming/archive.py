"""Every aired clip kept for replay as its own small VOD: hard links to its live segments, a playlist and
a poster (a frame from the middle of the clip, for its page and the archive's thumbnails).

Links cost no copy and survive the live window deleting its own names. Archives older than
ARCHIVE_RETENTION_HOURS are removed by `sweep` (0 turns the archive off).
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from PIL import Image

from streaming.playlist import render_vod_playlist, write_atomically

log = logging.getLogger(__name__)

ARCHIVE_DIR = "archive"
INDEX = "index.m3u8"
POSTER = "poster.jpg"
POSTER_QUALITY = 85  # about 30 KB at 512x288: small enough for a page of thumbnails


def archive_path(clip_id: int) -> str:
    """The clip's VOD playlist relative to HLS_DIR (what Clip.archive_path holds)."""
    return f"{ARCHIVE_DIR}/{clip_id}/{INDEX}"


def poster_path(clip_id: int) -> str:
    """The clip's poster relative to HLS_DIR."""
    return f"{ARCHIVE_DIR}/{clip_id}/{POSTER}"


def archive_clip(
    hls_dir: Path, clip_id: int, segments: Iterable[tuple[str, float]], poster: np.ndarray | None = None
) -> str:
    """Link the clip's segments into archive/<clip_id>/ and write its playlist and poster (an RGB frame);
    returns its archive_path."""
    items = list(segments)
    dest = hls_dir / ARCHIVE_DIR / str(clip_id)
    staging = hls_dir / ARCHIVE_DIR / f".{clip_id}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for uri, _ in items:
        try:
            os.link(hls_dir / uri, staging / uri)
        except OSError:
            shutil.copyfile(hls_dir / uri, staging / uri)  # another filesystem: copy instead
    write_atomically(staging / INDEX, render_vod_playlist(items))
    if poster is not None:
        Image.fromarray(poster).save(staging / POSTER, "JPEG", quality=POSTER_QUALITY)
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(staging, dest)
    return archive_path(clip_id)


def sweep(hls_dir: Path, retention_hours: float, now: float | None = None) -> list[int]:
    """Remove archives older than the retention; returns the clip ids removed."""
    root = hls_dir / ARCHIVE_DIR
    if not root.is_dir():
        return []
    cutoff = (now or time.time()) - retention_hours * 3600
    removed = []
    with os.scandir(root) as entries:
        for entry in entries:
            if not entry.name.isdigit() or entry.stat().st_mtime >= cutoff:
                continue
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(int(entry.name))
    if removed:
        log.info("archive retention removed %d clips", len(removed))
    return removed
