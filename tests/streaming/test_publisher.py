"""The live window's files after a broadcaster restart: RFC 8216 6.2.2's grace runs from when a segment
left the playlist, which the killed run knew and the new one must not guess early."""

import os
import threading
import time
from datetime import UTC, datetime, timedelta

from streaming import publisher as publishing
from streaming.airing import Announcer
from streaming.playlist import LIVE_PLAYLIST, LiveWindow, Segment, render_live_playlist, write_atomically


def left_behind(hls_dir, listed_at: float) -> list[str]:
    """What a killed broadcaster leaves: seg 100-103 listed, 96-99 out of the window, all written long ago."""
    window = LiveWindow(size=6, target_duration=2, media_sequence=100)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n in range(96, 104):
        path = hls_dir / f"seg_{n:08d}.ts"
        path.write_bytes(b"ts")
        os.utime(path, (listed_at - 60, listed_at - 60))
        if n >= 100:
            window.append(Segment(n, path.name, 2.0, start + timedelta(seconds=2 * n), False))
    write_atomically(hls_dir / LIVE_PLAYLIST, render_live_playlist(window))
    os.utime(hls_dir / LIVE_PLAYLIST, (listed_at, listed_at))
    return [f"seg_{n:08d}.ts" for n in range(96, 100)]


def test_a_restarted_broadcaster_keeps_unlisted_segments_for_the_grace_from_the_playlists_last_write(
    tmp_path, monkeypatch
):
    now = time.time()
    unlisted = left_behind(tmp_path, listed_at=now - 1)
    publisher = publishing.Publisher(
        hls_dir=tmp_path, segment_seconds=2, announcer=Announcer(threading.Event())
    )
    publisher.resume()
    grace = 2 + publisher.window.longest_duration  # the segment's duration plus the playlist's longest

    publisher.delete_retired()
    assert all((tmp_path / name).exists() for name in unlisted)  # written a minute ago, unlisted only now

    monkeypatch.setattr(publishing.time, "time", lambda: now - 1 + grace - 0.5)
    publisher.delete_retired()
    assert all((tmp_path / name).exists() for name in unlisted)  # half a second before it is due

    monkeypatch.setattr(publishing.time, "time", lambda: now - 1 + grace + publishing.DELETE_MARGIN_S)
    publisher.delete_retired()
    assert not any((tmp_path / name).exists() for name in unlisted)
    assert [s.uri for s in publisher.window.segments] == [f"seg_{n:08d}.ts" for n in range(100, 104)]
    assert all((tmp_path / s.uri).exists() for s in publisher.window.segments)
