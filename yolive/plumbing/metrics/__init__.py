"""The channel's metrics, recorded where things happen and added up across processes in Redis.

Each process records into the prometheus-client objects below (in memory, no I/O on the hot path) and a
thread adds what changed to Redis every FLUSH_INTERVAL_S (totals.py). /metrics, on any web
process, reads the totals back and adds what it measures at scrape time (scrape.py).
docs/operations.md "Metrics" says why Redis and not prometheus-client's multiprocess mode.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics

from yolive.plumbing.metrics.totals import Publisher

# `_created` samples would be per process; summed across processes they mean nothing.
disable_created_metrics()

REGISTRY = CollectorRegistry(auto_describe=True)

# A tiny-preset render takes well under a second per stage on a CPU, an LTX render a few seconds on a GPU.
RENDER_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)
# Filler airs in whole segments (2 s), so lateness is a multiple of the segment; 0 means on time.
LATENESS_BUCKETS = (0.0, 2.0, 4.0, 6.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
FANOUT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)

RENDER_SECONDS = Histogram(
    "yolive_render_seconds",
    "Seconds a rendered clip spent in each stage (queue_wait, text_encoding, denoising, decoding, storing, "
    "total).",
    ["stage"],
    buckets=RENDER_BUCKETS,
    registry=REGISTRY,
)
CLIP_LATENESS = Histogram(
    "yolive_clip_lateness_seconds",
    "Seconds of filler that aired between the previous clip and this one, per clip that started airing.",
    buckets=LATENESS_BUCKETS,
    registry=REGISTRY,
)
FILLER_SECONDS = Counter(
    "yolive_filler_seconds", "Seconds of filler (the slate) that aired.", registry=REGISTRY
)
FFMPEG_RESTARTS = Counter(
    "yolive_ffmpeg_restarts", "Times the broadcaster replaced a dead or hung ffmpeg.", registry=REGISTRY
)
VOTES_ACCEPTED = Counter("yolive_votes_accepted", "Votes counted.", registry=REGISTRY)
VOTES_REFUSED = Counter(
    "yolive_votes_refused",
    "Votes refused, by the error code the viewer was sent (docs/protocol.md).",
    ["code"],
    registry=REGISTRY,
)
OPEN_SOCKETS = Gauge("yolive_open_sockets", "WebSockets open now, by kind.", ["socket"], registry=REGISTRY)
TALLY_FANOUT_SECONDS = Histogram(
    "yolive_tally_fanout_seconds",
    "Seconds from a web process receiving a tally to its last viewer socket having it.",
    buckets=FANOUT_BUCKETS,
    registry=REGISTRY,
)

HEAD_STARTS = Counter(
    "yolive_head_starts",
    "Clips rendered ahead of their round's close on the prompt leading then, by outcome: won (the clip "
    "aired sooner) or lost (another prompt won; the render was withdrawn).",
    ["outcome"],
    registry=REGISTRY,
)
KV_CACHE_PAGES = Counter(
    "yolive_kv_cache_pages",
    "Block KV cache events in the render workers (GENERATION_BLOCKS): hits (a page an attention layer read), "
    "fills (a page written), evictions (a frame dropped to make room).",
    ["event"],
    registry=REGISTRY,
)
KV_CACHE_IN_USE = Gauge(
    "yolive_kv_cache_frames", "Frames each worker's block KV cache holds now, summed.", registry=REGISTRY
)
KV_CACHE_BYTES = Gauge(
    "yolive_kv_cache_bytes",
    "Bytes of each worker's block KV cache (a fixed pool), summed.",
    registry=REGISTRY,
)

PUBLISHER = Publisher(REGISTRY)


def start_publishing() -> None:
    """Called once by each long-running process (web, worker pool process, broadcaster, conductor)."""
    PUBLISHER.start()
