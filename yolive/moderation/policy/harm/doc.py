"""One reading of a prompt as tokens, with the questions every rule asks: who is this word, who is the victim
of this verb, who did it, what else is in the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from yolive.moderation.policy.harm import people

Kind = Literal["minor", "maybe_minor", "group", "person", "animal", "place", "minor_place"]

_AGE = re.compile(r"^(\d{1,2})(?:yo|yrs?|y)?$")
_GRADE = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")  # "7th grade": a school year, a child's age
_GRADES = {"grade", "grades", "grader", "graders"}
_YOUNG = {"little", "young", "lil", "small", "smol", "tiny", "underage", "minor", "teenage", "preteen"}
# Words between a subject and its verb, or a victim and what was done to it: "a kid is being stabbed".
AUXILIARIES = {"is", "are", "was", "were", "be", "been", "being", "gets", "got", "get", "getting", "should",
               "must", "will", "would", "could", "to", "all", "shall", "deserve", "deserves", "need",
               "needs"}  # fmt: skip
CLAUSE_BREAKS = {"and", "while", "but", "then", "after", "before", "as", "when", "because", "so", "or",
    "with",
                 "by", "in", "on", "at", "from", "for", "into", "near", "under", "over"}  # fmt: skip


@dataclass(frozen=True)
class Doc:
    tokens: tuple[str, ...]
    names: frozenset[str] = frozenset()  # words the viewer capitalised mid-sentence: someone's name
    present: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "present", frozenset(self.tokens))

    def __len__(self) -> int:
        return len(self.tokens)

    def has(self, words: Collection[str]) -> bool:
        return not self.present.isdisjoint(words)

    def where(self, words: Collection[str]) -> list[int]:
        return [i for i, t in enumerate(self.tokens) if t in words]

    def near(self, i: int, words: Collection[str], before: int = 3, after: int = 3) -> int | None:
        """The index of the closest of `words` within a window around token i, or None."""
        lo, hi = max(0, i - before), min(len(self.tokens), i + after + 1)
        hits = [j for j in range(lo, hi) if j != i and self.tokens[j] in words]
        return min(hits, key=lambda j: abs(j - i)) if hits else None

    # --- who a word is ---------------------------------------------------------------------------------
    def kind(self, i: int) -> Kind | None:
        token = self.tokens[i]
        before = self.tokens[i - 1] if i > 0 else ""
        after = self.tokens[i + 1] if i + 1 < len(self.tokens) else ""
        if token == "baby" and after in people.ANIMALS:
            return None  # "a baby goat" is a goat
        if token in people.MINORS or (token in ("minors",) and before != "the"):
            return "minor"
        if token in people.MAYBE_MINORS:
            young = before in _YOUNG or before in people.MINOR_PLACES  # "a high school girl"
            return "minor" if young or self.age_at(i) else "maybe_minor"
        if token in people.MINOR_PLACES:
            return "minor_place"
        if token in people.GROUPS or (
            token in people.GROUP_NOUNS_AFTER_ADJECTIVE and before in people.GROUP_ADJECTIVES
        ):
            return "group"
        if token in people.PEOPLE or token in people.PRONOUNS or token in people.CHANNEL_PEOPLE:
            if token == "killer" and after and after not in CLAUSE_BREAKS | AUXILIARIES:
                return None  # "a killer wave", "a killer outfit": an adjective
            return "person"
        if token in people.ANIMALS:
            return "animal"
        if token in people.PLACES_OF_PEOPLE:
            return "minor_place" if before in people.MINOR_PLACES else "place"  # "a school bus"
        if token in self.names:
            return "person"
        return None

    def age_at(self, i: int) -> bool:
        """A number under 18 right by token i ("a girl, 10", "12 year_old girl", "13yo")."""
        return any(self.is_minor_age(j) for j in range(max(0, i - 3), min(len(self.tokens), i + 3)))

    def is_minor_age(self, j: int) -> bool:
        token = self.tokens[j]
        grade = _GRADE.match(token)
        if grade and j + 1 < len(self.tokens) and self.tokens[j + 1] in _GRADES:
            return 0 < int(grade.group(1)) <= 12
        match = _AGE.match(token)
        if not match or (token.isdigit() and not self._age_context(j)):
            return False
        return 0 < int(match.group(1)) < 18

    def _age_context(self, j: int) -> bool:
        window = self.tokens[max(0, j - 2) : j + 3]
        return any(
            t in ("year_old", "years", "year", "age", "aged", "barely", "turned", "turning")
            or t in people.MAYBE_MINORS
            for t in window
        )

    def has_minor(self) -> bool:
        return any(self.kind(i) == "minor" for i in range(len(self))) or any(
            self.is_minor_age(j) for j in range(len(self))
        )

    def has_maybe_minor(self) -> bool:
        return any(self.kind(i) in ("maybe_minor", "minor_place") for i in range(len(self)))

    def has_person(self) -> bool:
        # "i" is the viewer writing, not someone in the picture (and "(1)" reads as "i" once leet is undone).
        kinds = ("minor", "maybe_minor", "group", "person")
        return any(self.kind(i) in kinds and self.tokens[i] != "i" for i in range(len(self)))

    # --- who did what to whom --------------------------------------------------------------------------
    def victim_after(self, i: int, reach: int = 5) -> int | None:
        """The person or animal a verb at i lands on: the first word after it that is not a determiner or
        an adjective, if it is someone; a thing ("a basketball", "the lights") means no victim."""
        j = i + 1
        while j < len(self.tokens) and j - i <= reach:
            token = self.tokens[j]
            if token in people.QUANTITIES and j + 1 < len(self.tokens) and self.tokens[j + 1] == "of":
                j, reach = j + 2, reach + 2  # "a bag of kittens": the kittens
                continue
            kind = self.kind(j)
            if kind is not None:
                following = j + 1 < len(self.tokens) and self.kind(j + 1) is not None
                return j + 1 if following and kind != "minor" else j  # "homeless man" -> man
            if token in people.BODY_PARTS and self.tokens[j - 1] in ("his", "her", "their", "your"):
                return j  # "pop a cap in his head": the owner of the head
            if token not in people.BETWEEN and token != "in":
                return None
            j += 1
        return None

    def victim_before(self, i: int) -> int | None:
        """A victim named before a verb in the passive: "a dog being beaten", "a woman pushed off a cliff"."""
        j = i - 1
        saw_auxiliary = False
        while j >= 0 and i - j <= 4:
            token = self.tokens[j]
            owner_of_body_part = j + 1 < i and self.tokens[j + 1] in people.BODY_PARTS
            if self.kind(j) is not None and not owner_of_body_part:
                if saw_auxiliary or j == i - 1:
                    return j
                return None
            if token in AUXILIARIES or owner_of_body_part or token in people.BODY_PARTS:
                saw_auxiliary = saw_auxiliary or token in AUXILIARIES
            elif token not in people.BETWEEN:
                return None
            j -= 1
        return None

    def subject_before(self, i: int) -> int | None:
        """Who does the verb at i: the nearest person or animal before it in the same clause."""
        for j in range(i - 1, max(-1, i - 6), -1):
            if self.tokens[j] in CLAUSE_BREAKS:
                return None
            if self.kind(j) is not None:
                return j
        return None
