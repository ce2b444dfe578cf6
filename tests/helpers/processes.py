"""Real processes the tests start: their environment, a private redis-server, loopback ports, binaries."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import quote

import redis

from benchmarks.instruments import free_port

ROOT = Path(__file__).resolve().parent.parent.parent


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


def require(binary: str) -> str:
    found = shutil.which(binary)
    assert found, f"{binary} is not installed: run `make test`, which installs it"
    return found


def suite_database_url() -> str:
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
    """The environment for processes a test starts: the same test settings and test database as this one.

    tests.settings takes the Redis from YOLIVE_TEST_REDIS_URL, so a REDIS_URL in `extra` is passed on as that.
    """
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="tests.settings",
        PYTHONUNBUFFERED="1",
        DATABASE_URL=suite_database_url(),
    )
    env.update(extra)
    if "REDIS_URL" in extra:
        env["YOLIVE_TEST_REDIS_URL"] = extra["REDIS_URL"]
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


def in_own_loop(coroutine):  # type: ignore[no-untyped-def]
    """asyncio.run in a thread of its own: the browser tests' Playwright keeps an event loop running in the
    main thread for the whole session, and asyncio.run refuses to start beside a running loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
