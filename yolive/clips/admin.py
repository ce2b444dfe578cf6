from __future__ import annotations

from django.contrib import admin

from yolive.clips.models import Clip


@admin.register(Clip)
class ClipAdmin(admin.ModelAdmin):
    list_display = ("id", "round", "prompt", "status", "progress", "preset", "seed", "created_at", "aired_at")
    list_filter = ("status", "preset")
    raw_id_fields = ("round", "prompt")
    readonly_fields = ("timings", "cache_stats", "error", "frames_path", "archive_path")
