"""The moderation gate: one judgement for submissions, house prompts and winners at close.

Every path that can put words on air goes through here, fallbacks included (a fallback that skipped the
safety check is how "Nothing, Forever" got banned).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from yolive.voting.models import Prompt

Decision = Literal["allow", "hold", "reject"]

_INVISIBLE = re.compile(r"[\u200b-\u200f\u2060-\u2064\ufeff]")
_SPACES = re.compile(r"\s+")
_BLOCKED = ("nazi", "porn")  # placeholder list until the blocked-terms table exists


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    reason: str = ""
    normalized: str = ""

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"


def normalize(text: str) -> str:
    """NFKC, lower case, no zero-width or control characters, single spaces."""
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text)
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" or ch in "\t\n ")
    return _SPACES.sub(" ", text).strip().lower()


def judge(text: str) -> Verdict:
    """Judge a submission or a house prompt."""
    normalized = normalize(text)
    for term in _BLOCKED:
        if re.search(rf"\b{re.escape(term)}\b", normalized):
            return Verdict("reject", f"contains a blocked term ({term})", normalized)
    return Verdict("allow", "", normalized)


def judge_winner(prompt: Prompt) -> Verdict:
    """Re-check a round's winner at close, with everything learned since it was submitted."""
    return judge(prompt.text)
