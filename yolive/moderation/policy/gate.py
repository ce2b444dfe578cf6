"""The moderation gate: one judgement for submissions, house prompts and winners at close.

Every path that can put words on air goes through here, fallbacks included (a fallback that skipped the
safety check is how "Nothing, Forever" got banned). A prompt is judged per category of harm (harm/), each
at the level the channel set, together with the admin's blocked terms and the offline profanity classifier;
for winners also with what moderators decided since: a rejection, a ban of the author, lockdown.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Literal

from django.conf import settings

from yolive.moderation.models import PromptReview
from yolive.moderation.policy import bans, classifier, lockdown, vocabulary
from yolive.moderation.policy.classifier import profanity_score
from yolive.moderation.policy.harm import Category, Finding, assess, concepts, decide
from yolive.moderation.policy.language import JUDGED, Language, identify
from yolive.moderation.policy.learned.reader import HoldAt
from yolive.moderation.policy.learned.training import shipped as learned_reader
from yolive.moderation.policy.levels import current_levels
from yolive.moderation.policy.terms import TermHit, TermMatcher, current_matcher
from yolive.moderation.policy.text import language_form, normalize, reading_forms

__all__ = ["Decision", "Verdict", "judge", "judge_winner", "normalize"]

Decision = Literal["allow", "hold", "reject"]

HELD_FOR_REVIEW = "held for a moderator to review"
REFUSED = "refused"
LOCKDOWN_REASON = "lockdown: only moderator-approved or house prompts can win"
# The classifier scores swearing, and misfires on harmless words ("a naked mole rat" scores 0.97), so alone it
# is a borderline profanity finding (held only at level 4); with the lexicon's own profanity it adds nothing.
CLASSIFIER_SEVERITY = 1
# What the gate cannot read it cannot call harmless: held at the default level, like suggestive content.
UNREAD_SEVERITY = 2
# The learned reader's finding: held at the default level (and at 4), never refused (refusing from 3 up is
# the rules' job, which show why), let through where the channel lowered that category to 2 or less.
LEARNED_SEVERITY = 2
LEARNED_WHY = "a learned reading"


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    reason: str = ""
    normalized: str = ""
    findings: tuple[Finding, ...] = field(default=(), compare=False)  # what held or refused it

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"


def classifier_finding(forms: list[str]) -> Finding | None:
    score = profanity_score(forms)
    if score < settings.MODERATION_HOLD_AT:
        return None
    return Finding(
        Category.PROFANITY, CLASSIFIER_SEVERITY, (), f"the profanity classifier scores it {score:.2f}"
    )


def learned_finding(forms: list[str], found: list[Finding]) -> Finding | None:
    """The learned reader's hold, where it is confident and no rule has already found its category."""
    if settings.MODERATION_LEARNED_HOLD_AT > 1.0:
        return None
    hold_at = HoldAt(settings.MODERATION_LEARNED_HOLD_AT, settings.MODERATION_LEARNED_HOLD_MINORS_AT)
    already = {f.category.value for f in found if f.severity >= LEARNED_SEVERITY}
    reading = learned_reader().read(forms, hold_at, already)
    if reading is None:
        return None
    return Finding(Category(reading.category), LEARNED_SEVERITY, reading.words, LEARNED_WHY)


def language_finding(language: Language) -> Finding | None:
    if language.judged:
        return None
    return Finding(Category.LANGUAGE, UNREAD_SEVERITY, language.words, language.why)


def describe(decision: Decision, findings: tuple[Finding, ...]) -> str:
    """The reason a viewer and a moderator read: the category, the pattern, the words."""
    parts = "; ".join(f"{f.category.label}: {f.describe()}" for f in findings)
    prefix = REFUSED if decision == "reject" else HELD_FOR_REVIEW
    return f"{prefix}: {parts}"[:500]


@dataclass(frozen=True)
class Reading:
    """What the gate found in a text, before any level is applied (the expensive part, done once)."""

    normalized: str
    term: TermHit | None
    findings: tuple[Finding, ...]


def read_text(text: str, matcher: TermMatcher, classifier: bool = True, learned: bool = True) -> Reading:
    normalized = normalize(text)
    if not normalized:
        return Reading(normalized, None, ())
    forms = reading_forms(normalized)
    language = identify(language_form(normalized))
    findings = list(assess(text, language.candidates))
    unread = language_finding(language)
    if unread is not None:
        findings.append(unread)
    scored = classifier_finding(forms) if classifier else None
    if scored is not None and not any(f.category == Category.PROFANITY for f in findings):
        findings.append(scored)
    held = learned_finding(forms, findings) if learned else None
    if held is not None:
        findings.append(held)
    return Reading(normalized, matcher.find(forms), tuple(findings))


def verdict_for(reading: Reading, levels: dict[Category, int]) -> Verdict:
    """The decision at the channel's levels: blocked reject terms, then the categories, then hold terms."""
    normalized, hit = reading.normalized, reading.term
    if not normalized:
        return Verdict("reject", "the prompt is empty", normalized)
    if hit and hit.action == "reject":
        return Verdict("reject", f'{REFUSED}: contains a blocked term ("{hit.term}")', normalized)
    outcome = decide(list(reading.findings), levels)
    if outcome.decision == "allow" and hit:
        return _held_by_term(hit, normalized)
    if outcome.decision == "allow":
        return Verdict("allow", "", normalized)
    return Verdict(
        outcome.decision, describe(outcome.decision, outcome.deciding), normalized, outcome.deciding
    )


def judge_text(text: str, matcher: TermMatcher, levels: dict[Category, int]) -> Verdict:
    """The whole judgement of one text, given the channel's terms and levels (no database here)."""
    return verdict_for(read_text(text, matcher), levels)


def _held_by_term(hit: TermHit, normalized: str) -> Verdict:
    return Verdict("hold", f'{HELD_FOR_REVIEW}: contains the hold term "{hit.term}"', normalized)


def judge(text: str) -> Verdict:
    """Judge a submission or a house prompt."""
    return judge_text(text, current_matcher(), current_levels())


def judge_winner(text: str, *, prompt_id: int | None, author_id: int | None, house: bool) -> Verdict:
    """Re-check a round's winner at close, with everything learned since it was submitted.

    `prompt_id` finds a moderator's review of it (None for a house prompt not yet saved), `author_id` a
    restriction of its author. A held verdict here means "do not air it": the caller treats anything but
    allow as a loss and falls back (to the runner-up or a house prompt, which passes through this same check).
    """
    review = PromptReview.objects.filter(prompt_id=prompt_id).first() if prompt_id is not None else None
    if review and review.decision == PromptReview.Decision.REJECTED:
        return Verdict("reject", review.reason or "rejected by a moderator", normalize(text))
    if author_id is not None and bans.active_restriction(author_id) is not None:
        return Verdict("reject", "its author is restricted", normalize(text))
    verdict = judge_text(text, current_matcher(fresh=True), current_levels(fresh=True))
    approved = review is not None and review.decision == PromptReview.Decision.APPROVED
    if verdict.decision == "hold" and approved:
        # A moderator has read it; blocked terms added later and refusals still stop it above.
        verdict = Verdict("allow", "", verdict.normalized)
    if verdict.allowed and lockdown.is_on() and not approved and not house:
        return Verdict("hold", LOCKDOWN_REASON, verdict.normalized)
    return verdict


_warming = threading.Event()


def warm_up_in_background() -> None:
    """`warm_up` in a thread of its own, once per process: a web process starts it when it starts serving,
    so the first prompt is not judged while the models load (a few seconds, more on a busy machine)."""
    if not _warming.is_set():
        _warming.set()
        threading.Thread(target=warm_up, name="gate-warm-up", daemon=True).start()


def warm_up() -> None:
    """Load what the gate reads with (a few seconds: the profanity model, langid's model, the word lists, the
    concept lexicons, the learned reader trained from the corpus), so that the first prompt is judged as fast
    as the rest."""
    classifier.warm_up()
    vocabulary.warm_up()
    learned_reader()
    for language in JUDGED:
        concepts.lexicon(language)
    read_text("a warm up for the gate's language reader", TermMatcher(()))


def explain(text: str) -> list[dict[str, object]]:
    """For the panel: what would hold or refuse this text now, per category, with its words."""
    verdict = judge(text)
    return [
        {"category": f.category.value, "label": f.category.label, "severity": f.severity,
         "why": f.why, "words": list(f.words)}
        for f in verdict.findings
    ]  # fmt: skip
