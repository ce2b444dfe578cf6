"""What moderators decide and keep: blocked terms, restrictions, reviews of held prompts, lockdown, audit."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from yolive.moderation.policy.harm.categories import CATEGORIES
from yolive.moderation.policy.text import normalize
from yolive.plumbing import events


class BlockedTerm(models.Model):
    """A word or phrase matched on word boundaries ("ass" never hits "classic")."""

    class Action(models.TextChoices):
        REJECT = "reject"
        HOLD = "hold"

    term = models.CharField(max_length=100, unique=True)
    action = models.CharField(max_length=6, choices=Action.choices, default=Action.REJECT)
    note = models.CharField(max_length=200, blank=True)
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["term"]

    def __str__(self) -> str:
        return self.term

    def save(self, *args: object, **kwargs: object) -> None:
        self.term = normalize(self.term)
        super().save(*args, **kwargs)


class Restriction(models.Model):
    """A timeout (with an end) or a ban (without one) of one viewer; lifting keeps the record.

    `address` is the viewer's network when it was made (an IPv4 address, or an IPv6 /64), so a new viewer key
    from there is restricted too for as long as this lasts; empty when addresses are not used.
    """

    viewer = models.ForeignKey("voting.Viewer", on_delete=models.CASCADE, related_name="restrictions")
    address = models.CharField(max_length=64, blank=True, db_index=True)
    reason = models.CharField(max_length=500)
    until = models.DateTimeField(null=True, blank=True)  # None: banned until lifted
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["viewer", "lifted_at"])]

    def __str__(self) -> str:
        kind = "ban" if self.is_ban else f"timeout until {self.until:%Y-%m-%d %H:%M}"
        return f"{kind} of {self.viewer}"

    @property
    def is_ban(self) -> bool:
        return self.until is None

    @property
    def is_active(self) -> bool:
        return self.lifted_at is None and (self.until is None or self.until > timezone.now())


class CategoryLevel(models.Model):
    """How strictly the gate judges one category of harm on this channel, AutoMod's 0 (off) to 4 (most).

    A category without a row is at its default (yolive.moderation.policy.harm.categories.DEFAULT_LEVELS).
    """

    category = models.CharField(max_length=20, unique=True, choices=[(c.value, c.label) for c in CATEGORIES])
    level = models.PositiveSmallIntegerField()
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.category} at level {self.level}"


class PromptReview(models.Model):
    """A moderator's decision on one prompt; in lockdown only prompts approved here (or house ones) win."""

    class Decision(models.TextChoices):
        APPROVED = "approved"
        REJECTED = "rejected"

    prompt = models.OneToOneField("voting.Prompt", on_delete=models.CASCADE, related_name="review")
    decision = models.CharField(max_length=8, choices=Decision.choices)
    reason = models.CharField(max_length=500, blank=True)
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.decision}: {self.prompt}"


class Lockdown(models.Model):
    """One row: while on, only moderator-approved or house prompts can win a round."""

    active = models.BooleanField(default=False)
    reason = models.CharField(max_length=500, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return "lockdown on" if self.active else "lockdown off"


class AuditLog(models.Model):
    """Who did what, when: every moderator action and every automatic hold or reject of a winner."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=40, db_index=True)
    target = models.CharField(max_length=200, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.actor_name} {self.action} {self.target}"

    @property
    def actor_name(self) -> str:
        return self.actor.get_username() if self.actor else "system"

    def as_event(self) -> dict[str, object]:
        return events.audit(self.id, self.at, self.actor_name, self.action, self.target, self.detail)
