"""The categories of harm, their levels (Twitch AutoMod's 0 to 4), how a level turns findings into a decision.

A finding's severity says how sure and how bad: 1 borderline (a violent word with no victim, a bikini),
2 suggestive or mild (a punch thrown at a person, "sexy" about a person), 3 clear harm (a person shot, nudity,
a stereotype about a group),
    4 unambiguous and severe (a slur, explicit sex, a massacre). At level L a category
holds what reaches severity 5 - L and refuses what reaches max(6 - L, 3): level 0 is off, level 1 holds only
the worst, level 3 holds the suggestive and refuses clear harm, level 4 also holds the borderline.
Severity 5 (minors with anything sexual or violent) is refused at every level, 0 included.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class Category(StrEnum):
    HATE = "hate"
    SEXUAL = "sexual"
    HOSTILITY = "hostility"
    PROFANITY = "profanity"
    VIOLENCE = "violence"
    SELF_HARM = "self_harm"
    MINORS = "minors"
    WEAPONS = "weapons"
    DRUGS = "drugs"
    PERSONAL = "personal"
    EXTREMISM = "extremism"
    LANGUAGE = "language"

    @property
    def label(self) -> str:
        return LABELS[self]


LABELS = {
    Category.HATE: "discrimination and hate",
    Category.SEXUAL: "sexual content",
    Category.HOSTILITY: "hostility and harassment",
    Category.PROFANITY: "profanity",
    Category.VIOLENCE: "violence",
    Category.SELF_HARM: "self-harm",
    Category.MINORS: "minors",
    Category.WEAPONS: "weapons instructions",
    Category.DRUGS: "drugs instructions",
    Category.PERSONAL: "a real person",
    Category.EXTREMISM: "violent extremism",
    Category.LANGUAGE: "unread language",
}

# What each category covers, for the panel (the moderator sets a level against this).
DESCRIPTIONS = {
    Category.HATE: "slurs, hate symbols, dehumanising or violent talk about a group of people",
    Category.SEXUAL: "nudity, sex acts, sexual body parts, suggestive posing",
    Category.HOSTILITY: "insults, threats and harassment aimed at someone, 'kys'",
    Category.PROFANITY: "swearing, in English and common words of other languages",
    Category.VIOLENCE: "harm done to people or animals: killing, wounding, torture, gore",
    Category.SELF_HARM: "suicide, self-injury, eating-disorder promotion",
    Category.MINORS: "children with anything sexual, violent, drugs or weapons",
    Category.WEAPONS: "how to make, convert, print or buy weapons, explosives and poison gas",
    Category.DRUGS: "how to make, grow or buy hard drugs; hard drugs shown",
    Category.PERSONAL: "harassment of a real person; personal data: addresses, phone numbers, handles, names",
    Category.EXTREMISM: "terrorist recruitment, praise of attacks, coded extremist slogans",
    Category.LANGUAGE: "a language the gate does not judge, or words it cannot read: a moderator reads it",
}

CATEGORIES: tuple[Category, ...] = tuple(Category)
MIN_LEVEL, MAX_LEVEL = 0, 4
HARD_FLOOR = 5  # severity no level lets through

# The defaults hold suggestive content and refuse clear harm in every category (level 3). Profanity and
# hostility sit there too: whatever wins is captioned on air for everyone.
DEFAULT_LEVELS: dict[Category, int] = {category: 3 for category in CATEGORIES}

LEVEL_NAMES = {0: "off", 1: "minimal", 2: "some", 3: "more", 4: "most"}

Decision = Literal["allow", "hold", "reject"]


@dataclass(frozen=True)
class Finding:
    category: Category
    severity: int  # 1 to 5, see the module docstring
    words: tuple[str, ...]  # as read (disguises undone), in prompt order
    why: str = ""  # the pattern, for the reason: "violence against an animal"

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", tuple(dict.fromkeys(self.words)))

    def describe(self) -> str:
        words = ", ".join(f'"{w}"' for w in self.words)
        what = self.why or self.category.label
        return f"{what} ({words})" if words else what


@dataclass(frozen=True)
class Outcome:
    decision: Decision
    deciding: tuple[Finding, ...]  # the findings that held or refused it, worst first


def hold_at(level: int) -> int:
    return HARD_FLOOR if level <= MIN_LEVEL else 5 - level


def refuse_at(level: int) -> int:
    return HARD_FLOOR if level <= MIN_LEVEL else max(6 - level, 3)


def action(finding: Finding, level: int) -> Decision:
    if finding.severity >= HARD_FLOOR or finding.severity >= refuse_at(level):
        return "reject"
    if finding.severity >= hold_at(level):
        return "hold"
    return "allow"


def decide(findings: list[Finding], levels: dict[Category, int]) -> Outcome:
    """The strictest action any finding earns at its category's level, with the findings that earn it."""
    rank = {"allow": 0, "hold": 1, "reject": 2}
    acted = [(action(f, levels.get(f.category, DEFAULT_LEVELS[f.category])), f) for f in findings]
    worst: Decision = max((a for a, _ in acted), key=rank.__getitem__, default="allow")
    if worst == "allow":
        return Outcome("allow", ())
    deciding = sorted((f for a, f in acted if a == worst), key=lambda f: -f.severity)
    return Outcome(worst, tuple(deciding))


def check_level(value: object) -> int:
    """A level from a form: an int 0 to 4, else ValueError with a message a moderator can act on."""
    try:
        level = int(str(value).strip())
    except ValueError:
        raise ValueError(f"a level is a whole number from {MIN_LEVEL} to {MAX_LEVEL}") from None
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        raise ValueError(f"a level is a whole number from {MIN_LEVEL} to {MAX_LEVEL}")
    return level
