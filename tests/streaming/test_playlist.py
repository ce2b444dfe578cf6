from datetime import UTC, datetime, timedelta

import m3u8
import pytest

from streaming.playlist import (
    LiveWindow,
    Segment,
    render_live_playlist,
    render_vod_playlist,
    resume_window,
    write_atomically,
)

START = datetime(2026, 1, 1, tzinfo=UTC)


def strictly_parsed(text: str) -> m3u8.M3U8:
    m3u8.parser.parse(text, strict=True)  # raises on any line it does not know
    return m3u8.loads(text)


def segment(window: LiveWindow, discontinuity: bool = False, duration: float = 2.0) -> Segment:
    n = window.next_sequence
    return Segment(n, f"seg_{n:08d}.ts", duration, START + timedelta(seconds=2 * n), discontinuity)


def test_the_window_never_holds_more_than_its_size_and_counts_what_left():
    window = LiveWindow(size=6, target_duration=2)
    removed = []
    for _ in range(20):
        removed += window.append(segment(window))
    assert len(window.segments) == 6
    assert window.media_sequence == 14
    assert [s.sequence for s in removed] == list(range(14))
    assert window.segments[0].sequence == window.media_sequence


def test_short_segments_never_leave_the_window_below_three_target_durations():
    window = LiveWindow(size=3, target_duration=2)
    for _ in range(3):
        window.append(segment(window))
    window.append(segment(window, duration=0.5))
    assert window.duration - window.segments[0].duration < 6
    assert len(window.segments) == 4  # dropping the head would leave 4.5 s, under 3 x 2 s


def test_the_discontinuity_sequence_grows_when_a_discontinuity_slides_out():
    window = LiveWindow(size=3, target_duration=2)
    window.append(segment(window))
    window.append(segment(window, discontinuity=True))
    for _ in range(2):
        window.append(segment(window))
    assert window.discontinuity_sequence == 0  # the marked segment is still listed
    window.append(segment(window))
    assert window.discontinuity_sequence == 1


def test_a_gap_in_sequence_numbers_or_an_overlong_segment_is_refused():
    window = LiveWindow(size=3, target_duration=2)
    window.append(segment(window))
    with pytest.raises(ValueError, match="does not follow"):
        window.append(Segment(5, "seg_5.ts", 2.0, START))
    with pytest.raises(ValueError, match="exceeds the target"):
        window.append(segment(window, duration=2.6))


def test_a_window_shorter_than_three_target_durations_is_refused():
    with pytest.raises(ValueError, match="three target durations"):
        LiveWindow(size=2, target_duration=2)


def test_the_live_playlist_parses_with_every_rule_a_player_needs():
    window = LiveWindow(size=6, target_duration=2, media_sequence=40, discontinuity_sequence=3)
    window.append(segment(window))
    window.append(segment(window, discontinuity=True))
    parsed = strictly_parsed(render_live_playlist(window))
    assert parsed.target_duration == 2
    assert parsed.media_sequence == 40
    assert parsed.discontinuity_sequence == 3
    assert parsed.is_endlist is False
    assert parsed.playlist_type is None  # a live playlist has none (RFC 8216 6.2.2)
    assert parsed.is_independent_segments
    assert [s.uri for s in parsed.segments] == ["seg_00000040.ts", "seg_00000041.ts"]
    assert [s.discontinuity for s in parsed.segments] == [False, True]
    assert parsed.segments[1].current_program_date_time == START + timedelta(seconds=82)


def test_the_vod_playlist_of_an_archived_clip_ends():
    text = render_vod_playlist([("a.ts", 2.0), ("b.ts", 2.0)])
    parsed = strictly_parsed(text)
    assert parsed.playlist_type == "vod"
    assert parsed.is_endlist
    assert parsed.target_duration == 2
    assert sum(s.duration for s in parsed.segments) == 4.0
    with pytest.raises(ValueError):
        render_vod_playlist([])


def test_a_restarted_broadcaster_resumes_the_same_playlist(tmp_path):
    window = LiveWindow(size=6, target_duration=2, media_sequence=100, discontinuity_sequence=2)
    for _ in range(4):
        seg = segment(window, discontinuity=window.next_sequence == 101)
        (tmp_path / seg.uri).write_bytes(b"ts")
        window.append(seg)
    (tmp_path / "seg_00000100.ts").unlink()  # its head segment was already deleted
    write_atomically(tmp_path / "live.m3u8", render_live_playlist(window))

    resumed = resume_window(tmp_path / "live.m3u8", size=6, target_duration=2)
    assert resumed.media_sequence == 101
    assert resumed.discontinuity_sequence == 2
    assert [s.sequence for s in resumed.segments] == [101, 102, 103]
    assert resumed.segments[0].discontinuity
    assert resumed.next_sequence == 104


def test_without_a_playlist_a_broadcaster_starts_at_zero(tmp_path):
    window = resume_window(tmp_path / "live.m3u8", size=6, target_duration=2)
    assert (window.media_sequence, window.discontinuity_sequence, len(window.segments)) == (0, 0, 0)


def test_a_playlist_is_replaced_atomically(tmp_path):
    path = tmp_path / "live.m3u8"
    write_atomically(path, "old")
    write_atomically(path, "new")
    assert path.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["live.m3u8"]
