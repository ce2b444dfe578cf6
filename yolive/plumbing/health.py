"""GET /healthz: is every part of the channel alive? 200 when all are, 503 naming those that are not."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from yolive.plumbing import heartbeat
from yolive.plumbing.redis_client import get_redis

# A live stream adds a segment every HLS_SEGMENT_SECONDS; this long without one means the broadcaster is
# stuck (a restarted ffmpeg lists its first segment well within it).
MAX_SEGMENT_AGE_S = 10

Check = Callable[[], dict[str, Any]]


def check_database() -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {"ok": True}


def check_redis() -> dict[str, Any]:
    get_redis().ping()
    return {"ok": True}


def check_process(component: str) -> Check:
    def check() -> dict[str, Any]:
        instances = heartbeat.alive(component)
        if not instances:
            return {
                "ok": False,
                "detail": f"no {component} has reported in the last {heartbeat.BEAT_TTL_S} s",
            }
        return {"ok": True, "instances": len(instances)}

    return check


def check_broadcaster() -> dict[str, Any]:
    instances = heartbeat.alive("broadcaster")
    if not instances:
        return {"ok": False, "detail": f"no broadcaster has reported in the last {heartbeat.BEAT_TTL_S} s"}
    newest = max((i.get("newest_segment_at") or 0) for i in instances)
    if not newest:
        return {"ok": False, "detail": "the broadcaster has written no segment yet"}
    age = round(time.time() - newest, 1)
    if age > MAX_SEGMENT_AGE_S:
        return {"ok": False, "newest_segment_age_s": age, "detail": f"newest segment is {age} s old"}
    return {"ok": True, "newest_segment_age_s": age}


CHECKS: dict[str, Check] = {
    "database": check_database,
    "redis": check_redis,
    "worker": check_process("worker"),
    "conductor": check_process("conductor"),
    "broadcaster": check_broadcaster,
}


def run_checks() -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    for name, check in CHECKS.items():
        try:
            results[name] = check()
        except Exception as exc:
            results[name] = {"ok": False, "detail": f"{type(exc).__name__}: {exc}"}
    return results


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    checks = run_checks()
    failing = [name for name, result in checks.items() if not result["ok"]]
    body = {"status": "failing" if failing else "ok", "failing": failing, "checks": checks}
    return JsonResponse(body, status=503 if failing else 200)
