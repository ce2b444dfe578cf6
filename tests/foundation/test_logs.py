import json
import subprocess

from tests.helpers.processes import ROOT, subprocess_env

# Logs as a process of the channel does: settings applied, then a round closed, a clip rendered, a failure.
SCRIPT = """
import logging, django
django.setup()
from yolive.plumbing.logs import bound
from yolive.voting.models import Round
log = logging.getLogger("yolive.voting.rounds")
log.info("closed %s", Round(pk=41, number=9))
with bound(clip_id=7, round_id=3):
    logging.getLogger("generation.clip_job").warning("clip %s rendered in %.1f s", 7, 1.5)
try:
    1 / 0
except ZeroDivisionError:
    log.exception("conductor pass failed")
"""


def lines_logged(**env: str) -> list[str]:
    result = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "-c", SCRIPT],
        cwd=ROOT,
        env=subprocess_env(**env),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return result.stderr.splitlines()


def test_log_format_json_writes_one_object_a_line_with_the_process_round_and_clip():
    lines = [json.loads(line) for line in lines_logged(LOG_FORMAT="json", YOLIVE_PROCESS="conductor")]

    closed, rendered, failed = lines
    assert closed["message"] == "closed round 9" and closed["round_id"] == 41 and closed["clip_id"] is None
    assert rendered == {
        **rendered,
        "level": "WARNING",
        "logger": "generation.clip_job",
        "process": "conductor",
        "message": "clip 7 rendered in 1.5 s",
        "round_id": 3,
        "clip_id": 7,
    }
    assert failed["round_id"] is None  # the binding ended with its block
    assert "ZeroDivisionError" in failed["exc_info"]  # the traceback stays inside the one line
    assert {"time", "level", "logger", "process", "message"} <= set(closed)


def test_plain_logs_are_text_naming_the_process():
    first = lines_logged(YOLIVE_PROCESS="broadcaster")[0]
    assert first.endswith("INFO broadcaster yolive.voting.rounds: closed round 9")
