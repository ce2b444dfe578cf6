"""The caches on the real tiny LTX pipeline: exact where promised, really skipping work where claimed."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from unittest import mock

import numpy as np
import pytest
from diffusers.hooks import TaylorSeerCacheConfig

from benchmarks.instruments import psnr
from generation import step_cache
from generation.embeddings import PromptEmbeddingCache
from generation.presets import get_preset
from generation.renderer import CacheSettings, Renderer
from generation.step_cache import StepCacheError, enable_step_cache, hooked_modules
from tests.helpers.generation import NO_CACHES, request
from tests.helpers.processes import ROOT, subprocess_env


def test_the_tiny_pipeline_builds_and_renders_with_the_hub_offline():
    script = (
        "import torch; from generation.presets.tiny import build; pipe = build(); "
        "out = pipe(prompt='x', width=64, height=64, num_frames=9, num_inference_steps=2, "
        "guidance_scale=1.0, max_sequence_length=16, output_type='latent').frames; print(tuple(out.shape))"
    )
    env = subprocess_env(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_HOME=str(ROOT / "var" / "no-hub"))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("(1, 8, 2, 2, 2)")


def count_calls(modules) -> list[int]:  # type: ignore[no-untyped-def]
    calls = [0]

    def hook(*_):  # type: ignore[no-untyped-def]
        calls[0] += 1

    for module in modules:
        module.register_forward_hook(hook)
    return calls


def test_the_text_kv_cache_changes_nothing_in_the_output(make_renderer):
    plain = make_renderer(NO_CACHES).render(request())
    cached = make_renderer(CacheSettings(embeddings=0, text_kv=True, step="none")).render(request())
    assert np.array_equal(plain.frames, cached.frames)


def test_the_text_kv_cache_projects_keys_and_values_once_per_block_per_clip(make_renderer):
    plain = make_renderer(NO_CACHES)
    cached = make_renderer(CacheSettings(embeddings=0, text_kv=True, step="none"))
    blocks = plain.pipe.transformer.transformer_blocks
    plain_calls = count_calls(block.attn2.to_k for block in blocks)
    cached_calls = count_calls(block.attn2.to_k for block in cached.pipe.transformer.transformer_blocks)

    plain.render(request())
    result = cached.render(request())
    cached.render(request(prompt="another prompt entirely"))

    steps = result.cache_stats["steps"]
    assert plain_calls[0] == steps * len(blocks)
    assert cached_calls[0] == 2 * len(blocks)  # two clips: once per block each
    assert result.cache_stats["kv_projected"] == len(blocks)
    assert result.cache_stats["kv_reused"] == (steps - 1) * len(blocks)


@pytest.mark.parametrize("name", ["fbc", "pab", "taylorseer"])
def test_each_step_cache_really_skips_transformer_work_and_stays_close(make_renderer, name):
    plain = make_renderer(NO_CACHES).render(request())
    cached = make_renderer(CacheSettings(embeddings=0, text_kv=False, step=name)).render(request())
    stats = cached.cache_stats
    assert stats["step_cache_modules"] > 0
    assert stats["self_attention_computed"] < stats["self_attention_full"]
    assert plain.cache_stats["self_attention_computed"] == plain.cache_stats["self_attention_full"]
    assert psnr(plain.frames, cached.frames) > 30


def test_taylorseer_with_the_library_defaults_hooks_nothing_on_ltx(make_renderer):
    transformer = make_renderer().pipe.transformer
    transformer.enable_cache(TaylorSeerCacheConfig())
    assert hooked_modules(transformer) == 0  # the silent no-op the LTX-specific identifiers avoid


def test_a_step_cache_that_would_hook_nothing_is_refused(make_renderer, monkeypatch):
    transformer = make_renderer().pipe.transformer
    monkeypatch.setattr(step_cache, "LTX_CACHED_MODULES", r"no_such_module\.\d+")
    with pytest.raises(StepCacheError, match="matched no module"):
        enable_step_cache(transformer, "taylorseer", lambda: 0, 0.1)
    assert not transformer.is_cache_enabled


def test_the_text_encoder_runs_once_per_prompt_and_reads_the_viewers_own_words(make_renderer):
    pipe = make_renderer().pipe
    encodes = count_calls([pipe.text_encoder])
    cache = PromptEmbeddingCache(pipe, capacity=2, max_sequence_length=16)
    with mock.patch.object(pipe, "encode_prompt", autospec=True, side_effect=pipe.encode_prompt) as encode:
        first = cache.get("A Red Fox")
        again = cache.get("A Red Fox")
        assert encodes[0] == 1 and again is first
        assert encode.call_args.kwargs["prompt"] == "A Red Fox"  # as written, not the gate's lower case
        cache.get("a red fox")  # another text, which the encoder reads differently
        cache.get("a whale")  # evicts the least recently used: "A Red Fox"
        cache.get("A Red Fox")
    assert encodes[0] == 4
    assert cache.stats.hits == 1 and cache.stats.misses == 4

    cache.negative("")
    cache.negative("")
    assert encodes[0] == 5


def test_the_embedding_cache_changes_nothing_in_the_output(make_renderer):
    renderer = make_renderer(CacheSettings(embeddings=8, text_kv=False, step="none"))
    miss = renderer.render(request())
    hit = renderer.render(request())
    assert not miss.cache_stats["embedding_hit"] and hit.cache_stats["embedding_hit"]
    assert np.array_equal(miss.frames, hit.frames)


def test_with_guidance_the_negative_prompt_is_encoded_once_and_the_kv_cache_stays_exact():
    preset = dataclasses.replace(get_preset("tiny"), guidance_scale=3.0, negative_prompt="blurry")
    plain = Renderer(preset, preset.build(), NO_CACHES)
    cached = Renderer(preset, preset.build(), CacheSettings(embeddings=8, text_kv=True, step="none"))
    encodes = count_calls([cached.pipe.text_encoder])

    expected = plain.render(request()).frames
    first = cached.render(request())
    second = cached.render(request(prompt="a different prompt"))

    assert encodes[0] == 3  # the negative once, then each prompt once
    assert np.array_equal(first.frames, expected)
    assert second.cache_stats["kv_projected"] == len(cached.pipe.transformer.transformer_blocks)


def test_a_transformer_compiled_block_by_block_renders_again_without_recompiling(monkeypatch):
    # The GPU benchmark's compile row. Past dynamo's limit of 8 variants of a function (a guard on each
    # block's number, say) the blocks silently run uncompiled; a guard on a value that changes every render
    # recompiles every render. The eager backend traces as the real one does, without its compile time.
    import torch

    monkeypatch.setattr(torch._dynamo.config, "fail_on_recompile_limit_hit", True)
    torch._dynamo.reset()
    preset = get_preset("tiny")
    pipe = preset.build()
    pipe.transformer.compile_repeated_blocks(backend="eager")
    renderer = Renderer(preset, pipe, CacheSettings())
    try:
        first = renderer.render(request(seed=1)).cache_stats
        monkeypatch.setattr(torch._dynamo.config, "error_on_recompile", True)
        again = renderer.render(request(seed=2)).cache_stats
    finally:
        torch._dynamo.reset()
    assert again["self_attention_computed"] == first["self_attention_computed"] > 0
    assert again["kv_projected"] == first["kv_projected"] == len(pipe.transformer.transformer_blocks)
