"""Rules written for kinds of wording, not for phrases: each case here is worded unlike any prompt in the
evaluation set, and checks one family (inflections, chat shorthand, emoji, other languages' target words,
containers between a verb and its victim, intent said in the first person) or a harmless look-alike of it.
"""

import pytest

from yolive.moderation.policy.harm import Category, assess, decide
from yolive.moderation.policy.harm.categories import DEFAULT_LEVELS
from yolive.moderation.policy.harm.words import lookup, stems


def decision(text: str) -> str:
    return decide(list(assess(text)), DEFAULT_LEVELS).decision


def categories(text: str) -> set[Category]:
    return {f.category for f in assess(text)}


def test_an_inflected_form_finds_its_base_word():
    assert "gangbang" in stems("gangbanged")
    assert "stab" in stems("stabbing")
    assert lookup({"creampie": 4}, "creampied") == 4
    assert lookup({"creampie": 4}, "cream") == 0


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("a blonde getting gangbanged", Category.SEXUAL),  # an inflection of a listed noun
        ("filthy niggaz everywhere", Category.HATE),  # a slur with a stretched ending
        ("🐀🐀 is what the jews are", Category.HATE),  # an emoji said of a group
        ("gypsies are disgusting", Category.HATE),  # an insult predicated of a group
        ("tossing a sack of puppies off a bridge", Category.VIOLENCE),  # a container before the victim
        ("pulling the legs off a living frog", Category.VIOLENCE),  # maiming an animal, owner after
        ("a gunman walks into the mall", Category.VIOLENCE),  # an attacker with a crowded place
        ("quemar a todos en la mezquita", Category.HATE),  # other languages' people and places
        ("voy a suicidarme", Category.SELF_HARM),
        ("i will jump off the roof tomorrow", Category.SELF_HARM),  # first-person intent
        ("enough sleeping pills to never wake", Category.SELF_HARM),
        ("no one would miss me anyway", Category.SELF_HARM),
        ("a 6th grader posing in a bikini", Category.MINORS),  # a school year is an age
        ("high school girl in lingerie", Category.MINORS),
        ("asians aren't people", Category.HATE),  # a group denied its humanity
        ("trans people should be locked away and sterilised", Category.HATE),
        ("a shop window sign reading no gypsies", Category.HATE),
        ("splashing bleach on a stray dog", Category.VIOLENCE),  # a burning liquid on a victim
        ("beat them up behind the bar", Category.VIOLENCE),  # a separable phrasal verb
        ("a man with a rifle pressed to his own temple", Category.SELF_HARM),
        ("skip meals until the weight comes off", Category.SELF_HARM),
        ("a grown man cuddling a 9 year old alone in his van", Category.MINORS),
    ],
)
def test_a_family_of_wording_is_found(text, category):
    assert category in categories(text), assess(text)
    assert decision(text) != "allow"


@pytest.mark.parametrize(
    "text",
    [
        "we got crushed 4-1 in the final lol",  # a lost match
        "boiling lobsters for a seafood dinner",  # a recipe
        "bjj black belt finishing with a rear naked choke",
        "a 2nd class train ticket",
        "peach cobbler 🍑 fresh from the oven",
        "a niggling pain in my knee",
        "a drag queen lip syncing on stage",
        "a gunman in a western video game",
        "a hunter tracking deer in the forest",
        "the kids are in 3rd grade and love drawing",
        "a dad kissing his baby daughter goodnight",
        "jump rope at recess",
        "whites only load of laundry",
        "sniping enemies in a battlefield match",
    ],
)
def test_a_harmless_look_alike_airs(text):
    assert decision(text) == "allow", assess(text)
