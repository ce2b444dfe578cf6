"""Blocked terms from the admin, matched on word boundaries in every reading form of a text.

Word boundaries are what keep "classic", "Scunthorpe" and "assessment" safe from a substring filter; the
reading forms (yolive.moderation.policy.text) are what catch "a$$" and "n.a.z.i".
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from yolive.moderation.models import BlockedTerm

# Terms edited in the admin reach every process (web, conductor) within this many seconds; the winner
# re-check at close always reads them fresh.
TERMS_TTL_S = 5.0


@dataclass(frozen=True)
class TermHit:
    term: str
    action: str  # "reject" or "hold"


@dataclass(frozen=True)
class TermMatcher:
    patterns: tuple[tuple[re.Pattern[str], str], ...]  # (pattern, action), rejects first

    def find(self, forms: list[str]) -> TermHit | None:
        for pattern, action in self.patterns:
            for form in forms:
                found = pattern.search(form)
                if found:
                    return TermHit(found.group("term"), action)
        return None


def term_pattern(terms: list[str]) -> re.Pattern[str]:
    # Longest first so "ku klux klan" wins over "klan"; an optional plural ending; letters or digits on
    # either side mean it is part of another word, so no hit.
    body = "|".join(re.escape(t).replace(r"\ ", r"\s+") for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"(?<![\w])(?P<term>{body})(?:e?s)?(?![\w])")


def build_matcher(rows: list[tuple[str, str]]) -> TermMatcher:
    patterns = []
    for action in ("reject", "hold"):
        terms = [term for term, act in rows if act == action and term]
        if terms:
            patterns.append((term_pattern(terms), action))
    return TermMatcher(tuple(patterns))


_cache: tuple[float, TermMatcher] | None = None


def current_matcher(fresh: bool = False) -> TermMatcher:
    """The active terms, cached briefly per process (pass fresh=True to read the database now)."""
    global _cache
    now = time.monotonic()
    if fresh or _cache is None or now - _cache[0] > TERMS_TTL_S:
        rows = list(BlockedTerm.objects.filter(active=True).values_list("term", "action"))
        _cache = (now, build_matcher(rows))
    return _cache[1]


def forget_cached_terms() -> None:
    global _cache
    _cache = None
