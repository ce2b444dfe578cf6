"""Settings for the test suite: the real Redis on a database number of its own, files under var/test-N/.

Concurrent suites on one machine stay apart by choosing another YOLIVE_TEST_REDIS_DB (pub/sub ignores
database numbers, hence the channel prefix too). Processes the tests start get the same environment.
"""

import os
from pathlib import Path

_db = os.environ.setdefault("YOLIVE_TEST_REDIS_DB", "15")
os.environ.setdefault("REDIS_URL", f"redis://127.0.0.1:6379/{_db}")
os.environ.setdefault("CHANNEL_PREFIX", f"yolive-test-{_db}")
os.environ.setdefault("VAR_DIR", str(Path(__file__).resolve().parent.parent / "var" / f"test-{_db}"))
os.environ.setdefault("MODEL_PRESET", "tiny")

from yolive.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
