"""A long stream judged minute by minute: does the picture drift, and does an old prompt linger after the
crowd moves on, on the worker's bidirectional path and on its block path with and without the re-cache?

    python -m lab.experiments.stream [--minutes 10] [--folder PATH] [--threads 1]

Six 10-second clips a minute, for the same six held-out prompts every minute (lab/evaluation's cases; new
seeds), so that one minute compares with another like for like, each given the previous clip's last frames
as the worker gives them, through four renderers of the model in `--folder` (the shipped one by default; a
fine-tune from lab.experiments.diffusion_forcing for the block path's own weights), at the model's size and
rate:
- bidirectional: generation/renderer.py, the previous clip's lead frames encoded again;
- blocks, re-cached: generation/block_renderer.py, the stream going on in its cache, the window re-cached
  with each new prompt (LongLive);
- blocks, not re-cached: the same with the re-cache off;
- blocks, sink beside the window: re-cached, and the sink frame read just before the window's oldest
  frame rather than where it was made (minutes back by the end).
The judge names each clip's setting, subject and motion against its own prompt. Per path: the share right
in the first and the second half of the stream and over all of it; "lingers", the share of clips whose
subject is named as the previous prompt's subject (where that differs from its own): the old prompt showing
through; and the setting and motion named right minute by minute (six clips a minute: read the trend, not
one minute).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from generation.block_renderer import BlockRenderer, BlockSettings
from generation.model_folder import MODEL_DIR
from generation.presets import get_preset
from generation.presets.world import build
from generation.renderer import CacheSettings, Renderer, RenderRequest
from lab.evaluation.judge import judge
from lab.evaluation.rows import AIRED, cases
from lab.training.architecture import FPS, HEIGHT, LEAD_FRAMES, WIDTH

CLIPS_A_MINUTE = 6


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m lab.experiments.stream", description=__doc__)
    parser.add_argument("--minutes", type=int, default=10, help="minutes of stream, six clips each")
    parser.add_argument("--folder", type=Path, default=MODEL_DIR, help="the model folder")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    if args.minutes < 2:
        parser.error("--minutes must be 2 or more (the first and the last minute are compared)")
    torch.set_num_threads(args.threads)
    began = time.monotonic()
    preset = get_preset("world")
    renderers: dict[str, Renderer] = {  # each on its own copy of the model: they hook its attention
        "bidirectional": Renderer(preset, build(args.folder), CacheSettings()),
        "blocks, re-cached": BlockRenderer(preset, build(args.folder), CacheSettings(), BlockSettings()),
        "blocks, not re-cached": BlockRenderer(
            preset, build(args.folder), CacheSettings(), BlockSettings(recache=False)
        ),
        "blocks, sink beside the window": BlockRenderer(
            preset, build(args.folder), CacheSettings(), BlockSettings(sink_beside_window=True)
        ),
    }
    chosen = cases(CLIPS_A_MINUTE)
    clips = args.minutes * CLIPS_A_MINUTE
    # right[path][clip] = (setting, subject, motion) named right; lingered[path] = old subject named
    right: dict[str, list[tuple[bool, bool, bool]]] = {name: [] for name in renderers}
    lingered: dict[str, list[bool]] = {name: [] for name in renderers}
    last: dict[str, np.ndarray | None] = dict.fromkeys(renderers)
    print(f"model from {args.folder}; {clips} clips of {len(chosen)} held-out prompts in turn", flush=True)
    for clip in range(clips):
        case, previous = chosen[clip % len(chosen)], chosen[(clip - 1) % len(chosen)]
        for name, renderer in renderers.items():
            before = last[name]
            request = RenderRequest(
                case.prompt, seed=clip, width=WIDTH, height=HEIGHT, fps=FPS, num_frames=AIRED
            )
            if before is not None:
                request.condition, request.condition_lead = before[-LEAD_FRAMES:], LEAD_FRAMES
            frames = renderer.render(request).frames
            assert frames is not None
            verdict = judge(frames, case.scene.subjects[0])
            right[name].append(
                (
                    verdict.setting == case.scene.setting,
                    verdict.subject == case.scene.subjects[0],
                    verdict.motion == case.scene.motion,
                )
            )
            old, own = previous.scene.subjects[0], case.scene.subjects[0]
            if clip and old != own:
                lingered[name].append(verdict.subject == old)
            last[name] = frames
        if (clip + 1) % CLIPS_A_MINUTE == 0:
            print(f"minute {(clip + 1) // CLIPS_A_MINUTE} done, {time.monotonic() - began:.0f} s", flush=True)

    def shares(rows: list[tuple[bool, bool, bool]]) -> str:
        return " / ".join(f"{100 * np.mean([r[i] for r in rows]):.0f}" for i in range(3))

    half = clips // 2
    print("\n| path | first half: setting / subject / motion % | second half | whole stream | lingers % |")
    print("| --- | --- | --- | --- | --- |")
    for name, rows in right.items():
        print(
            f"| {name} | {shares(rows[:half])} | {shares(rows[half:])} | {shares(rows)} | "
            f"{100 * np.mean(lingered[name]):.0f} |"
        )
    for name, rows in right.items():
        minutes = [rows[m : m + CLIPS_A_MINUTE] for m in range(0, clips, CLIPS_A_MINUTE)]
        for i, what in ((0, "setting"), (2, "motion")):
            series = " ".join(f"{100 * np.mean([r[i] for r in minute]):.0f}" for minute in minutes)
            print(f"{name}, {what} % by minute: {series}")
    print(f"\n{time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
