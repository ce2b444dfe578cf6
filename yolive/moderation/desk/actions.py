"""What a moderator can do. Each action commits, writes the audit log, then tells the people concerned.

Events: `prompt_status` to the author (protocol.md) and to MODERATORS (so every panel drops the card),
`candidate` to VIEWERS when an approved prompt joins the open round, `audit` to MODERATORS.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from yolive.clips.models import Clip
from yolive.moderation.desk import audit
from yolive.moderation.models import BlockedTerm, CategoryLevel, PromptReview, Restriction
from yolive.moderation.policy import bans, lockdown
from yolive.moderation.policy.harm.categories import CATEGORIES, DEFAULT_LEVELS, Category, check_level
from yolive.moderation.policy.levels import forget_cached_levels
from yolive.moderation.policy.terms import forget_cached_terms
from yolive.moderation.policy.text import normalize
from yolive.moderation.signals import prompt_approved
from yolive.plumbing import events
from yolive.voting import services
from yolive.voting.models import Prompt, Round, Viewer

log = logging.getLogger(__name__)

REJECTED_BY_MODERATOR = "rejected by a moderator"


class ActionError(Exception):
    """The action cannot be done (already decided, nothing to skip, bad input); the message says why."""


def _tell_author_and_moderators(prompt: Prompt) -> None:
    event = events.prompt_status(prompt.pk, prompt.status, prompt.moderation_reason)
    if prompt.author is not None:
        events.publish_on_commit(events.viewer_group(prompt.author.key), event)
    events.publish_on_commit(events.MODERATORS, event)


def _claim_held(prompt_id: int, status: str, reason: str) -> Prompt:
    # A conditional update: of two moderators clicking at once, exactly one decides.
    changed = Prompt.objects.filter(pk=prompt_id, status=Prompt.Status.HELD).update(
        status=status, moderation_reason=reason
    )
    if changed != 1:
        if not Prompt.objects.filter(pk=prompt_id).exists():
            raise ActionError("no such prompt")
        raise ActionError("this prompt has already been decided")
    return Prompt.objects.select_related("author").get(pk=prompt_id)


def approve_prompt(prompt_id: int, moderator: Any) -> Prompt:
    """Approve a held prompt: it becomes a candidate of the open round (if one is open) at once."""
    with transaction.atomic():
        prompt = _claim_held(prompt_id, Prompt.Status.APPROVED, "")
        open_round = Round.objects.filter(state=Round.State.OPEN).order_by("-number").first()
        round_id = open_round.pk if open_round is not None else None
        if prompt.round_id != round_id:
            prompt.round_id = round_id
            prompt.save(update_fields=["round"])
        PromptReview.objects.create(
            prompt=prompt, decision=PromptReview.Decision.APPROVED, moderator=moderator
        )
        audit.record(moderator, "approve_prompt", f"prompt {prompt.pk}", text=prompt.text)
        _tell_author_and_moderators(prompt)
        transaction.on_commit(lambda: _put_on_ballot(prompt))
    return prompt


def _put_on_ballot(prompt: Prompt) -> None:
    # The voting side's receiver adds it to the open round's ballot, or leaves round=None when none is
    # open (it then joins the next round); viewers hear of it only once it can take votes.
    for receiver, outcome in prompt_approved.send_robust(sender=Prompt, prompt=prompt):
        if isinstance(outcome, Exception):
            # The approval stands; with no round the next one to open takes it onto its ballot.
            log.error("approved prompt %s missed the ballot (%r): %s", prompt.pk, receiver, outcome)
            Prompt.objects.filter(pk=prompt.pk).update(round=None)
            return
    round_id = Prompt.objects.filter(pk=prompt.pk).values_list("round_id", flat=True).first()
    if round_id is None:
        return
    events.publish(events.VIEWERS, events.candidate(round_id, prompt.pk, prompt.text))


def reject_prompt(prompt_id: int, moderator: Any, reason: str = "") -> Prompt:
    """Reject a held prompt; its author sees the reason."""
    reason = (reason.strip() or REJECTED_BY_MODERATOR)[:500]
    with transaction.atomic():
        prompt = _claim_held(prompt_id, Prompt.Status.REJECTED, reason)
        PromptReview.objects.create(
            prompt=prompt, decision=PromptReview.Decision.REJECTED, reason=reason, moderator=moderator
        )
        audit.record(moderator, "reject_prompt", f"prompt {prompt.pk}", text=prompt.text, reason=reason)
        _tell_author_and_moderators(prompt)
    return prompt


def restrict_viewer(viewer_key: str, moderator: Any, reason: str, duration_s: int | None) -> Restriction:
    """Time out (duration in seconds) or ban (no duration) a viewer; they are told why."""
    viewer = Viewer.objects.filter(key=viewer_key.strip()).first()
    if viewer is None:
        raise ActionError("no viewer with that key")
    with transaction.atomic():
        try:
            restriction = bans.restrict(viewer.pk, viewer.last_ip, reason, duration_s, by=moderator)
        except ValueError as exc:
            raise ActionError(str(exc)) from None
        action = "ban" if duration_s is None else "timeout"
        detail = {
            "viewer_key": viewer.key, "reason": restriction.reason, "seconds": duration_s,
            "address": restriction.address,
        }  # fmt: skip
        audit.record(moderator, action, str(viewer), **detail)
        notice = events.banned(bans.restriction_message(restriction))
        events.publish_on_commit(events.viewer_group(viewer.key), notice)
    return restriction


def lift_restriction(restriction_id: int, moderator: Any) -> Restriction:
    with transaction.atomic():
        changed = Restriction.objects.filter(pk=restriction_id, lifted_at__isnull=True).update(
            lifted_at=timezone.now()
        )
        if changed != 1:
            raise ActionError("no such restriction in force")
        restriction = Restriction.objects.select_related("viewer").get(pk=restriction_id)
        viewer = restriction.viewer
        audit.record(moderator, "lift_restriction", str(viewer), viewer_key=viewer.key)
        services.announce_restriction(instance=restriction)  # the guarded update sent no post_save
    return restriction


# Clips a skip can still stop: the one on air first, else the next one being made.
SKIPPABLE = (Clip.Status.ON_AIR, Clip.Status.RENDERING, Clip.Status.QUEUED, Clip.Status.READY)


def skip_clip(moderator: Any, clip_id: int | None = None) -> Clip:
    """Ask the broadcaster (on air) or the worker (rendering) to drop a clip; they obey skip_requested."""
    with transaction.atomic():
        clips = Clip.objects.announced().select_related("round", "prompt").filter(status__in=SKIPPABLE)
        if clip_id is not None:
            clip = clips.filter(pk=clip_id).first()
        else:
            clip = clips.filter(status=Clip.Status.ON_AIR).first() or clips.order_by("round__number").first()
        if clip is None:
            raise ActionError("no clip is on air or being made")
        Clip.objects.filter(pk=clip.pk).update(skip_requested=True)
        audit.record(
            moderator, "skip_clip", f"clip {clip.pk}", round=clip.round.number, status=clip.status,
            prompt=clip.prompt.text,
        )  # fmt: skip
    return clip


def set_lockdown(active: bool, moderator: Any, reason: str = "") -> None:
    with transaction.atomic():
        lockdown.switch(active, reason, by=moderator)
        audit.record(moderator, "lockdown_on" if active else "lockdown_off", "channel", reason=reason)


def add_blocked_term(term: str, action: str, moderator: Any, note: str = "") -> BlockedTerm:
    clean = normalize(term)
    if not clean or len(clean) > 100:
        raise ActionError("a blocked term is 1 to 100 characters")
    if action not in BlockedTerm.Action.values:
        raise ActionError("the action is reject or hold")
    with transaction.atomic():
        defaults = {"action": action, "note": note[:200], "active": True, "created_by": moderator}
        row, _ = BlockedTerm.objects.update_or_create(term=clean, defaults=defaults)
        audit.record(moderator, "add_term", clean, action=action)
    forget_cached_terms()
    return row


def remove_blocked_term(term_id: int, moderator: Any) -> None:
    with transaction.atomic():
        row = BlockedTerm.objects.filter(pk=term_id).first()
        if row is None:
            raise ActionError("no such blocked term")
        row.delete()
        audit.record(moderator, "remove_term", row.term)
    forget_cached_terms()


def set_category_level(category: str, level: object, moderator: Any) -> CategoryLevel:
    """Set how strictly one category of harm is judged (0 off to 4 most); applies to the next prompt."""
    if category not in {c.value for c in CATEGORIES}:
        raise ActionError(
            f"no category {category!r}; the categories are {', '.join(c.value for c in CATEGORIES)}"
        )
    try:
        value = check_level(level)
    except ValueError as exc:
        raise ActionError(str(exc)) from None
    with transaction.atomic():
        row = CategoryLevel.objects.select_for_update().filter(category=category).first()
        before = row.level if row is not None else DEFAULT_LEVELS[Category(category)]
        row, _ = CategoryLevel.objects.update_or_create(
            category=category,
            defaults={"level": value, "changed_by": moderator, "changed_at": timezone.now()},
        )
        audit.record(moderator, "set_level", category, **{"from": before, "to": value})
    forget_cached_levels()
    return row
