"""Word families: a base word and the forms viewers write it in, so a lexicon lists families, not spellings.

Over-generation is harmless (a form nobody writes never matches); a missing form is a miss, so the rules
are generous: "stab" gives stabs, stabbed, stabbing and the undoubled stabed, stabing.
"""

from __future__ import annotations

from collections.abc import Iterable

_VOWELS = "aeiou"


def verb_forms(base: str, *irregular: str) -> set[str]:
    """A verb's forms: base, -s, -ed, -ing (with and without a doubled last consonant), and irregular ones."""
    forms = {base, *irregular}
    if base.endswith("e"):
        stem = base[:-1]
        forms |= {base + "s", base + "d", stem + "ing", stem + "in"}
    elif base.endswith("y") and len(base) > 2 and base[-2] not in _VOWELS:
        forms |= {base[:-1] + "ies", base[:-1] + "ied", base + "ing", base + "in"}
    else:
        ending = "es" if base.endswith(("s", "sh", "ch", "x", "z")) else "s"
        forms |= {base + ending, base + "ed", base + "ing", base + "in"}  # "shootin"
        if len(base) > 2 and base[-1] not in _VOWELS + "wxy" and base[-2] in _VOWELS:
            forms |= {base + base[-1] + "ed", base + base[-1] + "ing", base + base[-1] + "in"}
    return forms


def noun_forms(base: str, *irregular: str) -> set[str]:
    """A noun and its plural (-s, -es, -ies), plus irregular forms."""
    forms = {base, *irregular}
    if base.endswith(("s", "sh", "ch", "x", "z")):
        forms.add(base + "es")
    elif base.endswith("y") and len(base) > 2 and base[-2] not in _VOWELS:
        forms.add(base[:-1] + "ies")
    else:
        forms.add(base + "s")
    return forms


def families(entries: str | Iterable[str], kind: str = "noun") -> set[str]:
    """Every form of each entry (a list, or one string of them split on white space); "hang|hung" lists
    irregular forms after the base."""
    make = verb_forms if kind == "verb" else noun_forms
    out: set[str] = set()
    for entry in entries.split() if isinstance(entries, str) else entries:
        base, *irregular = entry.split("|")
        out |= make(base, *irregular)
    return out


def graded(table: dict[int, str | Iterable[str]], kind: str = "noun") -> dict[str, int]:
    """{severity: entries} -> {form: severity}; a form listed twice keeps its highest severity."""
    out: dict[str, int] = {}
    for severity, entries in table.items():
        for form in families(entries, kind):
            out[form] = max(severity, out.get(form, 0))
    return out


def stems(token: str) -> list[str]:
    """What an inflected word may come from, most likely first: "creampied" -> creampie, "gangbanged" ->
    gangbang, "fingering" -> finger. The lexicons list base forms; a lookup tries the token, then these."""
    out = []
    for ending, replacement in (("ied", "y"), ("ies", "y"), ("ing", ""), ("ing", "e"), ("ed", ""), ("d", ""),
                                ("es", ""), ("s", ""), ("in", ""), ("z", "s")):  # fmt: skip
        if token.endswith(ending) and len(token) - len(ending) >= 3:
            out.append(token[: len(token) - len(ending)] + replacement)
    for ending in ("ing", "ed", "in"):
        base = token[: -len(ending)]
        if token.endswith(ending) and len(base) >= 4 and base[-1] == base[-2]:
            out.append(base[:-1])  # "stabbed", "stabbing" -> stab
    return out


def lookup(table: dict[str, int], token: str) -> int:
    """A token's grade in a lexicon, through its inflections when the token itself is not listed."""
    if token in table:
        return table[token]
    return next((table[s] for s in stems(token) if s in table), 0)


def wordlist(text: str) -> set[str]:
    """The words of a white-space separated list, as a set."""
    return set(text.split())


def phrases(text: str) -> list[str]:
    """Comma-separated phrases, each with its white space made single."""
    return [" ".join(p.split()) for p in text.split(",") if p.strip()]
