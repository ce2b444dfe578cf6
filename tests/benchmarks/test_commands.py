"""The benchmark commands people type still run (the GPU one named by the product's owners above all)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.processes import ROOT, subprocess_env


@pytest.mark.slow
def test_the_owners_ltx_command_runs_the_generation_benchmark():
    # The CPU smoke run docs/benchmarks.md gives for `generation.bench --preset ltx --random-weights`.
    smoke = ["--device", "cpu", "--size", "64x64", "--frames", "8", "--layers", "2", "--threads", "1"]
    result = subprocess.run(
        [sys.executable, "-m", "generation.bench", "--preset", "ltx", "--random-weights", *smoke],
        cwd=ROOT,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ltx smoke on cpu: transformer" in result.stdout and "2 blocks" in result.stdout
    assert "rendered (8, 64, 64, 3)" in result.stdout
