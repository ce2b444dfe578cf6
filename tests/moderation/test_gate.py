"""The moderation gate against real words: the lexicon, the classifier from its wheel, terms in the DB."""

import pytest

from yolive.moderation.models import BlockedTerm, CategoryLevel
from yolive.moderation.policy import gate, text
from yolive.moderation.policy.harm import Category
from yolive.moderation.policy.levels import forget_cached_levels
from yolive.moderation.policy.terms import forget_cached_terms
from yolive.voting.models import Prompt

pytestmark = pytest.mark.django_db


def at_close(prompt: Prompt) -> gate.Verdict:
    """The gate's re-check of a winner, given what the conductor passes it of the prompt."""
    return gate.judge_winner(
        prompt.text, prompt_id=prompt.pk, author_id=prompt.author_id, house=prompt.source == "house"
    )


@pytest.fixture(autouse=True)
def fresh_terms():
    forget_cached_terms()
    forget_cached_levels()
    yield
    forget_cached_terms()
    forget_cached_levels()


# The examples the issue was filed with, as a new viewer would type them.
@pytest.mark.parametrize(
    ("text", "decision", "category"),
    [
        ("a man shoots a child", "reject", Category.MINORS),
        ("a terrorist bombing a school", "reject", Category.MINORS),
        ("kys", "reject", Category.HOSTILITY),
        ("a white owl", "allow", None),
        ("shoot a basketball", "allow", None),
        ("kill the lights", "allow", None),
        ("a naked mole rat", "allow", None),
    ],
)
def test_the_issues_examples_are_judged_by_harm_not_by_swearing(text, decision, category):
    verdict = gate.judge(text)
    assert verdict.decision == decision, verdict
    if category is not None:
        assert category in {f.category for f in verdict.findings}


def test_sexy_girl_in_bikini_is_at_least_held_and_the_reason_names_category_and_words():
    verdict = gate.judge("sexy girl in bikini")
    assert verdict.decision in ("hold", "reject")
    assert "sexual content" in verdict.reason
    assert '"sexy"' in verdict.reason and '"bikini"' in verdict.reason


@pytest.mark.parametrize(
    "text",
    [
        "a cat surfing a wave at sunset",
        "the lighthouse keeper finds a glowing map",
        "a classic assessment in Scunthorpe",  # bad substrings inside innocent words
        "a cocktail party at the Essex passage",
        "1984 was 24/7 surveillance",
    ],
)
def test_it_allows_ordinary_prompts(text):
    assert gate.judge(text).decision == "allow"


@pytest.mark.parametrize(
    "text",
    [
        "fuck you all",
        "F.U.C.K the moderators",  # spaced out
        "fu\u0441k this",  # Cyrillic es
        "\uff46\uff55\uff43\uff4b everything",  # fullwidth
        "f\u200bu\u200bc\u200bk off",  # zero-width spaces
        "sh1t happens on th3 moon",  # leetspeak
        "fuuuuuck yes",  # stretched
        "f*ck this",  # a star for a letter
    ],
)
def test_it_refuses_profanity_however_it_is_disguised(text):
    verdict = gate.judge(text)
    assert verdict.decision == "reject", verdict
    assert "profanity" in verdict.reason


def test_minors_with_sexual_content_are_refused_even_with_every_category_off():
    CategoryLevel.objects.bulk_create([CategoryLevel(category=c.value, level=0) for c in Category])
    forget_cached_levels()
    assert gate.judge("n4ked l1ttle g1rl").decision == "reject"
    assert gate.judge("a man stabbing a woman").decision == "allow"  # the channel turned violence off


def test_a_level_set_by_the_channel_changes_what_is_held():
    verdict = gate.judge("a guy punching a man in the face")
    assert verdict.decision == "hold" and "violence" in verdict.reason
    CategoryLevel.objects.create(category="violence", level=1)
    forget_cached_levels()
    assert gate.judge("a guy punching a man in the face").decision == "allow"
    CategoryLevel.objects.filter(category="violence").update(level=4)
    forget_cached_levels()
    assert gate.judge("a sword on a wall").decision == "hold"  # a weapon alone, held only at the strictest


def test_the_classifier_alone_holds_only_at_the_strictest_profanity_level():
    assert gate.judge("dick grayson as nightwing").decision == "allow"  # the classifier scores it 1.0
    CategoryLevel.objects.create(category="profanity", level=4)
    forget_cached_levels()
    verdict = gate.judge("dick grayson as nightwing")
    assert verdict.decision == "hold" and "classifier" in verdict.reason


def test_it_rejects_a_blocked_term_and_names_it():
    verdict = gate.judge("a p0rn parody")
    assert verdict.decision == "reject"
    assert '"porn"' in verdict.reason


def test_a_hold_term_waits_for_a_moderator():
    BlockedTerm.objects.create(term="zeppelin", action="hold")
    forget_cached_terms()
    verdict = gate.judge("a zeppelin over paris")
    assert verdict.decision == "hold"
    assert "zeppelin" in verdict.reason


def test_the_starting_hold_terms_the_categories_judge_in_context_are_off():
    active = set(BlockedTerm.objects.filter(active=True).values_list("term", flat=True))
    assert {"naked", "nude", "suicide", "hitler"}.isdisjoint(active)
    assert {"porn", "child porn", "swastika"} <= active


def test_blocked_terms_match_whole_words_only():
    BlockedTerm.objects.create(term="ass", action="reject")
    forget_cached_terms()
    assert gate.judge("a classic bass passage").decision == "allow"
    assert gate.judge("a donkey, also called an ass").decision == "reject"
    assert gate.judge("an a$$ in a field").decision == "reject"


def test_a_term_added_in_the_admin_applies_to_the_next_winner_check_at_once():
    prompt = Prompt.objects.create(text="a purple gizmo", normalized_text="a purple gizmo", status="approved")
    assert at_close(prompt).allowed
    BlockedTerm.objects.create(term="Gizmo", action="reject")  # stored normalized
    assert at_close(prompt).decision == "reject"


def test_a_level_raised_meanwhile_applies_to_the_winner_check_at_once():
    text = "a knight with a sword"
    prompt = Prompt.objects.create(text=text, normalized_text=text, status="approved")
    gate.judge("warm the cache")
    assert at_close(prompt).allowed
    CategoryLevel.objects.create(category="violence", level=4)
    assert at_close(prompt).decision == "hold"


def test_multiword_terms_match_across_any_spacing():
    BlockedTerm.objects.create(term="red  dragon", action="hold")
    forget_cached_terms()
    assert gate.judge("a RED\u00a0DRAGON flies").decision == "hold"
    assert gate.judge("a red kite and a dragon").decision == "allow"


def test_an_empty_prompt_is_rejected():
    assert gate.judge(" \u200b\n ").decision == "reject"


def test_normalize_keeps_the_text_but_drops_invisible_and_control_characters():
    assert gate.normalize("  \uff28\uff45\uff4c\uff4c\uff4f\u200b\x07  World\n") == "hello world"


def test_the_shown_form_keeps_the_viewers_words_and_drops_what_cannot_be_seen():
    assert text.shown("  A Red\u00a0Fox\u200b at\n\x07dawn ") == "A Red Fox at dawn"
    assert text.shown("Caf\u0065\u0301") == "Caf\u00e9"  # composed, so it is shown and counted as one letter


def test_an_invisible_character_inside_a_word_does_not_split_it_for_the_gate():
    disguised = text.shown("k\u200bill all j\u200bews")
    assert disguised == "kill all jews"
    assert gate.judge(disguised).decision == gate.judge("kill all jews").decision == "reject"
