"""The categories of harm on prompts a viewer may write: intent, combinations, disguises, look-alikes.

These are not in the evaluation set; they check the rules as rules (a victim makes violence, a thing not).
"""

import pytest

from yolive.moderation.policy.harm import Category, Finding, assess, decide
from yolive.moderation.policy.harm.categories import DEFAULT_LEVELS, HARD_FLOOR, check_level


def categories(text: str) -> dict[Category, int]:
    return {f.category: f.severity for f in assess(text)}


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("a pirate stabs the captain", Category.VIOLENCE),
        ("the farmer was strangled by his neighbour", Category.VIOLENCE),
        ("a guy kicking a kitten down the stairs", Category.VIOLENCE),
        ("someone drowning puppies in a river", Category.VIOLENCE),
        ("burn the synagogue down with them inside", Category.HATE),
        ("exterminate the muslims", Category.HATE),
        ("a porn actress on a bed", Category.SEXUAL),
        ("a woman taking off her bra", Category.SEXUAL),
        ("slitting his wrists in the shower", Category.SELF_HARM),
        ("kill urself lmao", Category.HOSTILITY),
        ("a toddler with a knife wound", Category.MINORS),
    ],
)
def test_harm_is_found_in_its_category(text, category):
    assert category in categories(text), assess(text)


@pytest.mark.parametrize(
    "text",
    [
        "shoot a few hoops after school",
        "a photographer shooting a bride and groom",
        "a chef beating the batter",
        "a heron catching a frog",
        "a jewish grandmother baking challah",
        "a dog licking a baby's face",
        "killing time at the airport",
        "a naked mole rat colony",
        "the great tit and the coal tit",
        "a boy hanging from the monkey bars",
    ],
)
def test_look_alikes_are_not_harm(text):
    assert decide(list(assess(text)), DEFAULT_LEVELS).decision == "allow", assess(text)


@pytest.mark.parametrize(
    "text",
    [
        "k!ll the d0g",
        "k i l l the dog",
        "k\u0456ll th\u0435 d\u043eg",
        "matar al perro",
        "uccidere un cane",
        "k*ll the dog",
    ],
)
def test_disguises_read_as_the_plain_prompt(text):
    assert categories(text).get(Category.VIOLENCE, 0) >= 3


def test_a_victim_makes_a_violent_verb_violence():
    assert Category.VIOLENCE in categories("shoot the neighbour")
    assert Category.VIOLENCE not in categories("shoot the breeze with the neighbour")
    assert Category.VIOLENCE not in categories("shoot a basketball")


def test_a_predator_and_its_prey_are_a_nature_film_not_cruelty():
    assert categories("a wolf kills a deer").get(Category.VIOLENCE, 0) <= 1
    assert categories("a man kills a deer").get(Category.VIOLENCE, 0) >= 3


def test_minors_with_sexual_or_violent_content_reach_the_hard_floor():
    assert categories("a sexy little boy")[Category.MINORS] == HARD_FLOOR
    assert categories("a kid being punched")[Category.MINORS] == HARD_FLOOR
    assert Category.MINORS not in categories("a kid punching a ball")


def test_a_level_decides_hold_or_refuse_and_zero_turns_a_category_off():
    sexy = [Finding(Category.SEXUAL, 2, ("sexy",))]
    assert decide(sexy, {Category.SEXUAL: 4}).decision == "hold"
    assert decide(sexy, {Category.SEXUAL: 3}).decision == "hold"
    assert decide(sexy, {Category.SEXUAL: 2}).decision == "allow"
    nude = [Finding(Category.SEXUAL, 3, ("nude",))]
    assert decide(nude, {Category.SEXUAL: 3}).decision == "reject"
    assert decide(nude, {Category.SEXUAL: 2}).decision == "hold"
    assert decide(nude, {Category.SEXUAL: 0}).decision == "allow"
    floor = [Finding(Category.MINORS, HARD_FLOOR, ("child",))]
    assert decide(floor, {Category.MINORS: 0}).decision == "reject"


def test_the_worst_finding_decides_and_is_named_first():
    outcome = decide(
        [Finding(Category.PROFANITY, 2, ("piss",)), Finding(Category.VIOLENCE, 4, ("behead", "man"))],
        DEFAULT_LEVELS,
    )
    assert outcome.decision == "reject"
    assert [f.category for f in outcome.deciding] == [Category.VIOLENCE]


@pytest.mark.parametrize("bad", ["5", "-1", "three", "", "2.5"])
def test_a_level_outside_zero_to_four_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="0 to 4"):
        check_level(bad)
