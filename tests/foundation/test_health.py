import json

import pytest

from yolive.plumbing import heartbeat

pytestmark = pytest.mark.django_db


def all_processes_report_in(newest_segment_age: float = 1.0) -> None:
    import time

    heartbeat.beat("worker")
    heartbeat.beat("conductor")
    heartbeat.beat("broadcaster", newest_segment_at=time.time() - newest_segment_age)


def test_it_is_healthy_when_every_part_reports_in(client):
    all_processes_report_in()
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["failing"] == []
    assert set(body["checks"]) == {"database", "redis", "worker", "conductor", "broadcaster"}
    assert response["Cache-Control"].startswith("max-age=0")


def test_it_names_a_missing_worker(client):
    heartbeat.beat("conductor")
    import time

    heartbeat.beat("broadcaster", newest_segment_at=time.time())
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["worker"]


def test_it_names_a_stale_stream(client):
    all_processes_report_in(newest_segment_age=60)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["failing"] == ["broadcaster"]
    assert body["checks"]["broadcaster"]["newest_segment_age_s"] >= 60


def test_a_beat_expires_with_its_process(settings):
    heartbeat.beat("worker", ttl=1)
    assert len(heartbeat.alive("worker")) == 1
    import time

    time.sleep(2.1)
    assert heartbeat.alive("worker") == []


def test_it_turns_503_while_redis_is_down_and_back_to_200(client, private_redis):
    all_processes_report_in()
    assert client.get("/healthz").status_code == 200

    private_redis.stop()
    response = client.get("/healthz")
    assert response.status_code == 503
    body = json.loads(response.content)
    assert "redis" in body["failing"]
    assert "ConnectionError" in body["checks"]["redis"]["detail"]
    assert body["checks"]["database"]["ok"] is True

    private_redis.start()  # a restarted Redis has forgotten the beats; the processes beat again
    all_processes_report_in()
    assert client.get("/healthz").status_code == 200
