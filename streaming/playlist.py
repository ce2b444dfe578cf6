"""The public live playlist and the archive's VOD playlists, written by us under RFC 8216's rules.

Rules kept here (section numbers of RFC 8216):
- 4.3.3.1: TARGETDURATION never changes, and every EXTINF rounds to at most it (segments are exactly
  HLS_SEGMENT_SECONDS long, so the target is that).
- 6.2.2: segments leave from the head only, never while the playlist would last less than three target
  durations; MEDIA-SEQUENCE grows by one per removed segment, DISCONTINUITY-SEQUENCE by one per removed
  EXT-X-DISCONTINUITY; no EXT-X-PLAYLIST-TYPE in a live playlist.
- 6.2.1: each new version replaces the old atomically (write a temporary file, then rename).
"""

from __future__ import annotations

import math
import os
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import m3u8

LIVE_PLAYLIST = "live.m3u8"
MIN_WINDOW_TARGET_DURATIONS = 3  # RFC 8216 6.2.2: never shorter than three target durations


@dataclass
class Segment:
    sequence: int
    uri: str
    duration: float
    program_date_time: datetime
    discontinuity: bool = False
    clip_id: int | None = None  # None for filler


class LiveWindow:
    """The segments of the live playlist, with the sequence arithmetic of RFC 8216 section 6.2.2."""

    def __init__(
        self,
        size: int,
        target_duration: int,
        media_sequence: int = 0,
        discontinuity_sequence: int = 0,
        segments: Iterable[Segment] = (),
    ) -> None:
        if size < MIN_WINDOW_TARGET_DURATIONS:
            raise ValueError(f"a live window of {size} segments is shorter than three target durations")
        self.size = size
        self.target_duration = target_duration
        self.media_sequence = media_sequence
        self.discontinuity_sequence = discontinuity_sequence
        self.segments: deque[Segment] = deque(segments)

    @property
    def next_sequence(self) -> int:
        return self.media_sequence + len(self.segments)

    @property
    def duration(self) -> float:
        return sum(s.duration for s in self.segments)

    @property
    def longest_duration(self) -> float:
        """The longest this playlist can last: how long a removed segment must stay (RFC 8216 6.2.2)."""
        return self.size * self.target_duration

    def append(self, segment: Segment) -> list[Segment]:
        """Add the newest segment; return those that left the head (still to be kept for a while)."""
        if segment.sequence != self.next_sequence:
            raise ValueError(f"segment {segment.sequence} does not follow {self.next_sequence - 1}")
        if round(segment.duration) > self.target_duration:
            raise ValueError(f"a {segment.duration:.3f} s segment exceeds the target duration")
        self.segments.append(segment)
        removed: list[Segment] = []
        minimum = MIN_WINDOW_TARGET_DURATIONS * self.target_duration
        while len(self.segments) > self.size and self.duration - self.segments[0].duration >= minimum:
            head = self.segments.popleft()
            self.media_sequence += 1
            if head.discontinuity:
                self.discontinuity_sequence += 1
            removed.append(head)
        return removed


def render_live_playlist(window: LiveWindow) -> str:
    lines = [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        f"#EXT-X-TARGETDURATION:{window.target_duration}",
        f"#EXT-X-MEDIA-SEQUENCE:{window.media_sequence}",
        f"#EXT-X-DISCONTINUITY-SEQUENCE:{window.discontinuity_sequence}",
        "#EXT-X-INDEPENDENT-SEGMENTS",
    ]
    for segment in window.segments:
        if segment.discontinuity:
            lines.append("#EXT-X-DISCONTINUITY")
        lines.append(
            f"#EXT-X-PROGRAM-DATE-TIME:{segment.program_date_time.isoformat(timespec='milliseconds')}"
        )
        lines.append(f"#EXTINF:{segment.duration:.6f},")
        lines.append(segment.uri)
    return "\n".join(lines) + "\n"


def render_vod_playlist(entries: Iterable[tuple[str, float]]) -> str:
    """A finished playlist (an archived clip): every segment, then ENDLIST."""
    items = list(entries)
    if not items:
        raise ValueError("a VOD playlist needs at least one segment")
    target = max(1, max(math.ceil(round(duration, 3)) for _, duration in items))
    lines = [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        f"#EXT-X-TARGETDURATION:{target}",
        "#EXT-X-MEDIA-SEQUENCE:0",
        "#EXT-X-PLAYLIST-TYPE:VOD",
        "#EXT-X-INDEPENDENT-SEGMENTS",
    ]
    for uri, duration in items:
        lines += [f"#EXTINF:{duration:.6f},", uri]
    lines.append("#EXT-X-ENDLIST")
    return "\n".join(lines) + "\n"


def write_atomically(path: Path, text: str) -> None:
    """Readers see the old file or the new one, never half of one (RFC 8216 6.2.1)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def resume_window(path: Path, size: int, target_duration: int) -> LiveWindow:
    """The live window as a previous broadcaster left it, so the same playlist goes on after a restart.

    Segments whose files are gone are dropped from the head (counted in the sequences). A missing or
    unreadable playlist starts a fresh window at sequence 0.
    """
    try:
        parsed = m3u8.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return LiveWindow(size, target_duration)
    window = LiveWindow(
        size,
        target_duration,
        media_sequence=parsed.media_sequence or 0,
        discontinuity_sequence=parsed.discontinuity_sequence or 0,
    )
    for offset, item in enumerate(parsed.segments):
        segment = Segment(
            sequence=window.next_sequence,
            uri=item.uri,
            duration=float(item.duration),
            program_date_time=item.current_program_date_time or datetime.now().astimezone(),
            discontinuity=bool(item.discontinuity),
        )
        if offset == len(window.segments) and not (path.parent / item.uri).exists():
            window.media_sequence += 1  # a vanished head segment: skip it and keep the arithmetic
            window.discontinuity_sequence += int(segment.discontinuity)
            continue
        window.segments.append(segment)
    return window


def read_private_playlist(path: Path) -> list[tuple[int, str, float]]:
    """(sequence, file name, duration) of every segment ffmpeg lists in its own playlist."""
    try:
        parsed = m3u8.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    first = parsed.media_sequence or 0
    return [
        (first + i, os.path.basename(item.uri), float(item.duration))
        for i, item in enumerate(parsed.segments)
    ]
