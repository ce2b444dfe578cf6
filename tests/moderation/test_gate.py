"""The moderation gate against real words: the classifier model from its wheel, blocked terms in the DB."""

import pytest

from yolive.moderation import gate
from yolive.moderation.models import BlockedTerm
from yolive.moderation.terms import forget_cached_terms

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_terms():
    forget_cached_terms()
    yield
    forget_cached_terms()


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
    ],
)
def test_it_rejects_profanity_however_it_is_disguised(text):
    verdict = gate.judge(text)
    assert verdict.decision == "reject", verdict
    assert verdict.reason


def test_it_rejects_a_blocked_term_and_names_it():
    verdict = gate.judge("a p0rn parody")
    assert verdict.decision == "reject"
    assert '"porn"' in verdict.reason


def test_a_hold_term_waits_for_a_moderator():
    verdict = gate.judge("a nude statue in a museum")
    assert verdict.decision == "hold"
    assert "nude" in verdict.reason


def test_blocked_terms_match_whole_words_only():
    BlockedTerm.objects.create(term="ass", action="reject")
    forget_cached_terms()
    assert gate.judge("a classic bass passage").decision == "allow"
    assert gate.judge("a donkey, also called an ass").decision == "reject"
    assert gate.judge("an a$$ in a field").decision == "reject"


def test_a_term_added_in_the_admin_applies_to_the_next_winner_check_at_once():
    from yolive.voting.models import Prompt

    prompt = Prompt.objects.create(text="a purple gizmo", normalized_text="a purple gizmo", status="approved")
    assert gate.judge_winner(prompt).allowed
    BlockedTerm.objects.create(term="Gizmo", action="reject")  # stored normalized
    assert gate.judge_winner(prompt).decision == "reject"


def test_multiword_terms_match_across_any_spacing():
    BlockedTerm.objects.create(term="red  dragon", action="hold")
    forget_cached_terms()
    assert gate.judge("a RED\u00a0DRAGON flies").decision == "hold"
    assert gate.judge("a red kite and a dragon").decision == "allow"


def test_an_empty_prompt_is_rejected():
    assert gate.judge(" \u200b\n ").decision == "reject"


def test_normalize_keeps_the_text_but_drops_invisible_and_control_characters():
    assert gate.normalize("  \uff28\uff45\uff4c\uff4c\uff4f\u200b\x07  World\n") == "hello world"
