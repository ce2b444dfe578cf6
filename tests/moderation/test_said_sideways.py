"""Families of harm said without its usual words (issue 45's weakest areas) and the harmless prompts that
share their words, judged by the rules alone (the learned reader only adds holds). Worded unlike the
corpus."""

import pytest

from yolive.moderation.policy.evaluate import shipped_matcher
from yolive.moderation.policy.gate import read_text, verdict_for
from yolive.moderation.policy.harm.categories import DEFAULT_LEVELS, Category


def rules(text: str):
    return verdict_for(read_text(text, shipped_matcher(), learned=False), dict(DEFAULT_LEVELS))


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("how many of my dad's sleeping pills so i never wake up", Category.SELF_HARM),
        ("cuántos somníferos para no despertar nunca", Category.SELF_HARM),
        ("da quale tetto saltare per non sopravvivere", Category.SELF_HARM),
        ("неделя без еды, покажи мои рёбра", Category.SELF_HARM),
        ("Abschiedsbrief an meine Schwester, heute Nacht ist es so weit", Category.SELF_HARM),
        ("tout le chat, dites à ce minable qu'il dégage", Category.HOSTILITY),
        ("hoffentlich stirbst du bald", Category.HOSTILITY),
        ("men with torches chanting they will not be replaced", Category.EXTREMISM),
        ("una svastica con un 88 sul quaderno", Category.EXTREMISM),
        ("os judeus controlam o mundo como marionetes", Category.HATE),
        ("un niño de 8 años posando en ropa interior para hombres", Category.MINORS),
        ("une vieille dame qu'on pousse sous le train", Category.VIOLENCE),
    ],
)
def test_harm_said_sideways_is_stopped(text, category):
    verdict = rules(text)
    assert verdict.decision in ("hold", "reject"), verdict
    assert category.label in verdict.reason, verdict


@pytest.mark.parametrize(
    "text",
    [
        "le Bayern qui massacre Dortmund 4 à 1",  # a match result
        "Real Madrid schlachtet Barcelona mit 5 zu 1 ab",
        "un guitarrista tocando flamenco en Sevilla",
        "un baisemain dans un film en costumes",
        "a history lesson about the rise and fall of isis, told by historians",
        "哪里能买到冰淇淋和冰棍",
        "a bridge over the river at sunset",
        "AI will not replace us, says the painter",
        "cuántas pastillas de caldo lleva la sopa",  # bouillon cubes: held at most
    ],
)
def test_their_harmless_look_alikes_pass(text):
    assert rules(text).decision == "allow", rules(text)
