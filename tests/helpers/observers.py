"""Observers for the live tests: viewer events, playlist reloads over HTTP, ffprobe and ffmpeg clients."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import m3u8
from channels.layers import get_channel_layer

from tests.helpers.processes import ROOT, free_port, subprocess_env
from tests.helpers.streaming import http_get
from yolive.plumbing.events import VIEWERS


class EventTap(threading.Thread):
    """Every event published to the viewers' group, with the monotonic time it arrived."""

    def __init__(self) -> None:
        super().__init__(name="event-tap", daemon=True)
        self.events: list[tuple[float, dict[str, Any]]] = []
        self.listening = threading.Event()
        self.done = threading.Event()

    def run(self) -> None:
        asyncio.run(self.listen())

    async def listen(self) -> None:
        layer = get_channel_layer()
        assert layer is not None
        channel = await layer.new_channel()
        await layer.group_add(VIEWERS, channel)
        self.listening.set()
        while not self.done.is_set():
            with contextlib.suppress(TimeoutError):
                message = await asyncio.wait_for(layer.receive(channel), 0.5)
                self.events.append((time.monotonic(), message["event"]))
        await layer.group_discard(VIEWERS, channel)

    def of(self, kind: str, clip_id: int) -> list[tuple[float, dict[str, Any]]]:
        return [(at, e) for at, e in self.events if e["type"] == kind and e["clip_id"] == clip_id]

    def clips_heard(self, status: str) -> set[int]:
        """The clips a `clip` event with this status was heard of."""
        return {e["clip_id"] for _, e in list(self.events) if e["type"] == "clip" and e["status"] == status}

    def stop(self) -> None:
        self.done.set()
        self.join(timeout=5)


class PlaylistReloads(threading.Thread):
    """Reloads the live playlist like a player (every half target duration), over HTTP or from disk."""

    def __init__(self, url: str | Path, interval: float = 1.0) -> None:
        super().__init__(name="playlist-reloads", daemon=True)
        self.url = url
        self.interval = interval
        self.texts: list[tuple[float, str]] = []
        self.failures: list[str] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            status, body = self.load()
            if status == 200:
                self.texts.append((time.monotonic(), body.decode()))
            elif self.texts:  # before the first segment there is no playlist yet
                self.failures.append(f"{status} for the playlist")
            self.done.wait(self.interval)

    def load(self) -> tuple[int, bytes]:
        if isinstance(self.url, Path):
            try:
                return 200, self.url.read_bytes()
            except FileNotFoundError:
                return 404, b""
        status, _headers, body = http_get(self.url)
        return status, body

    def stop(self) -> None:
        self.done.set()
        self.join(timeout=5)


@dataclass(frozen=True)
class Packet:
    pts: float
    dts: float
    keyframe: bool


def packets(path: Path) -> list[Packet]:
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,dts_time,flags",
         "-of", "json", str(path)],
        capture_output=True, check=True, text=True,
    ).stdout  # fmt: skip
    return [
        Packet(float(p["pts_time"]), float(p["dts_time"]), p["flags"].startswith("K"))
        for p in json.loads(out)["packets"]
    ]


def stream_parameters(path: Path) -> dict[str, Any]:
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
         "stream=codec_name,profile,width,height,pix_fmt,r_frame_rate,time_base", "-of", "json", str(path)],
        capture_output=True, check=True, text=True,
    ).stdout  # fmt: skip
    streams = json.loads(out)["streams"]
    assert len(streams) == 1, f"{path.name} has {len(streams)} video streams"
    return dict(streams[0])


@dataclass
class Decoded:
    returncode: int
    errors: str
    pts: list[int]


def decode(url: str, seconds: float | None = None, timeout: float = 90) -> Decoded:
    """A real ffmpeg client reading `url`; returns each decoded frame's timestamp (in frames)."""
    command = ["ffmpeg", "-nostdin", "-v", "error", "-i", url]
    if seconds:
        command += ["-t", str(seconds)]
    command += ["-f", "framecrc", "-"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    pts = [int(line.split(",")[2]) for line in done.stdout.splitlines() if line and not line.startswith("#")]
    return Decoded(done.returncode, done.stderr.strip(), pts)


@contextlib.contextmanager
def serving(hls_dir: Path) -> Iterator[str]:
    """A real uvicorn serving the app with HLS_DIR=hls_dir; yields its base URL."""
    port = free_port()
    command = [str(ROOT / ".venv/bin/uvicorn"), "yolive.asgi:application", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--no-access-log", "--log-level", "warning"]
    process = subprocess.Popen(command, cwd=ROOT, env=subprocess_env(HLS_DIR=str(hls_dir)))
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                http_get(f"{base}/hls/none.m3u8")
                break
            except OSError:
                assert time.monotonic() < deadline, "uvicorn did not start"
                assert process.poll() is None, "uvicorn exited"
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=15)


def check_playlist_rules(texts: list[str], target: int, window_minimum: int = 3) -> int:
    """RFC 8216's live rules over consecutive reloads; returns how many discontinuities slid out."""
    previous: m3u8.M3U8 | None = None
    removed_discontinuities = 0
    for text in texts:
        m3u8.parser.parse(text, strict=True)
        current = m3u8.loads(text)
        assert current.target_duration == target, "TARGETDURATION changed"
        assert not current.is_endlist and current.playlist_type is None, "a live playlist ended"
        assert "#EXT-X-DISCONTINUITY-SEQUENCE" in text.split("#EXTINF")[0], "no DISCONTINUITY-SEQUENCE up top"
        for segment in current.segments:
            assert round(segment.duration) <= target, f"EXTINF {segment.duration} over the target"
            assert segment.current_program_date_time is not None
        dates = [s.current_program_date_time for s in current.segments]
        assert dates == sorted(dates), "PROGRAM-DATE-TIME went backwards"
        if previous is not None:
            old = {s.uri: previous.media_sequence + i for i, s in enumerate(previous.segments)}
            new = {s.uri: current.media_sequence + i for i, s in enumerate(current.segments)}
            for uri in old.keys() & new.keys():
                assert old[uri] == new[uri], f"{uri} changed its sequence number"
            gone = [s for s in previous.segments if s.uri not in new]
            assert current.media_sequence - previous.media_sequence == len(gone), "MEDIA-SEQUENCE arithmetic"
            head = [s.uri for s in previous.segments[: len(gone)]]
            assert [s.uri for s in gone] == head, "segments left from somewhere but the head"
            slid = sum(1 for s in gone if s.discontinuity)
            removed_discontinuities += slid
            assert current.discontinuity_sequence - previous.discontinuity_sequence == slid
            if gone:
                listed = sum(s.duration for s in current.segments)
                assert listed >= window_minimum * target, f"window of {listed} s after a removal"
        previous = current
    return removed_discontinuities
