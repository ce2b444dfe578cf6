"""Which language a prompt is in, and whether the gate can judge it.

The gate judges the eight languages it has words for (`JUDGED`). A prompt in another language or script, or
whose words are mostly not words of any judged language, is held for a moderator: the gate cannot say it is
harmless, and a held prompt costs a moderator a click where an aired one costs the channel.

Scripts are read from Unicode; the language among those written in Latin or Cyrillic letters by py3langid
(langid.py's naive Bayes model over byte n-grams, shipped in its wheel), and the share of words the gate
knows from wordfreq's lists (vocabulary.py).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any

from yolive.moderation.policy import vocabulary

JUDGED = ("en", "es", "fr", "de", "it", "pt", "ru", "zh")
NAMES = {"en": "English", "es": "Spanish", "fr": "French", "de": "German", "it": "Italian",
         "pt": "Portuguese", "ru": "Russian", "zh": "Chinese"}  # fmt: skip
# Scripts the judged languages are written in; letters of any other script are another language.
JUDGED_SCRIPTS = {"LATIN", "CYRILLIC", "CJK"}
# Letters of another script from which a prompt is held even if most of it is in a judged language: a
# request in Arabic after an English sentence is still unread.
FOREIGN_LETTERS_TO_HOLD = 4
# Cyrillic languages other than Russian that langid tells apart from it.
OTHER_CYRILLIC = {"uk", "bg", "mk", "sr", "be", "kk", "ky", "mn", "tg"}
UKRAINIAN_LETTERS = set("\u0456\u0457\u0454\u0491")
# A prompt of at least this many words, most of them unknown to every judged language, is not read.
MIN_WORDS_TO_JUDGE_READABILITY = 2
READABLE_AT_LEAST = 0.5
# This many words in a row that no judged language knows are another language, whatever the rest is in.
UNKNOWN_RUN_TO_HOLD = 3
MIN_UNKNOWN_LENGTH = 3  # "ze", "di": too short to say which language they are
# A prompt langid puts in another language, of this many words, fewer than this share of them words of
# English or of the judged languages it may be in: another language sharing a few words with them.
MIN_WORDS_FOR_LANGUAGE = 3
READABLE_IN_ITS_LANGUAGE = 0.75
# langid this sure the prompt is in other languages, over this many words of which one at least is no word
# of the languages it may be in, is right whatever other words it shares with ours.
SURE_OF_OTHER_LANGUAGE, MIN_WORDS_FOR_SURE = 0.9, 4
# Another language that langid gives this much belief, among its first RIVALS, and whose word list
# explains this much more of the prompt than the judged languages it may be in do.
RIVAL_AT, RIVALS, BETTER_EXPLAINED_BY = 0.05, 5, 0.2
OTHER_LANGUAGE_AT = 0.8  # langid's confidence that Cyrillic text is not Russian
# A judged language counts as one the prompt may be in from this share of langid's belief among them.
CANDIDATE_AT = 0.15
MAX_WORDS_SHOWN = 3
_WORDS = re.compile(r"[^\W\d_]{2,}")
_ANY_WORD = re.compile(r"[^\W\d_]+")
# Words that only one judged language (or a few close ones) writes: two of them in a prompt langid puts in
# another judged language are a clause in this one ("a cute puppy in a park y luego lo ..."), so its concepts
# are read too. Letters of a judged script other than the prompt's do the same (Cyrillic after English).
SWITCH_MARKERS = {
    "es": {"y", "luego", "lo", "los", "las", "del", "pero", "porque", "despues", "entonces", "mientras",
           "una", "el", "muy", "esta", "este", "con", "le", "les", "se"},
    "fr": {"et", "puis", "une", "les", "des", "sur", "avec", "se", "fait", "il", "elle", "dans", "pour",
           "qui", "est", "ensuite", "pendant", "du", "au"},
    "de": {"dann", "und", "er", "sie", "alle", "mit", "den", "dem", "ein", "eine", "einen", "einem", "ist",
           "auf", "wie", "wird", "nicht", "danach", "der", "das", "im"},
    "it": {"e", "poi", "gli", "della", "sono", "tutti", "il", "lo", "mentre", "che", "una", "dopo", "con",
           "nel", "nella", "dei", "alla", "non", "si", "viene"},
    "pt": {"e", "depois", "uma", "com", "os", "ela", "ele", "entao", "nao", "na", "da", "dos", "das", "em",
           "enquanto", "sua", "seu"},
}  # fmt: skip
SWITCH_MARKERS_NEEDED = 2
SWITCH_LETTERS = 4  # letters of another judged script from which its language is read too
# Romanised Hindi and Urdu (no judged language): three of these words in a prompt are that language.
ROMANISED_HINDI = {"hai", "hain", "ko", "ki", "ka", "ke", "nahi", "nahin", "raha", "rahi", "rahe", "mein",
                   "aur", "apni", "apna", "apne", "ek", "kya", "tha", "thi", "karo", "kar", "wala", "wali",
                   "aadmi", "aurat", "biwi", "bacha", "bachi", "usko", "isko", "mujhe", "tujhe", "jala",
                   "maar", "maaro", "zinda"}  # fmt: skip
ROMANISED_HINDI_NEEDED = 4


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-1, or a script's name where no language is known
    judged: bool
    candidates: tuple[str, ...] = ()  # judged languages the prompt may be in, likeliest first
    why: str = ""  # why it is not judged
    words: tuple[str, ...] = ()  # the words that show it


@cache
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier  # loading takes half a second

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _scripts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for ch in text:
        if ch.isalpha():
            name = unicodedata.name(ch, "?").split(" ", 1)[0]
            counts[name] = counts.get(name, 0) + 1
    return counts


def _candidates(ranked: list[tuple[str, float]]) -> tuple[str, ...]:
    judged = [(code, p) for code, p in ranked if code in JUDGED]
    total = sum(p for _, p in judged) or 1.0
    return tuple(code for code, p in judged if p / total >= CANDIDATE_AT)[:3]


def identify(plain: str) -> Language:
    """The language of a prompt, from its reading form with lookalike letters undone."""
    scripts = _scripts(plain)
    letters = sum(scripts.values())
    if not letters:
        return Language("none", True, ("en",))
    words = tuple(_WORDS.findall(plain))[:MAX_WORDS_SHOWN]
    kana = scripts.get("HIRAGANA", 0) + scripts.get("KATAKANA", 0)
    if kana or scripts.get("HANGUL"):
        code = "ja" if kana else "ko"
        return Language(code, False, why=f"written in {'Japanese' if kana else 'Korean'}", words=words)
    foreign = {s: n for s, n in scripts.items() if s not in JUDGED_SCRIPTS}
    if foreign and (sum(foreign.values()) * 3 >= letters or sum(foreign.values()) >= FOREIGN_LETTERS_TO_HOLD):
        script = max(foreign, key=foreign.__getitem__).title()
        return Language(script.lower(), False, why=f"written in {script} letters", words=words)
    if scripts.get("CJK", 0) * 2 >= letters:
        return Language("zh", True, ("zh", "en"))
    ranked = _identifier().rank(plain)
    top, confidence = ranked[0]
    candidates = tuple(dict.fromkeys(("en", *_candidates(ranked))))
    every_word = _ANY_WORD.findall(plain)
    all_words = _WORDS.findall(plain)
    hindi = set(every_word) & ROMANISED_HINDI
    if len(hindi) >= ROMANISED_HINDI_NEEDED:
        return Language("hi", False, why="written in a language the gate does not judge (hi)", words=words)
    if scripts.get("CYRILLIC", 0) * 2 >= letters:
        if UKRAINIAN_LETTERS & set(plain) or (top in OTHER_CYRILLIC and confidence >= OTHER_LANGUAGE_AT):
            code = top if top in OTHER_CYRILLIC else "uk"
            return Language(code, False, why="written in a Cyrillic language other than Russian", words=words)
        top, candidates = "ru", ("ru", "en")
    misspelt = [vocabulary.respelled(w) or w for w in all_words]  # "skul crushd" is read, so readable
    if len(all_words) >= MIN_WORDS_TO_JUDGE_READABILITY and _readable(misspelt) < READABLE_AT_LEAST:
        unknown = tuple(w for w in all_words if not vocabulary.known(w))[:MAX_WORDS_SHOWN]
        return Language(top, False, why="mostly words the gate cannot read", words=unknown)
    run = _unknown_run(all_words)
    if len(run) >= UNKNOWN_RUN_TO_HOLD:
        return Language(top, False, why="words in a row the gate cannot read", words=run[:MAX_WORDS_SHOWN])
    enough = len(all_words) >= MIN_WORDS_FOR_LANGUAGE
    readable = _readable(misspelt, candidates) if enough else 1.0
    other = top not in JUDGED and readable < READABLE_IN_ITS_LANGUAGE
    # langid's belief spread over other languages (Indonesian and Malay, Danish and Norwegian) counts whole.
    elsewhere = sum(p for code, p in ranked if code not in JUDGED) if top != "ru" else 0.0
    sure = elsewhere >= SURE_OF_OTHER_LANGUAGE and len(all_words) >= MIN_WORDS_FOR_SURE and readable < 1.0
    rival = _best_other(ranked, all_words)
    as_written = _readable(all_words, candidates) if enough else 1.0
    if other or sure or (rival and rival[1] >= as_written + BETTER_EXPLAINED_BY):
        code = rival[0] if rival and not (other or sure) else top
        return Language(
            code, False, why=f"written in a language the gate does not judge ({code})", words=words
        )
    switched = _switched_into(set(every_word), scripts, candidates)
    return Language(top if top in JUDGED else candidates[-1], True, (*candidates, *switched))


def _switched_into(words: set[str], scripts: dict[str, int], candidates: tuple[str, ...]) -> tuple[str, ...]:
    """Judged languages a clause of the prompt switches into, besides those it is read in."""
    found = [
        code
        for code, markers in SWITCH_MARKERS.items()
        if code not in candidates and len(words & markers) >= SWITCH_MARKERS_NEEDED
    ]
    if scripts.get("CYRILLIC", 0) >= SWITCH_LETTERS and "ru" not in candidates:
        found.append("ru")
    if scripts.get("CJK", 0) >= 2 and "zh" not in candidates:
        found.append("zh")
    return tuple(found)


def _unknown_run(words: list[str]) -> tuple[str, ...]:
    """The longest run of words in a row that no judged language knows as written (respelling reads too
    much into a foreign word: Turkish "kedi" is no misspelt "edit"): another language after a frame in
    ours ("write a story where the hero kedi g\u00fcne\u015fte uyuyor")."""
    longest: tuple[str, ...] = ()
    run: list[str] = []
    for word in words:
        if vocabulary.known(word) or len(word) < MIN_UNKNOWN_LENGTH:
            run = []
            continue
        run.append(word)
        longest = max(longest, tuple(run), key=len)
    return longest


def _best_other(ranked: list[tuple[str, float]], words: list[str]) -> tuple[str, float] | None:
    """The unjudged language langid gives some belief to whose words explain the prompt best, and how well."""
    if len(words) < MIN_WORDS_FOR_LANGUAGE:
        return None
    shares = [
        (code, vocabulary.share_known_in_other(words, code))
        for code, p in ranked[:RIVALS]
        if code not in JUDGED and p >= RIVAL_AT
    ]
    return max(shares, key=lambda s: s[1], default=None)


def _readable(words: list[str], languages: tuple[str, ...] = vocabulary.LISTED) -> float:
    """The share of words that are words of these languages or that the gate's concepts know."""
    from yolive.moderation.policy.harm.concepts import knows

    return sum(vocabulary.known(w, languages) or knows(w) for w in words) / len(words)
