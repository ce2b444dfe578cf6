import json
import multiprocessing
import re
import subprocess
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers.processes import ROOT, subprocess_env
from yolive.clips.models import Clip
from yolive.plumbing import heartbeat, metrics
from yolive.plumbing import keys as redis_keys
from yolive.plumbing.metrics.totals import GAUGE_TTL_S
from yolive.plumbing.redis_client import get_redis
from yolive.voting.models import Prompt, Round

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_user("ops", password="ops-password-1", is_staff=True)
    client.force_login(staff)
    return client


def scrape(client, **headers) -> dict[tuple[str, tuple], float]:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def record_in_a_process_of_its_own(refused: int, sockets: int) -> None:
    command = [str(ROOT / ".venv/bin/python"), "-m", "tests.foundation.record_metrics", str(refused)]
    subprocess.run([*command, str(sockets)], cwd=ROOT, env=subprocess_env(), check=True, timeout=60)


def test_it_adds_up_what_several_processes_recorded(staff_client):
    record_in_a_process_of_its_own(refused=3, sockets=2)
    record_in_a_process_of_its_own(refused=4, sockets=5)

    samples = scrape(staff_client)

    assert samples[("yolive_votes_refused_total", (("code", "rate_limited"),))] == 7
    assert samples[("yolive_render_seconds_count", (("stage", "denoising"),))] == 2
    assert samples[("yolive_render_seconds_bucket", (("le", "0.5"), ("stage", "denoising")))] == 2
    assert samples[("yolive_render_seconds_bucket", (("le", "0.25"), ("stage", "denoising")))] == 0
    assert samples[("yolive_render_seconds_sum", (("stage", "denoising"),))] == pytest.approx(0.6)
    # Gauges are each process's own value, summed, and leave the sum soon after their process is gone.
    assert samples[("yolive_open_sockets", (("socket", "viewer"),))] == 7
    keys = list(get_redis().scan_iter(match=redis_keys.metric_gauges("*")))
    assert len(keys) == 2 and all(0 < get_redis().ttl(key) <= GAUGE_TTL_S for key in keys)
    assert samples[("yolive_votes_accepted_total", ())] == 0  # nobody voted: shown, as zero


def _record_in_a_forked_child() -> None:
    metrics.FFMPEG_RESTARTS.inc()
    metrics.PUBLISHER.flush()


def test_a_forked_child_reports_only_its_own_counts(staff_client):
    before = scrape(staff_client).get(("yolive_ffmpeg_restarts_total", ()), 0)
    metrics.FFMPEG_RESTARTS.inc(5)  # not flushed yet: the parent's to report
    child = multiprocessing.get_context("fork").Process(target=_record_in_a_forked_child)
    child.start()
    child.join(timeout=30)
    assert child.exitcode == 0

    assert scrape(staff_client)[("yolive_ffmpeg_restarts_total", ())] == before + 1
    metrics.PUBLISHER.flush()
    assert scrape(staff_client)[("yolive_ffmpeg_restarts_total", ())] == before + 6


def test_it_measures_clips_segments_memory_and_the_queue_when_scraped(staff_client, settings):
    now = timezone.now()
    for number, status in enumerate(["aired", "aired", "failed", "queued"], start=1):
        round_ = Round.objects.create(number=number, opens_at=now - timedelta(seconds=10), ends_at=now)
        text = f"scene {number}"
        prompt = Prompt.objects.create(text=text, normalized_text=text, round=round_)
        Clip.objects.create(round=round_, prompt=prompt, seed=number, preset="tiny", status=status)
    heartbeat.beat("broadcaster", newest_segment_at=time.time() - 3)
    get_redis().hincrby(redis_keys.out_of_memory_counts(), "level1", 2)
    get_redis().rpush(redis_keys.broker_queue("gpu"), "job-a", "job-b")  # the tests' broker is this Redis

    samples = scrape(staff_client)

    assert samples[("yolive_clips", (("status", "aired"),))] == 2
    assert samples[("yolive_clips", (("status", "failed"),))] == 1
    assert samples[("yolive_clips", (("status", "skipped"),))] == 0
    assert 3 <= samples[("yolive_newest_segment_age_seconds", ())] < 30
    assert samples[("yolive_out_of_memory_total", (("level", "1"),))] == 2
    assert samples[("yolive_render_queue_depth", ())] == 2
    assert samples[("yolive_processes", (("process", "broadcaster"),))] == 1
    assert samples[("yolive_processes", (("process", "worker"),))] == 0


def test_it_is_refused_to_the_public_and_to_viewers_who_are_not_staff(client):
    assert client.get("/metrics").status_code == 401
    viewer = get_user_model().objects.create_user("viewer", password="viewer-password-1")
    client.force_login(viewer)
    response = client.get("/metrics")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_scraper_with_the_configured_token_gets_in(client, settings):
    assert client.get("/metrics", headers={"Authorization": "Bearer "}).status_code == 401  # no token set
    settings.METRICS_TOKEN = "scrape-token-1"
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
    scrape(client, Authorization="Bearer scrape-token-1")


def test_the_grafana_dashboard_asks_only_for_metrics_that_exist(staff_client):
    dashboard = json.loads((ROOT / "docs" / "grafana-dashboard.json").read_text())
    queries = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    names = {name for query in queries for name in re.findall(r"yolive_\w+", query)}
    wanted = {re.sub(r"_(bucket|count|sum)$", "", name) for name in names}
    text = staff_client.get("/metrics").content.decode()
    exposed = set(re.findall(r"^# TYPE (yolive_\w+)", text, re.MULTILINE))
    exposed |= {name.removesuffix("_total") for name in exposed} | {f"{name}_total" for name in exposed}
    assert len(queries) >= 15 and wanted - exposed == set()
