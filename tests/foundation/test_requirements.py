"""The requirement sets and their locks agree, and the environment `make` built is the development lock."""

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

from tests.helpers.processes import ROOT

SETS = ("runtime", "dev", "gpu")
PIN = re.compile(r"^([A-Za-z0-9._-]+)(?:\[[^\]]*\])?==([^\s;#]+)", re.MULTILINE)


def pins(path: Path) -> dict[str, str]:
    return {re.sub(r"[-_.]+", "-", name).lower(): v for name, v in PIN.findall(path.read_text())}


def top_level(name: str) -> dict[str, str]:
    """The pins of a .in file and of the .in files it includes with -r."""
    path = ROOT / "requirements" / f"{name}.in"
    found = pins(path)
    for included in re.findall(r"^-r (\S+)\.in$", path.read_text(), re.MULTILINE):
        found |= top_level(included)
    return found


@pytest.mark.parametrize("name", SETS)
def test_each_lock_pins_its_sets_choices_and_leaves_torch_out(name):
    lock = pins(ROOT / "requirements" / f"{name}.txt")
    wanted = {package: v for package, v in top_level(name).items() if package != "torch"}
    assert {package: lock.get(package) for package in wanted} == wanted, "run `make lock`"
    assert "torch" not in lock and len(lock) > len(wanted)  # transitive versions too


def test_the_development_and_gpu_locks_agree_with_the_runtime_lock():
    runtime = pins(ROOT / "requirements" / "runtime.txt")
    for name in ("dev", "gpu"):
        lock = pins(ROOT / "requirements" / f"{name}.txt")
        assert {p: lock.get(p) for p in runtime} == runtime, name
    assert "accelerate" in pins(ROOT / "requirements" / "gpu.txt")


def test_make_installs_the_development_lock_and_the_same_torch_as_the_runtime_set():
    assert pins(ROOT / "requirements.txt")["torch"] == top_level("runtime")["torch"]
    lock = pins(ROOT / "requirements" / "dev.txt")
    installed = {}
    for package in lock:
        try:
            installed[package] = version(package)
        except PackageNotFoundError:
            installed[package] = None
    assert installed == lock
    assert version("torch").split("+")[0] == top_level("runtime")["torch"]
