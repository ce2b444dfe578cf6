from __future__ import annotations

from django.contrib import admin

from yolive.clips.models import Clip


@admin.register(Clip)
class ClipAdmin(admin.ModelAdmin):
    list_display = ("id", "round", "prompt", "status", "progress", "preset", "seed", "created_at", "aired_at")
    list_filter = ("status", "preset")
    raw_id_fields = ("round", "prompt")
    # The status and its moments move only through yolive.clips.lifecycle (the worker, the broadcaster; a
    # moderator skips a clip from the panel), which guards each change and tells viewers; an edit here would
    # do neither.
    readonly_fields = (
        "status", "progress", "started_at", "airable_at", "ready_at", "aired_at", "finished_at",
        "timings", "cache_stats", "error", "frames_path", "frames_made", "archive_path",
    )  # fmt: skip
