"""A starting list of blocked terms (editable in the admin): what the profanity classifier does not catch.

The classifier scores swearing and abuse; these are about what a video model must not be asked to draw.
"""

from django.db import migrations

DEFAULT_TERMS = [
    ("porn", "reject", "sexual content"),
    ("hentai", "reject", "sexual content"),
    ("child porn", "reject", "sexual content involving minors"),
    ("swastika", "reject", "hate symbol"),
    ("beheading", "reject", "graphic violence"),
    ("nude", "hold", "possibly sexual content"),
    ("naked", "hold", "possibly sexual content"),
    ("nsfw", "hold", "possibly sexual content"),
    ("gore", "hold", "possibly graphic violence"),
    ("nazi", "hold", "may be historical, may be hate"),
    ("hitler", "hold", "may be historical, may be hate"),
    ("suicide", "hold", "self-harm"),
]


def add_terms(apps, schema_editor):
    BlockedTerm = apps.get_model("moderation", "BlockedTerm")
    for term, action, note in DEFAULT_TERMS:
        BlockedTerm.objects.get_or_create(term=term, defaults={"action": action, "note": note})


def remove_terms(apps, schema_editor):
    BlockedTerm = apps.get_model("moderation", "BlockedTerm")
    BlockedTerm.objects.filter(term__in=[t for t, _, _ in DEFAULT_TERMS]).delete()


class Migration(migrations.Migration):
    dependencies = [("moderation", "0001_initial")]

    operations = [migrations.RunPython(add_terms, remove_terms)]
