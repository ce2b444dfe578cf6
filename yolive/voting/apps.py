from django.apps import AppConfig


class VotingConfig(AppConfig):
    name = "yolive.voting"
    label = "voting"
    verbose_name = "Rounds, prompts and clips"

    def ready(self) -> None:
        from yolive.voting import receivers

        receivers.connect()
