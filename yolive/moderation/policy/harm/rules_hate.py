"""Discrimination and hate: slurs, symbols, denial, and what a prompt says a group is or should suffer.

A group named is not hate ("a jewish family lighting candles"); a group with a dehumanising predicate ("are
rats"), a call to violence or exclusion ("should be deported", "death to"), or a slur is.
"""

from __future__ import annotations

from yolive.moderation.policy.harm import lexicon_hate as lex
from yolive.moderation.policy.harm import lexicon_speech, people
from yolive.moderation.policy.harm import lexicon_violence as lex_violence
from yolive.moderation.policy.harm.categories import Category, Finding
from yolive.moderation.policy.harm.doc import Doc
from yolive.moderation.policy.harm.rules_violence import Violence
from yolive.moderation.policy.harm.words import lookup

_COPULA = {"are", "is", "were", "was", "be", "being", "r", "like", "=", "becoming", "become", "as", "should",
           "must", "need", "needs", "deserve", "deserves", "to", "again", "will", "gonna",
           "going"}  # fmt: skip
_DOOM = {"die", "burn", "hang", "rot", "perish", "suffer", "killed", "gassed", "shot", "hanged", "burned",
         "exterminated", "slaughtered", "eradicated", "wiped", "lynched", "enslaved", "euthanized",
         "euthanised", "sterilized", "sterilised", "eliminated", "purged", "culled", "erased", "drowned",
         "executed", "locked", "caged", "nuked", "bombed", "removed"}  # fmt: skip
# What a group is said to lack: "are not human", "don't deserve rights".
_DENIED_TO = {"human", "humans", "people", "person", "rights", "right", "live", "exist", "respect", "vote",
              "citizens"}  # fmt: skip
_ADVERBS = {"too", "so", "all", "just", "nothing", "but", "such", "literally", "really", "the", "a", "an",
    "basically", "truly", "mostly", "always"}  # fmt: skip
_CONTROL = {"control", "controls", "run", "runs", "own", "owns", "rule", "rules", "did", "caused", "cause",
            "planned", "behind", "started", "made", "spread", "created"}  # fmt: skip
_CONTROLLED = {"world", "media", "banks", "bank", "money", "government", "hollywood", "finance", "news",
    "9_11",
               "covid", "virus", "plague", "war", "wars", "aids", "crime", "pandemic"}  # fmt: skip
_SLURRING = lex.GROUP_SLURRING_ADJECTIVES | set(lexicon_speech.PROFANE) | set(lexicon_speech.INSULTS)
_DENIED = {"happen", "happened", "exist", "existed", "real"}
# "whites only", a sign saying "no jews": segregation.
_SEGREGATED = {"whites", "blacks", "white", "black", "christians", "muslims", "jews", "straights", "men"}
_SIGNS = {"sign", "signs", "poster", "posters", "banner", "only", "allowed", "welcome", "entry", "shop",
          "door", "window", "says", "saying", "reads"}  # fmt: skip
# Between a dehumanising word and the group it is said of, when the word comes first.
_LIKENED = {"what", "like", "=", "is", "are", "r", "thats", "those", "these", "called"}


def _insult(token: str) -> bool:
    """An insult said of a whole group is a stereotype: "gays are disgusting", "immigrants are trash"."""
    return lookup(lexicon_speech.INSULTS, token) >= 2


def _groups(doc: Doc) -> list[int]:
    return [i for i in range(len(doc)) if doc.kind(i) == "group"]


def slur_grade(token: str) -> int:
    """A slur's grade, through its inflections and its stretched spellings ("niggaz", "faggit")."""
    if token in lex.NOT_SLURS:
        return 0
    grade = lookup(lex.SLURS, token)
    if grade or len(token) < 4:
        return grade
    return max((s for stem, s in lex.SLUR_STEMS.items() if token.startswith(stem)), default=0)


def _slurs(doc: Doc) -> list[Finding]:
    found = []
    for token in doc.tokens:
        severity = slur_grade(token)
        harmless = lex.SLUR_AMBIGUOUS.get(token)
        if severity and not (harmless and doc.has(harmless)):
            found.append(Finding(Category.HATE, severity, (token,), "a slur"))
        symbol = lex.HATE_SYMBOLS.get(token, 0)
        if symbol:
            found.append(Finding(Category.HATE, symbol, (token,), "a hate symbol or slogan"))
    return found


def _denial(doc: Doc) -> list[Finding]:
    for i in doc.where(lex.DENIAL_TARGETS):
        rest = doc.tokens[i + 1 : i + 6]
        denied = "never" in rest or any(t in ("hoax", "lie", "lies", "myth", "fake", "fraud") for t in rest)
        denied |= "not" in rest and any(t in _DENIED for t in rest)
        praised = "right" in rest or "enough" in rest or ("nothing" in rest and "wrong" in rest)
        praised |= any(
            t in ("hero", "great", "good", "genius", "correct", "should_have", "finish_the_job") for t in rest
        )
        if denied or praised:
            why = "denying an atrocity" if denied else "praising a genocide"
            return [
                Finding(
                    Category.HATE, 4, (doc.tokens[i], *[t for t in rest if t in lex.DENIAL_WORDS][:2]), why
                )
            ]
    return []


def _about_groups(doc: Doc) -> list[Finding]:
    found = []
    for i in _groups(doc):
        group = doc.tokens[i]
        j = i + 1
        while j < len(doc) and j - i <= 3 and doc.tokens[j] in _COPULA | _ADVERBS:
            j += 1
        said = [t for t in doc.tokens[j : j + 3] if t in lex.DEHUMANISING or _insult(t)]
        if j > i + 1 and said:
            grade = lex.DEHUMANISING.get(said[0], 3)
            found.append(Finding(Category.HATE, grade, (group, said[0]), "dehumanising a group"))
        before = [k for k in range(max(0, i - 5), i) if lex.DEHUMANISING.get(doc.tokens[k], 0) >= 4]
        linked = any(t in _LIKENED for t in doc.tokens[before[0] : i]) if before else False
        ends = i + 1 >= len(doc) or doc.tokens[i + 1] in _COPULA
        if before and linked and ends:  # "apes, that's what black people are"
            words = (doc.tokens[before[0]], group)
            found.append(Finding(Category.HATE, 4, words, "dehumanising a group"))
        after = doc.tokens[i + 1 : i + 6]
        if "not" in after and any(t in _DENIED_TO for t in after[after.index("not") :]):
            denied = next(t for t in after[after.index("not") :] if t in _DENIED_TO)
            found.append(Finding(Category.HATE, 4, (group, "not", denied), "denying a group's humanity"))
        segregated = i + 1 < len(doc) and doc.tokens[i + 1] == "only" and doc.tokens[i] in _SEGREGATED
        if segregated and doc.has(_SIGNS - {"only"}):
            found.append(Finding(Category.HATE, 3, (group, "only"), "segregating a group"))
        if i > 0 and doc.tokens[i - 1] == "no" and doc.has(_SIGNS):
            found.append(Finding(Category.HATE, 3, ("no", group), "excluding a group"))
        doom = [t for t in doc.tokens[i + 1 : i + 8] if t in _DOOM]
        if doom and any(
            t in ("should", "must", "deserve", "deserves", "need", "will") for t in doc.tokens[i + 1 : i + 8]
        ):
            found.append(Finding(Category.HATE, 4, (group, doom[0]), "wishing a group dead"))
        if (
            i > 0
            and doc.tokens[i - 1] == "no"
            and doc.near(i, {"allowed", "welcome", "here", "wanted"}, 0, 2)
        ):
            found.append(Finding(Category.HATE, 3, ("no", group, "allowed"), "excluding a group"))
        if i > 0 and doc.tokens[i - 1] in _SLURRING:
            found.append(Finding(Category.HATE, 3, (doc.tokens[i - 1], group), "insulting a group"))
        excluded = doc.near(i, lex.EXCLUSION, before=3, after=4)
        if excluded is not None and _excludes(doc, i, excluded):
            found.append(Finding(Category.HATE, 3, (group, doc.tokens[excluded]), "excluding a group"))
        control = doc.near(i, _CONTROL, before=0, after=2)
        if control is not None and doc.near(control, _CONTROLLED, before=0, after=3) is not None:
            found.append(
                Finding(Category.HATE, 3, (group, doc.tokens[control]), "a conspiracy about a group")
            )
        if doc.near(i, {"not_real"}, before=0, after=2) is not None:
            found.append(Finding(Category.HATE, 3, (group, "not_real"), "denying a group's identity"))
        if doc.has({"superior_to"}) and len(_groups(doc)) >= 2:
            found.append(Finding(Category.HATE, 3, (group, "superior_to"), "ranking groups of people"))
        if doc.near(i, {"death"}, before=3, after=0) is not None and "to" in doc.tokens[max(0, i - 3) : i]:
            found.append(Finding(Category.HATE, 4, ("death", "to", group), "calling for a group's death"))
    return found


def _excludes(doc: Doc, group_at: int, at: int) -> bool:
    word = doc.tokens[at]
    if word == "back":
        return doc.near(at, {"go", "send", "sent", "sending", "goes"}, before=4, after=0) is not None
    if word in ("out", "raus"):
        return (
            at == group_at + 1
            or doc.near(at, {"kick", "throw", "get", "keep"}, before=4, after=0) is not None
        )
    if word == "belong":
        return at > group_at
    return True


def _violence_against_groups(doc: Doc, acts: list[Violence]) -> list[Finding]:
    found = [
        Finding(Category.HATE, max(3, a.severity), a.words, "violence against a group")
        for a in acts
        if a.severity >= 2 and (a.victim == "group" or (a.victim == "place" and _worship(a.words)))
    ]
    if not found and doc.has(people.WORSHIP_PLACES):
        found = [
            Finding(Category.HATE, 3, (*a.words, *_hits(doc, people.WORSHIP_PLACES)), "violence at worship")
            for a in acts
            if a.severity >= 3
        ][:1]
    if found:
        return found
    for i in _groups(doc):
        lethal = [j for j in range(max(0, i - 4), min(len(doc), i + 5)) if _done(doc.tokens[j])]
        if lethal:
            words = (doc.tokens[lethal[0]], doc.tokens[i])
            return [Finding(Category.HATE, 3, words, "violence near a group")]
    return found


def _hits(doc: Doc, words: set[str]) -> tuple[str, ...]:
    return tuple(t for t in doc.tokens if t in words)


def _worship(words: tuple[str, ...]) -> bool:
    return any(w in people.WORSHIP_PLACES for w in words)


def _done(token: str) -> bool:
    """A lethal verb in a form that can only be a verb ("burning", "gassed"), not "club" or "bomb"."""
    if lex_violence.VIOLENT_VERBS.get(token, 0) < 3 or token in lex_violence.NEAR_ONLY - {
        "burning",
        "burned",
    }:
        return False
    return token.endswith(("ing", "ed")) or "_" in token


def find(doc: Doc, acts: list[Violence]) -> list[Finding]:
    return _slurs(doc) + _denial(doc) + _about_groups(doc) + _violence_against_groups(doc, acts)
