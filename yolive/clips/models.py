from __future__ import annotations

from django.db import models


class ClipQuerySet(models.QuerySet["Clip"]):
    def announced(self) -> ClipQuerySet:
        """The clips viewers, moderators and the broadcaster know of: all but the provisional ones."""
        return self.filter(provisional=False)


class Clip(models.Model):
    """One round's winner as video. Its status moves only through `yolive.clips.lifecycle`:

        queued -> rendering -> ready -> on_air -> aired
           |          |          |      ^ |
           |          +----------|------' |   (aired while it is made)
           +----------+----------+--------+--> skipped (a moderator's skip) or failed

    Its frames are in the frames store (`yolive.clips.frames`): the worker writes, the broadcaster reads.
    A clip rendering may go on air before it is ready (rendering -> on_air), once enough of it is made
    (`frames_made`) for the render to stay ahead of the air.

    A provisional clip is rendered before its round closes, on the prompt leading then
    (`yolive.voting.head_start`): nobody hears of it, and nothing airs it, unless that prompt wins.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RENDERING = "rendering"
        READY = "ready"
        ON_AIR = "on_air"
        AIRED = "aired"
        FAILED = "failed"
        SKIPPED = "skipped"

    round = models.OneToOneField("voting.Round", on_delete=models.CASCADE, related_name="clip")
    prompt = models.ForeignKey("voting.Prompt", on_delete=models.PROTECT, related_name="clips")
    seed = models.BigIntegerField()
    preset = models.CharField(max_length=32)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    progress = models.FloatField(default=0.0)  # 0..1 while rendering
    provisional = models.BooleanField(default=False)  # rendered ahead of the close; its prompt may yet lose
    skip_requested = models.BooleanField(default=False)  # a moderator's skip; worker and broadcaster obey it
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    fps = models.PositiveIntegerField(default=0)
    num_frames = models.PositiveIntegerField(default=0)
    frames_path = models.CharField(max_length=500, blank=True)
    frames_made = models.PositiveIntegerField(default=0)  # of num_frames, written to frames_path so far
    archive_path = models.CharField(max_length=500, blank=True)  # VOD playlist, relative to HLS_DIR
    timings = models.JSONField(default=dict, blank=True)  # seconds: queue_wait, text_encoding, ...
    cache_stats = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    airable_at = models.DateTimeField(null=True, blank=True)  # when enough was made to go on air
    ready_at = models.DateTimeField(null=True, blank=True)
    aired_at = models.DateTimeField(null=True, blank=True)  # when it reached viewers
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ClipQuerySet.as_manager()

    class Meta:
        db_table = "voting_clip"  # the table it has had since clips were a part of voting
        ordering = ["round__number"]

    def __str__(self) -> str:
        return f"clip of {self.round}"
