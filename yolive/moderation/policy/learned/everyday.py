"""Ordinary viewer prompts, generated: what the learned reader must never take for harm.

The corpus' benign prompts are look-alikes of harm (a kitchen knife, a boxing match); most prompts a viewer
writes are plainer than that ("a fox running in the snow", "a girl reading in the park"). A model that has
seen few plain prompts learns that naming a person is a sign of harm, so these are its counterweight: the
default model's own vocabulary (subjects, settings, motions) in scenes, and people doing ordinary things in
the eight judged languages. Seeded, so the same prompts come out on every machine.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from generation.model_folder import VOCABULARY_FILE

SEED = 45

# Per language: people (singular, so one verb form fits all), what they do, where (everyday.json). Each
# template joins them in the language's own word order; German takes a relative clause, so each person
# carries its pronoun ("ein Mann|der").
PHRASES = json.loads(Path(__file__).with_name("everyday.json").read_text(encoding="utf-8"))
LANGUAGES: tuple[str, ...] = tuple(PHRASES["people"])


def person_doing(language: str, person: str, doing: str, where: str) -> str:
    """One prompt in the language's word order ("where" may be empty)."""
    who, _, pronoun = person.partition("|")
    if language == "de":
        return f"{who}, {pronoun} {where} {doing}".replace("  ", " ")
    if language == "zh":
        return f"{who}{where or '在'}{doing}"
    return " ".join(part for part in (who, doing, where) if part)


def people_prompts(language: str, count: int, rng: random.Random) -> list[str]:
    people, doing = PHRASES["people"][language], PHRASES["doing"][language]
    where = ["", *PHRASES["where"][language]]
    bare = [p.partition("|")[0] for p in people]  # "a man" alone: the failure to beat
    return bare + [
        person_doing(language, rng.choice(people), rng.choice(doing), rng.choice(where)) for _ in range(count)
    ]


def world_prompts(count: int, rng: random.Random) -> list[str]:
    """Scenes of the default model's vocabulary: "a fox jumping in the snow", "a rocket and a whale"."""
    vocabulary = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    subjects = [w for s in vocabulary["subjects"] for w in s["words"]]
    settings = [w for s in vocabulary["settings"] for w in s["words"]]
    motions = [w for s in vocabulary["motions"] for w in s["words"]]
    templates = [
        "a {s} {m} in the {p}",
        "{s} {m}",
        "a {s} and a {t} in the {p}",
        "the {p} with a {s}",
        "a {s} {m} over the {p}",
        "{s} in the {p}",
        "a {s}",
    ]
    return [
        rng.choice(templates).format(
            s=rng.choice(subjects), t=rng.choice(subjects), m=rng.choice(motions), p=rng.choice(settings)
        )
        for _ in range(count)
    ]


def everyday_prompts(seed: int = SEED, per_language: int = 120, world: int = 400) -> list[tuple[str, str]]:
    """(text, language) pairs, the same for the same seed, without repeats."""
    rng = random.Random(seed)
    pairs = [(text, "en") for text in world_prompts(world, rng)]
    for language in LANGUAGES:
        pairs += [(text, language) for text in people_prompts(language, per_language, rng)]
    return list(dict.fromkeys(pairs))
