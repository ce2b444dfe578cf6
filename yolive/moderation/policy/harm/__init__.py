"""Harm by category: what a prompt would put on air, judged per kind of harm with the words that show it.

`assess(text)` reads a prompt (undoing disguises, translating common words of other languages) and returns
findings: a category, a severity from 1 (borderline) to 4 (unambiguous), the words that carry it. Severity 5
is the hard floor (anything sexual or violent involving minors): no channel level lets it through.
`categories.decide` turns findings and the channel's levels into allow, hold or refuse.
"""

from yolive.moderation.policy.harm.assess import assess
from yolive.moderation.policy.harm.categories import (
    CATEGORIES,
    DEFAULT_LEVELS,
    Category,
    Finding,
    Outcome,
    decide,
)

__all__ = ["CATEGORIES", "DEFAULT_LEVELS", "Category", "Finding", "Outcome", "assess", "decide"]
