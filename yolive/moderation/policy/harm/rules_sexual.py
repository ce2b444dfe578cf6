"""Sexual content: explicit words, nudity of a person, suggestive words about a person, and how they add up.

One suggestive word is a hold ("sexy girl"); several together are more ("sexy nurse undressing"). Words that
mean a body part only sometimes ("cock", "tits") count unless their harmless sense is in the prompt.
"""

from __future__ import annotations

from yolive.moderation.policy.harm import lexicon_sexual as lex
from yolive.moderation.policy.harm import lexicon_speech, people
from yolive.moderation.policy.harm.categories import Category, Finding
from yolive.moderation.policy.harm.doc import Doc
from yolive.moderation.policy.harm.words import lookup

_FUCK = {
    w for w, s in lexicon_speech.PROFANE.items() if w.startswith(("fuck", "fuk", "fck", "phuck", "fvck"))
}
_SEX_VERBS = {"suck", "sucks", "sucking", "sucked", "lick", "licks", "licking", "licked", "ride", "rides",
              "riding", "stroke", "strokes", "stroking", "blow", "blows", "touching", "touch", "touches",
              "rubbing", "rub", "rubs", "grab", "grabs", "grabbing", "show", "shows", "showing",
              "flash"}  # fmt: skip
_PARTS = {"cock", "cocks", "dick", "dicks", "pussy", "tits", "boobs", "penis", "balls", "nipples", "breasts",
          "vagina", "ass", "butt", "crotch"}  # fmt: skip
# Nudity of a thing is not nudity: "naked branches", "a naked flame".
_BARE_THINGS = {"tree", "trees", "branch", "branches", "wall", "walls", "bulb", "lightbulb", "flame", "eye",
                "truth", "wire", "wires", "ambition", "aggression", "sky", "rock", "rocks", "land", "hills",
                "mountain", "mountains", "floor", "room", "lens", "metal", "concrete", "steel"}  # fmt: skip


_DISPLAY = {"show", "shows", "showing", "flaunt", "flaunts", "flaunting", "flex", "flexing", "posing", "pose",
            "poses"}  # fmt: skip
_FIGURE = {"body", "curves", "figure", "bod"}
# "a vampire sucking a man's blood" is a horror film.
_BITES = {"blood", "vampire", "vampires", "venom", "poison", "snake", "leech", "mosquito", "wound"}


def _counts(doc: Doc, word: str) -> bool:
    harmless = lex.AMBIGUOUS.get(word)
    return not (harmless and doc.has(harmless))


def signals(doc: Doc) -> list[tuple[int, str]]:
    """(severity, word) for every sexual signal in the prompt."""
    person = doc.has_person() or doc.has(lex.PERSONS_FOR_SEXUAL) or doc.has(lex.BODY_WORDS)
    person = person or any(doc.is_minor_age(j) for j in range(len(doc)))  # "barely 13 and thicc"
    found: list[tuple[int, str]] = []
    for i, token in enumerate(doc.tokens):
        severity = max(lookup(lex.EXPLICIT, token), lex.EXPLICIT_VERBS.get(token, 0))
        if token in lex.NUDITY:
            after = doc.tokens[i + 1] if i + 1 < len(doc) else ""
            if after in _BARE_THINGS or after in people.ANIMALS:
                severity = max(severity, 0)
            else:
                severity = max(severity, lex.NUDITY_SEVERITY.get(token, 3 if person else 2))
        elif token in lex.REVEALING:
            severity = max(severity, 1)
        if severity and token in lex.NEEDS_PERSON and not person:
            severity = 0
        if severity and not _counts(doc, token):
            severity = 0
        if token in _FUCK and (doc.victim_after(i, 3) is not None or doc.subject_before(i) is not None):
            severity = 4  # "fucking her", "a couple fucking": the act, not the swear
        if token in _SEX_VERBS and doc.near(i, _PARTS, before=0, after=3) is not None:
            part = doc.tokens[doc.near(i, _PARTS, before=0, after=3) or 0]
            if _counts(doc, part):
                severity = 4
        if token in _DISPLAY and doc.near(i, _FIGURE, before=0, after=4) is not None:
            severity = max(severity, 1)  # "showing off her body": borderline alone, not with a child
        if token in ("inappropriately", "inappropriate", "sexually") and person:
            severity = max(severity, 3)
        if token.startswith("expos") and doc.near(i, people.SELF, before=0, after=2) is not None:
            severity = max(severity, 3)  # a flasher
        doer = doc.subject_before(i)
        if (
            token in lex.ON_A_PERSON
            and not (doer is not None and doc.kind(doer) == "animal")
            and not doc.has(_BITES)
        ):
            victim = doc.victim_after(i, 3)
            if victim is not None and doc.kind(victim) in ("person", "minor", "maybe_minor", "group"):
                severity = max(severity, 3)
            if doc.near(i, {"each_other", "him", "her", "off"}, before=0, after=3) is not None and token[
                :4
            ] in ("suck", "lick", "fing", "fuck"):
                severity = 4
        if token.startswith(("grind", "twerk", "sit", "sat")) and doc.near(
            i, {"lap", "face", "crotch"}, 0, 5
        ):
            severity = max(severity, 3)  # a lap dance, face-sitting
        if token in lex.ON_ONESELF and doc.near(i, people.SELF, before=0, after=2) is not None:
            severity = max(severity, 3)
        if (
            token in lex.UNDRESSING_VERBS
            and doc.near(i, lex.INTIMATE_GARMENTS, before=0, after=4) is not None
        ):
            severity = max(severity, 3 if person else 2)
        if severity:
            found.append((severity, token))
    return found


def combined(found: list[tuple[int, str]]) -> int:
    """Several signals add up: two mild ones make a hold, a suggestive one with another makes more."""
    if not found:
        return 0
    ranked = sorted((s for s, _ in found), reverse=True)
    top = ranked[0]
    if len(ranked) >= 2 and ranked[1] >= 2:
        top += 1
    elif len(ranked) >= 2 and top == 1:
        top = 2
    return min(top, 4)


def find(doc: Doc) -> list[Finding]:
    found = signals(doc)
    severity = combined(found)
    if not severity:
        return []
    words = tuple(dict.fromkeys(w for _, w in found))
    return [Finding(Category.SEXUAL, severity, words)]


def sexual_violence(doc: Doc) -> list[Finding]:
    """Rape, groping, molesting: sexual content and violence at once."""
    hits = [t for t in doc.tokens if t in lex.SEXUAL_VIOLENCE]
    return [Finding(Category.VIOLENCE, 4, tuple(hits), "sexual violence")] if hits else []
