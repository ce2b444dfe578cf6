"""`manage.py broadcast`: run the channel's one live stream until SIGTERM or SIGINT."""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from streaming.broadcaster import Broadcaster
from streaming.command import EncoderSpec, choose_encoder
from yolive.plumbing import metrics

log = logging.getLogger(__name__)


def broadcaster_from_settings(**overrides: Any) -> Broadcaster:
    encoder = choose_encoder(settings.VIDEO_ENCODER)
    if encoder != settings.VIDEO_ENCODER:
        log.warning("%s does not work on this machine; encoding with %s", settings.VIDEO_ENCODER, encoder)
    spec = EncoderSpec(
        width=settings.VIDEO_WIDTH,
        height=settings.VIDEO_HEIGHT,
        fps=settings.VIDEO_FPS,
        segment_seconds=settings.HLS_SEGMENT_SECONDS,
        encoder=encoder,
    )
    options: dict[str, Any] = {
        "spec": spec,
        "hls_dir": settings.HLS_DIR,
        "work_dir": settings.VAR_DIR / "broadcaster",
        "clip_seconds": settings.CLIP_SECONDS,
        "show_captions": settings.SHOW_CAPTIONS,
        "archive_retention_hours": settings.ARCHIVE_RETENTION_HOURS,
    }
    options.update(overrides)
    return Broadcaster(**options)


class Command(BaseCommand):
    help = "Air ready clips (and filler between them) as one never-ending HLS stream at /hls/live.m3u8."

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()

        def request_stop(signum: int, _frame: object) -> None:
            log.info("signal %d: stopping the broadcast", signum)
            stop.set()

        signal.signal(signal.SIGTERM, request_stop)
        signal.signal(signal.SIGINT, request_stop)
        metrics.start_publishing()
        broadcaster_from_settings().run(stop)
