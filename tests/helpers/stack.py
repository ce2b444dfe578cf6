"""The whole channel as real processes (web, worker, conductor, broadcaster) for the browser tests.

It runs on a redis-server of its own and in a folder of its own, so the per-test Redis flush of the rest
of the suite never touches it, and its database and HLS files never mix with anyone else's.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers.processes import ROOT, PrivateRedis, free_port, own_channel_env

PY = str(ROOT / ".venv" / "bin" / "python")
MODERATOR = ("moderator", "browser-test-password-1")
ROUND_SECONDS = 12  # long enough to submit, approve and vote inside one round; short enough to see several
HEALTHY_WITHIN_S = 180  # the worker imports torch and builds the tiny model; the broadcaster starts ffmpeg


@dataclass
class Stack:
    workdir: Path
    port: int = field(default_factory=free_port)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    preset: str = "tiny"
    parts: tuple[str, ...] = ("web", "conductor", "worker", "broadcaster")
    redis: PrivateRedis | None = None  # one another stack shares; else the stack starts its own
    name: str = "browser"  # in its CHANNEL_PREFIX, beside its port
    round_seconds: int = ROUND_SECONDS

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)
        self.workdir.mkdir(parents=True)
        self._own_redis = self.redis is None
        if self.redis is None:
            self.redis = PrivateRedis(self.workdir)
            self.redis.start()
        self.env = own_channel_env(
            self.workdir,
            self.redis.url,
            self.name,
            self.port,
            ROUND_SECONDS=str(self.round_seconds),
            MODEL_PRESET=self.preset,
            # Every browser here is 127.0.0.1: one test's timeout of its viewer would, by address, silence
            # every other test's viewers. Address bans are tested through the socket (tests/moderation).
            MODERATION_BAN_ADDRESS="false",
            MODERATOR_USERNAME=MODERATOR[0],
            MODERATOR_PASSWORD=MODERATOR[1],
            WEB_PROCESSES="1",
        )
        self._manage("migrate", "--no-input")
        self._manage("ensure_moderator")
        bin_dir = ROOT / ".venv" / "bin"
        self._spawn("web", [PY, "-m", "yolive.serve"])  # as make run starts it, on WEB_PORT
        if "conductor" in self.parts:
            self._spawn("conductor", [PY, "manage.py", "conduct"])
        if "worker" in self.parts:
            worker = [str(bin_dir / "celery"), "-A", "yolive", "worker", "--queues", "gpu,default"]
            self._spawn("worker", [*worker, "--concurrency", "1", "--pool", "prefork", "--loglevel", "INFO"])
        if "broadcaster" in self.parts:
            self._spawn("broadcaster", [PY, "manage.py", "broadcast"])

    def _manage(self, *args: str) -> None:
        subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=self.env, check=True, capture_output=True)

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.workdir / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        # A session of its own, so stopping it also stops its children (celery's pool, ffmpeg).
        self.processes[name] = subprocess.Popen(
            argv, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def health(self) -> tuple[int, dict]:
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=5) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as err:
            return err.code, json.load(err)

    def wait_healthy(self, need_all: bool) -> None:
        """Until /healthz is 200 (or, with parts missing, until web and conductor report in)."""
        deadline = time.monotonic() + HEALTHY_WITHIN_S
        last: object = None
        while time.monotonic() < deadline:
            self.check_alive()
            try:
                status, body = self.health()
                last = body
                if status == 200 or (not need_all and body["checks"]["conductor"]["ok"]):
                    return
            except (OSError, ValueError):
                pass
            time.sleep(0.5)
        raise AssertionError(f"the channel did not become healthy: {last}\n{self.logs()}")

    def wait_until_serving(self, within_s: float = 60) -> None:
        """Until the web process answers at all (a web-only stack is never healthy: nothing else runs)."""
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            self.check_alive()
            with contextlib.suppress(OSError, ValueError):
                self.health()
                return
            time.sleep(0.3)
        raise AssertionError(f"the web process did not answer\n{self.logs()}")

    def check_alive(self) -> None:
        for name, process in self.processes.items():
            if process.poll() is not None:
                raise AssertionError(f"{name} exited with {process.returncode}\n{self.logs()}")

    def logs(self, lines: int = 30) -> str:
        out = []
        for name in self.processes:
            text = (self.workdir / f"{name}.log").read_text(errors="replace").splitlines()[-lines:]
            out.append(f"--- {name} ---\n" + "\n".join(text))
        return "\n".join(out)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for name, process in self.processes.items():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            if name == "worker":
                # Celery's pool children share the session: make sure none outlives the test.
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
        if self._own_redis and self.redis is not None:
            self.redis.stop()
