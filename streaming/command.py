"""The ffmpeg command of the broadcaster, built by pure functions as an argument list.

One long-lived ffmpeg reads raw RGB frames from stdin and writes MPEG-TS segments of HLS_SEGMENT_SECONDS with
the `hls` muxer (it keeps the MPEG-TS continuity counters running across segments, which the `segment` muxer
does not). ffmpeg's own playlist is private: the broadcaster reads it to learn when a segment is complete and
writes the public playlist itself, because ffmpeg never writes EXT-X-DISCONTINUITY-SEQUENCE.
"""

from __future__ import annotations

import functools
import subprocess
from dataclasses import dataclass
from pathlib import Path

import ffmpeg

SEGMENT_PATTERN = "seg_%08d.ts"
# ffmpeg keeps a few entries in its private playlist so that two segments finishing between two polls
# are both seen; the public window is ours.
PRIVATE_LIST_SIZE = 8
X264_PRESET = "veryfast"  # about 1.5 to 1.9 CPU-s of ffmpeg per 10 s clip at 512x288 (docs/benchmarks.md)


@dataclass(frozen=True)
class EncoderSpec:
    width: int
    height: int
    fps: int
    segment_seconds: int
    encoder: str = "libx264"

    @property
    def frames_per_segment(self) -> int:
        return self.fps * self.segment_seconds


def encoder_options(spec: EncoderSpec) -> dict[str, object]:
    """Codec options: a keyframe exactly on every segment boundary, no B-frames, constant size and rate."""
    gop = spec.frames_per_segment
    common: dict[str, object] = {
        "vcodec": spec.encoder,
        "pix_fmt": "yuv420p",
        "r": spec.fps,
        "g": gop,
        "bf": 0,
        # Belt and braces: the forced keyframes do not depend on the encoder honouring -g exactly.
        "force_key_frames": f"expr:gte(t,n_forced*{spec.segment_seconds})",
    }
    if spec.encoder == "h264_nvenc":
        return {**common, "preset": "p2", "tune": "ll", "forced-idr": 1, "no-scenecut": 1}
    return {
        **common,
        "preset": X264_PRESET,
        # No lookahead: a frame leaves the encoder at once, so a segment is complete as soon as it is fed.
        "tune": "zerolatency",
        "keyint_min": gop,
        "sc_threshold": 0,
        "profile:v": "high",
    }


def build_command(
    spec: EncoderSpec,
    *,
    segment_dir: Path,
    private_playlist: Path,
    start_number: int,
    ts_offset: float = 0.0,
) -> list[str]:
    """The full ffmpeg argument list. `start_number` names the first segment (the playlist's next media
    sequence number) and `ts_offset` continues the timestamps where a previous ffmpeg stopped."""
    if start_number < 0:
        raise ValueError("start_number must not be negative")
    stream = ffmpeg.input(
        "pipe:0", format="rawvideo", pix_fmt="rgb24", s=f"{spec.width}x{spec.height}", framerate=spec.fps
    )
    output = ffmpeg.output(
        stream,
        str(private_playlist),
        format="hls",
        hls_time=spec.segment_seconds,
        hls_list_size=PRIVATE_LIST_SIZE,
        start_number=start_number,
        hls_segment_filename=str(segment_dir / SEGMENT_PATTERN),
        output_ts_offset=f"{ts_offset:.6f}",
        **encoder_options(spec),
    )
    # ffmpeg-python appends global options at the end, where ffmpeg warns about trailing options.
    args: list[str] = output.compile()
    return [args[0], "-hide_banner", "-nostats", "-loglevel", "warning", *args[1:]]


@functools.cache
def encoder_works(encoder: str) -> bool:
    """Whether this ffmpeg can open `encoder` on this machine (h264_nvenc is listed even without a GPU)."""
    probe = [
        "ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "color=size=256x144:rate=24",
        "-frames:v", "2", "-c:v", encoder, "-f", "null", "-",
    ]  # fmt: skip
    try:
        return subprocess.run(probe, capture_output=True, timeout=30, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def choose_encoder(requested: str) -> str:
    """The requested encoder when it works here, else libx264 (the stream must start either way)."""
    if requested != "libx264" and not encoder_works(requested):
        return "libx264"
    return requested
