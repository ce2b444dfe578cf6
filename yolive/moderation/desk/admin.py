"""The Django admin for moderation. Every change made in the admin is audited (desk.auditing); the log
itself is read-only.

The admin escapes every value it shows, so a prompt containing `<script>` reads as text here too.
"""

from __future__ import annotations

from django.contrib import admin
from django.utils import timezone

from yolive.moderation.models import AuditLog, BlockedTerm, Lockdown, PromptReview, Restriction
from yolive.moderation.policy.terms import forget_cached_terms


@admin.register(BlockedTerm)
class BlockedTermAdmin(admin.ModelAdmin):
    list_display = ("term", "action", "active", "note", "created_by", "created_at")
    list_filter = ("action", "active")
    search_fields = ("term", "note")
    readonly_fields = ("created_by", "created_at")

    def save_model(self, request, obj, form, change):
        if not obj.created_by_id:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
        forget_cached_terms()


@admin.register(Restriction)
class RestrictionAdmin(admin.ModelAdmin):
    list_display = ("viewer", "reason", "until", "lifted_at", "created_by", "created_at")
    list_filter = ("lifted_at",)
    search_fields = ("viewer__key", "reason")
    raw_id_fields = ("viewer",)
    readonly_fields = ("created_by", "created_at")

    def save_model(self, request, obj, form, change):
        if not obj.created_by_id:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(PromptReview)
class PromptReviewAdmin(admin.ModelAdmin):
    list_display = ("prompt", "decision", "reason", "moderator", "decided_at")
    list_filter = ("decision",)
    raw_id_fields = ("prompt",)


@admin.register(Lockdown)
class LockdownAdmin(admin.ModelAdmin):
    list_display = ("active", "reason", "changed_by", "changed_at")
    # Who switched it and when, kept as the panel's switch keeps them, never typed in.
    readonly_fields = ("changed_by", "changed_at")

    def save_model(self, request, obj, form, change):
        obj.changed_by, obj.changed_at = request.user, timezone.now()
        super().save_model(request, obj, form, change)


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    """Read-only for everyone, superusers too: entries come from the code's own actions, never by hand."""

    list_display = ("at", "actor", "action", "target", "detail")
    list_filter = ("action",)
    search_fields = ("target",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
