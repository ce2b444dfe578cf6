"""Adding every process's metrics up in Redis, and reading the sums back for /metrics.

Counters and histogram buckets only ever grow, so each process adds what grew since its last flush to one
hash of channel-wide totals (HINCRBYFLOAT): the totals survive any process dying or restarting, and
Prometheus sees one series per metric instead of one per process id. Gauges (open sockets) are a value per
process, kept under a key that expires, so a dead process drops out of the sum.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
from collections import defaultdict
from collections.abc import Iterator

from prometheus_client import CollectorRegistry
from prometheus_client.core import Metric

from yolive.plumbing import keys as redis_keys
from yolive.plumbing.heartbeat import instance_name
from yolive.plumbing.redis_client import get_redis

log = logging.getLogger(__name__)

# A SIGKILLed process loses what it recorded since its last flush; Prometheus scrapes every 15 s by default.
FLUSH_INTERVAL_S = 5.0
GAUGE_TTL_S = int(3 * FLUSH_INTERVAL_S)  # three missed flushes and a process's gauges leave the sum


def sample_field(family: str, sample: str, labels: dict[str, str]) -> str:
    return json.dumps([family, sample, sorted(labels.items())])


def read_samples(registry: CollectorRegistry) -> tuple[dict[str, float], dict[str, float]]:
    """(ever-growing samples, gauge samples) of this process, keyed by sample_field."""
    growing: dict[str, float] = {}
    gauges: dict[str, float] = {}
    for family in registry.collect():
        target = gauges if family.type == "gauge" else growing
        for sample in family.samples:
            target[sample_field(family.name, sample.name, sample.labels)] = sample.value
    return growing, gauges


class Publisher:
    """Flushes one process's registry to Redis from a daemon thread, and once more at exit."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self.lock = threading.Lock()
        self.sent: dict[str, float] = {}
        self.started_in: int | None = None
        os.register_at_fork(after_in_child=self._forget_parent)

    def _forget_parent(self) -> None:
        # A forked child (Celery's pool) inherits the parent's counts, which the parent reports itself.
        self.lock = threading.Lock()
        self.sent = read_samples(self.registry)[0]
        self.started_in = None

    def start(self) -> None:
        if self.started_in == os.getpid():
            return
        self.started_in = os.getpid()
        threading.Thread(target=self._run, name="metrics-flush", daemon=True).start()
        atexit.register(self.flush_quietly)

    def _run(self) -> None:
        stop = threading.Event()
        while not stop.wait(FLUSH_INTERVAL_S):
            self.flush_quietly()

    def flush(self) -> None:
        with self.lock:
            growing, gauges = read_samples(self.registry)
            # A new sample is sent even at zero: a histogram missing its empty buckets breaks quantiles.
            grown = {f: v - self.sent.get(f, 0.0) for f, v in growing.items() if self.sent.get(f) != v}
            if not grown and not gauges:
                return
            pipe = get_redis().pipeline(transaction=True)  # all of a flush or none of it
            for sample, amount in grown.items():
                pipe.hincrbyfloat(redis_keys.metric_totals(), sample, amount)
            if gauges:
                pipe.set(redis_keys.metric_gauges(instance_name()), json.dumps(gauges), ex=GAUGE_TTL_S)
            pipe.execute()
            self.sent.update(growing)  # only once Redis has them: a failed flush is retried by the next

    def flush_quietly(self) -> None:
        try:
            self.flush()
        except Exception as exc:  # Redis restarting: the counts wait in memory for the next flush
            log.debug("metrics not flushed: %s", exc)


def channel_samples() -> dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    """Channel-wide samples from Redis: {family: {(sample, labels): value}}, gauges summed over processes."""
    client = get_redis()
    families: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]] = defaultdict(dict)
    for raw, value in client.hgetall(redis_keys.metric_totals()).items():
        family, sample, labels = json.loads(raw)
        families[family][(sample, tuple(map(tuple, labels)))] = float(value)
    keys = list(client.scan_iter(match=redis_keys.metric_gauges("*"), count=100))
    for values in client.mget(keys) if keys else []:
        for raw, value in json.loads(values or "{}").items():
            family, sample, labels = json.loads(raw)
            key = (sample, tuple(map(tuple, labels)))
            families[family][key] = families[family].get(key, 0.0) + value
    return families


def _order(item: tuple[tuple[str, tuple[tuple[str, str], ...]], float]) -> tuple[object, ...]:
    (sample, labels), _ = item
    rest = tuple(pair for pair in labels if pair[0] != "le")
    le = dict(labels).get("le")
    return (rest, sample.endswith(("_count", "_sum")), float(le) if le is not None else 0.0, sample)


def channel_families(registry: CollectorRegistry) -> Iterator[Metric]:
    """The registry's metrics with the channel-wide values (a metric nobody recorded yet shows as zero)."""
    totals = channel_samples()
    for local in registry.collect():
        metric = Metric(local.name, local.documentation, local.type, local.unit)
        samples = totals.get(local.name)
        if samples:
            for (name, labels), value in sorted(samples.items(), key=_order):
                metric.add_sample(name, dict(labels), value)
        else:
            for zero in local.samples:
                metric.add_sample(zero.name, zero.labels, 0.0)
        yield metric
