"""The voting benchmark's sandbox: a private redis-server, a fresh SQLite file, a conductor (the tally
ticker) and the web process under test (or the bare floor server), started and stopped by the benchmark only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.instruments import cpu_seconds, free_port

ROOT = Path(__file__).resolve().parent.parent
STARTUP_TIMEOUT_S = 60
PROBES = 20  # clients that each own two candidates; 2 x 20 + PUBLIC candidates stays under MAX_CANDIDATES
PUBLIC = 8  # candidates everybody else votes on


def sandbox_env(workdir: Path, redis_port: int) -> dict[str, str]:
    return dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="yolive.settings",
        SECRET_KEY="bench-only",
        VAR_DIR=str(workdir),
        DATABASE_URL="",
        REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
        CHANNEL_PREFIX="yolive-bench",
        ROUND_SECONDS="3600",  # one round for the whole run: every level votes into an open round
        VOTES_PER_WINDOW="1000",  # probes vote a few times a second
        VOTES_PER_WINDOW_PER_IP="1000000000",  # every client shares 127.0.0.1
        SUBMITS_PER_WINDOW_PER_IP="1000000000",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )


class Sandbox:
    """The private redis-server, web process and conductor, started and stopped by this benchmark only."""

    def __init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="yolive-bench-"))
        self.redis_port = free_port()
        self.env = sandbox_env(self.workdir, self.redis_port)
        self.processes: list[subprocess.Popen[bytes]] = []
        # The servers' own logs (an overloaded web process logs every frame it could not serve).
        self.log_path = ROOT / "var" / "bench-voting.log"
        self.log_path.parent.mkdir(exist_ok=True)
        self.log = self.log_path.open("w")
        self.web: subprocess.Popen[bytes] | None = None
        self.web_port = 0

    def start(self) -> None:
        redis_cmd = ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", ""]
        self._spawn([*redis_cmd, "--appendonly", "no", "--dir", str(self.workdir)])
        manage = [sys.executable, "manage.py"]
        subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=self.env, check=True)
        self._spawn([*manage, "conduct"])

    def start_web(
        self,
        broadcast: str,
        processes: int = 1,
        cpus: set[int] | None = None,
        root: Path = ROOT,
    ) -> None:
        """The web process as `make run` starts it (`python -m yolive.serve`: its flags, its application
        factory, `processes` uvicorn workers on one port), on `cpus`; from the code in `root` (another
        checkout, to compare two versions, each with its own flags)."""
        self.stop_web()
        self.web_port = free_port()
        env = dict(
            self.env,
            TALLY_BROADCAST=broadcast,
            WEB_HOST="127.0.0.1",
            WEB_PORT=str(self.web_port),
            WEB_PROCESSES=str(processes),
            LOG_LEVEL="WARNING",
        )
        self.web = self._spawn([sys.executable, "-m", "yolive.serve"], env=env, cwd=root)
        if cpus:
            os.sched_setaffinity(self.web.pid, cpus)  # its workers, forked later, inherit it
        self._wait_listening(self.web_port)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while len(self.web_processes()) < processes and time.monotonic() < deadline:
            time.sleep(0.2)

    def start_floor(self, frame: str, hz: float, cpus: set[int] | None = None) -> None:
        """The bare websockets server in the web process's place (benchmarks/floor.py)."""
        self.stop_web()
        self.web_port = free_port()
        frame_file = self.workdir / "frame.json"
        frame_file.write_text(frame)
        floor = [sys.executable, "-m", "benchmarks.floor", "--port", str(self.web_port), "--hz", str(hz)]
        self.web = self._spawn([*floor, "--frame-file", str(frame_file)])
        if cpus:
            os.sched_setaffinity(self.web.pid, cpus)
        self._wait_listening(self.web_port)

    def web_processes(self) -> list[int]:
        """The pids that serve: the web process itself, or its uvicorn workers when it has some."""
        assert self.web is not None
        children = Path(f"/proc/{self.web.pid}/task/{self.web.pid}/children").read_text().split()
        return [int(pid) for pid in children] or [self.web.pid]

    def web_cpu(self) -> float:
        """CPU seconds of every process serving, so far (a worker that has exited is not counted)."""
        assert self.web is not None
        total = 0.0
        for pid in {self.web.pid, *self.web_processes()}:
            with contextlib.suppress(FileNotFoundError):
                total += cpu_seconds(pid)
        return total

    @staticmethod
    def _wait_listening(port: int) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    return
            time.sleep(0.2)
        raise RuntimeError("the web process did not start")

    def stop_web(self) -> None:
        if self.web is not None:
            self._stop(self.web)
            self.processes.remove(self.web)
            self.web = None

    def _spawn(
        self, cmd: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT
    ) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(cmd, cwd=cwd, env=env or self.env, stdout=self.log, stderr=self.log)
        self.processes.append(process)
        return process

    @staticmethod
    def _stop(process: subprocess.Popen[bytes]) -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self) -> None:
        for process in reversed(self.processes):
            self._stop(process)
        shutil.rmtree(self.workdir, ignore_errors=True)
        self.log.close()


def seed_candidates(env: dict[str, str]) -> tuple[list[int], list[tuple[int, int]]]:
    """Put PUBLIC + 2 x PROBES candidates on the open round's ballot (as the conductor and services do)."""
    os.environ.update(env)
    import django

    django.setup()
    from yolive.voting import tally
    from yolive.voting.models import Prompt

    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while (round_id := tally.current_round_id()) is None:
        if time.monotonic() > deadline:
            raise RuntimeError("the conductor opened no round")
        time.sleep(0.2)

    def candidate(text: str) -> int:
        prompt = Prompt.objects.create(text=text, normalized_text=text, round_id=round_id, status="approved")
        assert tally.add_candidate(round_id, prompt.pk, text) == "added"
        return prompt.pk

    public = [candidate(f"scene {i}: a calm lake at dawn") for i in range(PUBLIC)]
    probes = [(candidate(f"probe {i} left"), candidate(f"probe {i} right")) for i in range(PROBES)]
    return public, probes
