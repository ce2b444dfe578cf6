"""The labelled corpus the gate is built and measured on, split into train, dev and test.

The prompts live in this folder as TSV files (text, label, category, language, disguise). On top of the
written prompts, a seeded share of them is disguised the ways trolls disguise words (`disguises.py`); a
disguised copy lands in the split of the prompt it was made from, so the test split never holds a thinly
veiled copy of a training prompt.

How the splits came to be: the written prompts were split once by a seed (`SEED`) into train (45 %), dev
(20 %) and test (35 %). That test split was scored once, as it was (commit d5827dc), and then built against,
so it is dev now. So are the later test splits, each written after the one before had been scored and scored
once as written before any change made for it: `scored_once_second.tsv` (commit 1e81d83),
`scored_once_third.tsv` (c8e2c94) and `scored_once_fourth.tsv` (ee2275c; docs/moderation.md gives every
first score). `test.tsv`, the test split, holds two lists written by people who never saw the gate or the
corpus: the fifth, written after the fourth's misses had been fixed and scored once at commit c84f6dd, and
the sixth, scored once at commit 1a976d3. `rules_built_with.tsv` (the earlier evaluation set) was in view
while the rules were written, so it is training data only.

The test split is read by the evaluation command (`python -m yolive.moderation.policy.evaluate`) and nothing
else: build with train and dev.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Literal

from yolive.moderation.policy.corpus.disguises import disguise_of

CORPUS_DIR = Path(__file__).parent
SEED = 45  # fixed once: changing it reshuffles the test split, which then is no longer unseen
SEEN_ONLY = "rules_built_with.tsv"
TEST_ONLY = "test.tsv"
# Test splits once, dev since they were scored and built against.
SCORED_ONCE = ("scored_once_second.tsv", "scored_once_third.tsv", "scored_once_fourth.tsv")
Split = Literal["train", "dev", "test"]
# Shares of the written prompts per split, out of 100.
TRAIN_SHARE, DEV_SHARE = 45, 20
HARMFUL, BENIGN = "harmful", "benign"
JUDGED_LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "ru", "zh")


class CorpusError(ValueError):
    """A line of the corpus that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class Example:
    text: str
    label: str  # harmful or benign
    category: str  # the harm a moderator would name first; for benign prompts, the topic
    language: str  # ISO 639-1
    disguise: str  # plain, or how it is disguised (spaced, homoglyph, frame, ...)
    split: Split = "train"
    source: str = ""  # the file it comes from
    disguise_of: str = ""  # for a copy disguised by disguises.py, the written prompt it was made from

    @property
    def harmful(self) -> bool:
        return self.label == HARMFUL

    @property
    def judged(self) -> bool:
        return self.language in JUDGED_LANGUAGES


def seeded_split(text: str) -> Split:
    """Where the seed put a written prompt (its "test" is the first test split, dev since it was scored)."""
    bucket = int(hashlib.sha256(f"{SEED}:{text}".encode()).hexdigest(), 16) % 100
    if bucket < TRAIN_SHARE:
        return "train"
    return "dev" if bucket < TRAIN_SHARE + DEV_SHARE else "test"


def split_of(text: str, source: str) -> Split:
    if source == SEEN_ONLY:
        return "train"
    if source == TEST_ONLY:
        return "test"
    if source in SCORED_ONCE:
        return "dev"
    seeded = seeded_split(text)
    return "dev" if seeded == "test" else seeded


def read_file(path: Path) -> list[Example]:
    examples = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 5 or not parts[0].strip():
            raise CorpusError(f"{path.name}:{number}: expected text, label, category, language, disguise")
        if parts[1] not in (HARMFUL, BENIGN):
            raise CorpusError(f"{path.name}:{number}: unknown label {parts[1]!r}")
        text, label, category, language, disguise = parts
        split = split_of(text, path.name)
        examples.append(Example(text, label, category, language, disguise, split, path.name))
    return examples


def with_disguises(written: list[Example]) -> list[Example]:
    """The written prompts, and after each one its disguised copy where the seed picks one."""
    out = []
    for example in written:
        out.append(example)
        if example.source == SEEN_ONLY:
            continue
        disguised = disguise_of(example.text, example.language, example.harmful, SEED)
        if disguised is not None:
            how, text = disguised
            out.append(replace(example, text=text, disguise=how, disguise_of=example.text))
    return out


@cache
def load(directory: Path = CORPUS_DIR) -> tuple[Example, ...]:
    written = [e for path in sorted(directory.glob("*.tsv")) for e in read_file(path)]
    return tuple(with_disguises(written))


def split(name: Split, directory: Path = CORPUS_DIR) -> list[Example]:
    return [e for e in load(directory) if e.split == name]
