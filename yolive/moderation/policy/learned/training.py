"""What the learned reader is trained on, and the reader the gate uses, trained when the process starts.

The train and dev splits of the corpus in the judged languages (a harmful prompt labelled with its category,
a benign one "benign"), and the everyday prompts (everyday.py), each weighed as three: most prompts viewers
write are that plain, and a model short of them takes any prompt naming a person for harm. Never the test
split: it stays the forecast for prompts nobody has seen.

Trained at start rather than shipped as weights: it takes a few seconds in the gate's background warm-up,
there is no file of numbers to review or to fall out of step with the corpus, and the same code and data
give the same model (seeded, one solver, no sampling).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from yolive.moderation.policy import corpus
from yolive.moderation.policy.learned.everyday import everyday_prompts
from yolive.moderation.policy.learned.reader import BENIGN, LearnedReader, fit

EVERYDAY_WEIGHT = 3.0
# Inverse regularisation of the logistic regression: cross-validated among 1 and 4 (crossval.py).
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


def train(examples: Sequence[corpus.Example]) -> LearnedReader:
    data = of_examples(examples).plus(everyday())
    return fit(data.texts, data.labels, data.weights, C)


@cache
def shipped() -> LearnedReader:
    """The gate's reader: trained once per process, on first use (gate.warm_up does it in the background)."""
    return train(corpus_examples())
