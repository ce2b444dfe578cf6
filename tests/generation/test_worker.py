"""A real Celery worker (queue gpu) rendering real clips, end to end: prefork on the tiny pipeline, and solo
on the world model's block path."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.generation import make_clip
from tests.helpers.processes import ROOT, subprocess_env
from yolive.celery import app
from yolive.clips.frames import frames_path
from yolive.clips.models import Clip
from yolive.plumbing import keys as redis_keys
from yolive.plumbing.redis_client import get_redis

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

RENDER_TIMEOUT_S = 240  # a cold pool process imports torch and builds the model first; the machine is shared
STREAM = {"width": 512, "height": 288, "fps": 24}


def start_worker(log: Path, *launcher: str) -> subprocess.Popen[bytes]:
    env = subprocess_env(
        GENERATION_TORCH_THREADS="1",
        CLIP_SECONDS="10",
    )
    command = [*launcher, "-A", "yolive", "worker", "--queues", "gpu", "--pool", "prefork"]
    command += ["--concurrency", "1", "--hostname", "generation-test@%h", "--loglevel", "INFO"]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def stop_worker(process: subprocess.Popen[bytes], log: Path) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    print(log.read_text()[-3000:])


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    process = start_worker(tmp_path / "worker.log", str(ROOT / ".venv/bin/celery"))
    yield process
    stop_worker(process, tmp_path / "worker.log")


@pytest.fixture
def out_of_memory_worker(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    log = tmp_path / "worker.log"
    process = start_worker(log, str(ROOT / ".venv/bin/python"), "-m", "tests.generation.oom_worker")
    yield process, log
    stop_worker(process, log)


def send(clip: Clip) -> None:
    app.send_task("generation.tasks.render_clip", args=[clip.id], queue="gpu")


def wait_for(clip: Clip, worker: subprocess.Popen[bytes], done, timeout: float = RENDER_TIMEOUT_S) -> Clip:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert worker.poll() is None, "the worker exited"
        clip.refresh_from_db()
        if done(clip):
            return clip
        time.sleep(0.02)
    raise AssertionError(f"clip {clip.id} still {clip.status} at {clip.progress:.0%}")


def claim_holder(clip: Clip) -> int | None:
    holder = get_redis().get(redis_keys.render_claim(clip.id))
    return int(holder.rpartition(":")[2]) if holder else None


def test_a_real_worker_renders_clips_and_a_lost_pool_process_leaves_one_copy(worker):
    first = make_clip(1, "a lighthouse in a storm", seed=3, **STREAM)
    send(first)
    first = wait_for(first, worker, lambda c: c.status == Clip.Status.READY)
    frames = np.load(first.frames_path, mmap_mode="r")
    assert frames.shape == (240, 288, 512, 3) and frames.dtype == np.uint8
    sample = np.asarray(frames[::24], dtype=np.float64)
    assert np.abs(np.diff(sample, axis=2)).mean() < sample.std() / 5  # smooth, not noise
    assert first.timings["total"] > 0 and first.timings["seconds"] == 10
    assert first.cache_stats["step_cache"] == "fbc"

    # The pool process dies while it holds the next clip: Celery requeues the task, a new pool process
    # takes the stale claim over, and the clip is rendered once, continuing from the first.
    second = make_clip(2, "a whale sings", seed=4, **STREAM)
    send(second)
    wait_for(second, worker, lambda c: claim_holder(c) is not None)
    os.kill(claim_holder(second), signal.SIGKILL)
    second = wait_for(second, worker, lambda c: c.status == Clip.Status.READY)
    assert second.cache_stats["continuity"]
    copies = [p.name for p in frames_path(second.id).parent.iterdir() if p.name.startswith(f"{second.id}.")]
    partial = [p.name for p in frames_path(second.id).parent.iterdir() if p.name.endswith(".partial")]
    assert copies == [f"{second.id}.npy"] and partial == []

    # A late duplicate delivery of a rendered clip changes nothing.
    written = os.stat(second.frames_path).st_mtime_ns
    send(second)
    send(first)
    time.sleep(3)
    assert os.stat(second.frames_path).st_mtime_ns == written
    assert Clip.objects.filter(status=Clip.Status.READY).count() == 2


def test_a_worker_out_of_memory_at_every_level_gives_the_clip_up_and_replaces_its_pool_process(
    out_of_memory_worker,
):
    worker, log = out_of_memory_worker
    for number in (1, 2):
        clip = make_clip(number, f"clip number {number}", **STREAM)
        send(clip)
        clip = wait_for(clip, worker, lambda c: c.status == Clip.Status.FAILED)
        assert "out of memory" in clip.error and not frames_path(clip.id).exists()
    oom = get_redis().hgetall(redis_keys.out_of_memory_counts())
    assert oom == {"level1": "2", "level2": "2", "level3": "2"}
    exits = "raised error: WorkerLostError('Worker exited prematurely: exitcode 1.')"
    deadline = time.monotonic() + 30
    while log.read_text().count(exits) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert log.read_text().count(exits) == 2  # the pool process left after each clip; a fresh one took over
    time.sleep(2)  # the requeued deliveries of the given-up clips are no-ops
    assert Clip.objects.filter(status=Clip.Status.FAILED).count() == 2
    assert worker.poll() is None


@pytest.fixture
def block_worker(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    log = tmp_path / "worker.log"
    command = [str(ROOT / ".venv/bin/celery"), "-A", "yolive", "worker", "--queues", "gpu", "--pool", "solo"]
    command += ["--hostname", "blocks-test@%h", "--loglevel", "INFO"]
    env = subprocess_env(
        MODEL_PRESET="world", GENERATION_BLOCKS="true", GENERATION_CACHE_WINDOW="2", CLIP_SECONDS="2"
    )
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    yield process
    stop_worker(process, log)


def test_a_block_worker_goes_on_in_its_cache_and_reports_it_on_metrics(
    block_worker, client, django_user_model
):
    stream = {"width": 160, "height": 96, "fps": 8}  # the world model's own size and rate
    clips = []
    for number in (1, 2, 3):
        clip = make_clip(number, f"a kitten bouncing on the beach, take {number}", seed=number, **stream)
        send(clip)
        clips.append(wait_for(clip, block_worker, lambda c: c.status == Clip.Status.READY))
    starts = [clip.cache_stats["start"] for clip in clips]
    assert starts == ["new", "cache", "cache"]  # each round's clip continued the last one in the cache
    assert np.load(clips[2].frames_path).shape == (16, 96, 160, 3)
    made = sum(clip.cache_stats["blocks"] for clip in clips)
    assert len({clip.cache_stats["kv_cache"]["bytes"] for clip in clips}) == 1  # a fixed pool

    client.force_login(django_user_model.objects.create_user("ops", password="ops-password-1", is_staff=True))
    text = client.get("/metrics").content.decode()
    assert f'yolive_kv_cache_pages_total{{event="evictions"}} {float(made - 3)}' in text  # 1 sink + 2 kept
    assert "yolive_kv_cache_frames 3.0" in text
