import importlib
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tests.helpers.voting import propose, render_of, vote
from yolive.clips.models import Clip
from yolive.moderation.models import BlockedTerm
from yolive.moderation.policy import gate
from yolive.plumbing.redis_client import get_redis
from yolive.voting import rounds, tally, winner
from yolive.voting.models import HousePrompt, Prompt, Round

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_tie_goes_to_the_earliest_submission():
    rnd = rounds.open_round()
    kite, whale, owl = propose("a red kite"), propose("a blue whale"), propose("a green hill")
    vote(rnd.pk, whale, 2)
    vote(rnd.pk, kite, 2)
    vote(rnd.pk, owl, 1)

    closed = rounds.close_round(rnd)

    assert closed.winner_id == kite
    assert closed.tallies == {str(kite): 2, str(whale): 2, str(owl): 1}
    assert closed.total_votes == 5


def test_more_votes_beat_an_earlier_submission_and_the_render_is_queued_on_gpu(settings, send_task):
    rnd = rounds.open_round()
    kite, whale = propose("a red kite"), propose("a blue whale")
    vote(rnd.pk, whale, 3)
    vote(rnd.pk, kite, 2)

    rounds.close_round(rnd)

    clip = Clip.objects.get(round=rnd)
    assert clip.prompt_id == whale
    assert clip.status == Clip.Status.QUEUED
    assert (clip.preset, clip.width, clip.height, clip.fps) == (
        settings.MODEL_PRESET,
        settings.VIDEO_WIDTH,
        settings.VIDEO_HEIGHT,
        settings.VIDEO_FPS,
    )
    assert send_task.call_args_list == [render_of(clip)]
    assert Round.objects.get(pk=rnd.pk).state == Round.State.CLOSED


def test_two_conductors_closing_one_round_close_it_exactly_once(send_task):
    rnd = rounds.open_round()
    kite = propose("a red kite")
    vote(rnd.pk, kite, 1)
    start = threading.Barrier(2)
    outcomes: list[Round | None] = []

    def conductor() -> None:
        mine = Round.objects.get(pk=rnd.pk)
        start.wait()
        try:
            outcomes.append(rounds.close_round(mine))
        finally:
            connection.close()

    threads = [threading.Thread(target=conductor) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(o is None for o in outcomes) == [False, True]
    assert send_task.call_args_list == [render_of(Clip.objects.get(round=rnd))]


def test_a_round_without_candidates_airs_the_least_recently_used_house_prompt():
    HousePrompt.objects.all().delete()
    used = HousePrompt.objects.create(text="a clock tower at dusk")
    HousePrompt.objects.filter(pk=used.pk).update(last_used_at="2026-01-01T00:00:00Z")
    fresh = HousePrompt.objects.create(text="a fishing boat in the fog")
    rnd = rounds.open_round()

    closed = rounds.close_round(rnd)

    assert closed.winner.text == fresh.text
    assert closed.winner.source == Prompt.Source.HOUSE
    assert Clip.objects.get(round=rnd).prompt == closed.winner
    assert HousePrompt.objects.get(pk=fresh.pk).last_used_at is not None


def test_a_winner_that_fails_the_gate_at_close_gives_way_to_the_runner_up():
    rnd = rounds.open_round()
    kite, whale = propose("a red kite"), propose("a blue whale")
    vote(rnd.pk, kite, 3)
    vote(rnd.pk, whale, 1)
    BlockedTerm.objects.create(term="kite")  # learned after the prompt was submitted

    closed = rounds.close_round(rnd)

    assert closed.winner_id == whale
    assert Prompt.objects.get(pk=kite).status == Prompt.Status.REJECTED


def test_house_prompts_pass_the_same_gate():
    HousePrompt.objects.all().delete()
    HousePrompt.objects.create(text="a kite festival on the beach")
    BlockedTerm.objects.create(term="kite")
    rnd = rounds.open_round()

    closed = rounds.close_round(rnd)

    assert closed.winner.text == winner.LAST_RESORT_PROMPT
    assert not Prompt.objects.filter(text__contains="kite").exists()


def test_the_data_migration_seeds_house_prompts_that_pass_the_gate():
    from django.apps import apps

    seed = importlib.import_module("yolive.voting.migrations.0002_house_prompts")
    HousePrompt.objects.all().delete()

    seed.add_defaults(apps, None)
    seed.add_defaults(apps, None)  # never twice

    texts = list(HousePrompt.objects.values_list("text", flat=True))
    assert sorted(texts) == sorted(seed.DEFAULTS)
    assert all(gate.judge(text).allowed for text in texts)


def test_an_approved_prompt_waiting_for_a_round_joins_the_next_one():
    waiting = Prompt.objects.create(text="a glass city", normalized_text="a glass city", status="approved")

    rnd = rounds.open_round()

    assert Prompt.objects.get(pk=waiting.pk).round_id == rnd.pk
    assert get_redis().hget(tally.RoundKeys(rnd.pk).texts, str(waiting.pk)) == "a glass city"


def test_a_render_lost_from_the_broker_is_sent_again_and_a_hopeless_one_given_up(send_task):
    rnd = rounds.open_round()
    propose("a red kite")
    rounds.close_round(rnd)
    clip = Clip.objects.get(round=rnd)
    send_task.reset_mock()  # sent once at close; then, say, a Redis restart lost it before a worker took it

    assert rounds.resend_lost_renders() == []  # too early: it may just be waiting its turn
    assert send_task.call_args_list == []

    waited = timezone.now() - timedelta(seconds=rounds.RENDER_RESEND_AFTER_S + 1)
    Clip.objects.filter(pk=clip.pk).update(created_at=waited)
    assert rounds.resend_lost_renders() == [clip.pk]
    assert send_task.call_args_list == [render_of(clip)]

    hopeless = timezone.now() - timedelta(seconds=rounds.RENDER_GIVE_UP_AFTER_S + 1)
    Clip.objects.filter(pk=clip.pk).update(created_at=hopeless)
    assert rounds.resend_lost_renders() == []
    clip.refresh_from_db()
    assert clip.status == Clip.Status.FAILED
    assert "not rendered within" in clip.error


def test_rounds_keep_the_airs_beat_however_long_a_close_takes():
    first = rounds.open_round(10)
    assert first is not None
    # Closed 0.4 s after its end (the gate and the database took that long): the next round still ends
    # exactly ten seconds after it, as the next clip airs ten seconds after the one before.
    Round.objects.filter(pk=first.pk).update(ends_at=timezone.now() - timedelta(seconds=0.4))
    first.refresh_from_db()
    rounds.close_round(first)
    second = rounds.open_round(10)
    assert second is not None
    assert second.ends_at - first.ends_at == timedelta(seconds=10)
