"""The viewer page. It makes sure the visitor has a session and a Viewer before the socket connects."""

from __future__ import annotations

import functools
import json
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie

from generation.model_folder import VOCABULARY_FILE
from yolive.moderation.policy.gate import warm_up_in_background
from yolive.voting.models import Viewer

LIVE_PLAYLIST = "/hls/live.m3u8"


def ensure_viewer(request: HttpRequest) -> Viewer:
    """The session's Viewer (the signed-in user's if they have one), created and remembered if missing.

    /ws/live/ finds the same Viewer from `session["viewer_key"]`, so the session is saved here, before
    the page's script opens the socket.
    """
    key = request.session.get("viewer_key")
    viewer = Viewer.objects.filter(key=key).first() if key else None
    user = request.user if request.user.is_authenticated else None
    if viewer is None and user is not None:
        viewer = Viewer.objects.filter(user=user).first()
    if viewer is None:
        viewer = Viewer.objects.create(user=user, last_ip=request.META.get("REMOTE_ADDR") or None)
    if request.session.get("viewer_key") != viewer.key:
        request.session["viewer_key"] = viewer.key
    if not request.session.session_key:
        request.session.save()
    return viewer


@functools.lru_cache(maxsize=1)
def vocabulary(_mtime_ns: int) -> dict[str, Any]:
    """The vocabulary file, parsed once per version of it (keyed by its mtime), not on every page view."""
    parsed: dict[str, Any] = json.loads(VOCABULARY_FILE.read_text())
    return parsed


def model_context() -> dict[str, str]:
    """What the page says about the model: the default one publishes the words it knows."""
    if settings.MODEL_PRESET != "world" or not VOCABULARY_FILE.exists():
        return {}
    known = vocabulary(VOCABULARY_FILE.stat().st_mtime_ns)
    scope = ", ".join(f"{len(known[key])} {key}" for key in ("subjects", "settings", "motions"))
    d = known["defaults"]
    default = f"a {d['subject']} {d['motion']}ing in the {d['setting']}"
    return {"vocabulary_url": reverse("model-vocabulary"), "model_scope": scope, "model_default": default}


def model_vocabulary(request: HttpRequest) -> HttpResponse:
    """The model folder's vocabulary.json, the words the page highlights; 404 for a model without one."""
    if settings.MODEL_PRESET != "world" or not VOCABULARY_FILE.exists():
        raise Http404("this model publishes no vocabulary")
    response = HttpResponse(VOCABULARY_FILE.read_bytes(), content_type="application/json")
    response["Cache-Control"] = "public, max-age=300"
    return response


@never_cache
@ensure_csrf_cookie
def viewer_page(request: HttpRequest) -> HttpResponse:
    warm_up_in_background()  # a process started without yolive.serve (tests) warms on its first page
    ensure_viewer(request)
    context = {
        "live_playlist": LIVE_PLAYLIST,
        "prompt_max_chars": settings.PROMPT_MAX_CHARS,
        "stand_in": settings.MODEL_PRESET == "tiny",
        "round_seconds": settings.ROUND_SECONDS,
        **model_context(),
    }
    return render(request, "frontend/viewer.html", context)
