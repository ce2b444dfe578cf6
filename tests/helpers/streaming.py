"""Actors of the streaming tests: clips with real frame files, a broadcaster in a thread, a web server."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import numpy as np
from django.utils import timezone

from streaming.broadcaster import Broadcaster
from streaming.command import EncoderSpec
from streaming.playlist import Segment
from yolive.clips.models import Clip
from yolive.voting.models import Prompt, Round

WIDTH, HEIGHT, FPS, SEGMENT = 512, 288, 24, 2
SPEC = EncoderSpec(WIDTH, HEIGHT, FPS, SEGMENT)


def moving_gradient(frames: int, hue: int) -> np.ndarray:
    """A picture that moves every frame, so each clip encodes like real video and each looks different."""
    x = np.arange(WIDTH, dtype=np.int32)[None, None, :]
    y = np.arange(HEIGHT, dtype=np.int32)[None, :, None]
    t = np.arange(frames, dtype=np.int32)[:, None, None]
    video = np.empty((frames, HEIGHT, WIDTH, 3), dtype=np.uint8)
    video[..., 0] = ((x + 4 * t) % 256).astype(np.uint8)
    video[..., 1] = ((y + 2 * t) % 256).astype(np.uint8)
    video[..., 2] = hue
    return video


def make_clip(
    directory: Path,
    number: int,
    *,
    status: str = Clip.Status.READY,
    frames: int | None = None,
    text: str = "",
) -> Clip:
    now = timezone.now()
    round_ = Round.objects.create(
        number=number, opens_at=now - timedelta(seconds=10), ends_at=now, state=Round.State.CLOSED
    )
    prompt = Prompt.objects.create(
        text=text or f"a lighthouse in a storm, part {number}",
        normalized_text=f"part {number}",
        round=round_,
        status=Prompt.Status.APPROVED,
    )
    clip = Clip.objects.create(round=round_, prompt=prompt, seed=number, preset="tiny", status=status)
    if frames:
        write_frames(clip, directory, frames)
    return clip


def write_frames(clip: Clip, directory: Path, frames: int, status: str = Clip.Status.READY) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"clip-{clip.id}.npy"
    np.save(path, moving_gradient(frames, hue=(clip.id * 70) % 256))
    clip.frames_path = str(path)
    clip.status = status
    clip.num_frames, clip.width, clip.height, clip.fps = frames, WIDTH, HEIGHT, FPS
    clip.save()


@dataclass
class OnAir:
    """A broadcaster running in a thread, and every segment it published (copied before deletion)."""

    broadcaster: Broadcaster
    hls_dir: Path
    kept_dir: Path
    stop: threading.Event
    thread: threading.Thread
    segments: list[Segment] = field(default_factory=list)
    listed_at: dict[int, float] = field(default_factory=dict)

    def wait_for(self, predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            assert self.thread.is_alive(), "the broadcaster stopped"
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}")

    def clip_segments(self, clip_id: int) -> list[Segment]:
        return [s for s in self.segments if s.clip_id == clip_id]

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(timeout=30)
        assert not self.thread.is_alive(), "the broadcaster did not stop"


def start_broadcaster(tmp_path: Path, clip_seconds: int = 4, **options) -> OnAir:  # type: ignore[no-untyped-def]
    hls_dir, kept_dir = tmp_path / "hls", tmp_path / "kept"
    kept_dir.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    on_air: OnAir

    def keep(segment: Segment) -> None:
        (kept_dir / segment.uri).write_bytes((hls_dir / segment.uri).read_bytes())
        on_air.segments.append(segment)
        on_air.listed_at[segment.sequence] = time.monotonic()

    broadcaster = Broadcaster(
        spec=SPEC,
        hls_dir=hls_dir,
        work_dir=tmp_path / "work",
        clip_seconds=clip_seconds,
        on_segment=keep,
        **options,
    )
    thread = threading.Thread(target=broadcaster.run, args=(stop,), name="test-broadcaster")
    on_air = OnAir(broadcaster, hls_dir, kept_dir, stop, thread)
    thread.start()
    return on_air


def http_get(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
