"""The one normaliser of prompt text, in three forms, each built on the one before:

- `shown`: what the viewer wrote, as stored, shown to everyone and fed to the model (composed characters,
  no invisible or control characters, single spaces);
- `normalize`: what the gate compares and the database indexes (the shown form in NFKC, lower case);
- `reading_forms`: what it reads as once the usual evasions are undone, because a filter that only sees the
  literal text is beaten by `f.u.c.k`, `fu\u0441k` (a Cyrillic "es") or `sh1t`.

Invisible characters are removed, never turned into spaces: `f\u200buck` must read as one word.
"""

from __future__ import annotations

import re
import unicodedata

_INVISIBLE = re.compile(
    r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
    r"\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)

# Letters from other scripts that look like Latin ones (NFKC leaves them alone).
_CONFUSABLES = str.maketrans(
    # Cyrillic and Greek lookalikes (escaped so the source stays readable ASCII)
    "\u0430\u0432\u0435\u0451\u043a\u043c\u043d\u043e\u0440\u0441\u0442\u0443\u0445\u0456\u0457\u0458"
    "\u0455\u0501\u0261\u03b1\u03b2\u03b5\u03b9\u03ba\u03bd\u03bf\u03c1\u03c4\u03c5\u03c7",
    "abeekmhopctyxiijsdgabeikvoptux",
)

# Digits and symbols read as letters. Applied only to words that also contain a letter, so "1984" and
# "24/7" stay numbers.
_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
     "@": "a", "$": "s", "!": "i", "|": "l", "+": "t", "€": "e", "£": "l"}
)  # fmt: skip
_LEET_CHARS = "013457 89@$!|+€£".replace(" ", "")
_TOKEN = re.compile(r"\S+")
# Single letters separated by dots, spaces, dashes... ("f.u.c.k", "n a z i") read as one word.
_SPACED_OUT = re.compile(r"\b(?:[a-z](?:[\s.\-_*,]+|$)){3,}")
_REPEATS = re.compile(r"(.)\1{2,}")  # "fuuuuck" -> "fuck"; two letters stay ("good", "balloon")


def shown(text: str) -> str:
    """NFC, no zero-width or control characters (line breaks and other spaces become one space)."""
    text = _INVISIBLE.sub("", unicodedata.normalize("NFC", text))
    text = "".join(ch for ch in text if ch.isspace() or unicodedata.category(ch)[0] != "C")
    return " ".join(text.split())


def normalize(text: str) -> str:
    """The shown form in NFKC (full-width and styled letters become plain ones), lower case."""
    return " ".join(unicodedata.normalize("NFKC", shown(text)).split()).lower()


def _strip_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _deleet_word(word: str) -> str:
    if any(ch.isalpha() for ch in word) and any(ch in _LEET_CHARS for ch in word):
        return word.translate(_LEET)
    return word


def _join_spaced(text: str) -> str:
    return _SPACED_OUT.sub(lambda m: re.sub(r"[^a-z]", "", m.group(0)) + " ", text).strip()


def reading_forms(normalized: str) -> list[str]:
    """The normalized text plus what it reads as once common disguises are undone (distinct, in order)."""
    plain = _strip_marks(normalized).translate(_CONFUSABLES)
    deleeted = _TOKEN.sub(lambda m: _deleet_word(m.group(0)), plain)
    squeezed = _REPEATS.sub(r"\1", deleeted)
    forms = [normalized, plain, deleeted, squeezed, _join_spaced(squeezed)]
    return list(dict.fromkeys(forms))
