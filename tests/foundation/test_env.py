import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.helpers.processes import ROOT
from yolive.env import env_bool, env_choice, env_float, env_int, env_list, env_secret


def test_it_reads_good_values(monkeypatch):
    monkeypatch.setenv("X_BOOL", "yes")
    monkeypatch.setenv("X_INT", "42")
    monkeypatch.setenv("X_FLOAT", "2.5")
    monkeypatch.setenv("X_CHOICE", "ltx")
    monkeypatch.setenv("X_LIST", "a.example, b.example,,")
    assert env_bool("X_BOOL", False) is True
    assert env_int("X_INT", 1, minimum=1, maximum=100) == 42
    assert env_float("X_FLOAT", 1.0) == 2.5
    assert env_choice("X_CHOICE", "tiny", ("tiny", "ltx")) == "ltx"
    assert env_list("X_LIST", []) == ["a.example", "b.example"]


def test_it_uses_defaults_for_unset_or_empty(monkeypatch):
    monkeypatch.delenv("X_INT", raising=False)
    monkeypatch.setenv("X_BOOL", "")
    assert env_int("X_INT", 7) == 7
    assert env_bool("X_BOOL", True) is True


@pytest.mark.parametrize(
    ("reader", "raw", "message"),
    [
        (lambda: env_int("X", 1), "abc", "X='abc' is not a whole number"),
        (lambda: env_int("X", 1, minimum=3), "2", "X='2' is below the minimum of 3"),
        (lambda: env_int("X", 1, maximum=3), "9", "X='9' is above the maximum of 3"),
        (lambda: env_float("X", 1.0), "fast", "X='fast' is not a number"),
        (lambda: env_bool("X", False), "maybe", "X='maybe' is not a boolean: use true or false"),
        (lambda: env_choice("X", "tiny", ("tiny", "ltx")), "huge", "X='huge' is not one of: tiny, ltx"),
    ],
)
def test_it_rejects_bad_values_naming_the_variable(monkeypatch, reader, raw, message):
    monkeypatch.setenv("X", raw)
    with pytest.raises(ImproperlyConfigured) as excinfo:
        reader()
    assert str(excinfo.value) == message


def test_it_generates_a_secret_once_into_the_env_file(monkeypatch, tmp_path):
    monkeypatch.delenv("X_SECRET", raising=False)
    env_file = tmp_path / ".env"
    first = env_secret("X_SECRET", env_file)
    assert len(first) >= 50
    assert env_file.read_text() == f"X_SECRET={first}\n"
    assert env_secret("X_SECRET", env_file) == first  # now read back from the environment


@pytest.mark.parametrize(
    ("variable", "value", "line"),
    [
        ("ROUND_SECONDS", "abc", "yolive: bad setting: ROUND_SECONDS='abc' is not a whole number"),
        ("MODEL_PRESET", "huge", "yolive: bad setting: MODEL_PRESET='huge' is not one of: world, tiny, ltx"),
        ("CLIP_SECONDS", "61", "yolive: bad setting: CLIP_SECONDS='61' is above the maximum of 60"),
    ],
)
def test_a_bad_setting_stops_start_up_with_one_line(variable, value, line):
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "HOME": str(ROOT), variable: value, "SECRET_KEY": "x" * 50},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == line


def test_make_run_renders_with_the_model_trained_here_unless_told_otherwise():
    # The settings with no MODEL_PRESET anywhere: not in the environment, and this checkout's .env (which
    # a developer may have set) left unread.
    code = (
        "import dotenv; dotenv.load_dotenv = lambda *args, **kwargs: False; "
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.MODEL_PRESET, settings.VIDEO_WIDTH, settings.VIDEO_HEIGHT)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(ROOT),
            "SECRET_KEY": "x" * 50,
            "DJANGO_SETTINGS_MODULE": "yolive.settings",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["world", "512", "288"]
