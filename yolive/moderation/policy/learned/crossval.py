"""How much the learned reader adds to the rules, cross-validated on train and dev, and its hold threshold.

    python -m yolive.moderation.policy.learned.crossval

1. The thresholds: five grouped folds over train and dev (a disguised copy stays in its prompt's fold; the
   everyday prompts are in every training fold). Each prompt is scored by a reader that never saw it. Two
   thresholds, one for what it reads as children's harm and one for the rest, held together to at most 1 %
   of the benign prompts the rules approve (`BENIGN_HELD_AT_MOST`): of the pairs that keep to it, the one
   that holds the most harmful prompts out of fold, a minors one counted as `MINORS_WEIGHT` (the goals allow
   no minors prompt approved).
2. At those thresholds: of the benign prompts the rules approve, how many it holds; of the harmful prompts the
   rules approve, how many. The rules were built against train and dev, so they approve few of its harmful
   prompts; the harmful prompts each scored-once list had approved at its first score (first_score_misses.tsv)
   are what rules miss on wording nobody wrote down, and each is scored by a reader trained without its list.
3. How many of all harmful prompts it holds on its own, per category and language (out of fold).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from yolive.moderation.policy import corpus
from yolive.moderation.policy.learned import reader
from yolive.moderation.policy.learned.reader import HoldAt, LearnedReader

FOLDS = 5
BENIGN_HELD_AT_MOST = 0.01
MINORS_WEIGHT = 3
# The minors thresholds tried, from the lowest up to the other threshold.
MINORS_FROM, MINORS_STEP = 0.3, 0.01
MISSES = Path(__file__).with_name("first_score_misses.tsv")


@dataclass(frozen=True)
class Miss:
    list_name: str
    text: str
    category: str
    language: str


def first_score_misses(path: Path = MISSES) -> list[Miss]:
    lines = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    return [Miss(*parts) for parts in lines if parts and not parts[0].startswith("#")]


def rules_decisions(examples: list[corpus.Example]) -> list[str]:
    """What the gate decides without the learned reader (default levels, a fresh install's terms)."""
    from yolive.moderation.policy.evaluate import shipped_matcher
    from yolive.moderation.policy.gate import read_text, verdict_for
    from yolive.moderation.policy.harm.categories import DEFAULT_LEVELS

    matcher, levels = shipped_matcher(), dict(DEFAULT_LEVELS)
    return [verdict_for(read_text(e.text, matcher, learned=False), levels).decision for e in examples]


@dataclass(frozen=True)
class Scores:
    harm: np.ndarray  # the probability of harm at all, per prompt
    minors: np.ndarray  # whether the likeliest harm it reads is children's harm, per prompt

    def held(self, hold_at: HoldAt) -> np.ndarray:
        return self.harm >= np.where(self.minors, hold_at.minors, hold_at.other)


def embeddings_of(texts: list[str]) -> dict[str, np.ndarray]:
    """Each distinct text's sentence embedding, computed once for every reader trained on it."""
    distinct = list(dict.fromkeys(texts))
    return dict(zip(distinct, reader.embedded(distinct), strict=True))


def scored(model: LearnedReader, texts: list[str]) -> Scores:
    probabilities = [model.probabilities(reader.forms_of(t)) for t in texts]
    minors = [model.classes[model.likeliest_harm(p)] == reader.MINORS for p in probabilities]
    return Scores(np.array([1.0 - p[model.benign] for p in probabilities]), np.array(minors, dtype=bool))


def out_of_fold(examples: list[corpus.Example], scale: float, known: dict[str, np.ndarray]) -> Scores:
    from sklearn.model_selection import StratifiedGroupKFold

    from yolive.moderation.policy.learned import training

    labels = [training.label_of(e) for e in examples]
    groups = [e.disguise_of or e.text for e in examples]
    harm, minors = np.zeros(len(examples)), np.zeros(len(examples), dtype=bool)
    folds = StratifiedGroupKFold(FOLDS, shuffle=True, random_state=reader.SEED)
    for kept, left_out in folds.split(examples, labels, groups):
        model = training.train([examples[i] for i in kept], scale, known)
        fold = scored(model, [examples[i].text for i in left_out])
        harm[left_out], minors[left_out] = fold.harm, fold.minors
    return Scores(harm, minors)


def threshold_for(benign_scores: np.ndarray, at_most: float = BENIGN_HELD_AT_MOST) -> float:
    """The lowest threshold (a score held when >= it) that holds at most `at_most` of these scores."""
    ranked = np.sort(benign_scores)[::-1]
    allowed = int(at_most * len(ranked))  # this many may be held
    return float(np.nextafter(ranked[allowed], 1.0)) if allowed < len(ranked) else 0.0


def thresholds_for(scores: Scores, benign: np.ndarray, weights: np.ndarray) -> HoldAt:
    """Of the (other, minors) pairs that hold at most `BENIGN_HELD_AT_MOST` of the benign prompts (a mask),
    the one that holds the most weight of the others (each harmful prompt's weight, 0 for a benign one); a tie
    goes to the higher minors threshold, which holds fewer."""
    allowed = int(BENIGN_HELD_AT_MOST * benign.sum())
    single = threshold_for(scores.harm[benign])
    best = HoldAt(single, single)  # one threshold for all
    best_held = float(weights @ scores.held(best))
    for minors_at in np.arange(MINORS_FROM, best.other, MINORS_STEP)[::-1]:
        by_minors = benign & scores.minors & (scores.harm >= minors_at)
        rest = np.sort(scores.harm[benign & ~scores.minors])[::-1]  # held at the other threshold
        left = allowed - int(by_minors.sum())
        if left < 0:
            break  # lower minors thresholds hold more benign prompts still
        other = float(np.nextafter(rest[left], 1.0)) if left < len(rest) else 0.0
        candidate = HoldAt(other, float(minors_at))
        held = float(weights @ scores.held(candidate))
        if held > best_held:
            best, best_held = candidate, held
    return best


def misses_held(
    examples: list[corpus.Example], hold_at: HoldAt, scale: float, known: dict[str, np.ndarray]
) -> list[tuple[Miss, bool]]:
    """Each first-score miss, scored by a reader trained on train and dev less the list it came from."""
    from yolive.moderation.policy.learned import training

    out = []
    for name in ("second", "third", "fourth"):
        source = f"scored_once_{name}.tsv"
        mine = [m for m in first_score_misses() if m.list_name == name]
        if not {m.text for m in mine} <= {e.text for e in examples if e.source == source}:
            raise ValueError(f"first_score_misses.tsv names prompts that {source} no longer holds")
        model = training.train([e for e in examples if e.source != source], scale, known)
        held = scored(model, [m.text for m in mine])
        out += list(zip(mine, held.held(hold_at).tolist(), strict=True))
    return out


def _share(held: int, n: int) -> str:
    return f"{held} of {n} ({100 * held / n:.1f} %)" if n else "none"


def _table(title: str, rows: Counter, held: Counter) -> str:
    lines = [f"| {title} | prompts | held |", "|---|---|---|"]
    lines += [f"| {key} | {rows[key]} | {_share(held[key], rows[key])} |" for key in sorted(rows)]
    return "\n".join(lines)


def report(
    examples: list[corpus.Example], decisions: list[str], scores: Scores, misses: list[tuple[Miss, bool]]
) -> str:
    benign_mask = np.array([not e.harmful and d == "allow" for e, d in zip(examples, decisions, strict=True)])
    hold_at = thresholds_for(scores, benign_mask, weights_of(examples))
    benign = np.flatnonzero(benign_mask).tolist()
    passed = [i for i, e in enumerate(examples) if e.harmful and decisions[i] == "allow"]
    harmful = [i for i, e in enumerate(examples) if e.harmful]
    held = scores.held(hold_at)
    caught = sum(h for _, h in misses)
    lines = [
        f"Thresholds (at most {100 * BENIGN_HELD_AT_MOST:g} % of the benign prompts the rules approve held, "
        f"out of fold): {hold_at.other:.3f}, and {hold_at.minors:.3f} where it reads children's harm",
        f"Benign prompts the rules approve, held: {_share(int(held[benign].sum()), len(benign))}",
        f"Harmful prompts of train and dev the rules approve, held: "
        f"{_share(int(held[passed].sum()), len(passed))}",
        f"Harmful prompts the rules approved at each list's first score, held by a reader trained without "
        f"that list: {_share(caught, len(misses))}",
        f"All harmful prompts, held by the reader alone: {_share(int(held[harmful].sum()), len(harmful))}",
        "",
        _table("first-score misses by category", Counter(m.category for m, _ in misses),
               Counter(m.category for m, h in misses if h)),
        "",
        _table("first-score misses by language", Counter(m.language for m, _ in misses),
               Counter(m.language for m, h in misses if h)),
        "",
        _table("benign prompts the rules approve, by language", Counter(examples[i].language for i in benign),
               Counter(examples[i].language for i in benign if held[i])),
        "",
        _table("all harmful prompts, reader alone, by category",
               Counter(examples[i].category for i in harmful),
               Counter(examples[i].category for i in harmful if held[i])),
    ]  # fmt: skip
    return "\n".join(lines)


def weights_of(examples: list[corpus.Example]) -> np.ndarray:
    """What holding each prompt is worth when the thresholds are chosen: a harmful one 1, a minors one
    `MINORS_WEIGHT`, a benign one nothing (the benign budget bounds those)."""
    weights = [(MINORS_WEIGHT if e.category == reader.MINORS else 1) * e.harmful for e in examples]
    return np.array(weights, dtype=float)


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")
    import django

    django.setup()
    from yolive.moderation.policy.learned import training

    parser = argparse.ArgumentParser(prog="python -m yolive.moderation.policy.learned.crossval")
    parser.add_argument(
        "--scale", type=float, default=reader.EMBEDDING_SCALE, help="the sentence embedding's (0: none)"
    )
    scale = parser.parse_args(argv).scale
    examples = training.corpus_examples()
    decisions = rules_decisions(examples)
    known = embeddings_of([e.text for e in examples] + training.everyday().texts) if scale else {}
    scores = out_of_fold(examples, scale, known)
    benign = np.array([not e.harmful and d == "allow" for e, d in zip(examples, decisions, strict=True)])
    misses = misses_held(examples, thresholds_for(scores, benign, weights_of(examples)), scale, known)
    print(report(examples, decisions, scores, misses))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
