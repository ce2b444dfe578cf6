"""The admin shows the whole voting record; house prompts are edited here."""

from __future__ import annotations

from django.contrib import admin

from yolive.voting.models import HousePrompt, Prompt, Round, Viewer


@admin.register(Viewer)
class ViewerAdmin(admin.ModelAdmin):
    list_display = ("key", "user", "last_ip", "created_at")
    search_fields = ("key", "user__username", "last_ip")
    readonly_fields = ("key", "created_at")


@admin.register(Prompt)
class PromptAdmin(admin.ModelAdmin):
    list_display = ("id", "text", "status", "source", "round", "author", "moderation_reason", "created_at")
    list_filter = ("status", "source")
    search_fields = ("text", "normalized_text", "author__key")
    raw_id_fields = ("author", "round")
    # The text is what the gate judged and what airs as the caption: editing it here would air unjudged words.
    readonly_fields = ("text", "normalized_text", "created_at")


class CandidateInline(admin.TabularInline):
    model = Prompt
    fk_name = "round"
    fields = ("id", "text", "status", "source", "author")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("number", "state", "opens_at", "ends_at", "winner", "total_votes", "closed_at")
    list_filter = ("state",)
    raw_id_fields = ("winner",)
    readonly_fields = ("tallies", "total_votes", "closed_at")
    inlines = [CandidateInline]


@admin.register(HousePrompt)
class HousePromptAdmin(admin.ModelAdmin):
    list_display = ("text", "active", "last_used_at")
    list_editable = ("active",)
    list_filter = ("active",)
    search_fields = ("text",)
