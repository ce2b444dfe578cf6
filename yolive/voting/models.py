"""The durable side of the channel: who speaks, what they asked for, which round it won, what aired.

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


class Clip(models.Model):
    """One round's winner as video: queued -> rendering -> ready -> on_air -> aired (or failed/skipped).

    The frames live in `frames_path`: a .npy array of shape (frames, height, width, 3), uint8 RGB, written
    atomically by the worker and read by the broadcaster.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RENDERING = "rendering"
        READY = "ready"
        ON_AIR = "on_air"
        AIRED = "aired"
        FAILED = "failed"
        SKIPPED = "skipped"

    round = models.OneToOneField(Round, on_delete=models.CASCADE, related_name="clip")
    prompt = models.ForeignKey(Prompt, on_delete=models.PROTECT, related_name="clips")
    seed = models.BigIntegerField()
    preset = models.CharField(max_length=32)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    progress = models.FloatField(default=0.0)  # 0..1 while rendering
    skip_requested = models.BooleanField(default=False)  # a moderator's skip; worker and broadcaster obey it
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    fps = models.PositiveIntegerField(default=0)
    num_frames = models.PositiveIntegerField(default=0)
    frames_path = models.CharField(max_length=500, blank=True)
    archive_path = models.CharField(max_length=500, blank=True)  # VOD playlist, relative to HLS_DIR
    timings = models.JSONField(default=dict, blank=True)  # seconds: queue_wait, text_encoding, ...
    cache_stats = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ready_at = models.DateTimeField(null=True, blank=True)
    aired_at = models.DateTimeField(null=True, blank=True)  # when it reached viewers
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round__number"]

    def __str__(self) -> str:
        return f"clip of {self.round}"


class HousePrompt(models.Model):
    """The channel's own story beats, used when a round closes without a candidate."""

    text = models.CharField(max_length=2000)
    active = models.BooleanField(default=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["last_used_at", "id"]

    def __str__(self) -> str:
        return self.text[:60]
