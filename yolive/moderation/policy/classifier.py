"""The offline profanity classifier: alt-profanity-check, a linear SVM whose model ships in its wheel.

It scores profanity, not intent ("remove yourself from the planet" scores low) and misfires on harmless words
("a naked mole rat" scores 0.97), which is why the gate weighs it as one signal among the categories.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any, Protocol

import numpy as np


class Scorer(Protocol):
    def __call__(self, texts: list[str]) -> list[float]: ...


PROBES = ["a cat surfing a wave", "fuck you all", "a naked mole rat", "shoot a basketball", "sh1t happens"]


def _calibrated_svm(vectorizer: Any, model: Any) -> Scorer:
    """The model's own probability, computed in one small product per text instead of five estimator calls.

    The model is a CalibratedClassifierCV of linear SVMs with sigmoid calibration over a TF-IDF of words; its
    probability is the mean over folds of 1 / (1 + exp(a * (w.x + b) + c)). scikit-learn's predict_proba
    takes about 15 ms a call on a busy machine, mostly per-fold overhead, and even the vectorizer's transform
    a third of a millisecond; the TF-IDF of a prompt's few words, built here from the vectorizer's own
    analyzer, vocabulary and weights, takes a few microseconds.
    """
    folds = model.calibrated_classifiers_
    weights = np.vstack([f.estimator.coef_[0] for f in folds]).T
    intercepts = np.array([f.estimator.intercept_[0] for f in folds])
    slopes = np.array([f.calibrators[0].a_ for f in folds])
    offsets = np.array([f.calibrators[0].b_ for f in folds])
    analyzer, vocabulary, idf = vectorizer.build_analyzer(), vectorizer.vocabulary_, vectorizer.idf_
    if vectorizer.sublinear_tf or vectorizer.norm != "l2" or not vectorizer.use_idf:
        raise ValueError("a vectorizer of another kind")

    def margins(text: str) -> np.ndarray:
        counts = Counter(vocabulary[t] for t in analyzer(text) if t in vocabulary)
        if not counts:
            return np.asarray(intercepts)
        columns = np.fromiter(counts, dtype=np.int64)
        values = np.fromiter(counts.values(), dtype=np.float64) * idf[columns]
        values /= np.linalg.norm(values)
        return np.asarray(values @ weights[columns] + intercepts)

    def score(texts: list[str]) -> list[float]:
        return [float((1.0 / (1.0 + np.exp(slopes * margins(t) + offsets))).mean()) for t in texts]

    return score


@cache
def _predict_prob() -> Scorer:
    # Imported on first use: loading scikit-learn and the model takes a second or two.
    from profanity_check import profanity_check

    def reference(texts: list[str]) -> list[float]:
        return [float(p) for p in profanity_check.predict_prob(texts)]

    try:
        fast = _calibrated_svm(profanity_check.vectorizer, profanity_check.model)
        if np.allclose(fast(PROBES), reference(PROBES), atol=1e-9):
            return fast
    except (AttributeError, IndexError, ValueError):
        pass  # a model of another shape: use the library's own call
    return reference


def profanity_score(forms: list[str]) -> float:
    """The highest probability over the reading forms of one text (0 = clean, 1 = profane)."""
    forms = [f for f in forms if f]
    if not forms:
        return 0.0
    return max(_predict_prob()(forms))


def warm_up() -> None:
    """Load the model now (a process that judges on a deadline calls this at start)."""
    profanity_score(["warm up"])
