"""The starting hold terms that the categories of harm now judge in context ("naked" in "a naked mole rat",
"suicide" in "Suicide Squad", "hitler" in a history lesson). They are switched off where they still are as
shipped; a moderator who changed one keeps it. The reject terms stay.
"""

from django.db import migrations

SUPERSEDED = ("nude", "naked", "nsfw", "gore", "nazi", "hitler", "suicide")


def switch_off(apps, schema_editor):
    BlockedTerm = apps.get_model("moderation", "BlockedTerm")
    BlockedTerm.objects.filter(term__in=SUPERSEDED, action="hold", created_by__isnull=True).update(active=False)


def switch_on(apps, schema_editor):
    BlockedTerm = apps.get_model("moderation", "BlockedTerm")
    BlockedTerm.objects.filter(term__in=SUPERSEDED, action="hold", created_by__isnull=True).update(active=True)


class Migration(migrations.Migration):
    dependencies = [("moderation", "0003_categorylevel_restriction_address")]

    operations = [migrations.RunPython(switch_off, switch_on)]
