"""`python -m yolive.serve`: the web process, uvicorn on WEB_HOST:WEB_PORT with the channel's flags.

`make run` (supervisord.conf) and production (deploy/yolive-web.service) start it the same way, so the
flags live here once, and the address comes from settings (a `.env` file applies too).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
from typing import Any

import uvicorn

from yolive.startup import exit_on_bad_settings

PR_SET_PDEATHSIG = 1  # linux/prctl.h


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
        # websockets rather than wsproto: the faster of the two under a few thousand viewer sockets.
        ws="websockets",
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
    from yolive import metrics
    from yolive.asgi import application

    if multiprocessing.parent_process() is not None:  # one of several uvicorn workers
        end_with_parent()
    metrics.start_publishing()
    return application


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
