from django.apps import AppConfig


class ModerationConfig(AppConfig):
    name = "yolive.moderation"
    label = "moderation"
    verbose_name = "Moderation"
