"""The held-out evaluation's rows: each draws the frames of a case its own way, and the judge scores them.

    python -m lab.evaluation [--prompts 72] [--rows ...]   (strips in var/evaluation/)

Prompts ask for (subject, setting, motion) triples that no training caption named. Rows:
- chance: one in the number of subjects, settings, motions;
- ground truth: the world's own drawing of each prompt (the judge's ceiling on a perfect picture);
- VAE reconstructions: ground truth through the shipped VAE (the model's ceiling);
- backdrop only: the setting with no subject (subject and motion must fall to chance);
- blurred: ground truth with its subjects blurred by a Gaussian of a few pixels, their colours and rough
  outline without their shape's detail (where a model that drew only those would land);
- random stand-in: the `tiny` preset's output for the same prompts (everything near chance);
- generated: the shipped model through the real renderer with its default caches;
- denoised: ground truth's latents noised to a level and denoised by the shipped transformer in one step,
  decoded (whether it can draw the subject once it is given the layout, at that level of noise);
- swapped: the same, with a prompt that names another subject (how often the drawn subject is still named:
  as often as in `denoised`, and the text does not steer the subject's shape at that level of noise).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from lab.evaluation.judge import judge
from lab.training.architecture import FPS, HEIGHT, LEAD_FRAMES, WIDTH
from lab.training.scenes import held_out, seen
from lab.world.captions import caption, scene_for
from lab.world.clips import Scene, draw, to_uint8
from lab.world.vocabulary import MOTIONS, SETTINGS, SUBJECTS

AIRED = 80  # 10 s at the rendered rate
EVAL_SEED = 99


@dataclasses.dataclass(frozen=True)
class Case:
    prompt: str
    scene: Scene


def cases(count: int, trained: bool = False) -> list[Case]:
    """`count` prompts for held-out triples, or with `trained` for triples training captions named (new
    phrasings and seeds): the gap between the two is what the model fails to carry to new combinations."""
    rng = np.random.default_rng(EVAL_SEED)
    triples = sorted(seen() if trained else held_out())
    picked = [triples[i] for i in rng.choice(len(triples), min(count, len(triples)), replace=False)]
    found = []
    for subject, setting, motion in picked:
        for _ in range(50):
            text = caption(rng, (subject,), setting, motion)
            scene = scene_for(text, int(rng.integers(2**31)))
            if (scene.subjects, scene.setting, scene.motion) == ((subject,), setting, motion):
                found.append(Case(text, scene))
                break
    return found


@dataclasses.dataclass
class Row:
    setting: int = 0
    subject: int = 0
    motion: int = 0
    visible: float = 0.0
    n: int = 0

    def add(self, frames: np.ndarray, scene: Scene) -> None:
        verdict = judge(frames, scene.subjects[0])
        self.setting += verdict.setting == scene.setting
        self.subject += verdict.subject == scene.subjects[0]
        self.motion += verdict.motion == scene.motion
        self.visible += verdict.visible
        self.n += 1

    def cells(self) -> list[str]:
        n = max(1, self.n)
        return [f"{100 * v / n:.1f} %" for v in (self.setting, self.subject, self.motion, self.visible)]


def ground_truth(case: Case) -> np.ndarray:
    return to_uint8(drawn(case.scene)[0])


def backdrop_only(case: Case) -> np.ndarray:
    return to_uint8(drawn(dataclasses.replace(case.scene, subjects=()))[0])


def blurred(pixels: float) -> Callable[[Case], np.ndarray]:
    """Ground truth with its subjects, not its backdrop, blurred by a Gaussian of `pixels`."""
    from scipy.ndimage import gaussian_filter

    def run(case: Case) -> np.ndarray:
        frames, alpha = drawn(case.scene)
        backdrop = drawn(dataclasses.replace(case.scene, subjects=()))[0]
        subjects = frames - backdrop * (1 - alpha[..., None])  # the sprites' colours times their alpha
        soft_alpha = gaussian_filter(alpha, (0, pixels, pixels))
        soft = gaussian_filter(subjects, (0, pixels, pixels, 0))
        return to_uint8(backdrop * (1 - soft_alpha[..., None]) + soft)

    return run


def drawn(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """The aired frames of `scene` as float32 in [0, 1], and its subjects' mask."""
    return draw(scene, AIRED, FPS, HEIGHT, WIDTH, start=LEAD_FRAMES, duration_frames=AIRED + LEAD_FRAMES)


@torch.no_grad()
def reconstruct(vae: Any, frames: np.ndarray) -> np.ndarray:
    """(F, H, W, 3) frames in [0, 1] through the VAE (on whichever device it is) and back, as uint8."""
    video = torch.from_numpy(frames * 2 - 1).permute(3, 0, 1, 2)[None].float()
    out = vae.decode(vae.encode(video.to(vae.device)).latent_dist.mode()).sample[0].float().cpu()
    out = out.permute(1, 2, 3, 0).numpy()
    return to_uint8((out + 1) / 2)


def reconstruction(vae: Any) -> Callable[[Case], np.ndarray]:
    def run(case: Case) -> np.ndarray:
        frames, _ = draw(case.scene, AIRED + LEAD_FRAMES, FPS, HEIGHT, WIDTH)
        return reconstruct(vae, frames)[LEAD_FRAMES:]

    return run


IDENTITY_GATE = 0.70  # the transformer learns only on a VAE whose reconstructions name the subject this often
GATE_PROMPTS = 36


class VaeNotReady(SystemExit):
    """The transformer stage's refusal: latents that lose the subject would teach it to draw blobs."""


def reconstructions_judged(vae: Any, count: int = GATE_PROMPTS) -> Row:
    """The evaluation's "VAE reconstructions" row over the first `count` held-out prompts."""
    row = Row()
    run = reconstruction(vae)
    for case in cases(count):
        row.add(run(case), case.scene)
    return row


def check_vae(vae: Any, count: int = GATE_PROMPTS) -> float:
    """The share of held-out prompts whose reconstruction the judge names the subject of (the evaluation's
    "VAE reconstructions" subject figure); raises VaeNotReady below IDENTITY_GATE."""
    row = reconstructions_judged(vae, count)
    share = row.subject / max(1, row.n)
    if share < IDENTITY_GATE:
        raise VaeNotReady(
            f"the VAE's reconstructions name the subject in {100 * share:.1f} % of {row.n} held-out prompts, "
            f"under the {100 * IDENTITY_GATE:.0f} % the transformer needs: train the VAE on "
            "(python -m lab.training vae --minutes N) before the transformer"
        )
    return share


def rendered(
    preset_name: str, guidance: float | None = None, denoise: int | None = None, folder: Path | None = None
) -> Callable[[Case], np.ndarray]:
    """The preset's renders, with its own guidance scale and sampling steps or `guidance` and `denoise`;
    the world preset's from the model in `folder` where one is given (a candidate beside the shipped one)."""
    from generation.presets import get_preset
    from generation.renderer import CacheSettings, Renderer, RenderRequest
    from lab.training.schedule import sampling_timesteps

    preset = get_preset(preset_name)
    if folder is not None:
        preset = dataclasses.replace(preset, build=lambda: world_pipeline(folder))
    if guidance is not None:
        preset = dataclasses.replace(preset, guidance_scale=guidance)
    if denoise is not None:
        preset = dataclasses.replace(preset, timesteps=sampling_timesteps(denoise))
    renderer = Renderer(preset, preset.build(), CacheSettings())

    def run(case: Case) -> np.ndarray:
        request = RenderRequest(
            case.prompt, seed=case.scene.seed % 10_000, width=WIDTH, height=HEIGHT, fps=FPS, num_frames=AIRED
        )
        frames = renderer.render(request).frames
        assert frames is not None
        return frames

    return run


def world_pipeline(folder: Path) -> Any:
    """The model in `folder` loaded as the world preset loads the shipped one."""
    from generation.presets.world import build

    return build(folder)


def other_subject(case: Case) -> Case:
    """The case with a prompt naming another subject (drawn from its seed) in its setting and motion."""
    rng = np.random.default_rng(case.scene.seed)
    names = [entry.name for entry in SUBJECTS if entry.name != case.scene.subjects[0]]
    while True:
        other = str(rng.choice(names))
        text = caption(rng, (other,), case.scene.setting, case.scene.motion)
        if scene_for(text, case.scene.seed) == dataclasses.replace(case.scene, subjects=(other,)):
            return Case(text, case.scene)


def denoised(noise: float, swap: bool = False) -> Callable[[Case], np.ndarray]:
    """Ground truth's latents at `noise` (sigma: 0 clean, 1 pure noise) and one step of the shipped
    transformer back to a clean estimate (x0 = x_s - sigma v, the flow it learned), decoded; with `swap`,
    prompted with another subject than the one drawn (other_subject)."""
    from generation.pipeline import PatchedLTXConditionPipeline as Pipeline
    from generation.presets import decode_with_vae, get_preset
    from lab.training.architecture import TOKEN_CELLS
    from lab.training.transformer import normalised, pack, prompt_embeddings, velocity, video_coords

    pipe = get_preset("world").build()

    @torch.no_grad()
    def run(case: Case) -> np.ndarray:
        frames, _ = draw(case.scene, AIRED + LEAD_FRAMES, FPS, HEIGHT, WIDTH)
        video = torch.from_numpy(frames * 2 - 1).permute(3, 0, 1, 2)[None].float()
        x0 = normalised(pipe.vae, pipe.vae.encode(video).latent_dist.mode())  # as the training clips are
        f, h, w = x0.shape[2:]
        drawn_noise = torch.randn(x0.shape, generator=torch.Generator().manual_seed(case.scene.seed))
        noisy = pack((1 - noise) * x0 + noise * drawn_noise)
        text = other_subject(case).prompt if swap else case.prompt
        prompt = prompt_embeddings(pipe.tokenizer, pipe.text_encoder, [text], x0.device)
        timestep = torch.full(noisy.shape[:2], noise * 1000)
        v = velocity(pipe.transformer, noisy, prompt, timestep, video_coords(1, f, h, w))
        estimate = Pipeline._unpack_latents(noisy - noise * v, f, h, w, TOKEN_CELLS, 1)
        return decode_with_vae(pipe, estimate, WIDTH, HEIGHT).numpy()[LEAD_FRAMES:]

    return run


def evaluate(
    count: int,
    sources: dict[str, tuple[str, Callable[[Case], np.ndarray]]],
    strips: Path | None,
    trained: bool = False,
) -> Iterator[str]:
    """The table's lines, a row for each of `sources` (key: (label, frames of a case)); the first four
    cases' strips go to `strips`/<key>-<i>.png."""
    chosen = cases(count, trained)
    chance = [1 / len(SETTINGS), 1 / len(SUBJECTS), 1 / len(MOTIONS)]
    if trained:
        yield f"{len(chosen)} prompts for combinations training captions named (new phrasings and seeds)\n"
    else:
        yield f"{len(chosen)} held-out prompts (subject, setting, motion unseen together in training)\n"
    yield "| frames judged | setting | subject | motion | subject visible |"
    yield "| --- | --- | --- | --- | --- |"
    yield "| chance | " + " | ".join(f"{100 * c:.1f} %" for c in chance) + " | - |"
    for key, (label, source) in sources.items():
        row = Row()
        for i, case in enumerate(chosen):
            frames = source(case)
            row.add(frames, case.scene)
            if strips is not None and i < 4:
                save_strip(frames, strips / f"{key}-{i}.png")
        yield f"| {label} | " + " | ".join(row.cells()) + " |"


def save_strip(frames: np.ndarray, path: Path, count: int = 6) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    picks = np.linspace(0, len(frames) - 1, count).round().astype(int)
    Image.fromarray(np.concatenate([frames[i] for i in picks], axis=1)).save(path)
