"""scripts/ensure_redis.sh (make run, make test): a Redis where REDIS_URL points, started if none answers."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.helpers.processes import ROOT, free_port

SCRIPT = ROOT / "scripts" / "ensure_redis.sh"


def ensure_redis(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # The suite's own REDIS_URL stays out: each test says which one the script sees, if any.
    base = {name: value for name, value in os.environ.items() if name != "REDIS_URL"}
    return subprocess.run(
        [str(SCRIPT), *args], cwd=cwd, env={**base, **env}, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def started_ports() -> Iterator[list[int]]:
    """Ports the script may start a redis-server on; whatever it started there is shut down afterwards."""
    ports: list[int] = []
    yield ports
    for port in ports:
        with contextlib.suppress(redis.ConnectionError):
            redis.Redis(port=port).shutdown(nosave=True)


def test_it_starts_a_redis_on_the_port_redis_url_names_when_none_answers(tmp_path, started_ports):
    port = free_port()
    started_ports.append(port)

    result = ensure_redis(tmp_path, REDIS_URL=f"redis://127.0.0.1:{port}/3")

    assert result.returncode == 0, result.stderr
    assert f"none answers on 127.0.0.1:{port}, starting one" in result.stdout
    assert redis.Redis(port=port).ping()


def test_it_reads_redis_url_from_the_env_file_when_the_environment_has_none(tmp_path, started_ports):
    port = free_port()
    started_ports.append(port)
    (tmp_path / ".env").write_text(f'SECRET_KEY=abc\nREDIS_URL="redis://localhost:{port}/0"\n')

    result = ensure_redis(tmp_path)

    assert result.returncode == 0, result.stderr
    assert redis.Redis(port=port).ping()


def test_the_environment_wins_over_the_env_file_and_a_redis_that_answers_is_left_alone(tmp_path):
    (tmp_path / ".env").write_text(f"REDIS_URL=redis://127.0.0.1:{free_port()}/0\n")

    result = ensure_redis(tmp_path, REDIS_URL=os.environ["YOLIVE_TEST_REDIS_URL"])  # the suite's, up

    assert result.returncode == 0 and result.stdout == "", result.stdout + result.stderr
    assert not (tmp_path / "var").exists()


def test_it_names_a_remote_redis_that_does_not_answer_instead_of_starting_one(tmp_path):
    result = ensure_redis(tmp_path, REDIS_URL="redis://redis.invalid:6379/0")

    assert result.returncode == 1
    assert "redis.invalid:6379" in result.stderr and "not this machine" in result.stderr
    assert not (tmp_path / "var").exists()
