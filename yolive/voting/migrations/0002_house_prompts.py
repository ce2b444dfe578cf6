"""A few house prompts, so a quiet round still moves the story on (editable in the admin)."""

from django.db import migrations

DEFAULTS = [
    "A lighthouse keeper climbs the spiral stairs as a storm rolls in over the sea",
    "A paper boat drifts down a rain-filled street past glowing shop windows",
    "A fox wanders through a snowy forest under the northern lights",
    "A hot air balloon rises over green hills at sunrise",
    "A tiny robot waters the plants in a greenhouse full of giant flowers",
    "A train crosses a long stone bridge above a misty valley",
]


def add_defaults(apps, schema_editor):
    HousePrompt = apps.get_model("voting", "HousePrompt")
    if not HousePrompt.objects.exists():
        HousePrompt.objects.bulk_create(HousePrompt(text=text) for text in DEFAULTS)


def remove_defaults(apps, schema_editor):
    apps.get_model("voting", "HousePrompt").objects.filter(text__in=DEFAULTS, last_used_at=None).delete()


class Migration(migrations.Migration):
    dependencies = [("voting", "0001_initial")]

    operations = [migrations.RunPython(add_defaults, remove_defaults)]
