"""A process of its own that records metrics and flushes them, as the channel's processes do.

`python -m tests.foundation.record_metrics VOTES_REFUSED SOCKETS`: refuses that many votes (code
rate_limited) in two flushes, times one denoising stage, opens that many viewer sockets, then exits.
"""

import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

import django

django.setup()

from yolive.plumbing import metrics  # noqa: E402

refused, sockets = (int(arg) for arg in sys.argv[1:3])
metrics.VOTES_REFUSED.labels("rate_limited").inc(refused - 1)
metrics.PUBLISHER.flush()
metrics.VOTES_REFUSED.labels("rate_limited").inc()  # a second flush adds only what grew since the first
metrics.RENDER_SECONDS.labels("denoising").observe(0.3)
metrics.OPEN_SOCKETS.labels("viewer").inc(sockets)
metrics.PUBLISHER.flush()
