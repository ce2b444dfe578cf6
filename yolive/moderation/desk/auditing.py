"""Every change a staff member makes through the Django admin is written to the audit log.

The admin site applies the mixin to every ModelAdmin it registers, so no app's admin.py imports the desk
(voting and clips sit below it) and no admin, of any app, can leave it out.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from yolive.moderation.desk import audit


class AuditedChanges(admin.ModelAdmin):
    """A ModelAdmin mixin: each add, change and delete (bulk ones too) writes an audit entry.

    Django's admin calls these hooks inside the same transaction as the change, after it is saved (before
    it, for a delete), so the entry and the change commit together.
    """

    def log_addition(self, request: HttpRequest, obj: Model, message: Any) -> Any:
        record_admin_change(request, "admin_add", obj, message)
        return super().log_addition(request, obj, message)

    def log_change(self, request: HttpRequest, obj: Model, message: Any) -> Any:
        record_admin_change(request, "admin_change", obj, message)
        return super().log_change(request, obj, message)

    def log_deletions(self, request: HttpRequest, queryset: Any) -> Any:
        for obj in queryset:
            record_admin_change(request, "admin_delete", obj, [])
        return super().log_deletions(request, queryset)


def record_admin_change(request: HttpRequest, action: str, obj: Model, changes: Any) -> None:
    # `changes` is Django's own change message: which fields changed, what was added to an inline.
    target = f"{obj._meta.verbose_name} {obj.pk}"
    audit.record(request.user, action, target, model=obj._meta.label_lower, object=str(obj), changes=changes)


class AuditedAdminSite(admin.AdminSite):
    """The project's admin site (see yolive.moderation.desk.apps): every ModelAdmin on it is audited."""

    def register(self, model_or_iterable: Any, admin_class: Any = None, **options: Any) -> None:
        admin_class = admin_class or admin.ModelAdmin
        if not issubclass(admin_class, AuditedChanges):
            named = {"__module__": admin_class.__module__}
            admin_class = type(admin_class.__name__, (AuditedChanges, admin_class), named)
        super().register(model_or_iterable, admin_class, **options)
