"""`python -m yolive.serve`: the web process, uvicorn on WEB_HOST:WEB_PORT with the channel's flags.

`make run` (supervisord.conf) and production (deploy/yolive-web.service) start it the same way, so the
flags live here once, and the address comes from settings (a `.env` file applies too).
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
from typing import Any

import uvicorn

from yolive.startup import exit_on_bad_settings

PR_SET_PDEATHSIG = 1  # linux/prctl.h
# Allocations between two collections of the youngest objects (Python's default is 700; see tune_collector).
YOUNG_COLLECTION_THRESHOLD = 50_000


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")
    exit_on_bad_settings()
    import django
    from django.conf import settings

    django.setup()  # LOGGING (LOG_FORMAT) applies to uvicorn's own messages too
    behind_proxy = bool(settings.WEB_FORWARDED_ALLOW_IPS)
    uvicorn.run(
        "yolive.serve:application",
        factory=True,
        host=settings.WEB_HOST,
        port=settings.WEB_PORT,
        workers=settings.WEB_PROCESSES or os.cpu_count() or 1,
        # websockets' sans-I/O protocol: the cheapest per frame of uvicorn's three, and the one whose
        # connections yolive.voting.wire writes tallies and acknowledgements onto directly.
        ws="websockets-sansio",
        # Tallies are small and frequent: compressing each costs more CPU per socket than it saves.
        ws_per_message_deflate=False,
        access_log=False,  # nginx keeps the access log in production; one line per segment is noise here
        log_config=None,
        # Per-IP rate limits need the viewer's address, not the proxy's (docs/operations.md).
        proxy_headers=behind_proxy,
        forwarded_allow_ips=settings.WEB_FORWARDED_ALLOW_IPS or None,
    )


def application() -> Any:
    """The ASGI application of one served process, which also reports its metrics (tests import
    yolive.asgi alone and report none)."""
    from yolive.asgi import application
    from yolive.moderation.policy import gate
    from yolive.plumbing import metrics

    if multiprocessing.parent_process() is not None:  # one of several uvicorn workers
        end_with_parent()
    metrics.start_publishing()
    tune_collector()
    gate.warm_up_in_background()
    return application


def tune_collector() -> None:
    """Keep the garbage collector from stalling every socket at once.

    Python's defaults suit short scripts. A web process holds thousands of sockets for hours, and every
    full collection walks all of their objects while no socket is served, a stall of every vote-to-tally
    delay at once (docs/benchmarks.md). What exists once the application is loaded (Django, the URL conf,
    the models) lives as long as the process, so it is frozen out of every collection; the youngest
    objects are collected less often. Cycles are still collected, only in fewer and cheaper passes."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, 10, 10)


def end_with_parent() -> None:
    """Ask the kernel to end this worker when the uvicorn process that started it dies.

    Killed outright (SIGKILL, the OOM killer), the parent cannot stop its workers, and the orphans keep the
    port: every restart the supervisor then makes fails with "address already in use"."""
    parent = multiprocessing.parent_process()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if parent is not None and os.getppid() != parent.pid:  # it died before the request was made
        os.kill(os.getpid(), signal.SIGTERM)


if __name__ == "__main__":
    main()
