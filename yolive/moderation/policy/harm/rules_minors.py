"""Minors: a child in a prompt is never a finding by itself; a child with anything sexual or violent is the
hard floor, refused at every level. "girl", "boy", "student" may be adults, so they count a step less.
"""

from __future__ import annotations

from yolive.moderation.policy.harm import people
from yolive.moderation.policy.harm.categories import HARD_FLOOR, Category, Finding
from yolive.moderation.policy.harm.doc import Doc
from yolive.moderation.policy.harm.rules_violence import Violence

_SEXUALISED_MINOR_WORDS = {
    "loli",
    "lolis",
    "lolita",
    "shota",
    "shotas",
    "child_porn",
    "jailbait",
    "lolicon",
    "shotacon",
}
_ABUSERS = {"pedophile", "pedophiles", "paedophile", "paedophiles", "pedo", "pedos", "groomer", "groomers"}
_SUBSTANCES = {"cigarette", "cigarettes", "smoking", "smokes", "beer", "alcohol", "vodka", "whiskey", "wine",
               "drunk", "weed", "cocaine", "heroin", "drugs", "vape", "vaping", "meth", "joint",
               "cigar"}  # fmt: skip
_WEAPONS = {"gun", "guns", "pistol", "rifle", "knife", "knives", "machete", "grenade", "shotgun", "ak47"}
_STRANGERS = {"man", "men", "stranger", "strangers", "uncle", "teacher", "priest", "coach", "adult", "guy",
    "old",
              "stepdad", "stepfather", "stepmom", "stepmother", "stepbrother", "stepsister"}  # fmt: skip
_INTIMATE = {"lap", "bed", "bedroom", "shower", "bath", "touching", "touch", "alone", "undressing", "van",
             "inappropriately", "secret", "motel", "basement", "kissing", "kiss", "kisses", "kissed",
             "dating", "date", "cuddling", "caressing", "grooming", "closet", "naked"}  # fmt: skip
_FAMILY = {"his", "her", "their", "my", "our"}
_ANYONE = {"man", "men", "guy", "adult", "old"}


def find(doc: Doc, sexual: list[Finding], acts: list[Violence], self_harm: list[Finding]) -> list[Finding]:
    minor = doc.has_minor()
    maybe = doc.has_maybe_minor()
    words = tuple(
        doc.tokens[i] for i in range(len(doc)) if doc.kind(i) in ("minor", "maybe_minor", "minor_place")
    )
    found: list[Finding] = []
    if doc.has(_SEXUALISED_MINOR_WORDS):
        hit = tuple(t for t in doc.tokens if t in _SEXUALISED_MINOR_WORDS)
        found.append(Finding(Category.MINORS, HARD_FLOOR, hit, "sexualised minors"))
    if doc.has({"child_abuse"}):
        found.append(Finding(Category.MINORS, 4, ("child_abuse",), "child abuse"))
    if doc.has(_ABUSERS):
        hit = tuple(t for t in doc.tokens if t in _ABUSERS)
        found.append(
            Finding(Category.MINORS, HARD_FLOOR if minor or maybe else 3, hit + words, "child abuse")
        )
    sex = max((f.severity for f in sexual), default=0)
    sex_words = sexual[0].words if sexual else ()
    if sex and minor:
        severity = HARD_FLOOR if sex >= 2 else 4
        found.append(Finding(Category.MINORS, severity, words + sex_words, "minors with sexual content"))
    elif sex >= 2 and maybe:
        severity = HARD_FLOOR if sex >= 3 else 2  # "sexy girl": often a woman, so a moderator looks
        found.append(
            Finding(Category.MINORS, severity, words + sex_words, "maybe minors with sexual content")
        )
    for act in acts:
        if act.severity < 2:
            continue
        if minor or act.victim == "minor":
            found.append(Finding(Category.MINORS, HARD_FLOOR, words + act.words, "minors with violence"))
        elif act.victim in ("maybe_minor", "minor_place"):
            found.append(
                Finding(Category.MINORS, 4, words + act.words, "violence against someone who may be a minor")
            )
    if self_harm and (minor or maybe) and max(f.severity for f in self_harm) >= 2:
        found.append(Finding(Category.MINORS, 4, words + self_harm[0].words, "minors with self-harm"))
    if minor and doc.has(_SUBSTANCES):
        found.append(
            Finding(Category.MINORS, 3, words + _hits(doc, _SUBSTANCES), "minors with drugs or alcohol")
        )
    if minor and doc.has(_WEAPONS):
        found.append(Finding(Category.MINORS, 2, words + _hits(doc, _WEAPONS), "minors with weapons"))
    if (minor or maybe) and doc.has(_INTIMATE) and _with_stranger(doc):
        found.append(
            Finding(Category.MINORS, 3, words + _hits(doc, _INTIMATE), "a minor alone with an adult")
        )
    return found


def _hits(doc: Doc, words: set[str]) -> tuple[str, ...]:
    return tuple(t for t in doc.tokens if t in words)


def _with_stranger(doc: Doc) -> bool:
    # Parents bathing their baby are not strangers; a man with a child on his lap may be.
    own = any(doc.kind(i) in ("minor", "maybe_minor") and i > 0 and doc.tokens[i - 1] in _FAMILY
              for i in range(len(doc)))  # fmt: skip
    strangers = [t for i, t in enumerate(doc.tokens) if t in _STRANGERS and doc.kind(i) != "minor"]
    # "a man kissing his daughter goodnight" is a father; a stepfather or a coach is not excused by "his".
    excused = own and all(t in _ANYONE for t in strangers)
    return bool(strangers) and not excused and not doc.has(people.PARENTS)
