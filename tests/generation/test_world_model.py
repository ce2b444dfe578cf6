"""The shipped default model (generation/model/): it loads offline through diffusers, and the renderer's
caches, continuity and prompt reading all run on its trained weights."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from diffusers import AutoencoderKLLTXVideo, FlowMatchEulerDiscreteScheduler, LTXVideoTransformer3DModel
from safetensors import safe_open

from generation.model_folder import MODEL_DIR, render_facts
from generation.presets import get_preset
from generation.renderer import CacheSettings, Renderer, RenderRequest

ROOT = MODEL_DIR.parents[1]
FACTS = render_facts()
FPS, HEIGHT, MAX_TOKENS, WIDTH = FACTS.fps, FACTS.height, FACTS.max_tokens, FACTS.width


@pytest.fixture
def world():
    # A pipeline per test: a renderer hooks its caches into the pipeline's transformer.
    preset = get_preset("world")
    return preset, preset.build()


def render(preset, pipe, caches: CacheSettings, **extra) -> np.ndarray:  # type: ignore[no-untyped-def]
    renderer = Renderer(preset, pipe, caches)
    ask = {"prompt": "a kitten bouncing in the snow", "seed": 3, "width": WIDTH, "height": HEIGHT, "fps": FPS}
    result = renderer.render(RenderRequest(**{**ask, "num_frames": 16, **extra}))
    assert result.frames is not None
    return result.frames


def test_the_shipped_folder_loads_with_from_pretrained_and_the_hub_offline():
    code = (
        "from diffusers import LTXConditionPipeline; "
        f"pipe = LTXConditionPipeline.from_pretrained({str(MODEL_DIR)!r}, local_files_only=True); "
        "print(type(pipe.vae).__name__, type(pipe.transformer).__name__, type(pipe.scheduler).__name__)"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == [
        AutoencoderKLLTXVideo.__name__,
        LTXVideoTransformer3DModel.__name__,
        FlowMatchEulerDiscreteScheduler.__name__,
    ]


def test_the_preset_loads_without_a_warning_in_the_workers_log():
    code = "from generation.presets.world import PRESET; PRESET.build()"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    said = [line for line in out.stderr.splitlines() if "Loading" not in line]  # the progress bars aside
    assert not [line for line in said if "Warning" in line or "accelerate" in line], said


def test_the_folder_is_fp16_and_within_40_mb_with_its_vocabulary_and_licences():
    weights = list(MODEL_DIR.rglob("*.safetensors"))
    assert {w.parent.name for w in weights} == {"vae", "transformer", "text_encoder"}
    for path in weights:
        with safe_open(str(path), "pt") as f:
            assert {str(f.get_tensor(k).dtype) for k in f.keys()} == {"torch.float16"}, path  # noqa: SIM118
    assert sum(p.stat().st_size for p in MODEL_DIR.rglob("*") if p.is_file()) <= 40 * 2**20
    assert json.loads((MODEL_DIR / "vocabulary.json").read_text())["subjects"]
    assert "Apache" in (MODEL_DIR / "LICENSES.md").read_text()


def test_a_long_prompt_is_tokenized_to_its_last_word(world):
    _, pipe = world
    words = ("the cat " * 45 + "spinning in the desert").split()  # 200 characters, past a 64-token cut
    ids = pipe.tokenizer(" ".join(words), max_length=MAX_TOKENS, truncation=True).input_ids
    assert len(ids) == len(words) + 1  # every word and the end token
    assert pipe.tokenizer.convert_ids_to_tokens(ids[-2]) == "desert"


def test_the_text_kv_cache_is_exact_on_the_trained_weights(world):
    preset, pipe = world
    plain = render(preset, pipe, CacheSettings(embeddings=0, text_kv=False, step="none"))
    cached = render(preset, preset.build(), CacheSettings(embeddings=256, text_kv=True, step="none"))
    assert np.array_equal(plain, cached)


def test_a_clip_renders_at_the_streams_rate_and_size_and_continues_the_last_one(world):
    preset, pipe = world
    renderer = Renderer(preset, pipe, CacheSettings())
    ask = {"seed": 5, "width": 256, "height": 144, "fps": 24, "num_frames": 48}
    first = renderer.render(RenderRequest("a rocket rising in space", **ask)).frames
    assert first is not None and first.shape == (48, 144, 256, 3)
    tail = first[-renderer.condition_frames(24, 9) :]
    after = renderer.render(
        RenderRequest("a rocket rising in space", condition=tail, condition_lead=9, **ask)
    )
    assert after.frames is not None and after.frames.shape == first.shape
