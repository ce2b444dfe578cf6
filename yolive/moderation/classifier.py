"""The offline profanity classifier: alt-profanity-check, a linear SVM whose model ships in its wheel.

It scores profanity, not intent ("remove yourself from the planet" scores low), which is why blocked terms
and moderators stay in the loop.
"""

from __future__ import annotations

from functools import cache
from typing import Protocol


class Scorer(Protocol):
    def __call__(self, texts: list[str]) -> list[float]: ...


@cache
def _predict_prob() -> Scorer:
    # Imported on first use: loading scikit-learn and the model takes a second or two.
    from profanity_check import predict_prob

    def score(texts: list[str]) -> list[float]:
        return [float(p) for p in predict_prob(texts)]

    return score


def profanity_score(forms: list[str]) -> float:
    """The highest probability over the reading forms of one text (0 = clean, 1 = profane)."""
    forms = [f for f in forms if f]
    if not forms:
        return 0.0
    return max(_predict_prob()(forms))


def warm_up() -> None:
    """Load the model now (a process that judges on a deadline calls this at start)."""
    profanity_score(["warm up"])
