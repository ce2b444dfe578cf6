"""What the default model knows: subjects, settings and motions, each with the words that name it.

This is the model's contract with viewers. `make model` writes it into the model folder as vocabulary.json;
the viewer page highlights the words it lists, and `read_prompt` finds them in a prompt of any length.
Subjects are Noto Color Emoji (Apache-2.0 images, from Debian's fonts-noto-color-emoji).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    name: str
    words: tuple[str, ...]  # the name first, then synonyms; each may be several words ("hot air balloon")
    emoji: str = ""  # subjects only


SUBJECTS = (
    Entry("cat", ("cat", "kitten", "kitty", "cats", "kittens"), "\U0001f431"),
    Entry("dog", ("dog", "puppy", "doggy", "pup", "dogs", "puppies"), "\U0001f436"),
    Entry("fox", ("fox", "foxes"), "\U0001f98a"),
    Entry("frog", ("frog", "toad", "frogs"), "\U0001f438"),
    Entry("pig", ("pig", "piglet", "pigs", "piggy"), "\U0001f437"),
    Entry("panda", ("panda", "pandas"), "\U0001f43c"),
    Entry("monkey", ("monkey", "ape", "monkeys"), "\U0001f435"),
    Entry("chick", ("chick", "chicken", "bird", "birdie", "chicks"), "\U0001f424"),
    Entry("penguin", ("penguin", "penguins"), "\U0001f427"),
    Entry("whale", ("whale", "whales"), "\U0001f433"),
    Entry("octopus", ("octopus", "squid", "octopuses"), "\U0001f419"),
    Entry("crab", ("crab", "crabs", "lobster"), "\U0001f980"),
    Entry("butterfly", ("butterfly", "butterflies", "moth"), "\U0001f98b"),
    Entry("bee", ("bee", "bumblebee", "bees", "wasp"), "\U0001f41d"),
    Entry("turtle", ("turtle", "tortoise", "turtles"), "\U0001f422"),
    Entry("unicorn", ("unicorn", "pony", "horse"), "\U0001f984"),
    Entry("rocket", ("rocket", "spaceship", "rockets"), "\U0001f680"),
    Entry("car", ("car", "automobile", "cars", "racecar"), "\U0001f697"),
    Entry("airplane", ("airplane", "plane", "jet", "aeroplane", "aircraft"), "\u2708\ufe0f"),
    Entry("sailboat", ("sailboat", "boat", "ship", "yacht", "sailing boat"), "\u26f5"),
    Entry("ball", ("ball", "football", "soccer ball", "balls"), "\u26bd"),
    Entry("balloon", ("balloon", "balloons", "hot air balloon"), "\U0001f388"),
    Entry("ghost", ("ghost", "spirit", "ghosts", "phantom"), "\U0001f47b"),
    Entry("robot", ("robot", "android", "robots", "droid"), "\U0001f916"),
)

SETTINGS = (
    Entry("sky", ("sky", "clouds", "cloud", "cloudy", "air", "heaven", "skies")),
    Entry("sea", ("sea", "ocean", "waves", "water", "underwater", "deep sea", "lake")),
    Entry("night", ("night", "stars", "moon", "midnight", "evening", "dark", "starry")),
    Entry("forest", ("forest", "woods", "trees", "jungle", "woodland", "park")),
    Entry("desert", ("desert", "sand", "dunes", "sahara", "dune")),
    Entry("snow", ("snow", "snowy", "winter", "ice", "arctic", "blizzard", "snowfall")),
    Entry("city", ("city", "town", "street", "skyline", "buildings", "downtown", "neon")),
    Entry("space", ("space", "outer space", "galaxy", "planet", "universe", "cosmos", "orbit")),
    Entry("beach", ("beach", "shore", "seaside", "coast", "island")),
)

MOTIONS = (
    Entry("left", ("left", "leftward", "westward", "to the left")),
    Entry("right", ("right", "rightward", "eastward", "to the right", "across")),
    Entry(
        "up", ("up", "upward", "rising", "rises", "rise", "flying up", "launching", "launches", "climbing")
    ),
    Entry("down", ("down", "downward", "falling", "falls", "fall", "sinking", "sinks", "dropping", "diving")),
    Entry("bounce", ("bouncing", "bounce", "bounces", "jumping", "jumps", "jump", "hopping", "hops")),
    Entry("grow", ("growing", "grows", "grow", "getting bigger", "expanding", "zooming in", "approaching")),
    Entry("shrink", ("shrinking", "shrinks", "shrink", "getting smaller", "receding", "vanishing")),
    Entry("spin", ("spinning", "spins", "spin", "twirling", "rotating", "turning", "whirling", "dancing")),
)
# What a prompt that names no setting or no motion gets: a subject gently floating in the sky.
DEFAULT_SETTING = "sky"
DEFAULT_MOTION = "float"
DEFAULT_SUBJECT = "balloon"
MAX_SUBJECTS = 2

_WORD = re.compile(r"[a-z]+")


def _phrases(entries: tuple[Entry, ...]) -> list[tuple[tuple[str, ...], str]]:
    pairs = [(tuple(word.split()), entry.name) for entry in entries for word in entry.words]
    return sorted(pairs, key=lambda pair: -len(pair[0]))  # longest first: "deep sea" before "sea"


_TABLES = {
    kind: _phrases(entries)
    for kind, entries in (("subject", SUBJECTS), ("setting", SETTINGS), ("motion", MOTIONS))
}


@dataclass(frozen=True)
class Match:
    kind: str  # subject | setting | motion
    name: str
    start: int  # character span in the lower-cased prompt
    end: int


def find_words(prompt: str) -> list[Match]:
    """Every known word or phrase in the prompt, in order, read in full whatever its length."""
    text = prompt.lower()
    tokens = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(text)]
    found: list[Match] = []
    i = 0
    while i < len(tokens):
        for kind, table in _TABLES.items():
            hit = _match_at(tokens, i, table)
            if hit:
                length, name = hit
                found.append(Match(kind, name, tokens[i][1], tokens[i + length - 1][2]))
                i += length
                break
        else:
            i += 1
    return found


def _match_at(
    tokens: list[tuple[str, int, int]], i: int, table: list[tuple[tuple[str, ...], str]]
) -> tuple[int, str] | None:
    for phrase, name in table:
        if tuple(token for token, _, _ in tokens[i : i + len(phrase)]) == phrase:
            return len(phrase), name
    return None


@dataclass(frozen=True)
class Reading:
    """What the model will draw for a prompt: known subjects (at most two), one setting, one motion."""

    subjects: tuple[str, ...]
    setting: str
    motion: str


def read_prompt(prompt: str) -> Reading:
    subjects: list[str] = []
    setting = motion = ""
    for match in find_words(prompt):
        if match.kind == "subject" and match.name not in subjects and len(subjects) < MAX_SUBJECTS:
            subjects.append(match.name)
        elif match.kind == "setting" and not setting:
            setting = match.name
        elif match.kind == "motion" and not motion:
            motion = match.name
    return Reading(
        tuple(subjects) or (DEFAULT_SUBJECT,), setting or DEFAULT_SETTING, motion or DEFAULT_MOTION
    )


def as_json() -> dict[str, object]:
    """The vocabulary file's content: the page highlights these words; the model folder ships it."""

    def listing(entries: tuple[Entry, ...]) -> list[dict[str, object]]:
        return [
            {"name": e.name, "words": list(e.words), **({"emoji": e.emoji} if e.emoji else {})}
            for e in entries
        ]

    return {
        "subjects": listing(SUBJECTS),
        "settings": listing(SETTINGS),
        "motions": listing(MOTIONS),
        "defaults": {"subject": DEFAULT_SUBJECT, "setting": DEFAULT_SETTING, "motion": DEFAULT_MOTION},
        "max_subjects": MAX_SUBJECTS,
    }
