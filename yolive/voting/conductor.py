"""The round clock (`manage.py conduct`): keeps one round open, closes it at ends_at, ticks the tally.

Several conductors may run; the one holding the Redis lease acts and the others wait. A conductor rides
out Redis and database outages: it retries, and a round Redis forgot is rebuilt from the database.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time

import redis
from django.conf import settings
from django.db import DatabaseError, close_old_connections
from django.utils import timezone

from yolive.moderation.policy import gate
from yolive.plumbing import events, heartbeat
from yolive.voting import head_start, rounds, tally
from yolive.voting.lease import Lease
from yolive.voting.models import Round

log = logging.getLogger(__name__)

LEASE_TTL_S = 3.0  # a standby takes over at most this long (plus one pass) after the active one dies
OUTAGE_RETRY_S = 1.0  # while Redis or the database is away, try again this often
MIN_PAUSE_S = 0.02  # never spin, even when a round ends right now
# After Redis comes back empty, wait this long before reopening the round: web processes resubscribe to the
# channel layer about once a second, and the pub/sub layer drops what is published before they do.
RESTORE_GRACE_S = 2.5
SWEEP_INTERVAL_S = 10.0  # how often the active conductor looks for renders that were lost


class TallyTicker:
    """Publishes the open round's tally when votes changed, at most once per call (the caller paces it)."""

    def tick(self, round_id: int) -> dict | None:
        event = tally.next_tally(round_id)
        if event is not None:
            events.publish(events.TALLIES, event)  # to every viewer, through each web process's fan-out
        return event


class Conductor:
    def __init__(self, round_seconds: int | None = None, lease: Lease | None = None) -> None:
        self.round_seconds = round_seconds or settings.ROUND_SECONDS
        self.lease = lease or Lease("conductor", LEASE_TTL_S)
        self.ticker = TallyTicker()
        self.tick_period_s = 1.0 / settings.TALLY_HZ
        self.active = False
        self._last_beat = float("-inf")
        self._lost_since: float | None = None
        self._last_sweep = float("-inf")

    def step(self) -> Round | None:
        """One pass as the active conductor: a round is open in the database and in Redis afterwards."""
        current = rounds.open_round_now()
        if current is None:
            return rounds.open_round(self.round_seconds) or rounds.open_round_now()
        if timezone.now() >= current.ends_at:
            rounds.close_round(current)
            return rounds.open_round(self.round_seconds) or rounds.open_round_now()
        head_start.follow(current)
        if tally.round_state(current.pk) is not None:
            self._lost_since = None
        elif self._lost_since is None:
            self._lost_since = time.monotonic()
        elif time.monotonic() - self._lost_since >= RESTORE_GRACE_S:
            rounds.restore_round(current)
            self._lost_since = None
        return current

    def run_once(self) -> float:
        """Hold the lease, act if held; returns how long to wait before the next pass."""
        self._beat()
        self.active = self.lease.hold()
        if not self.active:
            return self.tick_period_s
        current = self.step()
        if time.monotonic() - self._last_sweep >= SWEEP_INTERVAL_S:
            rounds.resend_lost_renders()
            self._last_sweep = time.monotonic()
        if current is None:
            return self.tick_period_s
        self.ticker.tick(current.pk)
        until_close = (current.ends_at - timezone.now()).total_seconds()
        return max(MIN_PAUSE_S, min(self.tick_period_s, until_close))

    def run(self, stop: threading.Event) -> None:
        # Load the gate's models and word lists before taking the lease: the first close is then not late.
        # That takes seconds (tens on a busy machine); the conductor reports in meanwhile, standing by, so
        # /healthz sees a restarted one as soon as it is up.
        warmed = threading.Event()
        heartbeat.beat_forever("conductor", warmed, active=False)
        try:
            gate.warm_up()
        finally:
            warmed.set()
        log.info("conductor %s ready (rounds of %s s)", self.lease.holder, self.round_seconds)
        was_active = False
        while not stop.is_set():
            try:
                pause = self.run_once()
            except (redis.ConnectionError, redis.TimeoutError, DatabaseError) as exc:
                log.warning("conductor pass failed (%s: %s); retrying", type(exc).__name__, exc)
                self.active = False
                close_old_connections()
                pause = OUTAGE_RETRY_S
            if self.active != was_active:
                log.info(
                    "conductor %s is now %s", self.lease.holder, "active" if self.active else "standing by"
                )
                was_active = self.active
            stop.wait(pause)
        with contextlib.suppress(Exception):
            self.lease.release()
        log.info("conductor %s stopped", self.lease.holder)

    def _beat(self) -> None:
        if time.monotonic() - self._last_beat < heartbeat.BEAT_INTERVAL_S:
            return
        # A missed beat during a Redis outage is what /healthz should show; never die of it.
        with contextlib.suppress(Exception):
            heartbeat.beat("conductor", active=self.active)
            self._last_beat = time.monotonic()
