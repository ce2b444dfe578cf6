"""The whole channel under the supervisor `make run` uses (supervisord.conf), and a live HLS client.

The channel runs on a redis-server of its own, in a folder of its own, with a database of its own, so
nothing it does reaches the rest of the suite, and the rest of the suite's Redis flushes never reach it.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import m3u8
import redis
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers.processes import ROOT, PrivateRedis, free_port, own_channel_env

PY = str(ROOT / ".venv" / "bin" / "python")
METRICS_TOKEN = "supervised-scrape-token"
SPAWNED = re.compile(r"spawned: '(\w+)' with pid (\d+)")
TS_SYNC_BYTE = 0x47  # every MPEG-TS packet starts with it


def http_get(url: str, timeout: float = 5) -> tuple[int, bytes]:
    """Status and body; 0 when nothing answers (the web process is being restarted)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()
    except (OSError, TimeoutError):
        return 0, b""


def children(pid: int) -> list[tuple[int, str]]:
    """(pid, command name) of every process whose parent is `pid`, whichever of its threads started it."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        if ppid == pid:
            found.append((int(entry.name), name))
    return found


@dataclass
class SupervisedChannel:
    workdir: Path
    port: int = field(default_factory=free_port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.workdir / "supervisord.log"

    def start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.redis = PrivateRedis(self.workdir)
        self.redis.start()
        self.env = own_channel_env(
            self.workdir, self.redis.url, "supervised", self.port, METRICS_TOKEN=METRICS_TOKEN
        )
        subprocess.run([PY, "manage.py", "migrate", "--no-input"], cwd=ROOT, env=self.env, check=True)
        self.log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.supervisor = subprocess.Popen(
            [
                str(ROOT / ".venv" / "bin" / "supervisord"),
                "--configuration",
                str(ROOT / "supervisord.conf"),
                "--pidfile",
                str(self.workdir / "supervisord.pid"),
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def supervisor_log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def pid(self, program: str) -> int:
        """The pid supervisord last started `program` with."""
        pids = [int(pid) for name, pid in SPAWNED.findall(self.supervisor_log()) if name == program]
        assert pids, f"supervisord never started {program}"
        return pids[-1]

    def ffmpeg_pid(self) -> int | None:
        found = [pid for pid, name in children(self.pid("broadcaster")) if name == "ffmpeg"]
        return found[0] if found else None

    def metrics(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        request = urllib.request.Request(
            f"{self.url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
        return {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
        }

    def beating(self, component: str) -> set[int]:
        """The pids of the `component` processes whose heartbeat is in the channel's Redis."""
        client = redis.Redis.from_url(self.redis.url)
        try:
            keys = list(client.scan_iter(match=f"*heartbeat:{component}:*"))
            records = [json.loads(value) for value in client.mget(keys) if value] if keys else []
        finally:
            client.close()
        return {int(record["instance"].rpartition(":")[2]) for record in records}

    def health(self) -> tuple[int, dict]:
        status, body = http_get(f"{self.url}/healthz")
        return status, (json.loads(body) if body else {})

    def wait_healthy(self, within_s: float) -> float:
        """Seconds until /healthz answered 200; fails with the last answer and the log after `within_s`."""
        started = time.monotonic()
        last: object = None
        while time.monotonic() - started < within_s:
            assert self.supervisor.poll() is None, f"supervisord exited\n{self.supervisor_log()[-4000:]}"
            status, last = self.health()
            if status == 200:
                return time.monotonic() - started
            time.sleep(0.5)
        raise AssertionError(f"/healthz not 200 within {within_s} s: {last}\n{self.supervisor_log()[-4000:]}")

    def stop(self, within_s: float = 90) -> int:
        """Ctrl-C, as a person stops `make run`; returns supervisord's exit status."""
        try:
            if self.supervisor.poll() is None:
                self.supervisor.send_signal(signal.SIGINT)
                try:
                    return self.supervisor.wait(timeout=within_s)
                except subprocess.TimeoutExpired:
                    self.supervisor.kill()
                    self.supervisor.wait(timeout=10)
                    raise
            return self.supervisor.returncode
        finally:
            self.log.close()
            self.redis.stop()


@dataclass
class Fetched:
    sequence: int
    discontinuity: bool
    at: float  # monotonic time it was first listed to this client
    is_ts: bool


class LiveClient(threading.Thread):
    """Follows the live playlist like a player: reloads it, fetches every new segment once, in order.

    It keeps going through refused connections and errors (the web process restarting), and records
    what it saw, so a test can tell whether the stream went on: no sequence number missing, and where
    the discontinuities were. A segment that nothing answers for (the web process killed between the
    playlist and the segment) is asked for again until the web is back, as players retry a fragment
    (hls.js: several tries over seconds); one that is gone or broken when it answers is missed.
    """

    RELOAD_S = 1.0  # half the target duration (RFC 8216 6.3.4 allows reloading that often)
    # Long enough for the web's restart; a listed segment stays served longer (the live window, then RFC
    # 8216 6.2.2's grace), so one gone by then was deleted too early.
    SEGMENT_RETRY_S = 20.0

    def __init__(self, playlist_url: str) -> None:
        super().__init__(name="live-client", daemon=True)
        self.playlist_url = playlist_url
        self.base = playlist_url.rsplit("/", 1)[0]
        self.fetched: list[Fetched] = []
        self.playlists: list[str] = []
        self.missed: list[str] = []  # segments listed but gone or broken when fetched
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            status, body = http_get(self.playlist_url)
            if status == 200:
                self.take(body.decode())
            self.done.wait(self.RELOAD_S)

    def take(self, text: str) -> None:
        self.playlists.append(text)
        playlist = m3u8.loads(text)
        newest = self.fetched[-1].sequence if self.fetched else -1
        for offset, segment in enumerate(playlist.segments):
            sequence = playlist.media_sequence + offset
            if sequence <= newest:
                continue
            status, data = self.fetch(f"{self.base}/{segment.uri}")
            if status != 200:
                self.missed.append(f"{segment.uri}: {status}")
            is_ts = len(data) > 188 and data[0] == TS_SYNC_BYTE and data[188] == TS_SYNC_BYTE
            self.fetched.append(Fetched(sequence, bool(segment.discontinuity), time.monotonic(), is_ts))

    def fetch(self, url: str) -> tuple[int, bytes]:
        deadline = time.monotonic() + self.SEGMENT_RETRY_S
        while True:
            status, data = http_get(url, timeout=10)
            if status != 0 or time.monotonic() > deadline or self.done.is_set():
                return status, data
            time.sleep(0.2)

    def listed_since(self, moment: float) -> list[Fetched]:
        return [f for f in self.fetched if f.at >= moment]

    def wait_for_segments(self, count: int, since: float, within_s: float) -> None:
        deadline = time.monotonic() + within_s
        while len(self.listed_since(since)) < count:
            assert time.monotonic() < deadline, f"fewer than {count} new segments in {within_s} s"
            time.sleep(0.2)

    def stop(self) -> None:
        self.done.set()
        self.join(timeout=15)

    def gaps(self) -> list[int]:
        seen = [f.sequence for f in self.fetched]
        return sorted(set(range(seen[0], seen[-1] + 1)) - set(seen)) if seen else []
