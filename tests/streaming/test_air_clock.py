"""The broadcaster tells the conductor when the air is next free for a clip (yolive/plumbing/air_clock.py)."""

from __future__ import annotations

import time

import pytest

from tests.helpers.streaming import FPS, SEGMENT, make_clip, start_broadcaster
from yolive.plumbing import air_clock

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
CLIP_SECONDS = 4


def test_while_a_clip_airs_the_air_is_free_when_it_ends_and_while_filler_airs_at_the_next_slot(tmp_path):
    clip = make_clip(tmp_path / "clips", 1, frames=CLIP_SECONDS * FPS)
    on_air = start_broadcaster(tmp_path, clip_seconds=CLIP_SECONDS)
    ahead: list[tuple[bool, float]] = []  # (the clip was listed, seconds until the air is free)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(on_air.segments) < 6:
            free_at = air_clock.free_at()
            if free_at is not None:
                ahead.append((bool(on_air.clip_segments(clip.id)), free_at - time.time()))
            time.sleep(0.1)
    finally:
        on_air.finish()
    longest = max(seconds for _, seconds in ahead)
    # Only a clip's slots put the free air further off than one slot: its first slot, a whole clip.
    assert CLIP_SECONDS - SEGMENT < longest <= CLIP_SECONDS + 0.5
    after = [seconds for listed, seconds in ahead[-5:] if listed]
    assert after and max(after) <= SEGMENT + 0.5  # filler again: the next slot
