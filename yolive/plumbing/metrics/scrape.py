"""GET /metrics: the channel's metrics in Prometheus' text format, for staff or a bearer token.

Besides what the processes record (metrics/__init__.py), it reads at scrape time what the channel
already keeps: clips by status (the database), the newest segment's age and who is reporting in
(heartbeats), out-of-memory levels (the worker's counts in Redis) and the render queue (the broker).
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable, Iterator
from functools import cache

import redis
from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from yolive.clips.models import Clip
from yolive.plumbing import heartbeat
from yolive.plumbing import keys as redis_keys
from yolive.plumbing.metrics import REGISTRY
from yolive.plumbing.metrics.totals import channel_families
from yolive.plumbing.redis_client import get_redis

log = logging.getLogger(__name__)

RENDER_QUEUE = "gpu"
# kombu's Redis transport keeps a queue's prioritised messages in lists named queue + sep + priority.
PRIORITY_LISTS = ("", "\x06\x163", "\x06\x166", "\x06\x169")
REPORTING = ("worker", "conductor", "broadcaster")


def clips_by_status() -> Metric:
    family = GaugeMetricFamily(
        "yolive_clips", "Clips by status now; aired, failed and skipped are final.", labels=["status"]
    )
    counts = dict(Clip.objects.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
    for status in Clip.Status.values:
        family.add_metric([status], counts.get(status, 0))
    return family


def newest_segment_age() -> Metric:
    family = GaugeMetricFamily(
        "yolive_newest_segment_age_seconds", "Seconds since the broadcaster listed its newest segment."
    )
    newest = max((i.get("newest_segment_at") or 0 for i in heartbeat.alive("broadcaster")), default=0)
    if newest:
        family.add_metric([], max(0.0, time.time() - newest))
    return family


def processes() -> Metric:
    family = GaugeMetricFamily(
        "yolive_processes", "Processes that reported in within the heartbeat TTL.", labels=["process"]
    )
    for component in REPORTING:
        family.add_metric([component], len(heartbeat.alive(component)))
    return family


def out_of_memory() -> Metric:
    family = CounterMetricFamily(
        "yolive_out_of_memory",
        "Out-of-memory events in renders, by the fallback level that hit it (docs/benchmarks.md).",
        labels=["level"],
    )
    counts = get_redis().hgetall(redis_keys.out_of_memory_counts())
    for field, count in sorted(counts.items()):
        family.add_metric([str(field).removeprefix("level")], float(count))
    return family


@cache
def broker() -> redis.Redis:
    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2, socket_connect_timeout=2)


def render_queue_depth() -> Metric:
    family = GaugeMetricFamily(
        "yolive_render_queue_depth", "Render jobs waiting in the broker for a worker (queue gpu)."
    )
    pipe = broker().pipeline(transaction=False)
    for suffix in PRIORITY_LISTS:
        pipe.llen(redis_keys.broker_queue(RENDER_QUEUE + suffix))
    family.add_metric([], sum(pipe.execute()))
    return family


SCRAPE_TIME: tuple[Callable[[], Metric], ...] = (
    clips_by_status,
    newest_segment_age,
    processes,
    out_of_memory,
    render_queue_depth,
)


class ChannelCollector(Collector):
    def collect(self) -> Iterator[Metric]:
        try:
            yield from channel_families(REGISTRY)
        except Exception:
            log.exception("cannot read the recorded metrics")
        for measure in SCRAPE_TIME:
            try:
                yield measure()
            except Exception:  # one part down (Redis, the database) must not hide the others
                log.exception("cannot measure %s", measure.__name__)


EXPOSED = CollectorRegistry(auto_describe=False)
EXPOSED.register(ChannelCollector())


def allowed(request: HttpRequest) -> bool:
    """Staff signed in, or `Authorization: Bearer METRICS_TOKEN` when that setting is not empty."""
    if request.user.is_authenticated and request.user.is_staff:
        return True
    token = settings.METRICS_TOKEN
    given = request.headers.get("Authorization", "").removeprefix("Bearer ")
    return bool(token) and hmac.compare_digest(given.encode(), token.encode())


@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    if not allowed(request):
        response = HttpResponse("metrics are for staff or a bearer token (METRICS_TOKEN)\n", status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(EXPOSED), content_type=CONTENT_TYPE_LATEST)
