"""What viewers get of each finished segment: the live playlist, the archive, and the slot's announcements.

A segment that leaves the live window is deleted only after RFC 8216's grace (its duration plus the
playlist's longest), and a restart goes on with the playlist a previous run left, after an
EXT-X-DISCONTINUITY.
"""

from __future__ import annotations

import functools
import logging
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from streaming import airing, archive, picture
from streaming.playlist import LIVE_PLAYLIST, LiveWindow, Segment, render_live_playlist, resume_window
from streaming.playlist import write_atomically as write_playlist
from streaming.schedule import Slot
from yolive.clips import lifecycle
from yolive.plumbing import metrics

log = logging.getLogger(__name__)

# The live playlist holds 12 s: with 1 s segments four times RFC 8216's minimum of three target durations,
# so a slow client still finds the segment it was told about.
LIVE_WINDOW_S = 12
# hls.js plays 3 target durations behind the live edge, the end of the newest segment: a newly listed
# segment starts playing once two more are listed: announce then. `python -m benchmarks.crowd --player`
# measures the cue against Chromium's hls.js (docs/benchmarks.md: within a third of a second).
HOLD_BACK_SEGMENTS = 3
DELETE_MARGIN_S = 2.0  # on top of RFC 8216's "segment duration + longest playlist duration"


def live_window_segments(segment_seconds: int) -> int:
    return LIVE_WINDOW_S // segment_seconds


class Publisher:
    def __init__(
        self,
        *,
        hls_dir: Path,
        segment_seconds: int,
        announcer: airing.Announcer,
        archive_retention_hours: float = 72,
        on_segment: Callable[[Segment], None] | None = None,
    ) -> None:
        self.hls_dir = hls_dir
        self.segment_seconds = segment_seconds
        self.announcer = announcer
        self.retention_hours = archive_retention_hours
        self.on_segment = on_segment
        self.viewer_delay_s = (HOLD_BACK_SEGMENTS - 1) * segment_seconds
        self.window = LiveWindow(live_window_segments(segment_seconds), segment_seconds)
        self.media_time = 0.0  # seconds of stream listed so far: where a new ffmpeg's timestamps go on
        self.newest_segment_at = 0.0  # wall-clock time of the newest listed segment, for the heartbeat
        self._discontinuity_pending = False
        self._filler_since_clip = 0.0  # seconds of filler since the last clip: how late the next one is
        self._archive_parts: dict[int, list[tuple[str, float]]] = {}
        self._retired: deque[tuple[float, Path]] = deque()

    def resume(self) -> None:
        """Go on with the playlist a previous run left, and retire the segments it no longer lists.

        When a segment left the playlist died with the previous run; it was at the playlist's last write at
        the latest, so RFC 8216's grace runs from then (a segment file's own time is when it was written,
        a window's length earlier)."""
        playlist = self.hls_dir / LIVE_PLAYLIST
        listed_at_most = live_window_segments(self.segment_seconds)
        self.window = resume_window(playlist, listed_at_most, self.segment_seconds)
        listed = {s.uri for s in self.window.segments}
        try:
            last_listed = playlist.stat().st_mtime
        except FileNotFoundError:
            last_listed = time.time()
        due = last_listed + self.segment_seconds + self.window.longest_duration + DELETE_MARGIN_S
        for path in sorted(self.hls_dir.glob("seg_*.ts*")):
            if path.name not in listed:
                self._retired.append((due, path))

    def mark_discontinuity(self) -> None:
        """The next segment comes from a new ffmpeg."""
        self._discontinuity_pending = True

    def publish(self, slot: Slot, sequence: int, uri: str, duration: float) -> None:
        assert slot.pdt is not None
        if sequence != self.window.next_sequence:
            log.error(
                "ffmpeg numbered segment %d, the playlist expects %d", sequence, self.window.next_sequence
            )
        clip_id = slot.clip.info.id if slot.clip else None
        segment = Segment(
            self.window.next_sequence, uri, duration, slot.pdt, self._discontinuity_pending, clip_id
        )
        self._discontinuity_pending = False
        now = time.time()
        for old in self.window.append(segment):
            keep_for = old.duration + self.window.longest_duration + DELETE_MARGIN_S
            self._retired.append((now + keep_for, self.hls_dir / old.uri))
        write_playlist(self.hls_dir / LIVE_PLAYLIST, render_live_playlist(self.window))
        self.media_time += duration
        self.newest_segment_at = now
        due = time.monotonic() + self.viewer_delay_s
        for cue in slot.cues:
            self.announcer.at(due, cue)
        self._count_airtime(slot, duration)
        if slot.clip is not None:
            self._keep_for_archive(slot, uri, duration)
        if self.on_segment is not None:
            self.on_segment(segment)

    def delete_retired(self) -> None:
        """Segments out of the window whose grace has passed."""
        now = time.time()
        while self._retired and self._retired[0][0] <= now:
            self._retired.popleft()[1].unlink(missing_ok=True)

    def _count_airtime(self, slot: Slot, duration: float) -> None:
        if slot.clip is None:
            metrics.FILLER_SECONDS.inc(duration)
            self._filler_since_clip += duration
        elif slot.index == 0:
            metrics.CLIP_LATENESS.observe(self._filler_since_clip)
            self._filler_since_clip = 0.0

    def _keep_for_archive(self, slot: Slot, uri: str, duration: float) -> None:
        assert slot.clip is not None
        clip_id = slot.clip.info.id
        if slot.clip.skipped:
            self._archive_parts.pop(clip_id, None)
            return
        if slot.index == 0:
            self._archive_parts[clip_id] = []
        parts = self._archive_parts.get(clip_id)
        if parts is None or not self.retention_hours:
            return
        parts.append((uri, duration))
        if slot.index == slot.clip.slots - 1:
            del self._archive_parts[clip_id]
            try:
                frames = slot.clip.frames
                poster = picture.clip_frame(frames, len(frames) // 2)
                path = archive.archive_clip(self.hls_dir, clip_id, parts, poster)
            except OSError:
                log.exception("cannot archive clip %s", clip_id)
                return
            self.announcer.at(0, functools.partial(lifecycle.record_archive, clip_id, path))
