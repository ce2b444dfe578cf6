"""The benchmark commands people type still run (the GPU one the product's owners run above all)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.processes import ROOT, subprocess_env


def generation_benchmark(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks.generation", *options],
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
    result = generation_benchmark("--preset", "ltx", "--random-weights", *smoke)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ltx smoke on cpu: transformer" in result.stdout and "2 blocks" in result.stdout
    assert "rendered (8, 32, 32, 3)" in result.stdout


def test_the_block_causal_benchmark_times_the_cache_on_and_off_and_counts_its_evictions(capsys):
    from unittest.mock import patch

    from benchmarks import block_causal

    # In the test's process, where torch is imported already; six one-second blocks through a pool of three.
    argv = ["block_causal", "--blocks", "6", "--warmup", "1", "--sink", "1", "--window", "2"]
    with patch("sys.argv", argv):
        block_causal.main()
    out = capsys.readouterr().out
    assert "| block-causal, cache on |" in out and "| block-causal, cache off" in out
    assert "3 pages of 3" in out and "3 frames evicted (blocks - pages = 3)" in out


def test_the_block_stream_benchmark_compares_the_worker_paths_clip_after_clip(capsys):
    from unittest.mock import patch

    from benchmarks import block_stream

    argv = ["block_stream", "--clips", "2", "--warmup", "0", "--seconds", "2", "--window", "2"]
    with patch("sys.argv", argv):
        block_stream.main()
    out = capsys.readouterr().out
    for path in ("bidirectional", "bidirectional, one decode", "blocks, re-cached", "blocks, not re-cached"):
        assert f"| {path} |" in out
    assert "| bidirectional | " in out and "| 1.00x |" in out
    assert "3 of 3 frames held" in out  # one sink and a window of two, full after two clips


def test_the_moderation_benchmark_reads_the_resident_memory_an_allocation_adds():
    import numpy as np

    from benchmarks.moderation import resident_mib

    before = resident_mib()
    block = np.ones(8 * 1024 * 1024)  # 64 MiB, every page written
    assert resident_mib() - before > 50
    del block
