"""The lab's experiments that time or judge the shipped model still run against it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.processes import ROOT, subprocess_env


def run_module(
    module: str, *options: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *options],
        cwd=ROOT,
        env=env or subprocess_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )


@pytest.mark.slow
def test_the_patch_comparison_renders_the_shipped_transformer_beside_one_of_one_cell_tokens():
    result = run_module("lab.experiments.patch", "--patch", "1", "--frames", "24", "--rounds", "1")
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [
        line
        for line in result.stdout.splitlines()
        if line.startswith("| shipped") or line.startswith("| fresh")
    ]
    assert [row.split(" | ")[0] for row in rows] == [
        "| shipped, 2x2 cells a token",
        "| fresh, 1x1 cells a token",
    ]
    # Both rendered the whole clip with every block (no cache skipped one), from different weights.
    assert all(row.split(" | ")[10] == "48 of 48" for row in rows)
    assert rows[1].split(" | ")[7] != "0"  # largest pixel difference from the shipped model's frames


def test_the_shift_benchmark_refuses_a_zero_rate_and_judging_untrained_and_judges_the_shipped_vae(tmp_path):
    env = {**subprocess_env(), "VAR_DIR": str(tmp_path)}
    refused = run_module("lab.experiments.shifts", "--minutes", "0", "--threads", "1", env=env)
    assert refused.returncode != 0 and "no VAE trained on shifted crops" in refused.stderr
    still = run_module("lab.experiments.shifts", "--rate", "0", env=env)
    assert still.returncode == 2 and "--steps, --rate, --weight, --batches, --prompts above 0" in still.stderr

    from lab.experiments.shifts import moving
    from lab.training.model_folder import shipped_vae

    off, moved_decoded, reconstructed = moving(shipped_vae(), 1)
    # The shipped encoder was never asked to move its latents with the picture: its subject's latents lie
    # about 0.3 standard deviations from the moved ones, where 50 minutes on shifted crops reach 0.06.
    assert off > 0.15
    assert moved_decoded > reconstructed  # nor its decoder to draw moved latents as the moved sprite
