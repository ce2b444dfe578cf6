"""The starting reject term "beheading", which the violence category now judges in context (a boss beheaded
in a video game, a history lesson, a beheading video): switched off where it still is as shipped; a
moderator who changed it keeps it.
"""

from django.db import migrations

SUPERSEDED = ("beheading",)


def switch_off(apps, schema_editor):
    BlockedTerm = apps.get_model("moderation", "BlockedTerm")
    BlockedTerm.objects.filter(term__in=SUPERSEDED, action="reject", created_by__isnull=True).update(
        active=False
    )


def switch_on(apps, schema_editor):
    BlockedTerm = apps.get_model("moderation", "BlockedTerm")
    BlockedTerm.objects.filter(term__in=SUPERSEDED, action="reject", created_by__isnull=True).update(
        active=True
    )


class Migration(migrations.Migration):
    dependencies = [("moderation", "0005_more_categories")]

    operations = [migrations.RunPython(switch_off, switch_on)]
