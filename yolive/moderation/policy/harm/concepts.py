"""Concepts of harm in each judged language: which words of a prompt are a child, a group, a drug, a request
for how to make something, a word of killing... (the files in concepts/, described in concepts/README.md).

`find(forms, languages)` returns, per kind, the words of the prompt that carry it; `rules_concepts` says which
kinds together are which harm. Latin and Cyrillic text is matched word by word (a term's `*` matches any
ending), Chinese character by character.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

CONCEPTS_DIR = Path(__file__).with_name("concepts")
LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "ru", "zh")
MIN_STEM = 3  # a shorter stem would match half the language
MAX_PHRASE = 6
GAP, MAX_GAP = "...", 5
_WORD = re.compile(r"[^\W_]+")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff0-9a-z]+")
_BETWEEN_HAN = re.compile(r"(?<=[\u3400-\u9fff])[\s\u200b-\u200f.\-_*,\uff0c]+(?=[\u3400-\u9fff])")


@dataclass
class Lexicon:
    phrases: dict[tuple[str, ...], set[str]] = field(default_factory=dict)  # exact words in a row -> kinds
    stems: dict[tuple[str, ...], set[str]] = field(default_factory=dict)  # words, then a stem -> kinds
    characters: dict[str, set[str]] = field(default_factory=dict)  # Chinese terms -> kinds
    starts: set[str] = field(default_factory=set)  # first words of terms of several words
    # "zieht ... aus": words, then others within MAX_GAP words (a verb and its particle or its object)
    gapped: dict[str, list[tuple[tuple[str, ...], tuple[str, ...], str]]] = field(default_factory=dict)

    def add(self, term: str, kind: str, chinese: bool) -> None:
        if chinese:
            self.characters.setdefault(term, set()).add(kind)
            return
        if GAP in term:
            before, after = (tuple(_WORD.findall(part)) for part in term.split(GAP, 1))
            if not before or not after:
                raise ValueError(f"concept {term!r} needs words on both sides of {GAP!r}")
            self.gapped.setdefault(before[0], []).append((before, after, kind))
            return
        words = tuple(_WORD.findall(term.replace("*", "STEMMARK")))
        if len(words) > 1:
            self.starts.add(words[0])
        if words and words[-1].endswith("STEMMARK"):
            stem = words[-1].removesuffix("STEMMARK")
            if len(stem) < MIN_STEM:
                raise ValueError(f"concept stem {term!r} is shorter than {MIN_STEM} letters")
            self.stems.setdefault((*words[:-1], stem), set()).add(kind)
        elif words:
            self.phrases.setdefault(words, set()).add(kind)


def _plain(term: str) -> str:
    from yolive.moderation.policy.text import normalize, plain

    return plain(normalize(term))


@cache
def lexicon(language: str) -> Lexicon:
    found = Lexicon()
    path = CONCEPTS_DIR / f"{language}.txt"
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        kind, sep, terms = line.partition(":")
        if not sep:
            raise ValueError(f"{path.name}:{number}: expected 'kind: term, term'")
        for term in (t.strip() for t in terms.split(",")):
            if term:
                found.add(term if language == "zh" else _plain(term), kind.strip(), language == "zh")
    return found


Hits = dict[str, list[str]]  # kind -> the words that carry it, in prompt order


@lru_cache(maxsize=65536)
def _kinds_of_word(language: str, word: str) -> tuple[str, ...]:
    """The kinds one word carries on its own: as a whole word or by a stem it starts with."""
    lex = lexicon(language)
    kinds = set(lex.phrases.get((word,), ()))
    for end in range(MIN_STEM, len(word) + 1):
        kinds |= lex.stems.get((word[:end],), set())
    return tuple(sorted(kinds))


def knows(word: str) -> bool:
    """Whether some judged language's concepts hold this word (as read: lower case, accents off)."""
    from yolive.moderation.policy.text import plain

    read = plain(word)
    return any(_kinds_of_word(language, read) for language in LANGUAGES if language != "zh")


def _match_words(tokens: list[str], language: str, hits: Hits) -> None:
    lex = lexicon(language)
    for i, token in enumerate(tokens):
        for kind in _kinds_of_word(language, token):
            hits.setdefault(kind, []).append(token)
        for before, after, kind in lex.gapped.get(token, ()):
            if _gapped_match(tokens, i, before, after):
                hits.setdefault(kind, []).append(f"{' '.join(before)} ... {' '.join(after)}")
        if token not in lex.starts:
            continue
        for size in range(2, min(MAX_PHRASE, len(tokens) - i) + 1):
            words = tuple(tokens[i : i + size])
            for kind in lex.phrases.get(words, ()):
                hits.setdefault(kind, []).append(" ".join(words))
            last = words[-1]
            for end in range(MIN_STEM, len(last) + 1):
                for kind in lex.stems.get((*words[:-1], last[:end]), ()):
                    hits.setdefault(kind, []).append(" ".join(words))


def _gapped_match(tokens: list[str], i: int, before: tuple[str, ...], after: tuple[str, ...]) -> bool:
    if tuple(tokens[i : i + len(before)]) != before:
        return False
    start = i + len(before)
    for j in range(start, min(len(tokens), start + MAX_GAP + 1)):
        if tuple(tokens[j : j + len(after)]) == after:
            return True
    return False


def _match_characters(text: str, lex: Lexicon, hits: Hits) -> None:
    text = _BETWEEN_HAN.sub("", text)
    longest = max((len(t) for t in lex.characters), default=0)
    for run in _HAN.findall(text):
        for i in range(len(run)):
            for size in range(1, min(longest, len(run) - i) + 1):
                for kind in lex.characters.get(run[i : i + size], ()):
                    hits.setdefault(kind, []).append(run[i : i + size])


# An age under 18 in any judged language, in digits or words: "de 12 años", "seis años", "neuf ans",
# "zehn Jahre", "12 лет", "12岁" (accents are off in the reading forms).
_UNDER_18 = (
    r"1[0-7]|[1-9]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince|"
    r"dieciseis|diecisiete|deux|trois|quatre|cinq|sept|huit|neuf|dix|onze|douze|treize|quatorze|quinze|"
    r"seize|zwei|drei|vier|funf|sechs|sieben|acht|neun|zehn|elf|zwolf|dreizehn|vierzehn|funfzehn|"
    r"sechzehn|siebzehn|due|quattro|cinque|sette|otto|nove|dieci|undici|dodici|tredici|quattordici|"
    r"quindici|sedici|diciassette|dois|quatro|oito|dez|doze|treze|catorze|dezesseis|dezessete"
)
_AGE = re.compile(
    rf"\b(?:{_UNDER_18})[\s-]*(?:years?|yrs?)[\s-]*old\b|\b(?:[1-9]|1[0-7])\s*yo\b"  # a 12-year-old
    rf"|\b(?:de|di|da|com|con) (?:{_UNDER_18}) (?:anos|anni|ans)\b"  # una niña de seis años, de neuf ans
    rf"|\b(?:{_UNDER_18})[\s-]*(?:jahre alt|jahrige\w*|jahrig)"  # zehn Jahre alt, zehnjährig
    r"|\b(?:[1-9]|1[0-7])\s*(?:лет|года?)\b|(?:[1-9]|1[0-7]|[一二三四五六七八九十]|十[一二三四五六七])\s*岁"
)


def find(forms: Iterable[str], languages: Iterable[str]) -> Hits:
    """Every concept any of these languages' lexicons finds in any reading form of a prompt."""
    hits: Hits = {}
    forms = list(forms)
    for form in forms:
        for match in _AGE.finditer(form):
            hits.setdefault("minor", []).append(match.group(0))
    for language in dict.fromkeys(languages):
        if language not in LANGUAGES:
            continue
        lex = lexicon(language)
        for form in forms:
            if language == "zh":
                _match_characters(form, lex, hits)
            else:
                _match_words(_WORD.findall(form), language, hits)
    return {kind: list(dict.fromkeys(words)) for kind, words in hits.items()}
