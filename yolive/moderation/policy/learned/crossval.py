"""How much the learned reader adds to the rules, cross-validated on train and dev, and its hold threshold.

    python -m yolive.moderation.policy.learned.crossval

1. The threshold: five grouped folds over train and dev (a disguised copy stays in its prompt's fold; the
   everyday prompts are in every training fold). Each prompt is scored by a reader that never saw it, and the
   threshold is the lowest probability of harm at which at most 1 % of the benign prompts the rules approve
   would be held (`BENIGN_HELD_AT_MOST`).
2. At that threshold: of the benign prompts the rules approve, how many it holds; of the harmful prompts the
   rules approve, how many. The rules were built against train and dev, so they approve few of its harmful
   prompts; the harmful prompts each scored-once list had approved at its first score (first_score_misses.tsv)
   are what rules miss on wording nobody wrote down, and each is scored by a reader trained without its list.
3. How many of all harmful prompts it holds on its own, per category and language (out of fold).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from yolive.moderation.policy import corpus

FOLDS = 5
BENIGN_HELD_AT_MOST = 0.01
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


def out_of_fold(examples: list[corpus.Example]) -> np.ndarray:
    from sklearn.model_selection import StratifiedGroupKFold

    from yolive.moderation.policy.learned import reader, training

    labels = [training.label_of(e) for e in examples]
    groups = [e.disguise_of or e.text for e in examples]
    scores = np.zeros(len(examples))
    folds = StratifiedGroupKFold(FOLDS, shuffle=True, random_state=reader.SEED)
    for kept, left_out in folds.split(examples, labels, groups):
        model = training.train([examples[i] for i in kept])
        for i in left_out:
            scores[i] = model.harm(reader.forms_of(examples[i].text))
    return scores


def threshold_for(benign_scores: np.ndarray, at_most: float = BENIGN_HELD_AT_MOST) -> float:
    """The lowest threshold (a score held when >= it) that holds at most `at_most` of these scores."""
    ranked = np.sort(benign_scores)[::-1]
    allowed = int(at_most * len(ranked))  # this many may be held
    return float(np.nextafter(ranked[allowed], 1.0)) if allowed < len(ranked) else 0.0


def misses_held(examples: list[corpus.Example], threshold: float) -> list[tuple[Miss, bool]]:
    """Each first-score miss, scored by a reader trained on train and dev less the list it came from."""
    from yolive.moderation.policy.learned import reader, training

    out = []
    for name in ("second", "third", "fourth"):
        source = f"scored_once_{name}.tsv"
        mine = [m for m in first_score_misses() if m.list_name == name]
        if not {m.text for m in mine} <= {e.text for e in examples if e.source == source}:
            raise ValueError(f"first_score_misses.tsv names prompts that {source} no longer holds")
        model = training.train([e for e in examples if e.source != source])
        out += [(m, model.harm(reader.forms_of(m.text)) >= threshold) for m in mine]
    return out


def _share(held: int, n: int) -> str:
    return f"{held} of {n} ({100 * held / n:.1f} %)" if n else "none"


def _table(title: str, rows: Counter, held: Counter) -> str:
    lines = [f"| {title} | prompts | held |", "|---|---|---|"]
    lines += [f"| {key} | {rows[key]} | {_share(held[key], rows[key])} |" for key in sorted(rows)]
    return "\n".join(lines)


def report(
    examples: list[corpus.Example], decisions: list[str], scores: np.ndarray, misses: list[tuple[Miss, bool]]
) -> str:
    benign = [i for i, e in enumerate(examples) if not e.harmful and decisions[i] == "allow"]
    threshold = threshold_for(scores[benign])
    passed = [i for i, e in enumerate(examples) if e.harmful and decisions[i] == "allow"]
    harmful = [i for i, e in enumerate(examples) if e.harmful]
    held = scores >= threshold
    caught = sum(h for _, h in misses)
    lines = [
        f"Threshold (at most {100 * BENIGN_HELD_AT_MOST:g} % of the benign prompts the rules approve held, "
        f"out of fold): {threshold:.3f}",
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


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")
    import django

    django.setup()
    from yolive.moderation.policy.learned import training

    examples = training.corpus_examples()
    decisions = rules_decisions(examples)
    scores = out_of_fold(examples)
    benign = [i for i, e in enumerate(examples) if not e.harmful and decisions[i] == "allow"]
    misses = misses_held(examples, threshold_for(scores[benign]))
    print(report(examples, decisions, scores, misses))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
