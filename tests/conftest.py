from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import suite_redis
from tests.helpers.processes import ROOT, PrivateRedis
from yolive.plumbing.redis_client import get_redis


def pytest_sessionstart(session: pytest.Session) -> None:
    suite_redis.claim(get_redis())
    # The gate's learned reader, trained once into the suite's cache folder (most of a minute on a fresh
    # clone) before any test starts a server whose first prompt would wait for it within its own timeout.
    from yolive.moderation.policy.learned.training import shipped

    shipped()


@pytest.fixture(autouse=True)
def clean_redis() -> Iterator[None]:
    """Every test starts and ends with an empty test database in the real Redis (the suite's own only)."""
    suite_redis.flush(get_redis())
    yield
    suite_redis.flush(get_redis())


@pytest.fixture
def private_redis(tmp_path: Path, settings, monkeypatch) -> Iterator[PrivateRedis]:  # type: ignore[no-untyped-def]
    """Point the app, and the processes the test starts, at a private redis-server for one test."""
    server = PrivateRedis(tmp_path)
    server.start()
    settings.REDIS_URL = server.url
    monkeypatch.setenv("REDIS_URL", server.url)
    monkeypatch.setenv("YOLIVE_TEST_REDIS_URL", server.url)  # what tests.settings reads in those processes
    get_redis.cache_clear()
    yield server
    server.stop()
    get_redis.cache_clear()


@pytest.fixture
def artifacts_dir() -> Path:
    path = ROOT / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path
