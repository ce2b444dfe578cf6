from django.apps import AppConfig


class ClipsConfig(AppConfig):
    name = "yolive.clips"
    label = "clips"
    verbose_name = "Clips"
