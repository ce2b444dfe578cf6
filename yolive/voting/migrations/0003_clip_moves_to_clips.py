"""The Clip model now belongs to yolive.clips; its table stays (see clips/0001_initial)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("voting", "0002_house_prompts"),
        ("clips", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="Clip")],
            database_operations=[],
        ),
    ]
