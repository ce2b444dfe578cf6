"""Continuity: the picture change at a clip boundary against the change between frames inside a clip,
with the worker's continuity on (each clip conditioned on the previous clip's last frames) and off."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lab.training.architecture import LEAD_FRAMES
from lab.world.captions import scene_for

CONTINUITY_PAIRS = (
    ("a cat bouncing in the snow", "a dog spinning in the snow"),
    ("a rocket rising in space", "a robot moving left in space"),
    ("a whale swimming right in the sea", "an octopus going down in the ocean"),
    ("a frog hopping in the forest", "a fox moving right through the woods"),
    ("a car driving left in the city", "a balloon rising over the city"),
    ("a crab moving right on the beach", "a turtle spinning on the beach"),
    ("a cat bouncing in the snow", "a rocket rising in space"),
    ("a whale swimming right in the sea", "a car driving left in the city"),
    ("a frog hopping in the forest", "a ghost spinning at night"),
    ("a crab moving right on the beach", "a bee flying up in the sky"),
    ("a robot moving left in space", "a pig shrinking in the desert"),
    ("a penguin bouncing in the snow", "a butterfly growing in the forest"),
)


def continuity(stream_width: int = 512, stream_height: int = 288, fps: int = 24) -> Iterator[str]:
    """The table's lines: mean boundary and inside-clip change by kind of pair, continuity on and off."""
    from generation.presets import get_preset
    from generation.renderer import CacheSettings, Renderer, RenderRequest

    preset = get_preset("world")
    renderer = Renderer(preset, preset.build(), CacheSettings())
    lead = LEAD_FRAMES
    results: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    for first, second in CONTINUITY_PAIRS:
        kind = (
            "same setting"
            if scene_for(first, 0).setting == scene_for(second, 0).setting
            else "setting changes"
        )
        before = renderer.render(RenderRequest(first, 1, stream_width, stream_height, fps, 10 * fps)).frames
        assert before is not None
        tail = before[-renderer.condition_frames(fps, lead) :]
        for on in (True, False):
            request = RenderRequest(second, 2, stream_width, stream_height, fps, 10 * fps)
            if on:
                request.condition, request.condition_lead = tail, lead
            after = renderer.render(request).frames
            assert after is not None
            boundary = float(np.abs(after[0].astype(np.int16) - before[-1]).mean())
            inside = float(np.abs(np.diff(after.astype(np.int16), axis=0)).mean())
            results.setdefault((kind, on), []).append((boundary, inside))
    yield "| pair of prompts | continuity | boundary change | change inside a clip | ratio |"
    yield "| --- | --- | --- | --- | --- |"
    for (kind, on), rows in results.items():
        at_cut, within = float(np.mean([r[0] for r in rows])), float(np.mean([r[1] for r in rows]))
        state = "on" if on else "off"
        yield f"| {kind} (n={len(rows)}) | {state} | {at_cut:.1f} | {within:.2f} | {at_cut / within:.1f}x |"
