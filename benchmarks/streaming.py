"""Streaming benchmark: what splicing costs per clip, young and old, and how soon a late clip airs.

    python -m benchmarks.streaming [--clips 12] [--late 5]

Runs in a sandbox of its own (a private redis-server, a fresh SQLite file and HLS folder in a temporary
directory) with the real Broadcaster and ffmpeg at the stream's size (VIDEO_WIDTH x VIDEO_HEIGHT):
1. CPU seconds (broadcaster process + its ffmpeg) per 10 s clip, pacing off, for clips 1..N of a new stream.
2. The same stream fast-forwarded to clip 500: what a stream holds at that age is written directly (499
   aired clips in the database, their archives on disk, the live playlist up to where clip 500 begins) and the
   broadcaster restarts on it; clip 500 airs unpaced. Encoding 499 clips for real would take the shared
   machine many minutes; this way the growing state is all there while the run stays short.
3. With pacing on and filler airing, a clip made ready at a random moment: seconds until its first segment
   is in the live playlist.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import charts
from benchmarks.instruments import cpu_seconds, free_port

WORKDIR = Path(tempfile.mkdtemp(prefix="yolive-stream-bench-"))

REDIS_PORT = free_port()
os.environ.update(
    DJANGO_SETTINGS_MODULE="yolive.settings",
    SECRET_KEY="bench-only",
    VAR_DIR=str(WORKDIR),
    HLS_DIR=str(WORKDIR / "hls"),
    DATABASE_URL="",
    REDIS_URL=f"redis://127.0.0.1:{REDIS_PORT}/0",
    CHANNEL_PREFIX="yolive-stream-bench",
    LOG_LEVEL="WARNING",
)

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.utils import timezone  # noqa: E402

from streaming import archive  # noqa: E402
from streaming.broadcaster import Broadcaster  # noqa: E402
from streaming.management.commands.broadcast import broadcaster_from_settings  # noqa: E402
from streaming.playlist import (  # noqa: E402
    LIVE_PLAYLIST,
    LiveWindow,
    Segment,
    render_live_playlist,
    write_atomically,
)
from streaming.publisher import live_window_segments  # noqa: E402
from yolive.clips.models import Clip  # noqa: E402
from yolive.voting.models import Prompt, Round  # noqa: E402

AGED_CLIP = 500
FF_CLIP_SECONDS = 10


def clip_frames(number: int, seconds: int) -> Path:
    """A moving gradient with grain, so it costs the encoder about what a rendered clip does."""
    w, h, fps = settings.VIDEO_WIDTH, settings.VIDEO_HEIGHT, settings.VIDEO_FPS
    rng = np.random.default_rng(number)
    x = np.arange(w, dtype=np.int16)[None, :]
    y = np.arange(h, dtype=np.int16)[:, None]
    frames = np.empty((seconds * fps + 1, h, w, 3), dtype=np.uint8)
    for t in range(len(frames)):
        grain = rng.integers(-12, 12, (h, w), dtype=np.int16)
        frames[t, ..., 0] = np.clip((x + 3 * t) % 256 + grain, 0, 255)
        frames[t, ..., 1] = np.clip((y + 2 * t) % 256 + grain, 0, 255)
        frames[t, ..., 2] = (number * 37) % 256
    path = settings.CLIPS_DIR / f"bench-{number}.npy"
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, frames)
    return path


def new_clip(number: int, status: str, frames_path: str = "") -> Clip:
    now = timezone.now()
    round_ = Round.objects.create(number=number, opens_at=now, ends_at=now, state=Round.State.CLOSED)
    prompt = Prompt.objects.create(
        text=f"bench story beat {number}: a paper boat drifts down a rainy street",
        normalized_text="",
        round=round_,
    )
    return Clip.objects.create(
        round=round_, prompt=prompt, seed=number, preset="bench", status=status, frames_path=frames_path
    )


class ClipMeter:
    """CPU (this process, its ffmpeg) between the first segment of each clip and the first one after it."""

    def __init__(self) -> None:
        self.broadcaster: Broadcaster | None = None
        self.started: dict[int, np.ndarray] = {}
        self.cost: dict[int, np.ndarray] = {}
        self.current: int | None = None
        self.first_listed: dict[int, float] = {}
        self.clip_segment_bytes: list[int] = []  # what a live viewer downloads per segment of a clip

    def now(self) -> np.ndarray:
        assert self.broadcaster is not None and self.broadcaster.feed.encoder is not None
        return np.array([time.process_time(), cpu_seconds(self.broadcaster.feed.encoder.pid)])

    def on_segment(self, segment: Segment) -> None:
        assert self.broadcaster is not None
        if segment.clip_id is not None:
            self.clip_segment_bytes.append((self.broadcaster.hls_dir / segment.uri).stat().st_size)
        if segment.clip_id == self.current:
            return
        if self.current is not None:
            self.cost[self.current] = self.now() - self.started[self.current]
        self.current = segment.clip_id
        if segment.clip_id is not None:
            self.started[segment.clip_id] = self.now()
            self.first_listed[segment.clip_id] = time.monotonic()


def air(
    meter: ClipMeter, hls_dir: Path, until: Callable[[], None], *, paced: bool, clip_seconds: int
) -> None:
    stop = threading.Event()
    broadcaster = broadcaster_from_settings(
        hls_dir=hls_dir, clip_seconds=clip_seconds, paced=paced, on_segment=meter.on_segment
    )
    meter.broadcaster = broadcaster
    thread = threading.Thread(target=broadcaster.run, args=(stop,))
    thread.start()
    try:
        until()
    finally:
        stop.set()
        thread.join()


def wait(predicate: Callable[[], bool], timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the benchmark stalled")
        time.sleep(0.05)


def young_stream(clips: int, frames: Path) -> tuple[dict[int, np.ndarray], list[int]]:
    """CPU per clip of a new stream, and the size of each clip segment it wrote."""
    meter = ClipMeter()
    ids = [new_clip(n, Clip.Status.READY, str(frames)).id for n in range(1, clips + 1)]
    air(meter, settings.HLS_DIR, lambda: wait(lambda: ids[-1] in meter.cost), paced=False, clip_seconds=10)
    return {n + 1: meter.cost[clip_id] for n, clip_id in enumerate(ids)}, meter.clip_segment_bytes


def age_to(clip_number: int, young: int) -> None:
    """Write what a stream holds just before `clip_number`: aired clips, their archives, the live window."""
    hls_dir: Path = settings.HLS_DIR
    seconds = settings.HLS_SEGMENT_SECONDS
    per_clip = 10 // seconds  # the benchmark's clips last 10 s
    seed_segment = next(hls_dir.glob("archive/*/seg_*.ts"))
    # The young stream's live segments (their numbers include its filler) make way for the aged window.
    for leftover in hls_dir.glob("seg_*.ts"):
        leftover.unlink()
    for number in range(young + 1, clip_number):
        clip = new_clip(number, Clip.Status.AIRED)
        parts = [(f"seg_{number * per_clip + i:08d}.ts", float(seconds)) for i in range(per_clip)]
        for uri, _ in parts:
            os.link(seed_segment, hls_dir / uri)
        Clip.objects.filter(id=clip.id).update(archive_path=archive.archive_clip(hls_dir, clip.id, parts))
        for uri, _ in parts:
            (hls_dir / uri).unlink()
    listed = live_window_segments(seconds)
    window = LiveWindow(listed, seconds, media_sequence=(clip_number - 1) * per_clip - listed)
    for _ in range(listed):
        uri = f"seg_{window.next_sequence:08d}.ts"
        os.link(seed_segment, hls_dir / uri)
        window.append(Segment(window.next_sequence, uri, float(seconds), timezone.now()))
    write_atomically(hls_dir / LIVE_PLAYLIST, render_live_playlist(window))


def old_stream(frames: Path) -> np.ndarray:
    meter = ClipMeter()
    clip = new_clip(AGED_CLIP, Clip.Status.READY, str(frames))
    nxt = new_clip(AGED_CLIP + 1, Clip.Status.READY, str(frames))
    air(meter, settings.HLS_DIR, lambda: wait(lambda: clip.id in meter.cost and nxt.id in meter.first_listed),
        paced=False, clip_seconds=10)  # fmt: skip
    return meter.cost[clip.id]


def ready_to_listed(times: int) -> list[float]:
    """Paced, filler airing: a clip made ready at a random moment; seconds until its first segment lists."""
    frames = clip_frames(9000, 2)
    delays: list[float] = []
    meter = ClipMeter()

    def trials() -> None:
        wait(lambda: meter.broadcaster is not None and meter.broadcaster.publisher.newest_segment_at > 0, 60)
        for n in range(times):
            time.sleep(2 + random.uniform(0, settings.HLS_SEGMENT_SECONDS))  # filler airs meanwhile
            clip = new_clip(10_000 + n, Clip.Status.QUEUED)
            made_ready = time.monotonic()
            Clip.objects.filter(id=clip.id).update(status=Clip.Status.READY, frames_path=str(frames))
            wait(functools.partial(meter.first_listed.__contains__, clip.id), 60)
            delays.append(meter.first_listed[clip.id] - made_ready)

    air(meter, WORKDIR / "hls-paced", trials, paced=True, clip_seconds=2)
    return delays


def draw_chart(
    args: argparse.Namespace, young: dict[int, np.ndarray], aged: np.ndarray, delays: list[float]
) -> Path:
    clips = list(young)
    return charts.draw(
        args.charts / "streaming.png",
        f"Streaming: {settings.VIDEO_WIDTH}x{settings.VIDEO_HEIGHT}, {settings.VIDEO_ENCODER}, "
        f"{args.clips} young clips, clip {AGED_CLIP} fast-forwarded, {args.late} late clips",
        [
            charts.Panel(
                "CPU s per 10 s clip as the stream ages",
                [*clips, AGED_CLIP],
                {
                    "broadcaster Python": [float(young[c][0]) for c in clips] + [float(aged[0])],
                    "ffmpeg": [float(young[c][1]) for c in clips] + [float(aged[1])],
                },
                "CPU s",
                kind="line",
                xlabel="clip number",
            ),
            charts.Panel(
                "Late clip ready -> first segment listed",
                [f"late {n + 1}" for n in range(len(delays))],
                {"delay": delays},
                "s",
            ),
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clips", type=int, default=12, help="clips of the young stream, aired unpaced")
    parser.add_argument("--late", type=int, default=5, help="late clips timed while filler airs")
    parser.add_argument("--charts", type=Path, default=charts.CHARTS_DIR, help="where streaming.png is drawn")
    args = parser.parse_args()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(REDIS_PORT), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(WORKDIR)], stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        call_command("migrate", verbosity=0)
        size = f"{settings.VIDEO_WIDTH}x{settings.VIDEO_HEIGHT}@{settings.VIDEO_FPS}"
        print(f"streaming bench: {size}, {settings.VIDEO_ENCODER}, {os.cpu_count()} CPUs, sandbox {WORKDIR}")
        frames = clip_frames(1, FF_CLIP_SECONDS)
        young, segment_bytes = young_stream(args.clips, frames)
        age_to(AGED_CLIP, args.clips)
        aged = old_stream(frames)
        print("CPU s per 10 s clip: total (broadcaster Python + ffmpeg)")
        for label, cost in [("clip 1", young[1]), (f"clip {args.clips}", young[args.clips]),
                            (f"clip {AGED_CLIP} (fast-forwarded)", aged)]:  # fmt: skip
            print(f"  {label}: {cost.sum():.2f} ({cost[0]:.2f} + {cost[1]:.2f})")
        print(f"clip {AGED_CLIP} / clip 1: {aged.sum() / young[1].sum():.2f}   clip {args.clips} / clip 1: "
              f"{young[args.clips].sum() / young[1].sum():.2f}   every young clip: "
              + " ".join(f"{v.sum():.2f}" for v in young.values()))  # fmt: skip
        mean_bytes = sum(segment_bytes) / len(segment_bytes)
        rate = mean_bytes * 8 / settings.HLS_SEGMENT_SECONDS / 1e6
        print(f"clip segment, mean of {len(segment_bytes)}: {mean_bytes / 1e6:.2f} MB ({rate:.1f} Mbit/s)")
        timed = ready_to_listed(args.late)
        delays = sorted(timed)
        print(f"clip ready -> first segment listed while filler airs, s: min {delays[0]:.2f} "
              f"median {delays[len(delays) // 2]:.2f} max {delays[-1]:.2f} (n={len(delays)})")  # fmt: skip
        print(f"chart: {draw_chart(args, young, aged, timed)}")
    finally:
        redis.terminate()
        redis.wait(timeout=15)
        shutil.rmtree(WORKDIR, ignore_errors=True)


if __name__ == "__main__":
    main()
