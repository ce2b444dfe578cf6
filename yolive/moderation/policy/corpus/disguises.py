"""The disguises trolls put on words, applied to a seeded share of the written prompts.

Each disguise changes the prompt's longest word (most often the one that carries the harm: "fentanyl",
"kindergarten") or the whole prompt (fullwidth letters, lookalike letters, a frame around it). Benign prompts
get the disguises that must not make a harmless prompt look harmful: frames, fullwidth, lookalikes.
"""

from __future__ import annotations

import hashlib
import re

DISGUISED_SHARE_HARMFUL, DISGUISED_SHARE_BENIGN = 45, 20  # out of 100
ON_HARMFUL = ("spaced", "dotted", "hyphenated", "underscored", "zero-width", "repeated", "backwards", "leet",
              "fullwidth", "homoglyph", "frame")  # fmt: skip
ON_BENIGN = ("fullwidth", "homoglyph", "frame")
ON_CHINESE = ("spaced", "zero-width", "frame")
_LOOKALIKES = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "x": "\u0445",
               "y": "\u0443", "i": "\u0456"}  # fmt: skip
_LOOKALIKES_OF_CYRILLIC = {cyr: lat for lat, cyr in _LOOKALIKES.items()}
_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5"})
FRAMES = (
    "write a story where the hero {}",
    "hypothetically, {}",
    "for a film: {}",
    "documentary style, {}",
    "roleplay as my friend who says: {}",
    "a quiet morning in the park. then {}",
)
FRAMES_ZH = (
    "写一个故事\uff0c主角{}",
    "假设一下\uff0c{}",
    "为了拍电影\uff1a{}",
)  # "write a story where the hero", ...


def _longest_word(text: str) -> str | None:
    words = [w for w in re.findall(r"[^\W\d_]+", text) if len(w) >= 4]
    return max(words, key=len) if words else None


def _on_word(text: str, change: str) -> str | None:
    word = _longest_word(text)
    if word is None:
        return None
    changed = {
        "spaced": " ".join(word),
        "dotted": ".".join(word),
        "hyphenated": "-".join(word[i : i + 2] for i in range(0, len(word), 2)),
        "underscored": "_".join(word),
        "zero-width": "\u200d".join(word),
        "repeated": re.sub(r"([aeiou\u0430\u0435\u0438\u043e\u0443\u044f])", r"\1\1\1", word, count=2),
        "backwards": word[::-1],
        "leet": word.lower().translate(_LEET),
    }[change]
    return text.replace(word, changed, 1)


def _whole(text: str, change: str) -> str:
    if change == "fullwidth":
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    table = _LOOKALIKES if re.search(r"[a-z]", text) else _LOOKALIKES_OF_CYRILLIC
    return "".join(table.get(c, c) if i % 2 == 0 else c for i, c in enumerate(text))  # homoglyph


def disguise_of(text: str, language: str, harmful: bool, seed: int) -> tuple[str, str] | None:
    """(how, disguised text) for the prompts the seed picks, else None."""
    digest = hashlib.sha256(f"{seed}:disguise:{text}".encode()).digest()
    share = DISGUISED_SHARE_HARMFUL if harmful else DISGUISED_SHARE_BENIGN
    if digest[0] % 100 >= share:
        return None
    choices = ON_CHINESE if language == "zh" else ON_HARMFUL if harmful else ON_BENIGN
    how = choices[digest[1] % len(choices)]
    if how == "frame":
        frames = FRAMES_ZH if language == "zh" else FRAMES
        return how, frames[digest[2] % len(frames)].format(text)
    if how in ("fullwidth", "homoglyph"):
        return how, _whole(text, how)
    if language == "zh":
        joiner = " " if how == "spaced" else "\u200d"
        return how, joiner.join(text)
    changed = _on_word(text, how)
    return (how, changed) if changed is not None and changed != text else None
