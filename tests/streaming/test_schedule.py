"""What airs when: the schedule is fed snapshots of the clips, no database or ffmpeg involved."""

import threading

import numpy as np

from streaming import airing
from streaming.schedule import Schedule, Slot
from tests.helpers.streaming import HEIGHT, SPEC, WIDTH, moving_gradient
from yolive.clips import lifecycle

CLIP_SLOTS = 2


def ready_clip(tmp_path, clip_id: int, frames: np.ndarray | None = None) -> airing.ReadyClip:
    path = tmp_path / f"clip-{clip_id}.npy"
    np.save(path, moving_gradient(3, hue=clip_id * 70) if frames is None else frames)
    return airing.ReadyClip(clip_id, clip_id, f"part {clip_id}", str(path))


def a_schedule() -> Schedule:
    return Schedule(SPEC, CLIP_SLOTS, airing.Announcer(threading.Event()), show_captions=False)


def aired(slot: Slot) -> tuple[int | None, int]:
    return (slot.clip.info.id if slot.clip else None, slot.index)


def cues(slot: Slot) -> list[tuple[object, ...]]:
    return [(cue.func, *cue.args) for cue in slot.cues]  # type: ignore[attr-defined]


def test_ready_clips_air_whole_in_round_order_each_once_then_filler(tmp_path):
    first, second = ready_clip(tmp_path, 1), ready_clip(tmp_path, 2)
    schedule = a_schedule()
    snapshot = airing.Snapshot(ready=[first, second])  # still listed as ready: the database is slow
    slots = [schedule.next_slot(snapshot) for _ in range(6)]
    assert [aired(s) for s in slots] == [(1, 0), (1, 1), (2, 0), (2, 1), (None, 0), (None, 0)]
    assert cues(slots[0]) == [(lifecycle.put_on_air, 1)]
    assert cues(slots[2]) == [(lifecycle.finish_airing, 1, "aired"), (lifecycle.put_on_air, 2)]
    assert cues(slots[4]) == [(lifecycle.finish_airing, 2, "aired")]
    assert cues(slots[5]) == []
    assert schedule.on_air == frozenset()


def test_a_moderators_skip_cuts_the_clip_on_air_at_the_next_slot(tmp_path):
    clip = ready_clip(tmp_path, 1)
    schedule = a_schedule()
    opening = schedule.next_slot(airing.Snapshot(ready=[clip]))
    assert schedule.on_air == frozenset({1})
    after = schedule.next_slot(airing.Snapshot(ready=[clip], skip_requested=frozenset({1})))
    assert aired(after) == (None, 0)
    assert cues(after) == [(lifecycle.finish_airing, 1, "skipped")]
    assert opening.clip is not None and opening.clip.skipped  # so the archive does not keep it
    assert schedule.on_air == frozenset()


def test_slots_handed_back_go_out_again_in_order_before_anything_new(tmp_path):
    first, second = ready_clip(tmp_path, 1), ready_clip(tmp_path, 2)
    schedule = a_schedule()
    snapshot = airing.Snapshot(ready=[first, second])
    unfinished = [schedule.next_slot(snapshot) for _ in range(2)]
    schedule.replay(unfinished)
    again = [schedule.next_slot(snapshot) for _ in range(3)]
    assert again[:2] == unfinished
    assert aired(again[2]) == (2, 0)


def test_a_clip_whose_frames_cannot_air_is_announced_failed_and_the_next_airs(tmp_path):
    broken = ready_clip(tmp_path, 1, frames=np.zeros((3, 10, 10, 3), dtype=np.uint8))
    schedule = a_schedule()
    slot = schedule.next_slot(airing.Snapshot(ready=[broken, ready_clip(tmp_path, 2)]))
    assert aired(slot) == (2, 0)
    assert schedule.announcer.pending() == 1  # mark_failed, at once


def test_the_slate_is_drawn_again_over_a_clip_that_just_ended(tmp_path):
    bright = ready_clip(tmp_path, 1, frames=np.full((3, HEIGHT, WIDTH, 3), 240, dtype=np.uint8))
    schedule = a_schedule()
    before = schedule.next_slot(airing.Snapshot()).frame(0, SPEC.frames_per_segment).copy()
    for _ in range(CLIP_SLOTS):
        schedule.next_slot(airing.Snapshot(ready=[bright]))
    after = schedule.next_slot(airing.Snapshot()).frame(0, SPEC.frames_per_segment)  # same slate text
    assert (after != before).any()
    assert after[5, 5].tolist() == [80, 80, 80]  # the clip's last frame, dimmed to a third


def test_a_slot_says_how_many_slots_until_the_schedule_next_asks_for_a_clip(tmp_path):
    schedule = a_schedule()
    first = schedule.next_slot(airing.Snapshot(ready=[ready_clip(tmp_path, 1)]))
    second = schedule.next_slot(airing.Snapshot())
    filler = schedule.next_slot(airing.Snapshot())
    assert [first.slots_left, second.slots_left, filler.slots_left] == [CLIP_SLOTS, 1, 1]
