"""assess(text): every finding the rules make on every reading of a prompt, the worst per category."""

from __future__ import annotations

import re
from functools import lru_cache

from yolive.moderation.policy.harm import rules_hate, rules_minors, rules_sexual, rules_speech, rules_violence
from yolive.moderation.policy.harm.categories import Finding
from yolive.moderation.policy.harm.doc import Doc
from yolive.moderation.policy.harm.reading import read, vocabulary
from yolive.moderation.policy.text import normalize, reading_forms


def findings_of(doc: Doc) -> list[Finding]:
    acts = rules_violence.find(doc)
    sexual = rules_sexual.find(doc)
    self_harm = rules_speech.self_harm(doc)
    return [
        *rules_violence.findings(acts),
        *rules_sexual.sexual_violence(doc),
        *sexual,
        *self_harm,
        *rules_hate.find(doc, acts),
        *rules_speech.hostility(doc),
        *rules_speech.profanity(doc),
        *rules_minors.find(doc, sexual, acts, self_harm),
    ]


def worst_per_category(findings: list[Finding]) -> list[Finding]:
    worst: dict[str, Finding] = {}
    for finding in findings:
        kept = worst.get(finding.category)
        if kept is None or finding.severity > kept.severity:
            worst[finding.category] = finding
    return sorted(worst.values(), key=lambda f: (-f.severity, f.category))


def readings(text: str) -> list[tuple[str, ...]]:
    """The distinct token streams of a prompt's reading forms (what the rules see)."""
    return list(dict.fromkeys(read(form) for form in reading_forms(normalize(text))))


_WORDS = re.compile(r"[^\W\d_]+")


def names_in(text: str) -> frozenset[str]:
    """Words capitalised mid-sentence in mostly lower-case text: names ("shoot Biden"). In Title Case or
    capitals every word is capitalised, so none is taken for a name."""
    words = _WORDS.findall(text)
    capitalised = [w for w in words if w[0].isupper()]
    if not words or len(capitalised) * 2 > len(words):
        return frozenset()
    known = vocabulary()
    sentence_starts = {m.group(1) for m in re.finditer(r"(?:^|[.!?]\s+)([^\W\d_]+)", text)}
    return frozenset(w.lower() for w in capitalised if w not in sentence_starts and w.lower() not in known)


@lru_cache(maxsize=4096)
def assess(text: str) -> tuple[Finding, ...]:
    """The worst finding per category over every reading of the prompt (cached: the same winner is judged at
    submission and again at close). Pass the prompt as written: capitals say who is a name."""
    found: list[Finding] = []
    names = names_in(text)
    for tokens in readings(text):
        found += findings_of(Doc(tokens, names))
    return tuple(worst_per_category(found))
