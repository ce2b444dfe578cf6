"""deploy/: the systemd units pass `systemd-analyze verify`, and the nginx site passes `nginx -t` and does
what docs/operations.md says in front of a real web process: HLS from disk with its types, caches and
CORS, pages proxied, WebSockets upgraded."""

from __future__ import annotations

import asyncio
import json
import re
import ssl
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets

from tests.helpers.processes import ROOT, free_port, in_own_loop, require, subprocess_env
from tests.helpers.supervised import PY

DEPLOY = ROOT / "deploy"
APP_DIR = "/srv/yolive/app"  # where the units expect the checkout
UNITS = ["yolive-web.service", "yolive-worker@.service", "yolive-conductor.service"]
UNITS += ["yolive-broadcaster.service", "yolive-migrate.service", "yolive.target"]
OPENSSL_SELF_SIGNED = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
OPENSSL_SELF_SIGNED += ["-subj", "/CN=localhost"]


def units_pointing_at_this_checkout(target: Path) -> list[Path]:
    """The units with this checkout in place of /srv/yolive/app, so verify finds their programs."""
    target.mkdir()
    for unit in UNITS:
        (target / unit).write_text((DEPLOY / "systemd" / unit).read_text().replace(APP_DIR, str(ROOT)))
    return [target / unit.replace("@.", "@0.") for unit in UNITS]


def test_the_systemd_units_pass_systemd_analyze_verify(tmp_path):
    systemd_analyze = require("systemd-analyze")
    units = units_pointing_at_this_checkout(tmp_path / "units")
    (tmp_path / "units" / "yolive-worker@0.service").symlink_to(tmp_path / "units" / "yolive-worker@.service")

    result = subprocess.run([systemd_analyze, "verify", *map(str, units)], capture_output=True, text=True)

    # verify only warns (exit 0) about an unknown or misspelt key: any output is a failure here.
    assert result.returncode == 0 and result.stderr == "" and result.stdout == "", result.stderr


def unit_settings(name: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in (DEPLOY / "systemd" / name).read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


@pytest.mark.parametrize("unit", [u for u in UNITS if u.endswith(".service") and "migrate" not in u])
def test_every_long_running_unit_restarts_never_gives_up_and_reads_the_environment_file(unit):
    settings = unit_settings(unit)
    assert settings["Restart"] == ["always"]
    assert settings["StartLimitIntervalSec"] == ["0"]
    assert settings["EnvironmentFile"] == ["/etc/yolive/yolive.env"]
    assert settings["WantedBy"] == ["yolive.target"]


def test_the_environment_file_sets_only_settings_that_exist():
    source = (ROOT / "yolive" / "settings.py").read_text()
    names = re.findall(r"^([A-Z_]+)=", (DEPLOY / "yolive.env").read_text(), re.MULTILINE)
    assert names and [n for n in names if f'"{n}"' not in source] == []


class Nginx:
    """deploy/nginx/yolive.conf under a throw-away main config, on free ports, in front of `upstream`."""

    def __init__(self, workdir: Path, upstream_port: int) -> None:
        self.workdir = workdir
        self.http_port, self.https_port = free_port(), free_port()
        self.hls = workdir / "hls"
        self.hls.mkdir(parents=True)
        (workdir / "snippets").mkdir()
        (workdir / "snippets" / "yolive-hls-cors.conf").write_text(
            (DEPLOY / "nginx" / "yolive-hls-cors.conf").read_text()
        )
        certificate = ["-keyout", str(workdir / "key.pem"), "-out", str(workdir / "cert.pem")]
        subprocess.run([*OPENSSL_SELF_SIGNED, *certificate], check=True, capture_output=True)
        site = (DEPLOY / "nginx" / "yolive.conf").read_text()
        for old, new in {
            "listen 80;": f"listen 127.0.0.1:{self.http_port};",
            "listen 443 ssl http2;": f"listen 127.0.0.1:{self.https_port} ssl http2;",
            "127.0.0.1:8000": f"127.0.0.1:{upstream_port}",
            "/srv/yolive/var/hls/": f"{self.hls}/",
            "/etc/letsencrypt/live/yolive.example/fullchain.pem": str(workdir / "cert.pem"),
            "/etc/letsencrypt/live/yolive.example/privkey.pem": str(workdir / "key.pem"),
        }.items():
            assert old in site, old
            site = site.replace(old, new)
        site = re.sub(r"listen \[::\]:\d+[^;]*;", "", site)  # loopback only in the test
        (workdir / "yolive.conf").write_text(site)
        # Debian's nginx.conf, cut down: this test's pid, logs and site; root workers read the test's files.
        (workdir / "nginx.conf").write_text(
            f"user root;\nworker_processes 1;\npid {workdir}/nginx.pid;\nerror_log {workdir}/error.log;\n"
            "events { worker_connections 64; }\n"
            "http {\n  include /etc/nginx/mime.types;\n  default_type application/octet-stream;\n"
            f"  access_log off;\n  include {workdir}/yolive.conf;\n}}\n"
        )

    def command(self, *args: str) -> list[str]:
        return [require("nginx"), "-p", str(self.workdir), "-c", str(self.workdir / "nginx.conf"), *args]

    def get(self, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
        context = ssl._create_unverified_context()  # the test's own self-signed certificate
        request = urllib.request.Request(f"https://127.0.0.1:{self.https_port}{path}", method=method)
        try:
            with urllib.request.urlopen(request, context=context, timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), err.read()


@pytest.fixture
def web(tmp_path: Path) -> Iterator[int]:
    """The real web process (python -m yolive.serve) on a free port, with a database of its own."""
    port = free_port()
    env = subprocess_env(
        VAR_DIR=str(tmp_path / "var"),
        DATABASE_URL=f"sqlite:///{tmp_path / 'web.sqlite3'}",
        WEB_PORT=str(port),
        WEB_FORWARDED_ALLOW_IPS="127.0.0.1",
    )
    subprocess.run(
        [PY, "manage.py", "migrate", "--no-input"], cwd=ROOT, env=env, check=True, capture_output=True
    )
    process = subprocess.Popen([PY, "-m", "yolive.serve"], cwd=ROOT, env=env)
    try:
        yield port
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_the_nginx_site_passes_nginx_t_and_serves_the_channel_as_documented(tmp_path, web):
    nginx = Nginx(tmp_path / "nginx", upstream_port=web)
    checked = subprocess.run(nginx.command("-t"), capture_output=True, text=True)
    assert checked.returncode == 0 and "test is successful" in checked.stderr, checked.stderr
    (nginx.hls / "live.m3u8").write_text("#EXTM3U\n")
    (nginx.hls / "seg_00000001.ts").write_bytes(b"\x47" * 188)
    (nginx.hls / ".live.m3u8.tmp").write_text("#EXTM3U\n")
    (nginx.hls / "notes.txt").write_text("not a stream file")
    (nginx.hls / "archive" / "7").mkdir(parents=True)
    (nginx.hls / "archive" / "7" / "poster.jpg").write_bytes(b"\xff\xd8\xff")
    server = subprocess.Popen(nginx.command("-g", "daemon off;"))
    try:
        wait_until_up(nginx)

        status, headers, _ = nginx.get("/hls/live.m3u8")
        assert status == 200 and headers["Content-Type"] == "application/vnd.apple.mpegurl"
        assert headers["Cache-Control"] == "public, max-age=1"
        assert headers["Access-Control-Allow-Origin"] == "*"
        status, headers, body = nginx.get("/hls/seg_00000001.ts")
        assert status == 200 and headers["Content-Type"] == "video/mp2t" and body[0] == 0x47
        assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
        status, headers, _ = nginx.get("/hls/live.m3u8", method="OPTIONS")
        assert status == 204 and "GET" in headers["Access-Control-Allow-Methods"]
        status, headers, _ = nginx.get("/hls/archive/7/poster.jpg")
        assert status == 200 and headers["Content-Type"] == "image/jpeg"
        assert headers["Cache-Control"] == "public, max-age=86400"
        for hidden in ("/hls/.live.m3u8.tmp", "/hls/notes.txt", "/hls/seg_00000002.ts"):
            assert nginx.get(hidden)[0] == 404, hidden
        assert "Cache-Control" not in nginx.get("/hls/seg_00000002.ts")[1]

        status, _, body = nginx.get("/healthz")  # proxied: the web process answers (nothing else runs)
        assert status == 503 and json.loads(body)["checks"]["database"]["ok"]
        assert nginx.get("/metrics")[0] == 401  # not public by accident
        assert in_own_loop(first_frame_through(nginx))["type"] == "snapshot"
    finally:
        server.terminate()
        server.wait(timeout=10)


def wait_until_up(nginx: Nginx) -> None:
    for _ in range(100):
        try:
            if nginx.get("/healthz")[0] in (200, 503):
                return
        except OSError:
            pass
        subprocess.run(["sleep", "0.2"], check=True)
    raise AssertionError((nginx.workdir / "error.log").read_text())


async def first_frame_through(nginx: Nginx) -> dict:
    context = ssl._create_unverified_context()
    url = f"wss://127.0.0.1:{nginx.https_port}/ws/live/"
    async with websockets.connect(url, ssl=context, origin=f"https://127.0.0.1:{nginx.https_port}") as socket:
        return json.loads(await asyncio.wait_for(socket.recv(), timeout=20))
