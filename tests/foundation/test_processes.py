import signal
import subprocess
import time

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests.helpers.processes import ROOT, subprocess_env
from yolive.plumbing import heartbeat

WORKER_START_TIMEOUT_S = 90  # a cold start imports torch and diffusers


@pytest.mark.slow
def test_a_real_celery_worker_reports_in_and_stops_cleanly():
    worker = subprocess.Popen(
        [
            str(ROOT / ".venv/bin/celery"),
            "-A",
            "yolive",
            "worker",
            "--queues",
            "gpu,default",
            "--concurrency",
            "1",
            "--pool",
            "prefork",
            "--hostname",
            "health-test@%h",
            "--loglevel",
            "WARNING",
        ],
        cwd=ROOT,
        env=subprocess_env(),
    )
    try:
        deadline = time.monotonic() + WORKER_START_TIMEOUT_S
        while not heartbeat.alive("worker") and time.monotonic() < deadline:
            assert worker.poll() is None, "the worker exited during start-up"
            time.sleep(0.5)
        assert heartbeat.alive("worker"), "the worker never reported in"
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=60) == 0


@pytest.mark.django_db
def test_the_first_run_creates_one_staff_moderator(monkeypatch, capsys):
    monkeypatch.delenv("MODERATOR_PASSWORD", raising=False)
    call_command("ensure_moderator")
    printed = capsys.readouterr().out
    user = get_user_model().objects.get(username="moderator")
    password = printed.split("password: ")[1].split()[0]
    assert user.is_staff and not user.is_superuser
    assert user.check_password(password)
    assert user.groups.filter(name="Moderators").exists()

    call_command("ensure_moderator")  # a second run changes nothing and prints no password
    assert "password" not in capsys.readouterr().out
    assert get_user_model().objects.count() == 1
