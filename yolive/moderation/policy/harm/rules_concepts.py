"""Harm from the concepts a prompt holds, in any judged language (concepts.py): which kinds together are which
harm. A kind alone is rarely harm ("a child", "a bomb", "how to"); a child with a word of sex or killing, a
request for how to make a drug, a group called vermin, are.

Severities follow categories.py: 2 holds at the default level, 3 and 4 refuse, 5 is the hard floor. Where one
word has a harmless sense ("opium poppies in a garden", "isis the goddess") the kind is weak: it holds or
refuses only with another.
"""

from __future__ import annotations

import re

from yolive.moderation.policy.harm.categories import Category, Finding
from yolive.moderation.policy.harm.concepts import Hits

C = Category


def _words(hits: Hits, *kinds: str) -> tuple[str, ...]:
    return tuple(w for kind in kinds for w in hits.get(kind, ()))


def _has(hits: Hits, *kinds: str) -> bool:
    return any(kind in hits for kind in kinds)


def with_senses(hits: Hits) -> Hits:
    """Words with a harmless sense read in it where the prompt shows that sense: Spanish "coger" is sex
    unless something is taken ("cogiendo el autobús"); breaking or hitting is no violence where what is hit
    is a toy (a piñata, balloons) or a goal is scored ("забивает гол") and nothing is killed; a cocktail
    at a bar is no weapon."""
    hits = dict(hits)
    weak = hits.pop("explicit_weak", None)
    if weak and "taken_thing" not in hits:
        hits["explicit"] = [*hits.get("explicit", ()), *weak]
    if "violent" in hits and ("toy" in hits or "harmless_sense" in hits) and "lethal" not in hits:
        del hits["violent"]
    if "harmless_sense" in hits and "howto" not in hits:
        hits.pop("weapon_weak", None)  # a bartender making a molotov cocktail of flavours
    if "drug_sense" in hits:
        hits.pop("drug_weak", None)  # "冰" in 冰淇淋 (ice cream) is no ice
    if "score" in hits and not _has(hits, "person", "minor", "animal"):
        hits.pop("violent", None)  # "schlachtet Bremen mit 6 zu 0 ab": a match result
        hits.pop("lethal", None)
    return hits


def minors(hits: Hits) -> list[Finding]:
    if not _has(hits, "minor"):
        return []
    if _has(hits, "naked", "explicit", "sexual", "voyeur"):
        sexual = ("minor", "naked", "explicit", "sexual", "voyeur")
        return [Finding(C.MINORS, 5, _words(hits, *sexual), "minors, sexual")]
    if _has(hits, "lethal"):
        return [Finding(C.MINORS, 5, _words(hits, "minor", "lethal", "violent"), "minors with violence")]
    if _has(hits, "drug") or _has(hits, "weapon"):
        return [Finding(C.MINORS, 4, _words(hits, "minor", "drug", "weapon"), "minors with drugs or weapons")]
    if _has(hits, "kiss") and _has(hits, "mouth"):  # an adult kissing a child on the mouth
        severity = 3 if _has(hits, "adult") else 2
        return [Finding(C.MINORS, severity, _words(hits, "minor", "adult", "kiss", "mouth"), "minors kissed")]
    armed = _has(hits, "weapon_weak") and not _has(hits, "toy")  # a pistol, not a water pistol
    if armed or _has(hits, "violent", "self", "selfcmd", "drug_weak"):
        kinds = ("minor", "violent", "self", "selfcmd", "drug_weak", "weapon_weak")
        return [Finding(C.MINORS, 2, _words(hits, *kinds), "minors with violence or drugs")]
    return []


def violence(hits: Hits) -> list[Finding]:
    victims = _has(hits, "person", "animal", "minor", "group")
    if _has(hits, "lethal") and (victims or _has(hits, "violent")):
        return [Finding(C.VIOLENCE, 3, _words(hits, "violent", "lethal", "person", "animal"), "killing")]
    if _has(hits, "violent") and victims:
        return [Finding(C.VIOLENCE, 2, _words(hits, "violent", "person", "animal"), "violence to someone")]
    if _has(hits, "gore"):
        return [Finding(C.VIOLENCE, 2, _words(hits, "gore"), "gore")]
    return []


def hate(hits: Hits) -> list[Finding]:
    if _has(hits, "slur"):
        return [Finding(C.HATE, 4, _words(hits, "slur"), "a slur")]
    # "X are pigs": an animal said of a group; "a muslim family walking their dogs" is no such thing.
    # "X are thieves": a crime said of a whole group.
    said_of = _has(hits, "copula") and _has(hits, "vermin_weak", "stereotype_weak")
    called = _has(hits, "dehumanise", "expel") or said_of
    if _has(hits, "group") and called:
        return [
            Finding(
                C.HATE,
                4,
                _words(hits, "group", "dehumanise", "vermin_weak", "stereotype_weak", "expel"),
                "a group dehumanised or driven out",
            )
        ]
    if _has(hits, "group") and _has(hits, "lethal", "violent"):
        return [Finding(C.HATE, 3, _words(hits, "group", "violent", "lethal"), "violence against a group")]
    if _has(hits, "hate_symbol"):
        severity = 4 if _has(hits, "group") else 2
        return [Finding(C.HATE, severity, _words(hits, "hate_symbol", "group"), "a hate symbol")]
    return []


def _finding(category: Category, severity: int, hits: Hits, kinds: tuple[str, ...], why: str) -> Finding:
    return Finding(category, severity, _words(hits, *kinds), why)


def drugs(hits: Hits) -> list[Finding]:
    how, buy, make = _has(hits, "howto"), _has(hits, "buy"), _has(hits, "make")
    kinds = ("howto", "buy", "make", "drug", "drug_weak")
    if _has(hits, "drug") and (how or buy or make):
        return [_finding(C.DRUGS, 4, hits, kinds, "how to make or buy a drug")]
    if _has(hits, "drug_weak") and how and make:
        return [_finding(C.DRUGS, 3, hits, kinds, "how to make or grow a drug")]
    if _has(hits, "drug_weak") and buy:
        return [_finding(C.DRUGS, 2, hits, kinds, "buying a drug")]
    if _has(hits, "drug"):
        # A hard drug shown (a crime drama, an awareness poster) is for the channel's level 4 to hold.
        return [_finding(C.DRUGS, 1, hits, ("drug",), "a hard drug")]
    return []


def weapons(hits: Hits) -> list[Finding]:
    how, buy, make = _has(hits, "howto"), _has(hits, "buy"), _has(hits, "make")
    kinds = ("howto", "buy", "make", "weapon", "weapon_weak")
    if _has(hits, "weapon") and (how or buy or make):
        return [_finding(C.WEAPONS, 4, hits, kinds, "how to make or get a weapon")]
    if _has(hits, "weapon_weak") and ((how and make) or buy):
        return [_finding(C.WEAPONS, 4, hits, kinds, "how to make or get a weapon")]
    if _has(hits, "weapon") or (_has(hits, "weapon_weak") and make):
        return [_finding(C.WEAPONS, 2, hits, kinds, "a weapon made at home")]
    return []


def extremism(hits: Hits) -> list[Finding]:
    if _has(hits, "extremist"):
        return [Finding(C.EXTREMISM, 4, _words(hits, "extremist"), "an extremist code or slogan")]
    if _has(hits, "jihadi") and _has(hits, "recruit", "praise", "lethal", "violent"):
        return [
            Finding(
                C.EXTREMISM, 4, _words(hits, "jihadi", "recruit", "praise"), "terrorist recruitment or praise"
            )
        ]
    if _has(hits, "attack") and _has(hits, "praise", "recruit"):
        return [
            Finding(
                C.EXTREMISM,
                4,
                _words(hits, "attack", "praise", "recruit"),
                "praise of or a call to an attack",
            )
        ]
    if _has(hits, "replaced") and _has(hits, "rally", "group"):  # "you will not replace us", chanted
        return [Finding(C.EXTREMISM, 4, _words(hits, "replaced", "rally", "group"), "the replacement slogan")]
    if len(set(_words(hits, "nazi_weak"))) >= 2:  # "88" with the black sun or SS runes
        return [Finding(C.EXTREMISM, 4, _words(hits, "nazi_weak"), "neo-Nazi codes")]
    if _has(hits, "attack_weak") and _has(hits, "praise"):  # a word for an attack that has other senses
        return [Finding(C.EXTREMISM, 2, _words(hits, "attack_weak", "praise"), "praise of an attack")]
    if _has(hits, "jihadi") and not _has(hits, "history_sense"):  # not a history of Isis told by historians
        return [Finding(C.EXTREMISM, 2, _words(hits, "jihadi"), "jihadist words")]
    return []


def _self_harm_said_sideways(hits: Hits) -> Finding | None:
    """Suicide and self-starvation said without their names: pills so as not to wake up, a fall one would not
    survive, bones shown as motivation; held where the words are only likely (how many pills, goodbye
    letters tonight)."""
    if _has(hits, "pills", "pills_weak") and _has(hits, "nowake"):
        taken = ("pills", "pills_weak", "nowake", "howmany")
        return _finding(C.SELF_HARM, 3, hits, taken, "pills so as not to wake up")
    if _has(hits, "jump_weak", "height") and _has(hits, "nosurvive"):
        return _finding(C.SELF_HARM, 3, hits, ("jump_weak", "height", "nosurvive"), "a fall not to survive")
    if _has(hits, "bones") and _has(hits, "fasting", "motivation"):
        kinds = ("bones", "fasting", "motivation")
        return _finding(C.SELF_HARM, 3, hits, kinds, "starving with bones shown as motivation")
    if _has(hits, "rope_up"):  # a rope tied to the ceiling fan
        return _finding(C.SELF_HARM, 2, hits, ("rope_up",), "a rope tied up high")
    if _has(hits, "pills") and _has(hits, "howmany"):
        return _finding(C.SELF_HARM, 2, hits, ("howmany", "pills"), "how many pills")
    if _has(hits, "farewell") and _has(hits, "soon"):
        return _finding(C.SELF_HARM, 2, hits, ("farewell", "soon"), "goodbye letters before the night")
    if _has(hits, "fasting") and _has(hits, "motivation"):
        return _finding(C.SELF_HARM, 2, hits, ("fasting", "motivation"), "fasting as motivation")
    return None


def speech(hits: Hits) -> list[Finding]:
    found = []
    if _has(hits, "self"):
        found.append(Finding(C.SELF_HARM, 3, _words(hits, "self"), "suicide or self-harm"))
    elif _has(hits, "selfcut_weak") and _has(hits, "selfcut_where"):  # cutting one's wrists, or in secret
        cut = _words(hits, "selfcut_weak", "selfcut_where")
        found.append(Finding(C.SELF_HARM, 3, cut, "cutting oneself"))
    elif _has(hits, "jump_weak") and _has(hits, "height") and _has(hits, "impact"):
        kinds = ("jump_weak", "height", "impact")
        found.append(Finding(C.SELF_HARM, 3, _words(hits, *kinds), "a jump from a height to the impact"))
    elif sideways := _self_harm_said_sideways(hits):
        found.append(sideways)
    if _has(hits, "selfcmd"):
        found.append(Finding(C.HOSTILITY, 4, _words(hits, "selfcmd"), "telling someone to kill themselves"))
    if _has(hits, "threat"):
        found.append(Finding(C.HOSTILITY, 4, _words(hits, "threat"), "a threat"))
    elif _has(hits, "crowd") and _has(hits, "insult", "insult_weak", "humiliate"):  # "everyone in chat, tell"
        piled = ("crowd", "insult", "insult_weak", "humiliate")
        found.append(Finding(C.HOSTILITY, 3, _words(hits, *piled), "a crowd set on someone"))
    elif _has(hits, "insult") and _has(hits, "you"):
        found.append(Finding(C.HOSTILITY, 3, _words(hits, "insult", "you"), "an insult aimed at someone"))
    if _has(hits, "voyeur"):
        found.append(Finding(C.SEXUAL, 3, _words(hits, "voyeur"), "filming someone undressing"))
    elif _has(hits, "explicit"):
        found.append(Finding(C.SEXUAL, 4, _words(hits, "explicit"), "explicit sex"))
    elif _has(hits, "naked"):
        severity = 3 if _has(hits, "person") else 2  # a naked person; nakedness of whom it does not say
        found.append(Finding(C.SEXUAL, severity, _words(hits, "naked", "person"), "nudity"))
    if _has(hits, "profane"):
        found.append(Finding(C.PROFANITY, 3, _words(hits, "profane"), "swearing"))
    return found


def real_person(hits: Hits, named: bool) -> list[Finding]:
    """Harassment of someone real: humiliation aimed at a classmate, a neighbour, a named person."""
    described = _has(hits, "real", "personal_intro")  # my classmate, at break, her name is
    if (_has(hits, "humiliate") and (named or described)) or (_has(hits, "violent") and described):
        kinds = ("humiliate", "violent", "real", "personal_intro")
        return [Finding(C.PERSONAL, 3, _words(hits, *kinds), "harassment of a real person")]
    if _has(hits, "personal_intro"):
        return [Finding(C.PERSONAL, 2, _words(hits, "personal_intro"), "who someone is or where they live")]
    return []


# Triple parentheses around a word: the antisemitic "echo" that marks someone as Jewish.
_ECHO = re.compile(r"\(\(\(\s*[^()]{1,40}?\s*\)\)\)")


def echoes(text: str) -> list[Finding]:
    marked = _ECHO.findall(text)
    return [Finding(C.EXTREMISM, 4, tuple(marked), "triple parentheses marking Jews")] if marked else []


def find(hits: Hits, named: bool = False) -> list[Finding]:
    hits = with_senses(hits)
    by_kind = (minors, violence, hate, drugs, weapons, extremism, speech)
    return [*(f for rule in by_kind for f in rule(hits)), *real_person(hits, named)]
