"""The Django admin: every change a staff member makes there is audited; nobody edits the audit log."""

import io
import re
import sys

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from yolive.clips.models import Clip
from yolive.moderation.models import AuditLog, Lockdown
from yolive.voting.models import Prompt, Round

pytestmark = pytest.mark.django_db


@pytest.fixture
def role_member(settings, monkeypatch):
    """The moderator account `ensure_moderator` makes, holding exactly the moderator role's permissions."""
    monkeypatch.setenv("MODERATOR_PASSWORD", "pw-for-tests")
    call_command("ensure_moderator", stdout=io.StringIO())
    return get_user_model().objects.get(username=settings.MODERATOR_USERNAME)


@pytest.fixture
def entry(db):
    return AuditLog.objects.create(action="set_level", target="violence", detail={"from": 3, "to": 1})


def test_the_moderator_role_reads_the_audit_log_and_cannot_write_it(client, role_member, entry):
    permissions = role_member.get_all_permissions()
    assert "moderation.view_auditlog" in permissions
    assert not {f"moderation.{verb}_auditlog" for verb in ("add", "change", "delete")} & permissions
    client.force_login(role_member)
    assert client.get("/admin/moderation/auditlog/add/").status_code == 403
    assert client.post("/admin/moderation/auditlog/add/", {"action": "ban", "target": "x"}).status_code == 403
    page = client.get(f"/admin/moderation/auditlog/{entry.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.post(f"/admin/moderation/auditlog/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert list(AuditLog.objects.values_list("action", "target")) == [("set_level", "violence")]


def test_not_even_a_superuser_adds_or_deletes_audit_entries_in_the_admin(admin_client, entry):
    assert admin_client.get("/admin/moderation/auditlog/add/").status_code == 403
    deleted = admin_client.post(f"/admin/moderation/auditlog/{entry.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 403
    assert AuditLog.objects.filter(pk=entry.pk).exists()


def test_every_change_a_moderator_makes_in_the_admin_is_audited(client, role_member):
    Lockdown.objects.create(pk=1)
    prompt = Prompt.objects.create(text="a red kite", normalized_text="a red kite", status="approved")
    now = timezone.now()
    rnd = Round.objects.create(number=1, opens_at=now, ends_at=now)
    clip = Clip.objects.create(round=rnd, prompt=prompt, seed=1, preset="tiny")
    client.force_login(role_member)

    changed = client.post("/admin/moderation/lockdown/1/change/", {"active": "on", "reason": "raid"})
    assert changed.status_code == 302, changed.content
    form = {"status": "rejected", "source": "viewer", "moderation_reason": "spam", "author": "", "round": ""}
    changed = client.post(f"/admin/voting/prompt/{prompt.pk}/change/", form)
    assert changed.status_code == 302, changed.content
    deleted = client.post(
        "/admin/clips/clip/", {"action": "delete_selected", "_selected_action": [clip.pk], "post": "yes"}
    )
    assert deleted.status_code == 302, deleted.content

    logged = [(e.actor, e.action, e.target) for e in AuditLog.objects.order_by("id")]
    assert logged == [
        (role_member, "admin_change", "lockdown 1"),
        (role_member, "admin_change", f"prompt {prompt.pk}"),
        (role_member, "admin_delete", f"clip {clip.pk}"),
    ]
    assert AuditLog.objects.get(target=f"prompt {prompt.pk}").detail["changes"] == [
        {"changed": {"fields": ["Status", "Moderation reason"]}}
    ]
    lockdown = Lockdown.objects.get(pk=1)
    assert lockdown.active and lockdown.changed_by == role_member
    assert not Clip.objects.exists()


def registered_admins() -> list[admin.ModelAdmin]:
    return [admin.site.get_model_admin(m) for m in apps.get_models() if admin.site.is_registered(m)]


def test_every_admin_class_the_project_defines_is_the_one_its_model_is_shown_with():
    registered = registered_admins()
    admin_modules = re.compile(r"yolive(\.\w+)*\.admin")
    # A copy in one step: another thread (a server under test) may import while this reads.
    modules = [m for name, m in sys.modules.copy().items() if admin_modules.fullmatch(name)]
    defined = [
        cls
        for module in modules
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, admin.ModelAdmin) and cls.__module__ == module.__name__
    ]
    assert defined, "the admin modules were not loaded"
    assert [cls for cls in defined if not any(isinstance(a, cls) for a in registered)] == []


def test_every_model_in_the_admin_is_audited_whichever_app_registers_it():
    from yolive.moderation.desk.auditing import AuditedChanges

    shown = {type(a).__module__ for a in registered_admins()}
    assert {"yolive.voting.admin", "yolive.clips.admin", "django.contrib.auth.admin"} <= shown
    assert all(isinstance(a, AuditedChanges) for a in registered_admins())
