"""The suite flushes only a Redis database it has marked as its own, whatever REDIS_URL the shell exports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from tests.helpers import suite_redis
from tests.helpers.processes import ROOT, PrivateRedis
from yolive.plumbing.redis_client import get_redis

ONE_TEST = "tests/foundation/test_env.py::test_it_uses_defaults_for_unset_or_empty"


@pytest.fixture
def someone_elses_redis(tmp_path: Path):
    server = PrivateRedis(tmp_path)
    server.start()
    client = redis.Redis.from_url(server.url, decode_responses=True)
    client.set("orders:1", "a customer's order")
    yield server, client
    server.stop()


@pytest.fixture
def empty_redis(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    server = PrivateRedis(tmp_path / "empty")
    server.start()
    yield server
    server.stop()


def run_suite(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", ONE_TEST, "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_redis_url_exported_in_the_shell_is_never_flushed(someone_elses_redis, empty_redis):
    server, client = someone_elses_redis
    result = run_suite(REDIS_URL=server.url, YOLIVE_TEST_REDIS_URL=empty_redis.url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert client.get("orders:1") == "a customer's order"


def test_the_suite_refuses_a_database_that_holds_keys_it_did_not_mark(someone_elses_redis):
    server, client = someone_elses_redis
    result = run_suite(YOLIVE_TEST_REDIS_URL=server.url)
    assert result.returncode != 0
    refusals = [line for line in result.stdout.splitlines() if "YOLIVE_TEST_REDIS_URL" in line]
    assert len(refusals) == 1 and "holds keys" in refusals[0], result.stdout
    assert client.get("orders:1") == "a customer's order"


def test_a_flush_empties_the_suites_own_database_and_keeps_its_mark():
    client = get_redis()
    client.set("left:over", "from a test")
    suite_redis.flush(client)
    assert client.keys("*") == [suite_redis.MARKER]


def test_a_flush_of_a_database_without_the_mark_stops_the_session(someone_elses_redis):
    _, client = someone_elses_redis
    with pytest.raises(pytest.exit.Exception, match="refusing to flush Redis"):
        suite_redis.flush(client)
    assert client.get("orders:1") == "a customer's order"
