"""The moderation gate: one judgement for submissions, house prompts and winners at close.

Every path that can put words on air goes through here, fallbacks included (a fallback that skipped the
safety check is how "Nothing, Forever" got banned). Order: blocked terms from the admin, then the offline
classifier with two thresholds (hold for a moderator / reject), and for winners also what moderators
decided since: a rejection, a ban of the author, lockdown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from django.conf import settings

from yolive.moderation.classifier import profanity_score
from yolive.moderation.terms import current_matcher
from yolive.moderation.text import normalize, reading_forms

if TYPE_CHECKING:
    from yolive.voting.models import Prompt

__all__ = ["Decision", "Verdict", "judge", "judge_winner", "normalize"]

Decision = Literal["allow", "hold", "reject"]

HELD_FOR_REVIEW = "held for a moderator to review"
LOCKDOWN_REASON = "lockdown: only moderator-approved or house prompts can win"


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    reason: str = ""
    normalized: str = ""

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"


def _judge_text(text: str, fresh_terms: bool) -> Verdict:
    normalized = normalize(text)
    if not normalized:
        return Verdict("reject", "the prompt is empty", normalized)
    forms = reading_forms(normalized)
    hit = current_matcher(fresh=fresh_terms).find(forms)
    if hit and hit.action == "reject":
        return Verdict("reject", f'contains a blocked term ("{hit.term}")', normalized)
    score = profanity_score(forms)
    if score >= settings.MODERATION_REJECT_AT:
        return Verdict("reject", "reads as profanity or abuse", normalized)
    if hit:
        return Verdict("hold", f'{HELD_FOR_REVIEW}: contains "{hit.term}"', normalized)
    if score >= settings.MODERATION_HOLD_AT:
        return Verdict("hold", f"{HELD_FOR_REVIEW}: may be offensive", normalized)
    return Verdict("allow", "", normalized)


def judge(text: str) -> Verdict:
    """Judge a submission or a house prompt."""
    return _judge_text(text, fresh_terms=False)


def judge_winner(prompt: Prompt) -> Verdict:
    """Re-check a round's winner at close, with everything learned since it was submitted.

    A held verdict here means "do not air it": the caller treats anything but allow as a loss and falls
    back (to the runner-up or a house prompt, which passes through this same check).
    """
    from yolive.moderation import bans, lockdown
    from yolive.moderation.models import PromptReview

    review = PromptReview.objects.filter(prompt_id=prompt.pk).first()
    if review and review.decision == PromptReview.Decision.REJECTED:
        return Verdict("reject", review.reason or "rejected by a moderator", normalize(prompt.text))
    if prompt.author_id is not None and bans.active_restriction_id(prompt.author_id) is not None:
        return Verdict("reject", "its author is restricted", normalize(prompt.text))
    verdict = _judge_text(prompt.text, fresh_terms=True)
    approved = review is not None and review.decision == PromptReview.Decision.APPROVED
    if verdict.decision == "hold" and approved:
        # A moderator has read it; blocked terms added later still reject it above.
        verdict = Verdict("allow", "", verdict.normalized)
    if verdict.allowed and lockdown.is_on() and not approved and prompt.source != "house":
        return Verdict("hold", LOCKDOWN_REASON, verdict.normalized)
    return verdict
