"""A page for every clip that reached viewers (/clips/<id>/), to replay and share, and the archive of
recent ones (/clips/). The replay and the poster last as long as the archive does
(ARCHIVE_RETENTION_HOURS); the page itself stays, saying the replay is gone."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from streaming.archive import poster_path
from yolive.clips.models import Clip

# On air or aired: viewers have seen it. Failed ones never aired; skipped ones a moderator cut.
SHOWN = (Clip.Status.ON_AIR, Clip.Status.AIRED)
ARCHIVE_PAGE_SIZE = 24


def clip_url(clip_id: int) -> str:
    return f"/clips/{clip_id}/"


def clip_context(clip: Clip) -> dict[str, Any]:
    kept = bool(clip.archive_path)
    return {
        "clip": clip,
        "votes": int(clip.round.tallies.get(str(clip.prompt_id), 0)),
        "total_votes": clip.round.total_votes,
        "replay_url": f"/hls/{clip.archive_path}" if kept else "",
        "poster_url": f"/hls/{poster_path(clip.pk)}" if kept else "",
        "page_url": clip_url(clip.pk),
    }


def clip_page(request: HttpRequest, clip_id: int) -> HttpResponse:
    clip = get_object_or_404(Clip.objects.select_related("round", "prompt"), pk=clip_id, status__in=SHOWN)
    context = clip_context(clip)
    # Link previews (Open Graph, Twitter cards) need absolute addresses: the public one, not the proxy's.
    context["share_url"] = settings.PUBLIC_URL + context["page_url"]
    context["poster_abs"] = settings.PUBLIC_URL + context["poster_url"] if context["poster_url"] else ""
    context["retention_hours"] = settings.ARCHIVE_RETENTION_HOURS
    return render(request, "frontend/clip.html", context)


def archive_page(request: HttpRequest) -> HttpResponse:
    kept = (
        Clip.objects.filter(status=Clip.Status.AIRED)
        .exclude(archive_path="")
        .select_related("round", "prompt")
        .order_by("-round__number")
    )
    page = Paginator(kept, ARCHIVE_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "clips": [clip_context(clip) for clip in page.object_list],
        "retention_hours": settings.ARCHIVE_RETENTION_HOURS,
    }
    return render(request, "frontend/archive.html", context)
