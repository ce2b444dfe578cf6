"""A command's own main() run in the test's process: argparse refuses an option there as it does on the
command line, without the seconds a new interpreter spends importing torch and diffusers."""

import sys
from collections.abc import Callable
from unittest.mock import patch

import pytest


def refusal(main: Callable[[], None], arguments: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """What `main` writes to stderr as it refuses `arguments` with argparse's exit status, 2."""
    with patch.object(sys, "argv", ["command", *arguments]), pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 2
    return capsys.readouterr().err
