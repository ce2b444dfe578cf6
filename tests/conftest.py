from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
import redis

from benchmarks.common import free_port
from yolive.redis_client import get_redis

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def clean_redis() -> Iterator[None]:
    """Every test starts and ends with an empty test database in the real Redis."""
    get_redis().flushdb()
    yield
    get_redis().flushdb()


class PrivateRedis:
    """A redis-server of the test's own, so a test can stop and restart it without touching anyone else's."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("private redis-server did not start")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def private_redis(tmp_path: Path, settings, monkeypatch) -> Iterator[PrivateRedis]:  # type: ignore[no-untyped-def]
    """Point the app at a private redis-server for the length of one test."""
    server = PrivateRedis(tmp_path)
    server.start()
    settings.REDIS_URL = server.url
    monkeypatch.setenv("REDIS_URL", server.url)
    get_redis.cache_clear()
    yield server
    server.stop()
    get_redis.cache_clear()


@pytest.fixture
def artifacts_dir() -> Path:
    path = ROOT / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path


def require(binary: str) -> str:
    found = shutil.which(binary)
    assert found, f"{binary} is not installed: run `make test`, which installs it"
    return found


def test_database_url() -> str:
    """The database this test runs on (pytest-django's test database), as a DATABASE_URL."""
    from django.db import connection

    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    credentials = quote(db["USER"] or "") + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    return (
        f"{connection.vendor}://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    )


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for processes a test starts: the same test settings and test database as this one."""
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="tests.settings",
        PYTHONUNBUFFERED="1",
        DATABASE_URL=test_database_url(),
    )
    env.update(extra)
    return env


def own_channel_env(workdir: Path, redis_url: str, name: str, port: int, **extra: str) -> dict[str, str]:
    """A whole channel of its own for processes a test starts: its folder, its database (whatever database
    the suite runs on), its Redis and channel prefix, the stand-in model unless `extra` says otherwise."""
    own = {
        "VAR_DIR": str(workdir),
        "DATABASE_URL": f"sqlite:///{workdir / 'yolive.sqlite3'}",
        "REDIS_URL": redis_url,
        "CHANNEL_PREFIX": f"yolive-{name}-{port}",
        "MODEL_PRESET": "tiny",
        "WEB_PORT": str(port),
    }
    return subprocess_env(**{**own, **extra})
