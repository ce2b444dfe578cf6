"""Personal data in a prompt: a phone number, an e-mail or street address, a social handle. A caption on air
is read by everyone; none of these may be one, so each holds the prompt for a moderator, and with harm aimed
at the person it is refused.
"""

from __future__ import annotations

import re

from yolive.moderation.policy.harm.categories import Category, Finding

# Chinese is written without spaces: a number right after a character ("手机号13800000000") is still one.
_PHONE = re.compile(r"(?<![A-Za-z0-9_/.:])\+?\(?\d[\d\s().-]{7,18}\d(?![A-Za-z0-9_/.:])")
MIN_PHONE_DIGITS, MAX_PHONE_DIGITS = 9, 15  # shorter runs are years, scores and prices
# Not a phone number: a decimal ("3.14159265") or a large number in groups of three ("100 000 000").
_NUMBER = re.compile(r"\d+[.,]\d+|\d{1,3}(?:[\s,.]\d{3})+")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[a-z]{2,}\b", re.IGNORECASE)
_HANDLE = re.compile(r"(?<![\w@])@[a-z0-9_][a-z0-9_.]{2,29}", re.IGNORECASE)
_STREET = (
    r"street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|way|close|court|ct|crescent|place"
    r"|terrace"
)
_ADDRESS = re.compile(
    rf"\b\d{{1,5}}[a-z]?,?\s+(?:[^\W\d_][\w'-]*\s+){{1,3}}(?:{_STREET})\b"  # 42 Oak Street
    r"|\b\d{1,4},?\s+(?:rue|avenue|boulevard|chemin|impasse|via|viale|rua|calle|avenida)\s+\w+"  # 8 rue
    r"|\b(?:calle|rue|via|viale|rua|avenida|av\.|улиц[аеы]|ул\.)\s+(?:[^\W\d_][\w'-]*\s+){1,4}\d{1,4}\b"
    r"|\b[^\W\d_]+(?:stra(?:ss|ß)e|str\.|gasse|weg|allee|platz)\s+\d{1,4}\b"  # Gartenstraße 5
    r"|[\u4e00-\u9fff]{1,6}(?:路|街|大道|巷)\d{1,5}号",
    re.IGNORECASE,
)


def _phones(text: str) -> list[str]:
    found = []
    for match in _PHONE.finditer(text):
        digits = sum(ch.isdigit() for ch in match.group(0))
        if MIN_PHONE_DIGITS <= digits <= MAX_PHONE_DIGITS and not _NUMBER.fullmatch(match.group(0).strip()):
            found.append(match.group(0).strip())
    return found


def find(text: str) -> list[Finding]:
    """What personal data the prompt, as written, shows (severity 2: held)."""
    data = [*_phones(text), *_EMAIL.findall(text), *_HANDLE.findall(text), *_ADDRESS.findall(text)]
    data = [d.strip() for d in data if d.strip()]
    if not data:
        return []
    return [Finding(Category.PERSONAL, 2, tuple(data), "personal data")]
