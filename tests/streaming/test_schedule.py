"""What airs when: the schedule is fed snapshots of the clips, no database or ffmpeg involved."""

import threading

import numpy as np

from streaming import airing
from streaming.schedule import WAIT_LIMIT_SLOTS, Schedule, Slot
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


# A clip on air while it renders (AIR_WHILE_RENDERING): the snapshot says how much of it is made.

PER_SLOT = SPEC.frames_per_segment


def rendering_clip(tmp_path, clip_id: int, made: int, hue: int = 0) -> airing.ReadyClip:
    """A clip whose file holds all its frames, of which the snapshot says `made` are made."""
    path = tmp_path / f"clip-{clip_id}-{hue}.npy"
    np.save(path, moving_gradient(CLIP_SLOTS * PER_SLOT, hue=hue))
    return airing.ReadyClip(clip_id, clip_id, f"part {clip_id}", str(path), made)


def making(clip: airing.ReadyClip, made: int, more: bool = True, path: str = "") -> airing.Snapshot:
    progress = airing.Making(path or clip.frames_path, made, more)
    return airing.Snapshot(watched=frozenset({clip.id}), making={clip.id: progress})


def test_a_clip_airs_while_it_renders_each_slot_once_its_frames_are_made_with_filler_while_it_lags(tmp_path):
    clip = rendering_clip(tmp_path, 1, made=PER_SLOT)
    schedule = a_schedule()
    first = schedule.next_slot(airing.Snapshot(ready=[clip]))
    # The look after it went on air had not yet been asked about it: what it was started with holds.
    waiting = schedule.next_slot(airing.Snapshot(ready=[clip]))
    still = schedule.next_slot(making(clip, PER_SLOT + 1))
    second = schedule.next_slot(making(clip, 2 * PER_SLOT))
    after = schedule.next_slot(airing.Snapshot(watched=frozenset({1})))  # whole now, and aired
    assert [aired(s) for s in (first, waiting, still, second, after)] == [
        (1, 0),
        (None, 0),
        (None, 0),
        (1, 1),
        (None, 0),
    ]
    assert waiting.slots_left == 2  # the filler, then the clip's last slot
    assert cues(first) == [(lifecycle.put_on_air, 1)] and cues(after) == [
        (lifecycle.finish_airing, 1, "aired")
    ]
    frames = np.load(clip.frames_path)
    assert np.array_equal(second.frame(0, PER_SLOT), frames[PER_SLOT])
    assert first.clip is not None and not first.clip.skipped  # kept for replay


def test_a_clip_whose_render_stopped_ends_where_its_frames_end_and_is_not_kept(tmp_path):
    clip = rendering_clip(tmp_path, 1, made=PER_SLOT)
    schedule = a_schedule()
    first = schedule.next_slot(airing.Snapshot(ready=[clip]))
    after = schedule.next_slot(making(clip, PER_SLOT + 5, more=False))
    assert aired(after) == (None, 0)
    assert cues(after) == [(lifecycle.finish_airing, 1, "aired")]
    assert first.clip is not None and first.clip.skipped  # half a clip is no replay
    assert schedule.on_air == frozenset()


def test_a_clip_that_makes_nothing_for_the_wait_limit_ends_there(tmp_path):
    clip = rendering_clip(tmp_path, 1, made=PER_SLOT)
    schedule = a_schedule()
    schedule.next_slot(airing.Snapshot(ready=[clip]))
    waits = [schedule.next_slot(making(clip, PER_SLOT)) for _ in range(WAIT_LIMIT_SLOTS)]
    assert all(aired(s) == (None, 0) for s in waits) and schedule.on_air == frozenset({1})
    ended = schedule.next_slot(making(clip, PER_SLOT))
    assert cues(ended) == [(lifecycle.finish_airing, 1, "aired")] and schedule.on_air == frozenset()


def test_a_render_started_again_elsewhere_is_followed_into_its_new_file(tmp_path):
    clip = rendering_clip(tmp_path, 1, made=PER_SLOT, hue=0)
    again = rendering_clip(tmp_path, 1, made=0, hue=200)  # a new worker's file for the same clip
    schedule = a_schedule()
    schedule.next_slot(airing.Snapshot(ready=[clip]))
    slot = schedule.next_slot(making(clip, 2 * PER_SLOT, path=again.frames_path))
    assert aired(slot) == (1, 1)
    assert slot.frame(0, PER_SLOT)[0, 0, 2] == 200


def test_a_rendering_clip_whose_file_moved_since_the_look_waits_for_the_next_look(tmp_path):
    gone = airing.ReadyClip(1, 1, "part 1", str(tmp_path / "renamed-whole-since.npy"), PER_SLOT)
    schedule = a_schedule()
    slot = schedule.next_slot(airing.Snapshot(ready=[gone]))
    assert aired(slot) == (None, 0) and schedule.announcer.pending() == 0  # not failed
    whole = ready_clip(tmp_path, 1)
    assert aired(schedule.next_slot(airing.Snapshot(ready=[whole]))) == (1, 0)
