"""From a reading form of a prompt to the token stream the rules read.

Steps, each undoing one way viewers write around a filter or one way English says a thing in two words:
1. words (an apostrophe's "s" dropped, accents stripped), 2. letters spelled out one by one joined and split
into words again ("c h i l d p o r n" -> child porn), 3. a star standing for letters filled in ("f*ck"),
4. slang and contractions expanded, 5. common words of other languages translated, 6. multi-word units and
harmless compounds made one token each (longest first).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from yolive.moderation.policy.harm import (
    lexicon_hate,
    lexicon_sexual,
    lexicon_speech,
    lexicon_violence,
    people,
)
from yolive.moderation.policy.harm.compounds import BENIGN_COMPOUNDS
from yolive.moderation.policy.harm.languages import FOREIGN, FOREIGN_AFTER_FOREIGN, FOREIGN_PHRASES
from yolive.moderation.policy.harm.phrases import CONTRACTIONS, UNITS

_WORD = re.compile(r"[\w*']+")
# A match score in any judged language ("we lost 7-0", "won 3:1", "6 zu 0", "5 à 0", "零比五") is a sport,
# whatever the verbs around it say; a number "to" a number of pills, people or years is no score.
SCORE = re.compile(
    r"\b\d{1,3}\s?[-:\u2013]\s?\d{1,3}\b(?![-:/.]\d)"
    r"|\b\d{1,3} (?:to|nil|-nil|a|à|zu|x) (?:\d{1,3}|nil)\b(?! ?(?:times|years?|yrs|months?|weeks?|days?|"
    r"hours?|minutes?|mins?|seconds?|pills?|tablets?|mg|ml|grams?|g|kg|people|men|women|kids|children|"
    r"años|anni|anos|ans|jahre|jahren|uhr|heures|horas|ore|meses|mois|monate|mesi|lat|лет|года?)\b)"
    r"|\bby \d{1,3} (?:points|goals|runs|wickets|strokes)\b"
    r"|[\d零一二三四五六七八九十]比[\d零一二三四五六七八九十]"
)
# Emoji that stand for a word in chat: an ape for a person is dehumanising, a peach and droplets are sexual.
EMOJI = {
    "\U0001f98d": "ape", "\U0001f412": "monkey", "\U0001f435": "monkey", "\U0001f648": "monkey",
    "\U0001f400": "rat", "\U0001f401": "rat", "\U0001f437": "pig", "\U0001f416": "pig",
    "\U0001fab3": "cockroach", "\U0001f346": "eggplantemoji", "\U0001f351": "peachemoji",
    "\U0001f4a6": "dropletsemoji", "\U0001f445": "tongueemoji", "\U0001f52a": "knife",
    "\U0001f5e1": "knife", "\U0001f52b": "gun", "\U0001f4a3": "bomb", "\U0001fa78": "blood",
    "\U0001f480": "skullemoji", "\u2620": "skullemoji", "\U0001faa2": "noose",
    "\U0001f467": "girl", "\U0001f466": "boy", "\U0001f9d2": "child", "\U0001f476": "baby",
    "\U0001f475": "old woman", "\U0001f474": "old man", "\U0001f469": "woman", "\U0001f468": "man",
    "\U0001f436": "dog", "\U0001f415": "dog", "\U0001f431": "cat", "\U0001f408": "cat",
    "\U0001f6c1": "bath", "\U0001f48a": "pills", "\U0001f489": "syringe", "\U0001fa93": "axe",
    "\U0001f9e8": "explosive", "\U0001f525": "fire", "\U0001f9e8\ufe0f": "explosive",
    "\U0001f4a5": "blast", "\U0001f9e0": "brains", "\u2744": "snowflakeemoji", "\u26a1": "lightningemoji",
    "\U0001f50c": "plug", "\U0001f344": "shrooms",
}  # fmt: skip
EMOJI["\U0001f48a"] = "pills pillsemoji"  # a pill is a dose, and in a dealer's message a drug
_EMOJI = re.compile("|".join(map(re.escape, EMOJI)))
# A knife or a gun before whom it is used on is the verb: "\U0001f52a the old woman", "\U0001f52b him".
_OBJECT = r"(?=\s*(?:the|a|an|his|her|my|your|their|this|that|him|them|you|me|us)\b)"
_EMOJI_VERBS = (
    (re.compile(f"[\U0001f52a\U0001f5e1]{_OBJECT}"), " stab "),
    (re.compile(f"\U0001f52b{_OBJECT}"), " shoot "),
)


def emoji_as_words(form: str) -> str:
    """Emoji used as words written as the words (what the concepts of every language read too)."""
    for emoji, verb in _EMOJI_VERBS:
        form = emoji.sub(verb, form)
    return _EMOJI.sub(lambda m: f" {EMOJI[m.group(0)]} ", form)


_FUNCTION_WORDS = {"a", "i", "the", "to", "my", "me", "you", "his", "her", "in", "on", "up", "of", "and"}
MAX_PHRASE = 6


def _plain(token: str) -> str:
    token = token.replace("ß", "ss")
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@cache
def vocabulary() -> frozenset[str]:
    """Every word some rule knows: what spelled-out letters and starred words are matched against."""
    words: set[str] = set(_FUNCTION_WORDS)
    for module in (lexicon_hate, lexicon_sexual, lexicon_speech, lexicon_violence, people):
        for value in vars(module).values():
            if isinstance(value, dict | set | frozenset):
                words |= {w for w in value if isinstance(w, str) and w.isalpha()}
    words |= set(CONTRACTIONS) | {w for w in FOREIGN if w.isalpha()}
    return frozenset(words)


@cache
def _starred() -> dict[str, str]:
    # "f*ck" and "f**k" -> "fuck": every known word with one or two neighbouring letters starred.
    out: dict[str, str] = {}
    # Swearing first: "sh*t" is far more often "shit" than "shot".
    for word in sorted(vocabulary(), key=lambda w: (w not in lexicon_speech.PROFANE, len(w), w)):
        if len(word) < 3:
            continue
        for i in range(1, len(word)):
            out.setdefault(word[:i] + "*" + word[i + 1 :], word)
            if i + 2 <= len(word):
                out.setdefault(word[:i] + "**" + word[i + 2 :], word)
    return out


def _segment(letters: str) -> list[str]:
    """Split joined letters into known words, fewest words first; unsplittable letters stay one word."""
    known = vocabulary()
    best: list[list[str] | None] = [[]] + [None] * len(letters)
    for end in range(1, len(letters) + 1):
        for start in range(max(0, end - 20), end):
            head, piece = best[start], letters[start:end]
            shorter = best[end] is None or len(head or ()) + 1 < len(best[end] or ())
            if head is not None and piece in known and shorter:
                best[end] = [*head, piece]
    return best[-1] or [letters]


def _join_single_letters(tokens: list[str]) -> list[str]:
    out: list[str] = []
    run: list[str] = []
    for token in [*tokens, ""]:
        if len(token) == 1 and token.isalpha():
            run.append(token)
            continue
        if len(run) >= 3:
            out += _segment("".join(run))
        else:
            out += run
        run = []
        if token:
            out.append(token)
    return out


def _words(form: str) -> list[str]:
    words = []
    for raw in _WORD.findall(form):
        for part in raw.split("_"):
            part = part.strip("'")
            if part.endswith("'s"):
                part = part[:-2]
            part = _plain(part).replace("'", "") if part not in CONTRACTIONS else part
            if part.strip("*"):
                words.append(part)
    return words


def _unstar(token: str) -> str:
    return _starred().get(token, token.replace("*", "")) if "*" in token else token


def _translate(tokens: list[str]) -> list[str]:
    out: list[str] = []
    foreign_before = False
    i = 0
    while i < len(tokens):
        for size in (4, 3, 2):
            phrase = tuple(tokens[i : i + size])
            if phrase in FOREIGN_PHRASES:
                out += FOREIGN_PHRASES[phrase]
                i += size
                foreign_before = True
                break
        else:
            token = tokens[i]
            if token in FOREIGN:
                out += FOREIGN[token]
                foreign_before = True
            elif foreign_before and token in FOREIGN_AFTER_FOREIGN:
                out += FOREIGN_AFTER_FOREIGN[token]
            else:
                out.append(token)
                foreign_before = False
            i += 1
    return out


@cache
def _phrase_table() -> dict[tuple[str, ...], str]:
    table = dict(UNITS)
    for compound in BENIGN_COMPOUNDS:
        words = tuple(_words(compound.replace("-", " ")))
        table[words] = "~" + "_".join(words)  # "~": a harmless compound no rule knows
    return table


def _merge_units(tokens: list[str]) -> list[str]:
    table = _phrase_table()
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for size in range(min(MAX_PHRASE, len(tokens) - i), 1, -1):
            unit = table.get(tuple(tokens[i : i + size]))
            if unit is not None:
                out += unit.split(" ")  # "ran him over" -> run_over him
                i += size
                break
        else:
            single = table.get((tokens[i],))
            out.append(single if single is not None else tokens[i])
            i += 1
    return out


def read(form: str) -> tuple[str, ...]:
    """The token stream of one reading form."""
    form = emoji_as_words(SCORE.sub(" scoreline ", form))
    tokens = _join_single_letters(_words(form))
    expanded: list[str] = []
    for token in tokens:
        token = _unstar(token)
        expanded += CONTRACTIONS.get(token, (token,))
    return tuple(_merge_units(_translate(expanded)))
