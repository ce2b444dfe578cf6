"""The pilot of reference conditioning: does the subject's picture teach the transformer shapes the text
alone does not, at the same steps, seed and data?

    python -m lab.experiments.reference [--steps 500 500 500 500] [--stills 720] [--batch 24] [--threads 2]

Two fresh transformers learn on the same world stills (any subject, place, size, angle and setting; one
latent frame each), in the same batches from the same seed: one reads the text alone (the transformer
stage's Trainer), the other also each still's first subject as a reference picture
(lab/training/reference.py). A fifth of the subjects (UNSEEN) are in no still at all. After each run of
`--steps`, each model draws `--judged` stills from noise in the preset's 8 steps and the judge names their
subject, for held-out prompts of trained subjects and for prompts of unseen ones:
- text only: the plain model's draws (trained subjects; unseen subjects);
- (a) right picture: the reference model shown the prompt's subject;
- (b) no picture: shown zeros, as a tenth of its training steps were (the text path alone);
- (c) swapped: shown another trained subject than the prompt names: the share that draws the prompt's
  subject, and the share that draws the picture's;
- (d) unseen: subjects never trained, shown their picture.
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

from lab.experiments.shapes import WORLD_SEED, captions_of, encode, named
from lab.training.clips import draw_still
from lab.training.reference import ReferenceTrainer, reference_tokens, with_reference
from lab.training.schedule import SAMPLING_STEPS, sampling_timesteps
from lab.training.transformer import Latents, Trainer, pack, prompt_embeddings, velocity, video_coords
from lab.world.clips import Scene
from lab.world.vocabulary import MOTIONS, SETTINGS, SUBJECTS, as_json

JUDGED = 48  # draws a row by default
UNSEEN_SHARE = 0.2
STILLS, BATCH = 720, 24


def unseen_subjects() -> tuple[str, ...]:
    """A seeded fifth of the subjects, never the default one (a caption naming nothing draws it)."""
    default = as_json()["defaults"]["subject"]  # type: ignore[index]
    names = [entry.name for entry in SUBJECTS if entry.name != default]
    rng = np.random.default_rng(44)
    return tuple(sorted(rng.choice(names, round(UNSEEN_SHARE * len(SUBJECTS)), replace=False)))


def world_stills(vae: Any, count: int, unseen: tuple[str, ...]) -> tuple[Latents, list[str]]:
    """`count` of the world's stills holding no unseen subject, and each one's first subject."""
    x0: list[torch.Tensor] = []
    masks: list[torch.Tensor] = []
    captions: list[list[str]] = []
    firsts: list[str] = []
    for index in itertools.count():
        if len(x0) == count:
            break
        frames, mask, info = draw_still(index, WORLD_SEED)
        subjects = cast(list, info["scene"])[0]
        if any(name in unseen for name in subjects):
            continue
        x0.append(encode(vae, frames))
        masks.append(torch.from_numpy(np.asarray(mask, np.float32)).half())
        captions.append(cast(list[str], info["captions"]))
        firsts.append(str(subjects[0]))
    latents = Latents(torch.stack(x0), torch.stack(masks), captions, torch.zeros(count, dtype=torch.bool))
    return latents, firsts


def seen_prompts(unseen: tuple[str, ...], count: int) -> list[tuple[str, str]]:
    """`count` held-out prompts (subject, setting and motion never captioned together) of trained subjects."""
    from lab.evaluation.rows import cases

    chosen = [case for case in cases(4 * count) if case.scene.subjects[0] not in unseen]
    return [(case.prompt, case.scene.subjects[0]) for case in chosen[:count]]


def unseen_prompts(unseen: tuple[str, ...], count: int) -> list[tuple[str, str]]:
    rng = np.random.default_rng(45)
    found = []
    for k in range(count):
        name = unseen[k % len(unseen)]
        setting = SETTINGS[int(rng.integers(len(SETTINGS)))].name
        motion = MOTIONS[int(rng.integers(len(MOTIONS)))].name
        found.append((captions_of(Scene((name,), setting, motion, k), rng, 1)[0], name))
    return found


@torch.no_grad()
def drawn_subjects(
    trainer: Trainer, pipe: Any, prompts: list[str], references: torch.Tensor | None
) -> list[str]:
    """The subject the judge names in a still drawn from noise for each prompt, shown `references`
    (one a prompt: (n, tokens, D)) or none at all (a text-only model)."""
    from generation.pipeline import PatchedLTXConditionPipeline as Pipeline

    trainer.transformer.eval(), trainer.text_encoder.eval()
    f, h, w = trainer.data.x0.shape[2:]
    sigmas = [t / 1000 for t in sampling_timesteps(SAMPLING_STEPS)] + [0.0]
    coords = video_coords(1, f, h, w, trainer.cells)
    names = []
    for k, text in enumerate(prompts):
        prompt = prompt_embeddings(trainer.tokenizer, trainer.text_encoder, [text], trainer.device)
        noise = torch.randn((1, *trainer.data.x0.shape[1:]), generator=torch.Generator().manual_seed(k))
        x = pack(noise, trainer.cells)
        for now, after in itertools.pairwise(sigmas):
            timestep = torch.full(x.shape[:2], now * 1000)
            if references is None:
                v = velocity(trainer.transformer, x, prompt, timestep, coords)
            else:
                v = with_reference(trainer.transformer, x, prompt, timestep, coords, references[k : k + 1])
            x = x + (after - now) * v
        names.append(named(pipe, "world", Pipeline._unpack_latents(x, f, h, w, trainer.cells, 1)))
    trainer.transformer.train(), trainer.text_encoder.train()
    return names


def share(found: list[str], wanted: list[str]) -> str:
    return f"{100 * np.mean([a == b for a, b in zip(found, wanted, strict=True)]):.1f} %"


def judged_row(
    plain: Trainer, shown: ReferenceTrainer, pipe: Any, unseen: tuple[str, ...], count: int
) -> list[str]:
    seen, new = seen_prompts(unseen, count), unseen_prompts(unseen, count)
    texts, subjects = [p for p, _ in seen], [s for _, s in seen]
    new_texts, new_subjects = [p for p, _ in new], [s for _, s in new]
    rng = np.random.default_rng(46)
    trained = sorted({s for s in (e.name for e in SUBJECTS) if s not in unseen})
    others = [str(rng.choice([n for n in trained if n != s])) for s in subjects]

    def pictures(names: list[str]) -> torch.Tensor:
        return reference_tokens(pipe.vae, names, shown.cells)

    right = pictures(subjects)
    swapped = drawn_subjects(shown, pipe, texts, pictures(others))
    return [
        share(drawn_subjects(plain, pipe, texts, None), subjects),
        share(drawn_subjects(plain, pipe, new_texts, None), new_subjects),
        share(drawn_subjects(shown, pipe, texts, right), subjects),
        share(drawn_subjects(shown, pipe, texts, torch.zeros_like(right)), subjects),
        f"{share(swapped, subjects)} / {share(swapped, others)}",
        share(drawn_subjects(shown, pipe, new_texts, pictures(new_subjects)), new_subjects),
    ]


def main() -> None:
    from generation.presets import get_preset

    parser = argparse.ArgumentParser(prog="python -m lab.experiments.reference", description=__doc__)
    parser.add_argument("--steps", nargs="+", type=int, default=[500, 500, 500, 500], help="steps a run")
    parser.add_argument("--stills", type=int, default=STILLS, help="the world's stills both learn on")
    parser.add_argument("--batch", type=int, default=BATCH, help="stills a step")
    parser.add_argument("--judged", type=int, default=JUDGED, help="stills drawn and judged a cell")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not 0 < args.batch <= args.stills or min([*args.steps, args.judged]) <= 0:
        parser.error("--steps and --judged must be above 0, and --batch above 0 and at most --stills")
    torch.set_num_threads(args.threads)
    pipe = get_preset("world").build()
    unseen = unseen_subjects()
    data, firsts = world_stills(pipe.vae.float(), args.stills, unseen)
    plain = Trainer(data, args.threads, batch=args.batch)
    shown = ReferenceTrainer(data, firsts, pipe.vae, args.threads, batch=args.batch)
    print(f"{args.stills} world stills, {args.batch} a step; never trained: {', '.join(unseen)}")
    print(f"subject named in {args.judged} stills drawn from noise (chance {100 / len(SUBJECTS):.1f} %)\n")
    print(
        "| steps | text only | text only, unseen subjects | (a) right picture | (b) no picture "
        "| (c) swapped: prompt's / picture's | (d) unseen, with picture | s |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    done, began = 0, time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        for steps in args.steps:
            target = done + steps
            for name, trainer in (("plain", plain), ("reference", shown)):
                reached = trainer.train(10**6, Path(folder) / f"{name}.pt", max_steps=target)
                if reached < target:  # SIGTERM or SIGINT: the Trainer checkpointed and ended early
                    raise SystemExit(f"stopped after {reached:,} steps of the {name} run")
            done = target
            cells = judged_row(plain, shown, pipe, unseen, args.judged)
            took = time.monotonic() - began
            print(f"| {done:,} | " + " | ".join(cells) + f" | {took:.0f} |", flush=True)
            print(f"after {done:,} steps: {cells}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
