import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.helpers.processes import ROOT, subprocess_env
from yolive.clips.models import Clip
from yolive.plumbing import heartbeat
from yolive.voting import tally
from yolive.voting.conductor import LEASE_TTL_S, Conductor
from yolive.voting.lease import Lease
from yolive.voting.models import Round

pytestmark = pytest.mark.django_db(transaction=True)
START_TIMEOUT_S = 60  # a cold start on a busy machine
TAKEOVER_DEADLINE_S = LEASE_TTL_S + 7  # lease expiry, one pass, and slack for a loaded machine


def wait_for(condition, deadline_s: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_pass_opens_a_round_and_a_pass_after_ends_at_closes_it_and_opens_the_next():
    conductor = Conductor(round_seconds=30)

    conductor.run_once()
    first = Round.objects.get()
    Round.objects.filter(pk=first.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    conductor.run_once()

    first.refresh_from_db()
    assert first.state == Round.State.CLOSED
    assert Clip.objects.filter(round=first).exists()  # a house prompt won the empty round
    assert Round.objects.get(state=Round.State.OPEN).number == first.number + 1
    assert tally.current_round_id() == first.pk + 1


def test_a_standby_conductor_waits_then_takes_over_when_the_lease_lapses():
    active = Conductor(round_seconds=30, lease=Lease("conductor", 0.5, holder="a"))
    standby = Conductor(round_seconds=30, lease=Lease("conductor", 0.5, holder="b"))

    active.run_once()
    standby.run_once()
    assert (active.active, standby.active) == (True, False)
    assert Round.objects.count() == 1

    wait_for(lambda: standby.lease.hold(), 5, "the lease to lapse")  # the active one stopped renewing
    assert active.lease.hold() is False
    assert Round.objects.count() == 1  # the standby carries on with the open round


def conductor_process() -> subprocess.Popen:
    env = subprocess_env()
    return subprocess.Popen(
        [str(ROOT / ".venv/bin/python"), "manage.py", "conduct", "--round-seconds", "3"],
        cwd=ROOT,
        env=env,
    )


@pytest.fixture
def two_conductors() -> Iterator[list[subprocess.Popen]]:
    processes = [conductor_process(), conductor_process()]
    yield processes
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


@pytest.mark.slow
def test_of_two_real_conductors_one_acts_and_the_other_takes_over_when_it_dies(two_conductors):
    lease = Lease("conductor", LEASE_TTL_S)
    holder = wait_for(lease.current_holder, START_TIMEOUT_S, "a conductor to take the lease")
    by_pid = {str(p.pid): p for p in two_conductors}
    first = by_pid[holder.rsplit(":", 1)[1]]
    wait_for(lambda: len(heartbeat.alive("conductor")) == 2, START_TIMEOUT_S, "both to report in")
    wait_for(lambda: Round.objects.filter(state=Round.State.CLOSED).exists(), 30, "a round to close")

    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    died_at = time.monotonic()
    successor = wait_for(
        lambda: (lease.current_holder() or holder) != holder and lease.current_holder(),
        TAKEOVER_DEADLINE_S,
        "the standby to take over",
    )
    closed_before = Round.objects.filter(state=Round.State.CLOSED).count()
    wait_for(
        lambda: Round.objects.filter(state=Round.State.CLOSED).count() > closed_before, 30, "rounds to go on"
    )

    survivor = by_pid[successor.rsplit(":", 1)[1]]
    assert survivor is not first
    assert time.monotonic() - died_at < 30
    numbers = list(Round.objects.order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, len(numbers) + 1)), "no round was skipped or opened twice"
    wait_for(lambda: Round.objects.filter(state=Round.State.OPEN).exists(), 30, "the next round")
    assert Round.objects.filter(state=Round.State.OPEN).count() == 1
    assert Clip.objects.count() == Round.objects.filter(state=Round.State.CLOSED).count()

    survivor.send_signal(signal.SIGTERM)
    assert survivor.wait(timeout=20) == 0
    assert lease.current_holder() is None, "a clean stop hands the lease back at once"


@pytest.mark.slow
def test_a_conductor_rides_out_a_redis_restart_and_reopens_the_round(private_redis):
    conductor = Conductor(round_seconds=60)
    stop = threading.Event()
    thread = threading.Thread(target=conductor.run, args=(stop,))
    thread.start()
    try:
        rnd = wait_for(lambda: Round.objects.filter(state=Round.State.OPEN).first(), 20, "a round")
        wait_for(lambda: tally.round_state(rnd.pk) == "open", 20, "the round in Redis")

        private_redis.stop()
        time.sleep(1.5)  # a few passes fail while Redis is away
        private_redis.start()

        wait_for(lambda: tally.round_state(rnd.pk) == "open", 20, "the round to be reopened")
        assert tally.current_round_id() == rnd.pk
        assert Round.objects.get(pk=rnd.pk).state == Round.State.OPEN
        assert thread.is_alive()
    finally:
        stop.set()
        thread.join(timeout=20)
    assert not thread.is_alive()
