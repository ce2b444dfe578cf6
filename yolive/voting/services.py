"""What viewers do, as plain synchronous domain code: who they are and what they submit.

Nothing here imports Channels: a change commits, then goes out through yolive.plumbing.events. Votes are
not here: they never touch the database while a round is open (see tally.py and the consumer).
"""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from yolive.clips.models import Clip
from yolive.moderation.models import Restriction
from yolive.moderation.policy import bans, gate
from yolive.moderation.policy import text as text_forms
from yolive.plumbing import events
from yolive.voting import tally
from yolive.voting.errors import VotingError
from yolive.voting.models import Prompt, Viewer

log = logging.getLogger(__name__)

_STATUS = {"allow": Prompt.Status.APPROVED, "hold": Prompt.Status.HELD, "reject": Prompt.Status.REJECTED}


def check_text(text: str) -> str:
    """The cleaned prompt, or the VotingError a viewer gets for an empty or overlong one."""
    shown = text_forms.shown(text)
    if not shown:
        raise VotingError("empty", "Write a prompt first.")
    if len(shown) > settings.PROMPT_MAX_CHARS:
        raise VotingError("too_long", f"Keep it under {settings.PROMPT_MAX_CHARS} characters.")
    return shown


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def viewer_for_socket(session: Any, user: Any, ip: str | None) -> Viewer:
    """The socket's Viewer: the signed-in user's, else the session's, else a new one.

    A new anonymous Viewer is remembered in the session when the client has one; a bare client (no cookie)
    keeps its Viewer for the life of the socket only.
    """
    ip = ip if ip and _is_address(ip) else None  # a unix-socket or test client has no address to keep
    viewer = None
    if user is not None and user.is_authenticated:
        viewer = Viewer.objects.filter(user=user).first()
    key = session.get("viewer_key") if session is not None else None
    if viewer is None and key:
        viewer = Viewer.objects.filter(key=key).first()
        if viewer is not None and viewer.user_id is None and user is not None and user.is_authenticated:
            viewer.user = user
            viewer.save(update_fields=["user"])
    if viewer is None:
        owner = user if user is not None and user.is_authenticated else None
        viewer = Viewer.objects.create(user=owner, last_ip=ip)
    if session is not None and session.session_key and key != viewer.key:
        session["viewer_key"] = viewer.key
        session.save()
    if ip and viewer.last_ip != ip:
        Viewer.objects.filter(pk=viewer.pk).update(last_ip=ip)
        viewer.last_ip = ip
    return viewer


def identify(session: Any, user: Any, ip: str | None) -> tuple[Viewer, Restriction | None]:
    """The socket's Viewer and the restriction in force for it, in one trip to the database."""
    viewer = viewer_for_socket(session, user, ip)
    return viewer, restriction_for(viewer)


def restriction_for(viewer: Viewer) -> Restriction | None:
    """The timeout or ban in force for this viewer (or its network), else None. The one place bans reach
    voting: a socket holds the answer until `restriction_changed` concerns it or the timeout runs out."""
    return bans.active_restriction(viewer.pk, viewer.last_ip)


def refusal(restriction: Restriction) -> VotingError:
    """The `banned` error, with the time left as of now."""
    retry_after = None
    if restriction.until is not None:
        retry_after = max(1, int((restriction.until - timezone.now()).total_seconds()))
    return VotingError("banned", bans.restriction_message(restriction), retry_after)


def restriction_concerns(restriction_viewer_id: int, address: str, viewer: Viewer, ip: str) -> bool:
    """Whether a restriction of `restriction_viewer_id` from `address` may apply to this viewer at `ip`."""
    return restriction_viewer_id == viewer.pk or (bool(address) and address == bans.address_block(ip))


def announce_restriction(sender: Any = None, instance: Restriction | None = None, **_: Any) -> None:
    """Tell every web process that a restriction changed (a receiver of Restriction's post_save and
    post_delete; called directly where a guarded update sends no signal)."""
    assert instance is not None
    event = events.restriction_changed(instance.viewer_id, instance.address)
    events.publish_on_commit(events.RESTRICTIONS, event)


def submit_prompt(viewer: Viewer, text: str) -> dict[str, Any]:
    """Judge and store a viewer's prompt; an allowed one becomes a candidate of the open round.

    Returns the `submitted` event's prompt; raises VotingError when the prompt is refused outright.
    """
    shown = check_text(text)
    round_id = tally.current_round_id()
    if round_id is None or tally.round_state(round_id) != "open":
        raise VotingError("round_closed", "No round is open right now; try again in a moment.", 1)
    verdict = gate.judge(shown)
    status = _STATUS[verdict.decision]
    normalized = verdict.normalized or gate.normalize(shown)
    if status == Prompt.Status.APPROVED and _already_candidate(round_id, normalized):
        raise VotingError(
            "rejected", "That prompt is already a candidate in this round: vote for it instead."
        )
    with transaction.atomic():
        prompt = Prompt.objects.create(
            text=shown,
            normalized_text=normalized,
            author=viewer,
            round_id=round_id,
            status=status,
            moderation_reason=verdict.reason[:500],
        )
        if status == Prompt.Status.APPROVED:
            make_candidate(prompt)
        elif status == Prompt.Status.HELD:
            events.publish_on_commit(events.MODERATORS, held_event(prompt))
    return prompt_view(prompt)


def _already_candidate(round_id: int, normalized: str) -> bool:
    return Prompt.objects.filter(
        round_id=round_id, normalized_text=normalized, status=Prompt.Status.APPROVED
    ).exists()


def held_event(prompt: Prompt) -> dict[str, Any]:
    """A held prompt as every moderator's panel shows it, with what holds it at today's levels."""
    author = prompt.author
    return events.held(
        prompt.pk,
        prompt.text,
        prompt.moderation_reason,
        gate.explain(prompt.text),
        prompt.round_id,
        prompt.created_at,
        (author.key, str(author)) if author else None,
    )


def make_candidate(prompt: Prompt, announce: bool = True) -> bool:
    """Put an approved prompt on the open round's ballot (Redis) and tell viewers once committed.

    Follows the round that is open now if the prompt's own round closed meanwhile; a prompt that finds no
    open round keeps `round=None` and joins the next round when the conductor opens it.
    """
    for _ in range(2):  # a round can close between reading the pointer and adding: try the next one once
        round_id = prompt.round_id or tally.current_round_id()
        if round_id is None:
            break
        outcome = tally.add_candidate(round_id, prompt.pk, prompt.text)
        if outcome == "full":
            raise VotingError("rate_limited", "This round's ballot is full; submit again next round.", 5)
        if outcome == "added":
            if prompt.round_id != round_id:
                Prompt.objects.filter(pk=prompt.pk).update(round_id=round_id)
                prompt.round_id = round_id
            if announce:
                events.publish_on_commit(events.VIEWERS, events.candidate(round_id, prompt.pk, prompt.text))
            return True
        prompt.round_id = None
    Prompt.objects.filter(pk=prompt.pk).update(round_id=None)
    prompt.round_id = None
    return False


def prompt_view(prompt: Prompt) -> dict[str, Any]:
    view = {"id": prompt.pk, "text": prompt.text, "status": prompt.status, "reason": prompt.moderation_reason}
    if prompt.status == Prompt.Status.AIRED:  # its author gets the link to the clip's page to share
        shown = prompt.clips.filter(status__in=[Clip.Status.ON_AIR, Clip.Status.AIRED])
        clip_id = shown.order_by("-id").values_list("id", flat=True).first()
        if clip_id is not None:
            view["clip_url"] = reverse("clip", args=[clip_id])
    return view


def round_of_prompt(prompt_id: int) -> int | None:
    """The round a prompt belongs to (to tell a vote for another round's prompt from an unknown one)."""
    return Prompt.objects.filter(pk=prompt_id).values_list("round_id", flat=True).first()


def on_prompt_approved(sender: Any, prompt: Prompt, **_: Any) -> None:
    """A moderator approved a held prompt: put it on the ballot (moderation already told viewers)."""
    try:
        make_candidate(prompt, announce=False)
    except VotingError as exc:
        log.warning("approved prompt %s did not join a round: %s", prompt.pk, exc.message)


def on_clip_aired(sender: Any, clip: Clip, **_: Any) -> None:
    """The author's own list shows the prompt as aired from the moment it reaches viewers, with a link to
    the clip's page to share."""
    prompt = clip.prompt
    Prompt.objects.filter(id=prompt.id).update(status=Prompt.Status.AIRED)
    if prompt.author is not None:
        event = events.prompt_status(prompt.id, Prompt.Status.AIRED, "", reverse("clip", args=[clip.id]))
        events.publish(events.viewer_group(prompt.author.key), event)
