"""Hostility, profanity and self-harm: what a prompt says to or about someone, and about hurting oneself."""

from __future__ import annotations

from yolive.moderation.policy.harm import lexicon_sexual, lexicon_violence, people
from yolive.moderation.policy.harm import lexicon_speech as lex
from yolive.moderation.policy.harm.categories import Category, Finding
from yolive.moderation.policy.harm.doc import Doc

_DIRECTED = people.SECOND_PERSON | people.CHANNEL_PEOPLE | {"fuck_you", "fuck_off", "stfu", "shut_up", "gtfo"}
_FIRST_PERSON = {"i", "we"}
_INTENT = {"will", "going", "gonna", "shall", "ll"}
_COMMAND_OPENERS = {"go", "just", "pls", "please", "now", "should", "you", "must", "better"}
_SUICIDE_SPOTS = {"ledge", "bridge", "roof", "rooftop", "building", "cliff", "balcony", "tower", "edge",
                  "skyscraper", "overpass", "tracks", "railway", "window"}  # fmt: skip
_VEHICLES = {"train", "bus", "truck", "car", "subway", "lorry", "tram"}
# A jump that lands in water from a cliff or a rock is a dive ("a diver jumping off a cliff into the sea").
_DIVES = {"diver", "divers", "diving", "dive", "dives", "swimmer", "swimmers", "splash", "cannonball"}
_WATER = {"sea", "ocean", "river", "lake", "pool", "lagoon", "water", "waves", "bay", "cove", "quarry"}
_DIVING_SPOTS = {"cliff", "cliffs", "rock", "rocks", "pier", "jetty", "board", "diving_board", "boat", "dock"}
_CLIMBING = {"climber", "climbers", "climbing", "mountain", "rock", "abseiling", "harness", "gym", "swing",
             "tarzan", "monkey_bars", "circus", "acrobat", "trapeze"}  # fmt: skip
_SWALLOW = {
    "take",
    "takes",
    "took",
    "taking",
    "swallow",
    "swallows",
    "swallowed",
    "swallowing",
    "pop",
    "popping",
}
_MANY = {"all", "bunch", "handful", "bottle", "whole", "lot", "lots", "dozens", "fistful"}
_PILLS = {"pills", "pill", "tablets", "painkillers", "sleeping"}
_MOUTH_HEAD_NECK = {"mouth", "head", "neck", "temple", "throat", "wrist", "wrists"}


# Said with pills, these ask for a deadly amount: "how many pills to od", "enough sleeping pills to die".
_DOSE_CUES = {"od", "overdose", "overdosing", "lethal", "die", "dying", "enough", "how_many_pills",
              "end_my_life", "kill_myself", "fatal", "deadly", "never_wake"}  # fmt: skip


_OWN_SKIN = {"skin", "stomach", "belly", "hip", "hips", "leg", "legs", "forearm", "forearms", "ankle", "body"}
_WEIGHT = {"lose", "losing", "weight", "pounds", "lbs", "kg", "kilos", "thin", "thinner", "skinny", "fat",
           "calories", "diet", "thigh_gap", "bones"}  # fmt: skip
_ROPE_BEFORE = {"to", "just", "going", "will", "ll", "i", "me", "finna", "should", "gonna", "wanna"}
_ROPE_AFTER = {"rn", "now", "tonight", "today", "tomorrow", "soon", "myself", "lol", "fr", "already"}


def _said(doc: Doc, words: tuple[str, ...]) -> bool:
    n = len(words)
    return any(doc.tokens[i : i + n] == words for i in range(len(doc) - n + 1))


def _first_person_intent(doc: Doc) -> bool:
    return doc.has(_FIRST_PERSON | {"am"}) and doc.has(_INTENT | {"tonight", "today", "want", "about"})


def _hits(doc: Doc, words: set[str]) -> tuple[str, ...]:
    return tuple(t for t in doc.tokens if t in words)


def profanity(doc: Doc) -> list[Finding]:
    hits = []
    for token in doc.tokens:
        severity = lex.PROFANE.get(token, 0)
        if token in ("fuck_you", "fuck_off"):
            severity = 3
        harmless = lex.PROFANE_AMBIGUOUS.get(token)
        if severity and not (harmless and doc.has(harmless)):
            hits.append((severity, token))
    if not hits:
        return []
    return [Finding(Category.PROFANITY, max(s for s, _ in hits), tuple(dict.fromkeys(w for _, w in hits)))]


def _insults(doc: Doc) -> list[Finding]:
    targets = doc.where(_DIRECTED) + [i for i, t in enumerate(doc.tokens) if t.startswith("@")]
    if not targets:
        return []
    near = sorted(
        {
            (lex.INSULTS[t], t)
            for i, t in enumerate(doc.tokens)
            if t in lex.INSULTS and _within(i, targets, 5)
        },
        reverse=True,
    )
    hostile = [(lex.HOSTILE_PHRASES.get(doc.tokens[i], 0), doc.tokens[i]) for i in targets]
    signals = sorted((s for s in near + hostile if s[0] > 0), reverse=True)
    if not near:
        return []
    severity = signals[0][0] + (1 if len(signals) >= 2 and signals[1][0] >= 2 else 0)
    return [
        Finding(
            Category.HOSTILITY, min(severity, 4), tuple(w for _, w in signals), "insults aimed at someone"
        )
    ]


def _within(i: int, targets: list[int], reach: int) -> bool:
    return any(abs(i - j) <= reach for j in targets)


def _threats_and_wishes(doc: Doc) -> list[Finding]:
    found = []
    for token in doc.tokens:
        severity = lex.HOSTILE_PHRASES.get(token, 0)
        if token == "drink_bleach" and not _commanded(doc, doc.tokens.index(token)):
            severity = 0
        if severity >= 2 and token not in ("shut_up", "stfu", "gtfo"):
            found.append(
                Finding(Category.HOSTILITY, severity, (token,), "telling someone to die or threatening")
            )
    you = doc.where(people.SECOND_PERSON | people.CHANNEL_PEOPLE)
    harm = lex.HARM_WISHES | lexicon_sexual.SEXUAL_VIOLENCE | set(lexicon_violence.VIOLENT_VERBS)
    for i in you:
        wish = doc.near(i, lex.WISH_VERBS, before=4, after=3)
        hurt = doc.near(i, harm, before=1, after=6)
        if wish is not None and hurt is not None:
            found.append(
                Finding(Category.HOSTILITY, 4, (doc.tokens[wish], doc.tokens[hurt]), "wishing someone harm")
            )
        doom = doc.near(i, lex.HARM_WISHES, before=0, after=3)
        if doom is not None and doc.near(i, _INTENT | {"are", "gonna"}, before=0, after=2) is not None:
            found.append(Finding(Category.HOSTILITY, 4, (doc.tokens[i], doc.tokens[doom]), "a threat"))
        threat = doc.near(i, lex.THREAT_VERBS, before=3, after=0)
        opener = doc.near(i, _FIRST_PERSON, before=6, after=0)
        if threat is not None and opener is not None and doc.near(i, _INTENT, before=5, after=0) is not None:
            found.append(Finding(Category.HOSTILITY, 4, (doc.tokens[threat], doc.tokens[i]), "a threat"))
    return found


def _commanded(doc: Doc, i: int) -> bool:
    """Said to someone: the verb opens the prompt or follows "go", "just", "you should"."""
    return i == 0 or doc.tokens[i - 1] in _COMMAND_OPENERS


def hostility(doc: Doc) -> list[Finding]:
    return _insults(doc) + _threats_and_wishes(doc)


def self_harm(doc: Doc) -> list[Finding]:
    found = []
    for i, token in enumerate(doc.tokens):
        severity = lex.SELF_HARM.get(token, 0)
        if token == "about_to_jump" and not doc.has(_SUICIDE_SPOTS):
            severity = 0
        if severity:
            found.append(Finding(Category.SELF_HARM, severity, (token,)))
        verb = lex.SELF_HARM_VERBS.get(token)
        if verb is None:
            continue
        reflexive = doc.near(i, people.SELF, before=0, after=3)
        if reflexive is not None:
            found.append(Finding(Category.SELF_HARM, verb, (token, doc.tokens[reflexive]), "harming oneself"))
            if doc.tokens[reflexive] in ("yourself", "yourselves") and _commanded(doc, i):
                words = (token, doc.tokens[reflexive])
                found.append(Finding(Category.HOSTILITY, 4, words, "telling someone to hurt themselves"))
        wrist = doc.near(i, people.SELF_HARM_BODY_PARTS, before=0, after=4)
        own_skin = doc.near(i, _OWN_SKIN, before=0, after=5)
        if wrist is None and own_skin is not None and doc.tokens[own_skin - 1] in ("my", "own"):
            wrist = own_skin  # "carving words into my skin"
        if wrist is not None and token.startswith(("cut", "slit", "slash", "slic", "carv")):
            found.append(Finding(Category.SELF_HARM, 4, (token, doc.tokens[wrist]), "cutting"))
        elif wrist is not None and token.startswith("burn") and doc.tokens[wrist - 1] == "my":
            found.append(Finding(Category.SELF_HARM, 3, (token, doc.tokens[wrist]), "burning oneself"))
    for i in doc.where(lex.MEANS):
        body = doc.near(i, _MOUTH_HEAD_NECK, before=0, after=5)
        if body is not None and doc.near(body, {"his", "her", "my", "their"}, before=2, after=0) is not None:
            found.append(
                Finding(Category.SELF_HARM, 3, (doc.tokens[i], doc.tokens[body]), "means of suicide")
            )
    if doc.has({"razor", "razors", "blade"}) and doc.has(lexicon_violence.BLOOD):
        found.append(Finding(Category.SELF_HARM, 3, ("razor", "blood"), "cutting"))
    dive = doc.has(_DIVES) or (doc.has(_WATER) and doc.has(_DIVING_SPOTS) and doc.has({"into", "in"}))
    if doc.has({"jump_off", "about_to_jump"}) and doc.has(_SUICIDE_SPOTS) and not dive:
        if _first_person_intent(doc):  # "im gonna jump off the bridge tonight"
            found.append(Finding(Category.SELF_HARM, 4, ("jump_off",), "saying one will jump"))
        elif doc.has_person():
            found.append(Finding(Category.SELF_HARM, 3, ("jump_off",), "jumping to one's death"))
    if doc.has({"jump_front"}) and doc.has(_VEHICLES):
        found.append(Finding(Category.SELF_HARM, 3, ("jump_front",), "jumping in front of a vehicle"))
    hanging = doc.has({"hang", "hangs", "hanging", "hanged", "hung"})
    if hanging and doc.has({"rope", "noose"}) and doc.has_person() and not doc.has(_CLIMBING):
        found.append(Finding(Category.SELF_HARM, 3, ("hanging", "rope"), "a hanging"))
    if doc.has(_PILLS | {"how_many_pills"}) and doc.has(_DOSE_CUES):
        found.append(Finding(Category.SELF_HARM, 3, ("pills", *_hits(doc, _DOSE_CUES)), "an overdose"))
    diet = doc.has(_WEIGHT) and (doc.has({"ana", "mia"}) or _said(doc, ("not", "eating")) or
                                 _said(doc, ("stop", "eating")) or _said(doc, ("skip", "meals")))  # fmt: skip
    if diet:
        found.append(Finding(Category.SELF_HARM, 3, ("not_eating",), "promoting an eating disorder"))
    for i in doc.where({"rope"}):
        verb_slot = i > 0 and doc.tokens[i - 1] in _ROPE_BEFORE
        no_object = i + 1 >= len(doc) or doc.tokens[i + 1] in _ROPE_AFTER
        if verb_slot and no_object:  # "gonna rope tonight": slang for hanging oneself
            found.append(Finding(Category.SELF_HARM, 4, ("rope",), "saying one will hang oneself"))
    for i in doc.where(_SWALLOW):
        if (
            doc.near(i, _MANY, before=0, after=3) is not None
            and doc.near(i, _PILLS, before=0, after=5) is not None
        ):
            found.append(Finding(Category.SELF_HARM, 3, (doc.tokens[i], "pills"), "an overdose"))
    return found
