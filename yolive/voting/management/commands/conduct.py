"""`manage.py conduct`: run the round clock until SIGTERM or SIGINT (a supervisor's stop, Ctrl-C)."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand

from yolive.plumbing import metrics
from yolive.voting.conductor import Conductor


class Command(BaseCommand):
    help = "Open, close and tally voting rounds; several may run, one acts (a Redis lease)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--round-seconds", type=int, default=None, help="override ROUND_SECONDS")

    def handle(self, *args: Any, round_seconds: int | None = None, **options: Any) -> None:
        stop = threading.Event()

        def request_stop(signum: int, _frame: Any) -> None:
            stop.set()

        signal.signal(signal.SIGTERM, request_stop)
        signal.signal(signal.SIGINT, request_stop)
        metrics.start_publishing()  # head starts won and lost
        Conductor(round_seconds=round_seconds).run(stop)
