"""The benchmark commands people type still run (the GPU one named by the product's owners above all)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.processes import ROOT, subprocess_env


def generation_benchmark(
    *options: str, module: str = "benchmarks.generation"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *options],
        cwd=ROOT,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )


@pytest.mark.slow
def test_the_owners_ltx_command_runs_the_generation_benchmark():
    # The full-size model's code path on a CPU, at the smallest frame its VAE takes (32 pixels a side: a
    # quarter of 64x64's decoding time, the most of this run's).
    smoke = ["--device", "cpu", "--size", "32x32", "--frames", "8", "--layers", "2", "--threads", "2"]
    result = generation_benchmark("--preset", "ltx", "--random-weights", *smoke, module="generation.bench")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ltx smoke on cpu: transformer" in result.stdout and "2 blocks" in result.stdout
    assert "rendered (8, 32, 32, 3)" in result.stdout


@pytest.mark.slow
def test_the_patch_comparison_renders_the_shipped_transformer_beside_one_of_one_cell_tokens():
    result = generation_benchmark("--patch", "1", "--frames", "24", "--rounds", "1", "--threads", "1")
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

    refused = generation_benchmark("--patch", "1", "--preset", "tiny")
    assert refused.returncode != 0 and "--patch compares the default model's transformer" in refused.stderr


def test_the_shift_benchmark_refuses_a_zero_rate_and_judging_untrained_and_judges_the_shipped_vae(tmp_path):
    refused = subprocess.run(
        [sys.executable, "-m", "benchmarks.shifts", "--minutes", "0", "--threads", "1"],
        cwd=ROOT,
        env={**subprocess_env(), "VAR_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode != 0 and "no VAE trained on shifted crops" in refused.stderr
    still = subprocess.run(
        [sys.executable, "-m", "benchmarks.shifts", "--rate", "0"],
        cwd=ROOT,
        env={**subprocess_env(), "VAR_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert still.returncode == 2 and "--steps, --rate, --weight, --batches, --prompts above 0" in still.stderr

    from benchmarks.shifts import moving
    from generation.training.__main__ import shipped_vae

    off, moved_decoded, reconstructed = moving(shipped_vae(), 1)
    # The shipped encoder was never asked to move its latents with the picture: its subject's latents lie
    # about 0.3 standard deviations from the moved ones, where 50 minutes on shifted crops reach 0.06.
    assert off > 0.15
    assert moved_decoded > reconstructed  # nor its decoder to draw moved latents as the moved sprite
