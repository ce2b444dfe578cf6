"""Create the first moderator account once; later runs leave it alone."""

from __future__ import annotations

import os
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand

MODERATORS_GROUP = "Moderators"
MODERATOR_APPS = ("voting", "clips", "moderation")
# The audit log is written by the code's own actions only; the role may read it.
AUDIT_LOG_WRITES = ("add_auditlog", "change_auditlog", "delete_auditlog")


class Command(BaseCommand):
    help = "Create the moderator account (password from MODERATOR_PASSWORD, or generated and printed once)."

    def handle(self, *args: Any, **options: Any) -> None:
        group, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
        role = Permission.objects.filter(content_type__app_label__in=MODERATOR_APPS).exclude(
            content_type__app_label="moderation", codename__in=AUDIT_LOG_WRITES
        )
        group.permissions.set(role)
        User = get_user_model()
        username = settings.MODERATOR_USERNAME
        if User.objects.filter(username=username).exists():
            return
        password = os.environ.get("MODERATOR_PASSWORD") or secrets.token_urlsafe(12)
        user = User.objects.create_user(username=username, password=password, is_staff=True)
        user.groups.add(group)
        if "MODERATOR_PASSWORD" in os.environ:
            self.stdout.write(f"Created moderator '{username}' with the password from MODERATOR_PASSWORD.")
        else:
            self.stdout.write(
                self.style.WARNING(
                    f"Created moderator '{username}' with password: {password}\n"
                    "  (shown only this once: note it down, or change it with "
                    f"`python manage.py changepassword {username}`)"
                )
            )
