"""Clips move from the voting app: the table (voting_clip) stays as it is; only Django's state moves."""

import django.db.models.deletion
from django.db import migrations, models


def move_content_type(apps, schema_editor):
    # Permissions and admin history point at the content type: carry it over rather than start afresh.
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label="clips", model="clip").exists():
        ContentType.objects.filter(app_label="voting", model="clip").update(app_label="clips")


def restore_content_type(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="clips", model="clip").update(app_label="voting")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("voting", "0002_house_prompts"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Clip",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("seed", models.BigIntegerField()),
                        ("preset", models.CharField(max_length=32)),
                        ("status", models.CharField(choices=[("queued", "Queued"), ("rendering", "Rendering"), ("ready", "Ready"), ("on_air", "On Air"), ("aired", "Aired"), ("failed", "Failed"), ("skipped", "Skipped")], db_index=True, default="queued", max_length=10)),
                        ("progress", models.FloatField(default=0.0)),
                        ("skip_requested", models.BooleanField(default=False)),
                        ("width", models.PositiveIntegerField(default=0)),
                        ("height", models.PositiveIntegerField(default=0)),
                        ("fps", models.PositiveIntegerField(default=0)),
                        ("num_frames", models.PositiveIntegerField(default=0)),
                        ("frames_path", models.CharField(blank=True, max_length=500)),
                        ("archive_path", models.CharField(blank=True, max_length=500)),
                        ("timings", models.JSONField(blank=True, default=dict)),
                        ("cache_stats", models.JSONField(blank=True, default=dict)),
                        ("error", models.TextField(blank=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("ready_at", models.DateTimeField(blank=True, null=True)),
                        ("aired_at", models.DateTimeField(blank=True, null=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                        ("prompt", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="clips", to="voting.prompt")),
                        ("round", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="clip", to="voting.round")),
                    ],
                    options={"db_table": "voting_clip", "ordering": ["round__number"]},
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, restore_content_type),
    ]
