from django.apps import AppConfig


class VotingConfig(AppConfig):
    name = "yolive.voting"
    label = "voting"
    verbose_name = "Rounds, prompts and clips"
