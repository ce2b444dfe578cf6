"""assess(text): every finding the rules make on every reading of a prompt, the worst per category."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from yolive.moderation.policy.harm import (
    concepts,
    personal_data,
    rules_concepts,
    rules_hate,
    rules_minors,
    rules_sexual,
    rules_speech,
    rules_violence,
)
from yolive.moderation.policy.harm.categories import Category, Finding
from yolive.moderation.policy.harm.doc import Doc
from yolive.moderation.policy.harm.reading import SCORE, emoji_as_words, read, vocabulary
from yolive.moderation.policy.text import latin_cased, normalize, reading_forms


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
# A capitalised word after "in", "at", "near", "from" (or the same words of other languages: "di", "de",
# "von", "nach"), before a word for a place or before a comma and a region, is a place's name in a lower-case
# prompt ("a pub in Kill", "Slaughter Beach", "Fucking, Austria", "il paese di Troia"): its letters say
# nothing of harm. After "to" only where a journey leads there ("a road trip to Kill"): "want to Kill" is no
# place.
_PLACE_NOUNS = (
    "Beach|Bay|Bottom|Street|Road|River|Lake|Island|Islands|County|Village|Castle|Hill|Farm|Park|Valley|"
    "Falls|Point|Springs|Creek|Harbour|Harbor|Bridge|End|Green|Common|Heath|Wood|Forest|Mount|Cove|Station|"
    "Town|City|Sign|Signs"
)
_JOURNEY = (
    "trip|trips|road|way|train|trains|bus|buses|coach|flight|flights|ferry|drive|drove|driving|ride|riding|"
    "welcome|welcomes|going|goes|went|go|moved|moving|move|travel|travelled|traveled|travelling|traveling|"
    "journey|route|directions|signpost|sign|signs|ticket|tickets|visit|visitors|headed|heading|return|"
    "returning|back|walk|walked|walking|hike|hiking|cycled|cycling|sailed|sailing|flew|flying|postcard"
)
_PLACE = re.compile(
    r"(?:(?<=\bin )|(?<=\bat )|(?<=\bnear )|(?<=\bfrom )|(?<=\bdi )|(?<=\bde )|(?<=\bda )|(?<=\bdu )"
    r"|(?<=\bvon )|(?<=\baus )|(?<=\bnach )|(?<=\ben ))[A-Z][a-z]+\b"
    rf"|\b[A-Z][a-z]+(?= (?i:{_PLACE_NOUNS})\b)|\b[A-Z][a-z]+(?=, [A-Z][a-z]+)"
    r"|(?:(?<=\bnamed )|(?<=\bcalled ))[A-Z][a-z]+\b"  # "a man named Dick": a name
)
_JOURNEY_TO = re.compile(rf"(?i:\b(?:{_JOURNEY}) to )([A-Z][a-z]+)\b")


def without_place_names(text: str) -> str:
    """The prompt with the names of places (and names given with "named") read as "Place", in mostly
    lower-case text. Lookalike letters are read as the Latin ones first ("a man named D\u0456ck")."""
    text = latin_cased(text)
    words = _WORDS.findall(text)
    if not words or sum(w[0].isupper() for w in words) * 2 > len(words):
        return text
    text = _JOURNEY_TO.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)] + "Place", text)
    return _PLACE.sub("Place", text)


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


def personal(text: str, hits: concepts.Hits, found: list[Finding]) -> list[Finding]:
    """Personal data holds; with harm or humiliation in the same prompt it is refused."""
    data = personal_data.find(unicodedata.normalize("NFKC", text))  # fullwidth digits and at signs too
    if not data:
        return []
    aimed = any(f.severity >= 2 and f.category != Category.PROFANITY for f in found)
    if aimed or "humiliate" in hits or "threat" in hits:
        return [Finding(Category.PERSONAL, 3, data[0].words, "personal data with harm aimed at the person")]
    return data


@lru_cache(maxsize=4096)
def assess(text: str, languages: tuple[str, ...] = ("en",)) -> tuple[Finding, ...]:
    """The worst finding per category over every reading of the prompt (cached: the same winner is judged at
    submission and again at close). Pass the prompt as written: capitals say who is a name. `languages`: the
    judged languages it may be in, whose concepts are read (language.identify)."""
    # German capitalises every noun: there a capital says nothing of a name.
    placed = without_place_names(text)
    names = names_in(placed) if "de" not in languages else frozenset()
    forms = reading_forms(normalize(placed))
    hits = concepts.find([emoji_as_words(form) for form in forms], ("en", *languages))
    if scores := SCORE.findall(forms[0] if forms else ""):  # a match result: see with_senses
        hits = {**hits, "score": scores}
    named = bool(names)
    # Concepts first: where they and the English rules find as bad, the reason shows the words as written.
    found = [*rules_concepts.find(hits, named=named), *rules_concepts.echoes(text)]
    for tokens in dict.fromkeys(read(form) for form in forms):
        found += findings_of(Doc(tokens, names))
    found += personal(text, hits, found)
    return tuple(worst_per_category(found))
