"""Settings for the test suite: a Redis database of its own, files under var/test-N/.

The suite flushes its Redis around every test, so it never uses REDIS_URL (the shell's or .env's, which may
hold real data): it takes YOLIVE_TEST_REDIS_URL, by default database YOLIVE_TEST_REDIS_DB (15) of the local
Redis, and tests/helpers/suite_redis.py refuses one that holds keys the suite did not mark as its own.
Concurrent suites on one machine stay apart by choosing another YOLIVE_TEST_REDIS_DB (pub/sub ignores
database numbers, hence the channel prefix too). Processes the tests start get the same environment.
"""

import os
from pathlib import Path

_db = os.environ.setdefault("YOLIVE_TEST_REDIS_DB", "15")
os.environ["REDIS_URL"] = os.environ.setdefault("YOLIVE_TEST_REDIS_URL", f"redis://127.0.0.1:6379/{_db}")
os.environ.setdefault("CHANNEL_PREFIX", f"yolive-test-{_db}")
os.environ.setdefault("VAR_DIR", str(Path(__file__).resolve().parent.parent / "var" / f"test-{_db}"))
os.environ.setdefault("MODEL_PRESET", "tiny")
# The learned moderation reader, trained once for the suite's processes (keyed by what it is made from).
os.environ.setdefault("YOLIVE_CACHE_DIR", str(Path(__file__).resolve().parent.parent / "var" / "test-cache"))

from yolive.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Renders the tests queue go to the suite's Redis, never to a broker a CELERY_BROKER_URL names.
CELERY_BROKER_URL = REDIS_URL  # noqa: F405
