"""One real broadcast watched from every side: a player over HTTP, playlist reloads, ffprobe, events.

Clips last 4 s here (two segments) so a clip boundary, a failed clip, a filler gap and a clip that becomes
ready during filler all fit in the 30 s a real ffmpeg client reads the live URL.
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pytest

from streaming.publisher import live_window_segments
from tests.helpers.observers import (
    Decoded,
    EventTap,
    PlaylistReloads,
    check_playlist_rules,
    decode,
    packets,
    serving,
    stream_parameters,
)
from tests.helpers.streaming import (
    FPS,
    SEGMENT,
    OnAir,
    http_get,
    make_clip,
    start_broadcaster,
    write_frames,
)
from yolive.clips.models import Clip
from yolive.plumbing import metrics
from yolive.voting.models import Prompt, Round

# The database is set up for the module's one broadcast; tests read what the fixture saved of it.
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
CLIP_SECONDS = 4
CLIENT_SECONDS = 30


@dataclass
class Scenario:
    on_air: OnAir
    clips: dict[str, Clip]
    client: Decoded
    archive: Decoded
    reloads: PlaylistReloads
    tap: EventTap
    late_ready_after: int  # segments listed when the late clip became ready
    removed_still_served: dict[str, int] = field(default_factory=dict)
    recorded: dict[str, float] = field(default_factory=dict)  # what the broadcast added to the metrics


AIRTIME_SAMPLES = ("yolive_filler_seconds_total", "yolive_clip_lateness_seconds_count")
AIRTIME_SAMPLES += ("yolive_clip_lateness_seconds_sum",)


def airtime_metrics() -> dict[str, float]:
    return {name: metrics.REGISTRY.get_sample_value(name) or 0.0 for name in AIRTIME_SAMPLES}


def kept_late_segments(on_air: OnAir, base: str) -> dict[str, int]:
    """Segments that left the playlist within the last 10 s must still be served (RFC 8216 6.2.2)."""
    listed = {s.uri for s in on_air.broadcaster.publisher.window.segments}
    recent = [s.uri for s in on_air.segments[-(live_window_segments(SEGMENT) + 5) :] if s.uri not in listed]
    return {uri: http_get(f"{base}/hls/{uri}")[0] for uri in recent}


@pytest.fixture(scope="module")
def scenario(django_db_setup, django_db_blocker, tmp_path_factory):  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("live")
    clips_dir = tmp / "clips"
    with django_db_blocker.unblock():
        clips = {
            "short": make_clip(clips_dir, 1, frames=CLIP_SECONDS * FPS - 6),
            "broken": make_clip(clips_dir, 2),
            "long": make_clip(clips_dir, 3, frames=CLIP_SECONDS * FPS + 5),
            "late": make_clip(clips_dir, 4, status=Clip.Status.RENDERING),
        }
        broken_frames = clips_dir / "broken.npy"
        np.save(broken_frames, np.zeros((10, 64, 64, 3), dtype=np.uint8))
        Clip.objects.filter(id=clips["broken"].id).update(status=Clip.Status.READY, frames_path=broken_frames)
        Clip.objects.filter(id=clips["late"].id).update(progress=0.4)
        tap = EventTap()
        tap.start()
        assert tap.listening.wait(10)
        metrics_before = airtime_metrics()
        with serving(tmp / "hls") as base, ThreadPoolExecutor(1) as pool:
            on_air = start_broadcaster(tmp, clip_seconds=CLIP_SECONDS)
            try:
                on_air.wait_for(lambda: on_air.segments, 30, "the first segment")
                reloads = PlaylistReloads(f"{base}/hls/live.m3u8")
                reloads.start()
                client = pool.submit(decode, f"{base}/hls/live.m3u8", CLIENT_SECONDS)
                on_air.wait_for(lambda: len(on_air.segments) >= 7, 40, "filler after the ready clips")
                late_ready_after = len(on_air.segments)
                write_frames(clips["late"], clips_dir, CLIP_SECONDS * FPS)
                decoded = client.result(timeout=120)
                removed_still_served = kept_late_segments(on_air, base)
                archive = decode(f"{base}/hls/archive/{clips['short'].id}/index.m3u8")
                reloads.stop()
            finally:
                on_air.finish()

        # The announcements drained at shutdown reach the tap over pub/sub a moment later (on a busy machine,
        # more than a second), and the last status change may land in the database after the drain began:
        # wait until no clip is on air any more and the tap heard every clip the database calls aired.
        def settled() -> bool:
            ids = [c.id for c in clips.values()]
            statuses = dict(Clip.objects.filter(id__in=ids).values_list("id", "status"))
            aired = {i for i, status in statuses.items() if status == Clip.Status.AIRED}
            return Clip.Status.ON_AIR not in statuses.values() and aired <= tap.clips_heard("aired")

        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not settled():
            time.sleep(0.1)
        tap.stop()
        after = {
            name: Clip.objects.select_related("round", "prompt").get(id=c.id) for name, c in clips.items()
        }
        recorded = {name: value - metrics_before[name] for name, value in airtime_metrics().items()}
        yield Scenario(
            on_air, after, decoded, archive, reloads, tap, late_ready_after, removed_still_served, recorded
        )
        Clip.objects.all().delete()
        Prompt.objects.all().delete()
        Round.objects.all().delete()


def test_a_player_reads_the_live_url_for_30_s_through_a_clip_boundary_and_filler(scenario):
    client = scenario.client
    assert client.returncode == 0, client.errors
    assert client.errors == ""
    assert len(client.pts) >= CLIENT_SECONDS * FPS - 1
    steps = set(np.diff(client.pts).tolist())
    assert len(steps) == 1 and steps.pop() > 0, "decoded frames skipped or repeated a timestamp"
    kinds = [s.clip_id for s in scenario.on_air.segments]
    assert None in kinds and scenario.clips["late"].id in kinds  # filler and a clip after it were read


def test_the_playlist_keeps_rfc_8216_rules_over_many_reloads(scenario):
    texts = [text for _, text in scenario.reloads.texts]
    assert len(texts) >= 20
    assert scenario.reloads.failures == []
    assert check_playlist_rules(texts, SEGMENT) == 0  # one ffmpeg throughout: no discontinuity ever
    assert max(len(t.split("#EXTINF")) - 1 for t in texts) == live_window_segments(SEGMENT)


def test_removed_segments_are_still_served_for_their_duration_plus_the_playlists(scenario):
    assert scenario.removed_still_served
    assert set(scenario.removed_still_served.values()) == {200}


def full_segments(scenario: Scenario) -> list:  # type: ignore[type-arg]
    # The last one may be the short tail written when the broadcaster stopped.
    return [s for s in scenario.on_air.segments if s.duration == SEGMENT]


def test_every_segment_starts_with_a_keyframe_and_keeps_the_same_parameters(scenario):
    segments = full_segments(scenario)
    assert len(segments) >= 14
    parameters = [stream_parameters(scenario.on_air.kept_dir / s.uri) for s in segments]
    assert all(p == parameters[0] for p in parameters)
    assert parameters[0]["codec_name"] == "h264" and parameters[0]["pix_fmt"] == "yuv420p"
    assert (parameters[0]["width"], parameters[0]["height"], parameters[0]["r_frame_rate"]) == (
        512,
        288,
        "24/1",
    )
    for segment in segments:
        frames = packets(scenario.on_air.kept_dir / segment.uri)
        assert frames[0].keyframe, f"{segment.uri} does not start with a keyframe"
        assert sum(p.keyframe for p in frames) == 1
        assert len(frames) == SEGMENT * FPS


def test_timestamps_run_on_across_clip_boundaries_and_filler(scenario):
    segments = full_segments(scenario)
    joins = {(a.clip_id is None, b.clip_id is None) for a, b in itertools.pairwise(segments)}
    assert {(False, True), (True, False)} <= joins  # clip to filler and filler to clip
    clip_ids = [(a.clip_id, b.clip_id) for a, b in itertools.pairwise(segments)]
    assert any(a != b and None not in (a, b) for a, b in clip_ids)  # clip to clip
    previous = None
    for segment in segments:
        frames = packets(scenario.on_air.kept_dir / segment.uri)
        dts = [p.dts for p in frames]
        assert dts == sorted(dts)
        if previous is not None:
            assert frames[0].pts == pytest.approx(previous.pts + 1 / FPS, abs=0.002), (
                f"a jump at {segment.uri}"
            )
            assert frames[0].dts > previous.dts
        previous = frames[-1]


def test_ready_clips_air_in_round_order_and_filler_covers_the_gap(scenario):
    clips = scenario.clips
    order = [s.clip_id for s in full_segments(scenario)]
    per_clip = CLIP_SECONDS // SEGMENT
    expected_start = [clips["short"].id] * per_clip + [clips["long"].id] * per_clip
    assert order[: 2 * per_clip] == expected_start
    assert order[2 * per_clip] is None
    first_late = order.index(clips["late"].id)
    assert order[first_late : first_late + per_clip] == [clips["late"].id] * per_clip
    assert set(order[2 * per_clip : first_late]) == {None}
    # Ready during filler: it starts at the next segment boundary (one more if the poll just missed it).
    assert first_late <= scenario.late_ready_after + 2


def test_filler_seconds_and_how_late_each_clip_started_are_counted(scenario):
    order = [s.clip_id for s in scenario.on_air.segments]
    first_late = order.index(scenario.clips["late"].id)
    filler = sum(s.duration for s in scenario.on_air.segments if s.clip_id is None)
    assert scenario.recorded["yolive_filler_seconds_total"] == pytest.approx(filler)
    # Three clips started: two back to back, then the late one after the filler that covered for it.
    assert scenario.recorded["yolive_clip_lateness_seconds_count"] == 3
    assert scenario.recorded["yolive_clip_lateness_seconds_sum"] == SEGMENT * order[:first_late].count(None)


def test_a_clip_whose_frames_cannot_air_is_marked_failed_and_skipped_over(scenario):
    broken = scenario.clips["broken"]
    assert broken.status == Clip.Status.FAILED
    assert "the stream needs" in broken.error
    assert broken.id not in {s.clip_id for s in scenario.on_air.segments}


def test_viewers_hear_of_a_clip_when_it_reaches_them_and_its_status_follows(scenario):
    on_air, tap = scenario.on_air, scenario.tap
    for name in ("short", "long", "late"):
        clip = scenario.clips[name]
        assert clip.status == Clip.Status.AIRED
        assert clip.aired_at is not None and clip.finished_at is not None and clip.finished_at > clip.aired_at
        [(heard_at, now_playing)] = tap.of("now_playing", clip.id)
        assert now_playing == {
            "type": "now_playing",
            "clip_id": clip.id,
            "round_number": clip.round.number,
            "prompt": clip.prompt.text,
            "at": now_playing["at"],
        }
        first = on_air.clip_segments(clip.id)[0]
        # A player holds three target durations behind the edge: the clip is not on screen before then.
        assert (
            heard_at - on_air.listed_at[first.sequence] >= on_air.broadcaster.publisher.viewer_delay_s - 0.5
        )
        statuses = [e["status"] for _, e in tap.of("clip", clip.id)]
        assert statuses == ["on_air", "aired"]
        assert all(e["prompt"] == clip.prompt.text for _, e in tap.of("clip", clip.id))


def test_an_aired_clip_is_archived_and_plays_from_the_archive(scenario):
    clip = scenario.clips["short"]
    assert clip.archive_path == f"archive/{clip.id}/index.m3u8"
    assert scenario.archive.returncode == 0, scenario.archive.errors
    assert scenario.archive.errors == ""
    assert len(scenario.archive.pts) == CLIP_SECONDS * FPS  # a short clip is padded to its slot
    index = (scenario.on_air.hls_dir / clip.archive_path).read_text()
    assert "#EXT-X-ENDLIST" in index and "#EXT-X-PLAYLIST-TYPE:VOD" in index
