"""The next clip's lead encoded ahead (generation/lead_cache.py): the render finds it; it changes nothing."""

from __future__ import annotations

import numpy as np
import torch

from generation.lead_cache import LeadEncodingCache
from generation.model_folder import render_facts
from generation.presets import get_preset
from generation.renderer import CacheSettings, Renderer, RenderRequest
from tests.helpers.generation import FPS, SIZE, request

LEAD = 9


class CountingVAE:
    def __init__(self) -> None:
        self.calls = 0

    def encode(self, video: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return video * 2


def test_the_same_frames_are_encoded_once_and_other_frames_again():
    vae = CountingVAE()
    leads = LeadEncodingCache(vae)
    video = torch.rand(1, 3, 9, 8, 8)
    first = vae.encode(video)
    assert vae.encode(video.clone()) is first and vae.calls == 1  # equal frames: the kept output
    nudged = video.clone()
    nudged[0, 0, 8, 7, 7] += 1e-6
    assert vae.encode(nudged) is not first and vae.calls == 2  # one value off: encoded again
    assert (leads.stats.hits, leads.stats.misses) == (1, 2)
    leads.remove()
    vae.encode(nudged)
    assert vae.calls == 3 and leads.stats.hits == 1  # the VAE's own encode is back


def test_a_lead_encoded_ahead_gives_the_shipped_model_the_same_clip_a_cold_encode_gives():
    # The shipped VAE's encoding is a distribution the pipeline samples with the render's generator.
    facts, preset = render_facts(), get_preset("world")
    renderer = Renderer(preset, preset.build(), CacheSettings())
    ask = {"seed": 3, "width": facts.width, "height": facts.height, "fps": facts.fps, "num_frames": 16}
    previous = renderer.render(RenderRequest("a kitten bouncing in the snow", **ask)).frames
    assert previous is not None
    following = RenderRequest(
        "a rocket rising in space", **{**ask, "seed": 4}, condition=previous, condition_lead=LEAD
    )
    cold = renderer.render(following)
    assert renderer.prepare_continuation(previous, facts.fps, facts.width, facts.height, LEAD)
    warm = renderer.render(following)
    assert not cold.cache_stats["lead_encoded_ahead"] and warm.cache_stats["lead_encoded_ahead"]
    assert warm.frames is not None and np.array_equal(warm.frames, cold.frames)


def test_a_clip_from_frames_this_worker_did_not_make_encodes_them_as_it_starts(make_renderer):
    renderer = make_renderer(CacheSettings(lead=True))
    mine = renderer.render(request(prompt="a lighthouse", seed=1)).frames
    theirs = renderer.render(request(prompt="a whale", seed=2)).frames
    assert renderer.prepare_continuation(mine, FPS, SIZE, SIZE, LEAD)
    result = renderer.render(request(seed=5, condition=theirs[-LEAD:], condition_lead=LEAD))
    plain = make_renderer(CacheSettings(lead=False))
    expected = plain.render(request(seed=5, condition=theirs[-LEAD:], condition_lead=LEAD))
    assert not result.cache_stats["lead_encoded_ahead"]
    assert np.array_equal(result.frames, expected.frames)
    assert not plain.prepare_continuation(mine, FPS, SIZE, SIZE, LEAD)  # switched off: nothing encoded
