"""The Django admin for moderation (prompts and rounds are in yolive/voting/admin.py, clips in yolive/clips).

The admin escapes every value it shows, so a prompt containing `<script>` reads as text here too.
"""

from __future__ import annotations

from django.contrib import admin

from yolive.moderation.models import AuditLog, BlockedTerm, Lockdown, PromptReview, Restriction


@admin.register(BlockedTerm)
class BlockedTermAdmin(admin.ModelAdmin):
    list_display = ("term", "action", "active", "note", "created_by", "created_at")
    list_filter = ("action", "active")
    search_fields = ("term", "note")
    readonly_fields = ("created_by", "created_at")

    def save_model(self, request, obj, form, change):
        from yolive.moderation.desk import audit
        from yolive.moderation.policy.terms import forget_cached_terms

        if not obj.created_by_id:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
        audit.record(request.user, "edit_term" if change else "add_term", obj.term, action=obj.action)
        forget_cached_terms()


@admin.register(Restriction)
class RestrictionAdmin(admin.ModelAdmin):
    list_display = ("viewer", "reason", "until", "lifted_at", "created_by", "created_at")
    list_filter = ("lifted_at",)
    search_fields = ("viewer__key", "reason")
    raw_id_fields = ("viewer",)
    readonly_fields = ("created_by", "created_at")

    def save_model(self, request, obj, form, change):
        from yolive.moderation.desk import audit

        if not obj.created_by_id:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
        action = "edit_restriction" if change else "ban"
        audit.record(request.user, action, str(obj.viewer), reason=obj.reason)


@admin.register(PromptReview)
class PromptReviewAdmin(admin.ModelAdmin):
    list_display = ("prompt", "decision", "reason", "moderator", "decided_at")
    list_filter = ("decision",)
    raw_id_fields = ("prompt",)


@admin.register(Lockdown)
class LockdownAdmin(admin.ModelAdmin):
    list_display = ("active", "reason", "changed_by", "changed_at")


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    list_display = ("at", "actor", "action", "target", "detail")
    list_filter = ("action",)
    search_fields = ("target",)

    def has_change_permission(self, request, obj=None):
        return False  # the record of who did what is not edited after the fact

    def has_delete_permission(self, request, obj=None):
        return False
