"""Captions: the many ways a viewer might ask for a Scene, from a grammar over the vocabulary's words.

The Scene is always what `read_prompt` makes of the caption, so what the model is taught to draw for a
caption is exactly what the page promises for the same words. Some captions leave out the setting, the
motion or even the subject, so the model learns the defaults the vocabulary names.
"""

from __future__ import annotations

import numpy as np

from lab.world.clips import Scene
from lab.world.vocabulary import DEFAULT_MOTION, MOTIONS, SETTINGS, SUBJECTS, Entry, read_prompt

ADJECTIVES = ("", "", "", "little", "big", "happy", "cute", "tiny", "giant", "funny", "brave", "shiny", "old")
ARTICLES = ("a", "the", "one", "a", "a")
SETTING_FORMS = ("in the {}", "on the {}", "over the {}", "at the {}", "through the {}", "in a {}", "{}")
MOTION_FORMS = ("{}", "{}", "is {}", "keeps {}", "slowly {}", "{} around")
FILLERS = ("", "", "", "at dawn", "all day", "very fast", "so slowly", "again and again", "in the story")
TEMPLATES = (
    "{subject} {motion} {setting}",
    "{subject} {setting} {motion}",
    "{setting} {subject} {motion}",
    "{subject} {motion} {setting} {filler}",
    "{subject} {motion}",
    "{subject} {setting}",
    "{setting}",
    "{motion} {subject}",
)
# Words a caption may use that name nothing (they still reach the text encoder, which learns to ignore them).
GRAMMAR_WORDS = sorted(
    {
        w
        for group in (ADJECTIVES, ARTICLES, SETTING_FORMS, MOTION_FORMS, FILLERS)
        for phrase in group
        for w in phrase.replace("{}", "").split()
    }
    | {"and", "with", "while"}
)


def _word(entry: Entry, rng: np.random.Generator) -> str:
    return str(entry.words[0] if rng.random() < 0.4 else rng.choice(entry.words))


def caption(
    rng: np.random.Generator, subjects: tuple[str, ...] = (), setting: str = "", motion: str = ""
) -> str:
    """A caption naming these (or randomly chosen) subjects, setting and motion, in a random phrasing."""
    by_name = {e.name: e for e in (*SUBJECTS, *SETTINGS, *MOTIONS)}
    if not subjects:
        count = 2 if rng.random() < 0.2 else 1
        subjects = tuple(str(s) for s in rng.choice([e.name for e in SUBJECTS], count, replace=False))
    setting = setting or str(rng.choice([e.name for e in SETTINGS]))
    motion = motion or str(rng.choice([e.name for e in MOTIONS]))

    def noun(name: str) -> str:
        adjective = str(rng.choice(ADJECTIVES))
        return " ".join(w for w in (str(rng.choice(ARTICLES)), adjective, _word(by_name[name], rng)) if w)

    subject_text = " and ".join(noun(s) for s in subjects)
    setting_text = str(rng.choice(SETTING_FORMS)).format(_word(by_name[setting], rng))
    templates: tuple[str, ...] = TEMPLATES
    if motion == DEFAULT_MOTION:  # named by no word: the caption leaves the motion out
        templates = tuple(t for t in TEMPLATES if "{motion}" not in t)
        motion_text = ""
    else:
        motion_text = str(rng.choice(MOTION_FORMS)).format(_word(by_name[motion], rng))
    template = str(rng.choice(templates))
    text = template.format(
        subject=subject_text, motion=motion_text, setting=setting_text, filler=str(rng.choice(FILLERS))
    )
    return " ".join(text.split())


def scene_for(text: str, seed: int) -> Scene:
    reading = read_prompt(text)
    return Scene(reading.subjects, reading.setting, reading.motion, seed)
