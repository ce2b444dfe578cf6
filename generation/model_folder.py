"""The default model's folder as shipped (generation/model/): where it lies and what it says of itself.

A diffusers pipeline folder (model_index.json, and a folder with its config.json for each component) plus
two files of this project's, written by `make model` beside them: `preset.json`, the facts the `world`
preset renders by, and `vocabulary.json`, the words the model knows (its contract with the viewer page).
The product reads the model from here and never imports the code that trained it (lab/). No torch: the web
process reads the vocabulary through this module.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

MODEL_DIR = Path(__file__).resolve().parent / "model"
PRESET_FILE = "preset.json"
VOCABULARY_FILE = MODEL_DIR / "vocabulary.json"
REQUIRED = (
    "model_index.json",
    "transformer",
    "vae",
    "text_encoder",
    "tokenizer",
    "scheduler",
    PRESET_FILE,
    "vocabulary.json",
)


@dataclass(frozen=True)
class RenderFacts:
    """How the model was trained to render: its frame size and rate, the lead frames every clip it learned
    from carried, the longest prompt in tokens, its sampling timesteps and the caption it learned for none."""

    width: int
    height: int
    fps: int
    lead_frames: int
    max_tokens: int
    timesteps: tuple[float, ...]
    negative_prompt: str

    def as_json(self) -> dict[str, object]:
        return {**self.__dict__, "timesteps": list(self.timesteps)}


def check_model_folder(folder: Path = MODEL_DIR) -> Path:
    missing = [name for name in REQUIRED if not (folder / name).exists()]
    if missing:
        raise ImproperlyConfigured(
            f"the default model's folder {folder} lacks {', '.join(missing)}: run `make model`, "
            "or set MODEL_PRESET=tiny for the random stand-in"
        )
    return folder


@cache
def render_facts(folder: Path = MODEL_DIR) -> RenderFacts:
    facts = json.loads((check_model_folder(folder) / PRESET_FILE).read_text())
    return RenderFacts(**{**facts, "timesteps": tuple(facts["timesteps"])})
