"""The learned reader: it holds what the rules approve and it is confident is harmful, never refuses, names
the category and the words, leaves everyday prompts alone, and trains offline from the repository."""

import socket

import pytest
from django.test import override_settings

from yolive.moderation.policy import gate
from yolive.moderation.policy.evaluate import shipped_matcher
from yolive.moderation.policy.harm.categories import DEFAULT_LEVELS, LABELS, Category
from yolive.moderation.policy.learned import crossval, everyday, reader, training
from yolive.moderation.policy.text import normalize, reading_forms

# Worded unlike the corpus' prompts, the kind of self-harm said sideways that lexicons miss.
SIDEWAYS = "i want to open my wrists tonight"


@pytest.fixture(scope="module")
def model():
    return training.shipped()


def verdict(text, **levels):
    return gate.judge_text(text, shipped_matcher(), {**DEFAULT_LEVELS, **levels})


def forms(text):
    return reading_forms(normalize(text))


def test_it_holds_what_the_rules_approve_and_never_refuses(model):
    rules = gate.verdict_for(gate.read_text(SIDEWAYS, shipped_matcher(), learned=False), DEFAULT_LEVELS)
    assert rules.decision == "allow"
    held = verdict(SIDEWAYS)
    assert held.decision == "hold"
    assert [f.severity for f in held.findings] == [gate.LEARNED_SEVERITY]
    for level in range(5):
        assert verdict(SIDEWAYS, self_harm=level).decision != "reject"


def test_its_reason_names_a_category_and_words_of_the_prompt(model):
    held = verdict(SIDEWAYS)
    (finding,) = held.findings
    assert held.reason.startswith(f"{gate.HELD_FOR_REVIEW}: {LABELS[finding.category]}: {gate.LEARNED_WHY} (")
    assert finding.category == Category.SELF_HARM
    assert finding.words and all(word in SIDEWAYS.split() for word in finding.words)


def test_a_channel_that_lowers_the_category_lets_it_through(model):
    assert verdict(SIDEWAYS, self_harm=2).decision == "allow"


def shipped_hold_at():
    return reader.HoldAt(
        gate.settings.MODERATION_LEARNED_HOLD_AT, gate.settings.MODERATION_LEARNED_HOLD_MINORS_AT
    )


def test_everyday_prompts_of_the_world_vocabulary_are_not_held(model):
    import random

    # Another seed than the one it trained with, so these scenes are mostly new to it.
    scenes = everyday.world_prompts(200, random.Random(7))
    held = [text for text in scenes if model.read(forms(text), shipped_hold_at()) is not None]
    assert not held
    for text in ("a man", "a girl", "a woman", "a child", "a little boy", "un hombre", "一个女孩"):
        assert model.read(forms(text), shipped_hold_at()) is None, text


def test_what_it_reads_as_childrens_harm_is_held_from_the_lower_threshold(model):
    text = "a grown man asking a little girl to keep their bath a secret from her mother"
    reading = model.read(forms(text))
    assert reading.category == Category.MINORS
    other = min(reading.harm + 0.01, 1.0)
    with override_settings(MODERATION_LEARNED_HOLD_AT=other, MODERATION_LEARNED_HOLD_MINORS_AT=reading.harm):
        assert verdict(text).decision == "hold"
    with override_settings(MODERATION_LEARNED_HOLD_AT=other, MODERATION_LEARNED_HOLD_MINORS_AT=other):
        assert verdict(text).decision == "allow"


def test_it_trains_offline(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the learned reader reached for the network")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    small = training.train(training.corpus_examples()[::8])  # an eighth of the prompts: the same path
    assert small.classes[0] != small.classes[-1] and reader.BENIGN in small.classes


def test_a_process_trains_it_once_and_the_next_reads_the_one_it_kept(model, monkeypatch, tmp_path):
    trainings = []
    monkeypatch.setattr(training, "train", lambda examples: trainings.append(1) or model)
    monkeypatch.setenv("YOLIVE_CACHE_DIR", str(tmp_path))
    training.shipped.cache_clear()
    try:
        assert training.shipped() is model and trainings == [1]  # an empty cache folder: trained, and kept
        (kept,) = tmp_path.glob("learned-reader-*.npz")
        assert training.fingerprint() in kept.name
        training.shipped.cache_clear()
        loaded = training.shipped()  # another process's start: read from the folder, not trained
        assert trainings == [1] and loaded is not model and loaded.classes == model.classes
        for text in (SIDEWAYS, "a fox running in the snow", "un hombre cocinando"):
            assert loaded.harm(forms(text)) == pytest.approx(model.harm(forms(text)), abs=1e-4)
    finally:
        training.shipped.cache_clear()


def test_it_never_learns_from_the_test_split():
    assert {e.split for e in training.corpus_examples()} == {"train", "dev"}


def test_the_words_of_a_chinese_prompt_are_pairs_of_its_characters():
    assert reader.candidate_words("你去死吧") == ["你去", "去死", "死吧"]
    assert reader.candidate_words("a man") == ["a", "man"]


def test_the_threshold_holds_at_most_the_share_asked_of_the_scores():
    import numpy as np

    scores = np.linspace(0.0, 0.99, 100)
    threshold = crossval.threshold_for(scores, at_most=0.05)
    assert (scores >= threshold).sum() == 5


def test_a_lower_minors_threshold_is_chosen_only_where_it_holds_more_within_the_budget():
    import numpy as np

    # 100 benign prompts, one read as other harm at 0.98 and two as children's harm at 0.9 and 0.6; then
    # four harmful ones, two read as other harm (0.97, 0.99) and two as children's harm (0.7, 0.65).
    harm = np.array([*np.linspace(0.0, 0.5, 97), 0.98, 0.9, 0.6, 0.97, 0.99, 0.7, 0.65])
    minors = np.zeros(len(harm), dtype=bool)
    minors[[98, 99, 102, 103]] = True
    scores = crossval.Scores(harm, minors)
    benign = np.arange(len(harm)) < 100
    # One benign prompt may be held. One threshold for all (just above 0.9) holds the two other ones; a
    # minors threshold just above 0.6 spends it on the minors reading at 0.9 and holds both minors prompts,
    # at the cost of the other one at 0.97.
    weights = np.array([0.0] * 100 + [1, 1, crossval.MINORS_WEIGHT, crossval.MINORS_WEIGHT])
    hold_at = crossval.thresholds_for(scores, benign, weights)
    held = scores.held(hold_at)
    assert 0.6 < hold_at.minors <= 0.65 and hold_at.other > 0.98
    assert held[benign].sum() == 1 and held[100:].tolist() == [False, True, True, True]
    # Minors prompts worth less than the other prompt they cost: one threshold for all stays.
    hold_at = crossval.thresholds_for(scores, benign, np.array([0.0] * 100 + [1, 1, 0.1, 0.1]))
    assert hold_at.minors == hold_at.other and scores.held(hold_at)[100:].tolist() == [
        True,
        True,
        False,
        False,
    ]


def test_the_first_score_misses_are_prompts_of_their_lists():
    examples = training.corpus_examples()
    for miss in crossval.first_score_misses():
        source = f"scored_once_{miss.list_name}.tsv"
        assert any(e.text == miss.text and e.source == source and e.harmful for e in examples), miss


def test_harm_learned_in_english_is_read_in_the_other_judged_languages_through_the_meaning():
    """Readers trained on English prompts only: with the sentence embedding they hold more of the harmful
    prompts of the other seven languages, at the same share of their benign prompts held."""
    import numpy as np

    examples = training.corpus_examples()
    english = [e for e in examples if e.language == "en" and e.disguise == "plain"][::2]
    others = [e for e in examples if e.language != "en" and e.disguise == "plain"]
    known = crossval.embeddings_of([e.text for e in english + others] + training.everyday().texts)
    held = {}
    for scale in (0.0, reader.EMBEDDING_SCALE):
        model = training.train(english, scale, known)
        scores = crossval.scored(model, [e.text for e in others])
        benign = np.array([not e.harmful for e in others])
        at = crossval.threshold_for(scores.harm[benign], at_most=0.05)
        held[scale] = float((scores.harm[~benign] >= at).mean())
    assert held[reader.EMBEDDING_SCALE] > held[0.0] + 0.3, held  # 0.83 against 0.28 when written


def test_a_word_taken_out_leaves_the_rest_of_the_prompt():
    assert reader.without("a man hits a dog", "a") == "man hits a dog"
    assert reader.without("a man hits a dog", "hits") == "a man a dog"
    assert reader.without("你去死吧", "去死") == "你吧"


def test_two_threads_asking_at_once_train_it_once(model, monkeypatch, tmp_path):
    import threading
    import time

    trainings = []

    def slow_train(examples):
        trainings.append(1)
        time.sleep(0.5)  # long enough for the other thread to ask meanwhile
        return model

    monkeypatch.setattr(training, "train", slow_train)
    monkeypatch.setenv("YOLIVE_CACHE_DIR", str(tmp_path))
    training.shipped.cache_clear()
    try:
        threads = [threading.Thread(target=training.shipped) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert trainings == [1]  # the second read the one the first kept
    finally:
        training.shipped.cache_clear()
