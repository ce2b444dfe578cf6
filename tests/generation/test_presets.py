"""The `ltx` preset without its weights: a clear error for a bad folder, its recipe on a real LTX VAE."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
from diffusers import AutoencoderKLLTXVideo
from django.core.exceptions import ImproperlyConfigured

from generation.presets import assemble_pipeline, get_preset, ltx, tiny
from generation.renderer import CacheSettings, Renderer
from tests.helpers.generation import FRAMES, SIZE, request
from tests.helpers.processes import ROOT, subprocess_env


def test_a_missing_model_folder_is_one_error_naming_the_setting(settings, tmp_path):
    settings.MODEL_PATH = str(tmp_path / "nowhere")
    with pytest.raises(ImproperlyConfigured, match=r"YOLIVE_MODEL_PATH=.*is not a folder"):
        ltx.build()


def test_a_folder_that_is_not_ltx_names_what_is_missing(settings, tmp_path):
    (tmp_path / "transformer").mkdir()
    settings.MODEL_PATH = str(tmp_path)
    with pytest.raises(ImproperlyConfigured, match=r"YOLIVE_MODEL_PATH=.*model_index\.json, vae"):
        ltx.build()


def test_an_unknown_preset_is_refused():
    with pytest.raises(ValueError, match="unknown model preset 'wan'"):
        get_preset("wan")


def tiny_ltx_vae() -> AutoencoderKLLTXVideo:
    # diffusers' own test-sized LTX VAE (tests/pipelines/ltx), with the distilled model's decode conditioning.
    vae = AutoencoderKLLTXVideo(
        in_channels=3,
        out_channels=3,
        latent_channels=8,
        block_out_channels=(8, 8, 8, 8),
        decoder_block_out_channels=(8, 8, 8, 8),
        layers_per_block=(1, 1, 1, 1, 1),
        decoder_layers_per_block=(1, 1, 1, 1, 1),
        spatio_temporal_scaling=(True, True, True, False),
        decoder_spatio_temporal_scaling=(True, True, True, False),
        decoder_inject_noise=(False,) * 5,
        upsample_residual=(False,) * 4,
        upsample_factor=(1, 1, 1, 1),
        timestep_conditioning=True,
        patch_size=4,
        patch_size_t=1,
    )
    vae.use_framewise_encoding = vae.use_framewise_decoding = False
    return vae.eval()


def test_the_ltx_recipe_renders_through_a_real_ltx_vae_with_continuity():
    tokenizer, text_encoder = tiny.build_text_encoder()
    pipe = assemble_pipeline(tiny.build_transformer(num_layers=2), tiny_ltx_vae(), text_encoder, tokenizer)
    preset = dataclasses.replace(ltx.PRESET, max_sequence_length=16)
    renderer = Renderer(preset, pipe, CacheSettings())

    first = renderer.render(request())
    again = renderer.render(request())
    continued = renderer.render(request(condition=first.frames[-9:]))

    assert first.frames.shape == (FRAMES, SIZE, SIZE, 3) and first.frames.dtype == np.uint8
    assert np.array_equal(first.frames, again.frames)  # the decode noise is seeded too
    assert continued.frames.shape == first.frames.shape
    assert first.cache_stats["steps"] == 8 and first.cache_stats["kv_projected"] == 2


def test_continuity_frames_that_are_not_8k_plus_1_stop_start_up_with_the_setting_named():
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=subprocess_env(GENERATION_CONTINUITY_FRAMES="4"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "GENERATION_CONTINUITY_FRAMES=4 is not 8k+1" in done.stderr
