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

# Letters from other scripts that look like Latin ones (NFKC leaves them alone), and Latin small capitals.
_LOOKALIKE_LATIN = dict(
    zip(
        # Cyrillic, Greek, Armenian and small capitals (escaped so the source stays readable ASCII)
        "\u0430\u0432\u0435\u0451\u043a\u043c\u043d\u043e\u0440\u0441\u0442\u0443\u0445\u0456\u0457\u0458"
        "\u0455\u0501\u0261\u044c\u043f\u0433\u03b1\u03b2\u03b5\u03b9\u03ba\u03bd\u03bf\u03c1\u03c4\u03c5"
        "\u03c7\u03b7\u03c9\u0585\u057d\u0570\u0578\u0581\u1d00\u0299\u1d04\u1d05\u1d07\ua730\u0262"
        "\u029c\u026a\u1d0a\u1d0b\u029f\u1d0d\u0274\u1d0f\u1d18\u0280\ua731\u1d1b\u1d1c\u1d20\u1d21"
        "\u028f\u1d22",
        "abeekmhopctyxiijsdgbnraβeikvoptuxnwouhngabcdefghijklmnoprstuvwyz".replace("β", "b"),
        strict=True,
    )
)
_LOOKALIKE_CYRILLIC = {
    latin: cyrillic
    for latin, cyrillic in zip(
        "aeopcxykmhtb",
        "\u0430\u0435\u043e\u0440\u0441\u0445\u0443\u043a\u043c\u043d\u0442\u0432",
        strict=True,
    )
}
_LETTERS = re.compile(r"[^\W\d_]+")

# Digits and symbols read as letters. Applied only to words that also contain a letter, so "1984" and
# "24/7" stay numbers.
_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
     "@": "a", "$": "s", "!": "i", "|": "l", "+": "t", "€": "e", "£": "l"}
)  # fmt: skip
_LEET_CHARS = "013457 89@$!|+€£".replace(" ", "")
_TOKEN = re.compile(r"\S+")
# Punctuation inside a word ("fen-ta-nyl", "b.o.m.b", "c_o_k_e", "k*i*l*l") read as nothing.
_INSIDE_WORD = re.compile(r"(?<=[^\W\d_])(?:[^\w\s]|_)+(?=[^\W\d_])")
_INSIDE_WORD_BUT_HYPHENS = re.compile(r"(?<=[^\W\d_])(?:[^\w\s'\u2019-]|_)+(?=[^\W\d_])")
# Regional indicator symbols (flag letters) spell words too.
_FLAG_LETTERS = {0x1F1E6 + i: chr(ord("a") + i) for i in range(26)}
# Three letters or more, each after the same separator: "s_e_t_t_i_n_g a dog" is "setting" and "a" a word.
_SPACED_OUT = re.compile(r"(?<![a-z])[a-z]([\s.\-_*,]+)(?:[a-z]\1)+[a-z](?![a-z])")
# Digits spelled one by one ("1 4 8 8") read as the number.
_SPACED_DIGITS = re.compile(r"(?<![\w.])(?:\d[\s._\-]+){3,}\d(?![\w.])")
_REPEATS = re.compile(r"(.)\1{2,}")  # "fuuuuck" -> "fuck"; two letters stay ("good", "balloon")


def shown(text: str) -> str:
    """NFC, no zero-width or control characters (line breaks and other spaces become one space)."""
    text = _INVISIBLE.sub("", unicodedata.normalize("NFC", text))
    text = "".join(ch for ch in text if ch.isspace() or unicodedata.category(ch)[0] != "C")
    return " ".join(text.split())


def normalize(text: str) -> str:
    """The shown form in NFKC (full-width and styled letters become plain ones), lower case."""
    return " ".join(unicodedata.normalize("NFKC", shown(text)).split()).lower()


def _script(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return name.split(" ", 1)[0] if name else ""


def _unmix(word: str) -> str:
    """A word that mixes scripts ("b\u043emb", "\u0441\u0436e\u0447\u044c") in the script most of its
    letters are in."""
    if word.isascii():
        return word
    scripts = [_script(ch) for ch in word]
    if len(set(scripts)) < 2 and scripts[0] != "LATIN":
        return word
    latin = sum(s == "LATIN" for s in scripts)
    if latin * 2 >= len(word):
        return "".join(_LOOKALIKE_LATIN.get(ch, ch) for ch in word)
    if scripts.count("CYRILLIC") * 2 > len(word):
        return "".join(_LOOKALIKE_CYRILLIC.get(ch, ch) for ch in word)
    return word


def _strip_marks(text: str) -> str:
    """Accents off Latin letters ("niña" -> nina); Cyrillic "й" and "ё" are letters of their own."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(
        ch for i, ch in enumerate(decomposed)
        if not unicodedata.combining(ch) or (i and not decomposed[i - 1].isascii())
    )  # fmt: skip
    return unicodedata.normalize("NFC", kept)


def unmixed(normalized: str) -> str:
    """The normalized text with each word that mixes scripts written in one (accents kept); in Latin text,
    a word made only of lookalike letters ("\u0455\u0435\u0445\u0443") is read in Latin too."""
    text = _LETTERS.sub(lambda m: _unmix(m.group(0)), normalized)
    letters = [ch for ch in text if ch.isalpha()]
    if sum(ch.isascii() for ch in letters) * 2 > len(letters):
        text = _LETTERS.sub(lambda m: _as_latin(m.group(0)), text)
    return text


def _as_latin(word: str) -> str:
    if word.isascii() or not all(ch in _LOOKALIKE_LATIN for ch in word):
        return word
    return "".join(_LOOKALIKE_LATIN[ch] for ch in word)


def latin_cased(text: str) -> str:
    """The text as written (case kept) with lookalike letters read as Latin where `unmixed` reads them so:
    what tells a capitalised name or place ("D\u0456ck", "K\u0456ll") from a word."""
    if text.isascii():
        return text
    letters = [ch for ch in text if ch.isalpha()]
    latin = sum(ch.isascii() for ch in letters) * 2 > len(letters)

    def cased(word: str) -> str:
        lower = word.lower()
        read = _unmix(lower)
        if latin and read == lower:
            read = _as_latin(lower)
        if read == lower or len(read) != len(word):
            return word
        return "".join(r.upper() if w.isupper() else r for w, r in zip(word, read, strict=True))

    return _LETTERS.sub(lambda m: cased(m.group(0)), text)


def _deleet_word(word: str) -> str:
    if any(ch.isalpha() for ch in word) and any(ch in _LEET_CHARS for ch in word):
        return word.translate(_LEET)
    return word


def _join_spaced(text: str) -> str:
    return _SPACED_OUT.sub(lambda m: re.sub(r"[^a-z]", "", m.group(0)), text)


def _respell(text: str) -> str:
    from yolive.moderation.policy.vocabulary import respelled

    return _LETTERS.sub(lambda m: respelled(m.group(0)) or m.group(0), text)


def _undisguised(text: str) -> list[str]:
    text = _SPACED_DIGITS.sub(lambda m: re.sub(r"\D", "", m.group(0)), text)
    deleeted = _TOKEN.sub(lambda m: _deleet_word(m.group(0)), text)
    squeezed = _REPEATS.sub(r"\1", deleeted)
    joined = _join_spaced(squeezed)
    unbroken = _INSIDE_WORD.sub("", joined)
    return [deleeted, squeezed, joined, unbroken, _respell(unbroken)]


def reading_forms(normalized: str) -> list[str]:
    """The normalized text plus what it reads as once common disguises are undone (distinct, in order):
    accents and lookalike letters, leetspeak, stretched letters, spaced-out letters, punctuation inside words,
    and misspelt or reversed words read as the word meant."""
    read = plain(normalized)
    return list(dict.fromkeys([normalized, read, *_undisguised(read)]))


def plain(normalized: str) -> str:
    """Accents off Latin letters, lookalike letters in their word's script."""
    return _strip_marks(unmixed(normalized)).replace("\u00df", "ss").translate(_FLAG_LETTERS)


def meaning_form(normalized: str) -> str:
    """The text undisguised and respelled as in the reading forms, accents and lookalike letters' scripts
    kept as the language writes them: what a reader of whole sentences reads (it knows "niño", not "nino")."""
    return _undisguised(unmixed(normalized))[-1]


def language_form(normalized: str) -> str:
    """The text undisguised as in the reading forms, accents kept, but not respelled and with hyphens and
    apostrophes left between words: what its language is told from (respelling would read Dutch "een" as
    English "seen", and "murder-mystery" is two words of English, not one of no language)."""
    joined = _undisguised(unmixed(normalized))[2]
    return _INSIDE_WORD_BUT_HYPHENS.sub("", joined)
