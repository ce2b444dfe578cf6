"""The /mod/ panel and its actions. Staff only; every action is a CSRF-checked POST answering JSON."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from yolive.moderation.desk import actions
from yolive.moderation.desk.consumers import is_moderator
from yolive.moderation.desk.panel import panel_context

View = Callable[..., HttpResponse]


@staff_member_required
def panel(request: HttpRequest) -> HttpResponse:
    return render(request, "mod/panel.html", panel_context())


def staff_action(view: View) -> View:
    """POST only, staff only (403, never a redirect: these are called by script), ActionError -> 400."""

    @require_POST
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not is_moderator(request.user):
            return JsonResponse({"error": "Moderators only."}, status=403)
        try:
            return view(request, *args, **kwargs)
        except actions.ActionError as exc:
            return JsonResponse({"error": str(exc)}, status=400)

    return wrapper


def _ok(**data: Any) -> JsonResponse:
    return JsonResponse({"ok": True, **data})


@staff_action
def approve(request: HttpRequest, prompt_id: int) -> HttpResponse:
    prompt = actions.approve_prompt(prompt_id, request.user)
    return _ok(prompt_id=prompt.pk, status=prompt.status)


@staff_action
def reject(request: HttpRequest, prompt_id: int) -> HttpResponse:
    prompt = actions.reject_prompt(prompt_id, request.user, request.POST.get("reason", ""))
    return _ok(prompt_id=prompt.pk, status=prompt.status, reason=prompt.moderation_reason)


@staff_action
def restrict(request: HttpRequest) -> HttpResponse:
    raw = request.POST.get("duration", "").strip()
    if raw and not raw.isdigit():
        raise actions.ActionError("the duration is a number of seconds, or empty for a ban")
    duration = int(raw) if raw else None
    restriction = actions.restrict_viewer(
        request.POST.get("viewer_key", ""), request.user, request.POST.get("reason", ""), duration
    )
    until = restriction.until.isoformat() if restriction.until else None
    return _ok(restriction_id=restriction.pk, until=until)


@staff_action
def lift(request: HttpRequest, restriction_id: int) -> HttpResponse:
    actions.lift_restriction(restriction_id, request.user)
    return _ok()


@staff_action
def skip(request: HttpRequest) -> HttpResponse:
    raw = request.POST.get("clip_id", "").strip()
    clip = actions.skip_clip(request.user, int(raw) if raw.isdigit() else None)
    return _ok(clip_id=clip.pk)


@staff_action
def lockdown(request: HttpRequest) -> HttpResponse:
    active = request.POST.get("active") == "on"
    actions.set_lockdown(active, request.user, request.POST.get("reason", ""))
    return _ok(active=active)


@staff_action
def add_term(request: HttpRequest) -> HttpResponse:
    term = actions.add_blocked_term(
        request.POST.get("term", ""),
        request.POST.get("action", "reject"),
        request.user,
        request.POST.get("note", ""),
    )
    return _ok(term_id=term.pk, term=term.term, action=term.action)


@staff_action
def remove_term(request: HttpRequest, term_id: int) -> HttpResponse:
    actions.remove_blocked_term(term_id, request.user)
    return _ok()


@staff_action
def set_level(request: HttpRequest) -> HttpResponse:
    row = actions.set_category_level(
        request.POST.get("category", ""), request.POST.get("level", ""), request.user
    )
    return _ok(category=row.category, level=row.level)
