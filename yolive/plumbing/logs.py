"""Log lines: plain for a terminal, or one JSON object a line (LOG_FORMAT=json) for a log pipeline.

Every line names its process (YOLIVE_PROCESS, set by supervisord.conf and the systemd units) and, where
they apply, the round and the clip: bound for a stretch of work with `bound(...)` (a render, a clip on
air), or taken from a Round or Clip passed as a log argument (`log.info("closed %s", rnd)`).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
from collections.abc import Iterator
from typing import Any

_bound: contextvars.ContextVar[dict[str, int] | None] = contextvars.ContextVar("yolive_log_ids", default=None)
IDS = ("round_id", "clip_id")
JSON_FIELDS = "%(asctime)s %(levelname)s %(yolive_process)s %(name)s %(message)s %(round_id)s %(clip_id)s"
JSON_NAMES = {"asctime": "time", "levelname": "level", "yolive_process": "process", "name": "logger"}


@contextlib.contextmanager
def bound(**ids: int | None) -> Iterator[None]:
    """Every line logged inside the block (in this thread or task) carries these ids."""
    token = _bound.set({**(_bound.get() or {}), **{k: v for k, v in ids.items() if v is not None}})
    try:
        yield
    finally:
        _bound.reset(token)


def bind(**ids: int | None) -> None:
    """Like `bound`, until `unbind()`: for work that starts and ends in two callbacks (a Celery task)."""
    _bound.set({k: v for k, v in ids.items() if v is not None})


def unbind() -> None:
    _bound.set(None)


def _ids_in_arguments(args: Any) -> dict[str, int]:
    # Models are told by their label, not imported: logging is set up with the settings, before any app
    # loads, and every layer logs through here.
    found: dict[str, int] = {}
    for arg in args if isinstance(args, tuple) else ():
        label = getattr(getattr(arg, "_meta", None), "label", "")
        if label == "voting.Round":
            found["round_id"] = arg.pk
        elif label == "clips.Clip":
            found["clip_id"] = arg.pk
            found.setdefault("round_id", arg.round_id)
    return found


class ChannelContext(logging.Filter):
    """Adds `process`, `round_id` and `clip_id` to every record (None where they do not apply)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.yolive_process = os.environ.get("YOLIVE_PROCESS") or "manage"
        ids = {**(_bound.get() or {}), **_ids_in_arguments(record.args)}
        for name in IDS:
            if getattr(record, name, None) is None:  # an explicit extra={...} wins
                setattr(record, name, ids.get(name))
        return True


def logging_config(log_format: str, level: str) -> dict[str, Any]:
    """Django's LOGGING for the chosen format."""
    formatters = {
        "plain": {"format": "%(asctime)s %(levelname)s %(yolive_process)s %(name)s: %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "format": JSON_FIELDS,
            "rename_fields": JSON_NAMES,
            "timestamp": False,
        },
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"channel": {"()": ChannelContext}},
        "formatters": {log_format: formatters[log_format]},
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": log_format, "filters": ["channel"]}
        },
        "root": {"handlers": ["console"], "level": level},
    }
