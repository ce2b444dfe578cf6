"""How fast the transformer learns the subjects' shapes from the text, where a subject stands still.

    python -m lab.experiments.shapes [--runs one:fresh anywhere:fresh snapped:fresh shifted:fresh world:fresh
        world:shipped world-snapped:shipped backdrops:fresh sized:fresh spun:fresh paired:fresh
        sized-steps:fresh spun-quarters:fresh]
        [--steps 1000 1000] [--rate 5e-4] [--heads 4] [--patch 2] [--snap 16] [--threads 2] [--ceilings]
        [--vae FOLDER] [--batch 24] [--stills 720] [--breakdown]

Trained on clips, the default model draws a subject's setting, motion and colours but rarely a shape the
judge can name (docs/model.md). This takes video out of the question: a still is one frame, one latent frame
of 60 tokens where a clip has 720, and a Trainer (the transformer stage's own loss, with its subject
weighting and dropped captions) learns on a batch of them a step (`--batch`, STILL_BATCH by default; a
step on 8 clips reads as many tokens as one on 96 stills). Each run is a place and a start:
- place `one`: each subject alone in the middle of one sky, the same frame every time (24 stills);
- place `anywhere`: each subject alone on the sky at a moment of crossing it (left, right, up or down), so
  at any place but one size, one angle and one setting, STILLS of them;
- place `snapped`: the `anywhere` stills with each sprite's top-left corner moved to the nearest multiple
  of `--snap` pixels: at 16, a token's side, a subject falls on the tokens one way wherever it stands; at
  8, a latent cell's, on the cells one way;
- place `backdrops`: the `snapped` stills, each on one of the world's settings (at random) where those
  are all on the sky: whether the backdrops are what the world adds to one way on the tokens;
- places `sized`, `spun` and `paired`: the `snapped` stills with one of the world's ways to vary a subject
  each, so each can be told apart from the rest: `sized` subjects grow or shrink (half to one and a half
  times the lone size) instead of crossing, `spun` subjects spin (any angle) instead, and `paired` stills
  hold two subjects crossing side by side at the world's pair size (the judge may name either of them);
- places `sized-steps` and `spun-quarters`: the `sized` and `spun` stills at a few of their moments only,
  where a subject is half, three quarters, one, one and a quarter or one and a half times the lone size,
  or turned a whole number of quarter turns (the judge matching it at those turns): whether a few sizes
  or angles are learned as the grid's one place is;
- place `shifted`: the `anywhere` stills as a VAE whose latents move with its input would encode them: each
  sprite drawn with its corner on the nearest multiple of 8 pixels (a latent cell), its latents then moved
  the rest of the way, a fraction of a cell, by interpolating between neighbouring cells (the whole latent
  frame moves, the sky a fraction of a cell with it). Read with `--patch 1`, each subject is one pattern of
  latents, moved smoothly: whether that is learned as one way or as many;
- place `world`: stills as the world draws them (dataset.draw_still: any training scene at a random moment,
  so any place, size, angle and setting), STILLS of them;
- place `world-snapped`: the `world` stills with each sprite's top-left corner on the `--snap` grid;
- start `fresh` (a new transformer and text encoder, `--heads` attention heads wide, reading `--patch`
  latent cells a token side) or `shipped` (the default model's).
After each run of `--steps` (each warms up and ends annealed, as the stage's runs do) the run's model draws
JUDGED stills from pure noise in the preset's 8 steps and the judge names their subject (a world still's
first, a `paired` still's either): a run that has learned the shapes names it far above chance (1 in 24).
Before it trains, a run prints how many of its own first stills, decoded as they are trained on, the judge
names: the most it could score (`--ceilings` prints only those). The stills are encoded and decoded by the
shipped VAE, or by the one in `--vae`'s folder (a model folder holding `vae/`, such as lab.experiments.shifts
writes). With `--breakdown`, each run on a world place then prints how many of its draws the judge names
for each motion the held-out prompts ask for, and on as many prompts of triples its training captions
named: where the shapes are lost, and whether new combinations lose them.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch

from lab.evaluation.judge import ANGLES
from lab.training.architecture import (
    CLIP_FRAMES,
    FPS,
    HEADS,
    HEIGHT,
    SPATIAL,
    TOKEN_CELLS,
    WIDTH,
)
from lab.training.transformer import (
    LEARNING_RATE,
    Latents,
    Trainer,
    normalised,
    pack,
    prompt_embeddings,
    velocity,
)
from lab.training.vae import moved
from lab.world.clips import SPIN_PERIOD_S, Scene
from lab.world.vocabulary import SETTINGS, SUBJECTS

STILL_BATCH = 24  # 1,440 tokens a step, a quarter of a CPU step on 8 clips
STILLS = 720  # the world's stills: 30 a subject on average
JUDGED = 48  # stills drawn and judged after each run
CROSSINGS = ("left", "right", "up", "down")  # the ways an `anywhere` still's subject crosses the sky
TOKEN_PIXELS = SPATIAL * TOKEN_CELLS  # the shipped transformer's token side, in pixels: 16
WORLD = ("world", "world-snapped")  # places whose stills the world draws, any subjects in any scene
WORLD_SEED = 5  # of the world's stills
# The motions of the places whose subjects do not cross the frame (CROSSINGS); the frames of the clip a
# place's stills show where not any (the growth's quarters, the spin's quarter turns); and the angles the
# judge matches a place's subjects at where not only upright (the evaluation's way).
MOTIONS_OF = {
    "sized": ("grow", "shrink"),
    "spun": ("spin",),
    "sized-steps": ("grow", "shrink"),
    "spun-quarters": ("spin",),
}
STARTS_OF = {
    "sized-steps": tuple(range(0, CLIP_FRAMES, (CLIP_FRAMES - 1) // 4)),
    "spun-quarters": tuple(range(0, CLIP_FRAMES, round(FPS * SPIN_PERIOD_S / 4))),
}
ANGLES_OF = {"spun-quarters": ANGLES}
SNAPPED = ("snapped", "backdrops", "world-snapped", *MOTIONS_OF, "paired")  # on the `--snap` grid


def one_place(name: str) -> Scene:
    return Scene((name,), "sky", "float", 0)


def placed(place: str, index: int) -> tuple[Scene, int]:
    """The index-th still of a place the world does not draw (any but WORLD's): (its scene, the frame of
    the scene's clip drawn). Subjects take turns; everywhere but `one`, the subject crosses the sky (grows,
    shrinks or spins, for `sized` and `spun`; on any setting, for `backdrops`; beside another subject, for
    `paired`), seen at any moment."""
    name = SUBJECTS[index % len(SUBJECTS)].name
    if place == "one":
        return one_place(name), 0
    rng = np.random.default_rng([7, index])
    motions = MOTIONS_OF.get(place, CROSSINGS)
    motion = motions[int(rng.integers(len(motions)))]
    starts = STARTS_OF.get(place, range(CLIP_FRAMES))
    start = starts[int(rng.integers(len(starts)))]
    setting = SETTINGS[int(rng.integers(len(SETTINGS)))].name if place == "backdrops" else "sky"
    subjects: tuple[str, ...] = (name,)
    if place == "paired":  # any other subject beside it
        subjects += (SUBJECTS[(index + int(rng.integers(1, len(SUBJECTS)))) % len(SUBJECTS)].name,)
    return Scene(subjects, setting, motion, index), start


def snapped(
    scene: Scene, start: int, grid: int = TOKEN_PIXELS
) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """Frame `start` of a scene, in [0, 1], with its mask, each sprite's top-left corner on the nearest
    multiple of `grid` pixels; and how far the first was moved back, (down, across) in pixels: where the
    scene puts the corner less where it is drawn."""
    from lab.training.scenes import frames_of
    from lab.world.clips import sprite_side, subject_poses

    _, p = subject_poses(scene, start / (CLIP_FRAMES - 1), start / FPS)[0]
    side = sprite_side(p, HEIGHT)
    corners = (p.y * (HEIGHT - 1) - side / 2, p.x * (WIDTH - 1) - side / 2)
    down, across = (corner - grid * round(corner / grid) for corner in corners)
    drawn, mask = frames_of(scene, 1, start, grid=grid)
    return (drawn + 1) / 2, mask, (down, across)


def captions_of(scene: Scene, rng: np.random.Generator, count: int) -> list[str]:
    """`count` captions that read as `scene` (a caption may leave its subject to the default balloon)."""
    from lab.world.captions import caption, scene_for

    found: list[str] = []
    while len(found) < count:
        text = caption(rng, scene.subjects, scene.setting, scene.motion)
        if scene_for(text, scene.seed) == scene:
            found.append(text)
    return found


@torch.no_grad()
def encode(vae: Any, frames: np.ndarray) -> torch.Tensor:
    """(1, H, W, 3) uint8 -> (C, 1, h, w) latents, normalised as the stage's clips are."""
    video = torch.from_numpy(frames).permute(3, 0, 1, 2)[None].float() / 127.5 - 1
    return normalised(vae, vae.encode(video).latent_dist.mode())[0].half()


def stills(place: str, vae: Any, snap: int = TOKEN_PIXELS, count: int = STILLS) -> Latents:
    from lab.training.clips import draw_still, latent_mask
    from lab.world.clips import to_uint8

    x0, masks, captions = [], [], []
    rng = np.random.default_rng(0)
    # The pixels a sprite's top-left corner stands on (1: anywhere); a `shifted` sprite's latents are then
    # moved the rest of the way, a fraction of a cell.
    grid = snap if place in SNAPPED else SPATIAL if place == "shifted" else 1
    for index in range(len(SUBJECTS) if place == "one" else count):
        rest = (0.0, 0.0)  # cells its latents move once encoded
        if place in WORLD:
            frames, mask, info = draw_still(index, WORLD_SEED, grid)
            texts = cast(list[str], info["captions"])
        else:
            scene, start = placed(place, index)
            drawn, coverage, (down, across) = snapped(scene, start, grid)
            if place == "shifted":
                rest = (down / SPATIAL, across / SPATIAL)
            frames, mask = to_uint8(drawn), latent_mask(coverage)
            texts = captions_of(scene, rng, 4)
        x0.append(moved(encode(vae, frames).float(), *rest).half())
        masks.append(moved(torch.from_numpy(np.asarray(mask, np.float32)), *rest).half())
        captions.append(texts)
    return Latents(torch.stack(x0), torch.stack(masks), captions, torch.zeros(len(x0), dtype=torch.bool))


def case_prompts(chosen: list[Any]) -> list[tuple[str, tuple[str, ...]]]:
    """Evaluation cases as (prompt, subjects the judge may name): the first, as a clip is judged."""
    return [(case.prompt, case.scene.subjects[:1]) for case in chosen]


def judged_prompts(place: str, trained: int = STILLS) -> list[tuple[str, tuple[str, ...]]]:
    """(prompt, subjects the judge may name) pairs it checks: every subject twice. A world still is judged
    on its first subject, as the held-out evaluation judges a clip; a `paired` still on either; any other
    place's stills past the `trained` ones."""
    from lab.evaluation.rows import cases

    if place in WORLD:
        return case_prompts(cases(JUDGED))
    rng = np.random.default_rng(1)
    first = 0 if place == "one" else trained  # crossings are judged past those trained on
    scenes = [placed(place, first + k)[0] for k in range(JUDGED)]
    return [(captions_of(scene, rng, 1)[0], scene.subjects) for scene in scenes]


def named(pipe: Any, place: str, latents: torch.Tensor) -> str:
    """The subject the judge names in a still of `place`, its (1, C, 1, h, w) latents decoded by `pipe`'s
    VAE, matched at the place's angles (ANGLES_OF)."""
    from generation.presets import decode_with_vae
    from lab.evaluation.judge import subject_scores

    angles = ANGLES_OF.get(place, (0.0,))
    scores = subject_scores(decode_with_vae(pipe, latents, WIDTH, HEIGHT).numpy(), angles)
    return max(scores, key=lambda subject: scores[subject])


def judged_subjects(place: str, index: int) -> tuple[str, ...]:
    """The subjects the judge may name in the index-th still of a place: a world still's first, as the
    held-out evaluation judges a clip (and judged_prompts a world place's draws), any other's own."""
    from lab.training.clips import draw_still

    if place in WORLD:
        subjects, _, _ = cast(list, draw_still(index, WORLD_SEED)[2]["scene"])
        return (str(subjects[0]),)
    return placed(place, index)[0].subjects


@torch.no_grad()
def ceiling(pipe: Any, place: str, data: Latents) -> float:
    """The share of a place's first JUDGED stills, decoded as they are trained on, whose subject the judge
    names: what a run that draws them exactly would score."""
    count = min(JUDGED, len(data.x0))
    right = sum(
        named(pipe, place, data.x0[index : index + 1].float()) in judged_subjects(place, index)
        for index in range(count)
    )
    return right / count


@torch.no_grad()
def named_draws(
    trainer: Trainer, pipe: Any, place: str, prompts: list[tuple[str, tuple[str, ...]]]
) -> list[bool]:
    """For each (prompt, subjects) a still drawn from noise: whether the judge names one of its subjects."""
    from generation.pipeline import PatchedLTXConditionPipeline as Pipeline
    from lab.training.schedule import sampling_timesteps
    from lab.training.transformer import video_coords

    trainer.transformer.eval(), trainer.text_encoder.eval()
    f, h, w = trainer.data.x0.shape[2:]
    sigmas = [t / 1000 for t in sampling_timesteps(8)] + [0.0]
    coords = video_coords(1, f, h, w, trainer.cells)
    right = []
    for k, (text, names) in enumerate(prompts):
        prompt = prompt_embeddings(trainer.tokenizer, trainer.text_encoder, [text], trainer.device)
        noise = torch.randn((1, *trainer.data.x0.shape[1:]), generator=torch.Generator().manual_seed(k))
        x = pack(noise, trainer.cells)
        for now, after in itertools.pairwise(sigmas):
            timestep = torch.full(x.shape[:2], now * 1000)
            x = x + (after - now) * velocity(trainer.transformer, x, prompt, timestep, coords)
        right.append(named(pipe, place, Pipeline._unpack_latents(x, f, h, w, trainer.cells, 1)) in names)
    trainer.transformer.train(), trainer.text_encoder.train()
    return right


def named_share(trainer: Trainer, pipe: Any, place: str, trained: int = STILLS) -> float:
    """The share of JUDGED stills drawn from noise whose subject the judge names as prompted (any but the
    world's places judged past their `trained` stills)."""
    return float(np.mean(named_draws(trainer, pipe, place, judged_prompts(place, trained))))


def breakdown(
    trainer: Trainer, pipe: Any, place: str, count: int = JUDGED
) -> tuple[dict[str, list[bool]], list[bool]]:
    """A world place's draws named on `count` held-out prompts, by the motion each asks for, and on as many
    prompts of triples its training captions named: where the shapes are lost, and whether new combinations
    lose them."""
    from lab.evaluation.rows import cases

    held = cases(count)
    motions: dict[str, list[bool]] = {}
    for case, named_it in zip(held, named_draws(trainer, pipe, place, case_prompts(held)), strict=True):
        motions.setdefault(case.scene.motion, []).append(named_it)
    return motions, named_draws(trainer, pipe, place, case_prompts(cases(count, trained=True)))


def main() -> None:
    from generation.presets import get_preset
    from lab.training.model_folder import fits, shipped, shipped_vae

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", nargs="+", default=["one:fresh", "world:fresh", "world:shipped"])
    parser.add_argument("--steps", nargs="+", type=int, default=[1000, 1000], help="steps of each run")
    parser.add_argument("--rate", type=float, default=LEARNING_RATE, help="each run's peak learning rate")
    parser.add_argument(
        "--heads",
        type=int,
        default=HEADS,
        help="a fresh transformer's width, in attention heads (the shipped model's by default)",
    )
    parser.add_argument(
        "--patch",
        type=int,
        choices=(1, 2),
        default=TOKEN_CELLS,
        help="a fresh transformer's patch, latent cells a token side (the shipped model's by default)",
    )
    parser.add_argument(
        "--snap",
        type=int,
        choices=(2, 4, SPATIAL, TOKEN_PIXELS),
        default=TOKEN_PIXELS,
        help=f"the grid, in pixels, the sprites of {', '.join(SNAPPED)} stills stand on",
    )
    parser.add_argument(
        "--ceilings",
        action="store_true",
        help="train nothing: judge each run's own first stills, decoded as they are trained on",
    )
    parser.add_argument(
        "--vae",
        type=Path,
        help="a model folder whose vae/ encodes and decodes the stills (by default the shipped one)",
    )
    parser.add_argument("--batch", type=int, default=STILL_BATCH, help="stills a step")
    parser.add_argument("--stills", type=int, default=STILLS, help="stills each place but `one` trains on")
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="after each world run, its draws named by motion, and on prompts of trained triples",
    )
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if args.heads <= 0:
        parser.error(f"--heads must be above 0, not {args.heads}")
    if not 0 < args.batch <= args.stills:
        parser.error(f"--batch must be above 0 and at most --stills ({args.stills}), not {args.batch}")
    if args.batch > len(SUBJECTS) and any(run.startswith("one:") for run in args.runs):
        parser.error(f"--batch must be at most {len(SUBJECTS)} with place one, which has that many stills")
    if any(run.endswith(":shipped") for run in args.runs):
        if args.heads != HEADS:
            parser.error("--heads widens a fresh transformer; the shipped one keeps its width")
        if args.patch != TOKEN_CELLS:
            parser.error("--patch sets a fresh transformer's tokens; the shipped one keeps its patch")
    if args.vae is not None and not fits("vae", args.vae):
        parser.error(f"--vae: {args.vae} holds no VAE of today's architecture (lab/training)")
    torch.set_num_threads(args.threads)
    pipe = get_preset("world").build()
    if args.vae is not None:
        pipe.vae = shipped_vae(args.vae)
    vae = pipe.vae.float()
    if args.ceilings:
        print(f"subject named right in each place's first {JUDGED} stills, decoded\n")
        print("| place | stills decoded |\n| --- | --- |")
        for place in dict.fromkeys(run.split(":")[0] for run in args.runs):
            print(
                f"| {place} | {100 * ceiling(pipe, place, stills(place, vae, args.snap)):.1f} % |", flush=True
            )
        return
    chance = 100 / len(SUBJECTS)
    print(f"subject named right in {JUDGED} stills drawn from noise (chance {chance:.1f} %)", end="")
    print(f", each run's peak learning rate {args.rate:g}", end="")
    print(f", a fresh transformer {args.heads} heads wide", end="")
    print(f" reading {args.patch}x{args.patch} cells a token", end="")
    print(f", sprites of the snapped places on a grid of {args.snap} pixels", end="")
    print(f", {args.batch} of {args.stills} stills a step\n")
    totals = np.cumsum(args.steps)
    print("| place | start | " + " | ".join(f"after {total:,} steps" for total in totals) + " | s |")
    print("| --- | --- | " + " | ".join("---" for _ in totals) + " | --- |")
    for run in args.runs:
        place, start = run.split(":")
        data = stills(place, vae, args.snap, args.stills)
        print(
            f"{run}: its stills decoded: {100 * ceiling(pipe, place, data):.1f} %",
            file=sys.stderr,
            flush=True,
        )
        trainer = Trainer(
            data,
            args.threads,
            transformer=shipped("transformer") if start == "shipped" else None,
            text_encoder=shipped("text_encoder") if start == "shipped" else None,
            batch=args.batch,
            peak_rate=args.rate,
            heads=args.heads,
            cells=args.patch,
        )
        cells, began, done = [], time.monotonic(), 0
        with tempfile.TemporaryDirectory() as folder:
            for steps in args.steps:
                target = done + steps
                done = trainer.train(10**6, Path(folder) / "shapes.pt", max_steps=target)
                if done < target:  # SIGTERM or SIGINT: the Trainer checkpointed and ended its run early
                    raise SystemExit(f"stopped after {done:,} steps of {run}")
                cells.append(f"{100 * named_share(trainer, pipe, place, args.stills):.1f} %")
                print(f"{run} after {done:,} steps: {cells[-1]}", file=sys.stderr, flush=True)
        seconds = time.monotonic() - began
        print(f"| {place} | {start} | " + " | ".join(cells) + f" | {seconds:.0f} |", flush=True)
        if args.breakdown and place in WORLD:
            motions, seen = breakdown(trainer, pipe, place)
            by_motion = ", ".join(f"{motion} {sum(r)} of {len(r)}" for motion, r in sorted(motions.items()))
            print(f"{run} after {done:,} steps, held-out prompts named by motion: {by_motion}; ", end="")
            print(f"trained triples' prompts: {sum(seen)} of {len(seen)}", flush=True)


if __name__ == "__main__":
    main()
