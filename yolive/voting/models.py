"""The durable side of the ballot: who speaks, what they asked for, which round it won (clips: yolive.clips).

Hot state (open-round votes and tallies) lives in Redis; a round reaches this database when it closes.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models


def new_viewer_key() -> str:
    return secrets.token_urlsafe(16)


class Viewer(models.Model):
    """One person watching: anonymous and bound to the session cookie, or a signed-in user."""

    key = models.CharField(max_length=32, unique=True, default=new_viewer_key)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="viewer"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_ip = models.GenericIPAddressField(null=True, blank=True)

    def __str__(self) -> str:
        return self.user.get_username() if self.user else f"viewer {self.key[:8]}"


class Prompt(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        HELD = "held"
        REJECTED = "rejected"
        AIRED = "aired"

    class Source(models.TextChoices):
        VIEWER = "viewer"
        HOUSE = "house"  # the channel's own prompt, used when a round has no candidates

    text = models.CharField(max_length=2000)
    normalized_text = models.CharField(max_length=2000, db_index=True)
    author = models.ForeignKey(
        Viewer, null=True, blank=True, on_delete=models.SET_NULL, related_name="prompts"
    )
    round = models.ForeignKey(
        "Round", null=True, blank=True, on_delete=models.SET_NULL, related_name="candidates"
    )
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.VIEWER)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    moderation_reason = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return self.text[:60]


class Round(models.Model):
    class State(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"

    number = models.PositiveIntegerField(unique=True)
    opens_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    state = models.CharField(max_length=6, choices=State.choices, default=State.OPEN, db_index=True)
    winner = models.ForeignKey(Prompt, null=True, blank=True, on_delete=models.SET_NULL, related_name="won")
    tallies = models.JSONField(default=dict, blank=True)  # {prompt_id: votes} frozen at close
    total_votes = models.PositiveIntegerField(default=0)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-number"]

    def __str__(self) -> str:
        return f"round {self.number}"


class HousePrompt(models.Model):
    """The channel's own story beats, used when a round closes without a candidate."""

    text = models.CharField(max_length=2000)
    active = models.BooleanField(default=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["last_used_at", "id"]

    def __str__(self) -> str:
        return self.text[:60]
