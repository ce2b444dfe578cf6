"""The channel's level per category of harm, as the gate reads it: from the database, cached briefly."""

from __future__ import annotations

import time

from yolive.moderation.models import CategoryLevel
from yolive.moderation.policy.harm.categories import CATEGORIES, DEFAULT_LEVELS, Category
from yolive.moderation.policy.terms import TERMS_TTL_S

_cache: tuple[float, dict[Category, int]] | None = None


def current_levels(fresh: bool = False) -> dict[Category, int]:
    """Every category's level (the default where none is set); fresh=True reads the database now."""
    global _cache
    now = time.monotonic()
    if fresh or _cache is None or now - _cache[0] > TERMS_TTL_S:
        levels = dict(DEFAULT_LEVELS)
        for category, level in CategoryLevel.objects.values_list("category", "level"):
            if category in CATEGORIES:
                levels[Category(category)] = level
        _cache = (now, levels)
    return dict(_cache[1])


def forget_cached_levels() -> None:
    global _cache
    _cache = None
