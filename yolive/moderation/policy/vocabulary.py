"""The words of the judged languages (wordfreq's lists, which ship in its wheel), and what they let the gate
read: whether a prompt's words are words at all, and what a misspelt or reversed word was meant to be.

A troll writes "skul crushd" or "bmob" so that no list of bad words matches; a reader who knows the language
reads "skull crushed" and "bomb". The same lists tell the gate when it cannot read a prompt at all (another
language, a code, keyboard mash): then it holds it rather than approve what it did not understand.
"""

from __future__ import annotations

import unicodedata
from functools import cache

import wordfreq

# Languages whose words are listed (Chinese is read by characters, see harm/concepts).
LISTED = ("en", "es", "fr", "de", "it", "pt", "ru")
WORDS_PER_LANGUAGE = 100_000  # deep enough for inflected forms and place names, shallow enough to skip junk
SPELLING_WORDS = 30_000  # English words a misspelling is read as: the common ones
MIN_SPELLING_LENGTH = 4  # "teh" is read by nobody's rules; "skul" is


def top_n_list(language: str, n: int) -> list[str]:
    """wordfreq's n commonest words; its whole list (millions of words, kept in its caches) is let go."""
    words = wordfreq.top_n_list(language, n)
    wordfreq.get_frequency_list.cache_clear()
    wordfreq.top_n_list.cache_clear()
    return words


@cache
def words_of(language: str) -> frozenset[str]:
    """The language's common words, as written and with accents off (reading forms take accents off)."""
    words = top_n_list(language, WORDS_PER_LANGUAGE)
    if language == "ru":
        return frozenset(words)
    return frozenset(words) | {_unaccented(w) for w in words}


def _unaccented(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch))


# Latin-script languages the gate does not judge whose words wordfreq lists: a prompt whose words one of
# these explains better than the judged languages do is in it ("een kat die op een golf surft").
OTHER_LISTED = ("nl", "sv", "da", "nb", "pl", "cs", "sk", "sl", "hu", "fi", "ro", "tr", "id", "ms", "fil",
                "ca", "lt", "lv", "is", "vi")  # fmt: skip
OTHER_WORDS = 30_000


@cache
def other_words_of(language: str) -> frozenset[str]:
    words = top_n_list(language, OTHER_WORDS)
    return frozenset(words) | {_unaccented(w) for w in words}


def share_known_in_other(words: list[str], language: str) -> float:
    """The share of these words that are words of a language the gate does not judge (0 if not listed)."""
    code = {"no": "nb", "tl": "fil"}.get(language, language)
    if code not in OTHER_LISTED or not words:
        return 0.0
    listed = other_words_of(code)
    return sum(w in listed for w in words) / len(words)


def known(word: str, languages: tuple[str, ...] = LISTED) -> bool:
    """A word of one of these languages (lower case, accents as written)."""
    return any(word in words_of(language) for language in languages if language in LISTED)


@cache
def _spelling_index() -> tuple[dict[str, int], dict[str, str]]:
    """English words by rank, and each word with one letter deleted -> the most common such word."""
    ranked = [
        w for w in top_n_list("en", SPELLING_WORDS) if w.isalpha() and len(w) >= MIN_SPELLING_LENGTH - 1
    ]
    rank = {w: i for i, w in enumerate(ranked)}
    deletions: dict[str, str] = {}
    for word in ranked:
        for i in range(len(word)):
            deletions.setdefault(word[:i] + word[i + 1 :], word)
    return rank, deletions


def respelled(word: str) -> str | None:
    """What an unknown word was meant to be: its reversal ("bmob"), or the most common English word one
    letter away ("skul" -> skull, "crushd" -> crushed, "truk" -> truck); None when it is a word or no guess
    is good."""
    if len(word) < MIN_SPELLING_LENGTH or not word.isalpha() or not word.isascii() or known(word):
        return None
    rank, deletions = _spelling_index()
    swapped = [word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)]
    swapped = [w for w in swapped if w in rank]  # two letters typed the wrong way round: "wiht", "hlep"
    if word in deletions:  # a letter left out: the likeliest slip
        return min([deletions[word], *swapped], key=rank.__getitem__)
    if swapped:
        return min(swapped, key=rank.__getitem__)
    if known(word[::-1]):
        return word[::-1]
    changed, extra = [], []
    for i in range(len(word)):
        shorter = word[:i] + word[i + 1 :]
        if shorter in deletions:
            changed.append(deletions[shorter])
        if shorter in rank and len(shorter) >= MIN_SPELLING_LENGTH:
            extra.append(shorter)
    candidates = changed or extra
    return min(candidates, key=rank.__getitem__) if candidates else None


def warm_up() -> None:
    for language in LISTED:
        words_of(language)
    for language in OTHER_LISTED:
        other_words_of(language)
    _spelling_index()
