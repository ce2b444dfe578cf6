"""One running ffmpeg: frames in through stdin, finished segments out through its private playlist."""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import threading
import time
from collections import deque
from pathlib import Path

import numpy as np

from streaming.command import EncoderSpec, build_command
from streaming.playlist import read_private_playlist

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 10.0  # closing stdin lets ffmpeg finish its last segment; a stuck one is killed after this
STDERR_LINES = 50


class EncoderDied(RuntimeError):
    """ffmpeg exited or closed its pipe; carries the tail of its stderr."""


class Encoder:
    def __init__(
        self, spec: EncoderSpec, segment_dir: Path, work_dir: Path, start_number: int, ts_offset: float
    ) -> None:
        self.spec = spec
        self.private_playlist = work_dir / "ffmpeg.m3u8"
        self.private_playlist.unlink(missing_ok=True)
        self.started_at = time.monotonic()
        self.last_listed = start_number - 1
        self._stamp: tuple[int, int] | None = None
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_LINES)
        command = build_command(
            spec,
            segment_dir=segment_dir,
            private_playlist=self.private_playlist,
            start_number=start_number,
            ts_offset=ts_offset,
        )
        log.info("starting ffmpeg at segment %d: %s", start_number, " ".join(command))
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            # Its own session: a Ctrl-C in the terminal reaches the broadcaster, which stops ffmpeg in order.
            start_new_session=True,
        )
        threading.Thread(target=self._read_stderr, name="ffmpeg-stderr", daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            self.stderr_tail.append(line)
            log.warning("ffmpeg: %s", line)

    def died(self) -> EncoderDied:
        tail = "\n".join(self.stderr_tail)
        return EncoderDied(f"ffmpeg exited with {self.process.poll()}: {tail}")

    def write(self, frame: np.ndarray) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(np.ascontiguousarray(frame).data)
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as exc:
            raise self.died() from exc

    def alive(self) -> bool:
        return self.process.poll() is None

    def new_segments(self) -> list[tuple[int, str, float]]:
        """Segments ffmpeg finished since the last call, oldest first (one stat per call when idle)."""
        try:
            info = os.stat(self.private_playlist)
        except FileNotFoundError:
            return []
        stamp = (info.st_mtime_ns, info.st_size)
        if stamp == self._stamp:
            return []
        self._stamp = stamp
        fresh = [
            entry for entry in read_private_playlist(self.private_playlist) if entry[0] > self.last_listed
        ]
        if fresh:
            self.last_listed = fresh[-1][0]
        return fresh

    def stop(self) -> None:
        """Let ffmpeg finish what it has, then make sure it is gone."""
        if self.process.stdin:
            with contextlib.suppress(OSError, ValueError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stdin:
            with contextlib.suppress(OSError, ValueError):
                self.process.stdin.close()
