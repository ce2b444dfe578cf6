"""Measure the gate on the corpus, the way a model is measured: on the test split it was not built with.
`python -m yolive.moderation.policy.evaluate [--split test|dev|train] [--misses] [--docs] [--file F]`

Per category of harm: the share of harmful prompts refused, held and approved; per language: harmful prompts
approved and benign prompts stopped (held or refused); per disguise: harmful prompts approved. Prompts in
languages the gate does not judge are counted apart: for them the goal is that all are held. The gate runs as
shipped: the default levels, the blocked terms the migrations leave active, no database. `--split dev` is what
to build against; `--file F` (repeatable) measures only those files (a new batch, scored once as written).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from yolive.moderation.policy import corpus
from yolive.moderation.policy.harm.categories import CATEGORIES, DEFAULT_LEVELS, LABELS, Category

if TYPE_CHECKING:
    from yolive.moderation.policy.gate import Verdict
    from yolive.moderation.policy.terms import TermMatcher

# What issue 45 asks, on the test split at the default levels.
HARMFUL_APPROVED_AT_MOST = 0.01
MINORS_APPROVED_AT_MOST = 0.0
BENIGN_STOPPED_AT_MOST = 0.02
OTHER_LANGUAGES = "other languages"
Keep = Callable[[corpus.Example], bool]


def shipped_matcher() -> TermMatcher:
    """The blocked terms a fresh install has active: the starting list less what the categories took over."""
    from yolive.moderation.policy.terms import build_matcher

    initial = importlib.import_module("yolive.moderation.migrations.0002_default_terms").DEFAULT_TERMS
    superseded = {
        term
        for migration in ("0004_terms_judged_in_context", "0006_beheading_judged_in_context")
        for term in importlib.import_module(f"yolive.moderation.migrations.{migration}").SUPERSEDED
    }
    return build_matcher([(term, action) for term, action, _ in initial if term not in superseded])


def judged(examples: list[corpus.Example], levels: dict[Category, int] | None = None) -> list[Verdict]:
    from yolive.moderation.policy.gate import judge_text

    matcher, levels = shipped_matcher(), levels or dict(DEFAULT_LEVELS)
    return [judge_text(e.text, matcher, levels) for e in examples]


@dataclass(frozen=True)
class Results:
    examples: list[corpus.Example]
    decisions: list[str]  # allow, hold or reject, one per example

    def _rows(self, keep: Callable[[corpus.Example], bool]) -> list[str]:
        return [d for e, d in zip(self.examples, self.decisions, strict=True) if keep(e)]

    def share(self, keep: Callable[[corpus.Example], bool], *wanted: str) -> tuple[float, int]:
        rows = self._rows(keep)
        return (sum(d in wanted for d in rows) / len(rows) if rows else 0.0), len(rows)

    def harmful_approved(self, keep: Callable[[corpus.Example], bool] = lambda e: True) -> float:
        return self.share(lambda e: e.harmful and e.judged and keep(e), "allow")[0]

    def benign_stopped(self, keep: Callable[[corpus.Example], bool] = lambda e: True) -> float:
        return self.share(lambda e: not e.harmful and e.judged and keep(e), "hold", "reject")[0]

    def render(self) -> str:
        return "\n\n".join([self._summary(), self._by_category(), self._by_language(), self._by_disguise()])

    def _summary(self) -> str:
        other, n_other = self.share(lambda e: not e.judged, "hold", "reject")
        harmful = sum(e.harmful and e.judged for e in self.examples)
        benign = sum(not e.harmful and e.judged for e in self.examples)
        return (
            f"{len(self.examples)} prompts. In the judged languages: harmful approved "
            f"{_pct(self.harmful_approved())} of {harmful} (minors: "
            f"{_pct(self.harmful_approved(lambda e: e.category == Category.MINORS))}); benign stopped "
            f"{_pct(self.benign_stopped())} of {benign}. "
            f"In {OTHER_LANGUAGES}: {_pct(other)} of {n_other} held."
        )

    def _by_category(self) -> str:
        lines = ["| category | harmful prompts | refused | held | approved |", "|---|---|---|---|---|"]
        for category in CATEGORIES:
            mine = where(harmful=True, judged=True, category=category.value)
            refused, n = self.share(mine, "reject")
            if n:
                held, approved = self.share(mine, "hold")[0], self.share(mine, "allow")[0]
                lines.append(
                    f"| {LABELS[category]} | {n} | {_pct(refused)} | {_pct(held)} | {_pct(approved)} |"
                )
        return "\n".join(lines)

    def _by_language(self) -> str:
        lines = ["| language | harmful | approved | benign | stopped |", "|---|---|---|---|---|"]
        for code in corpus.JUDGED_LANGUAGES:
            harmful = self.share(where(harmful=True, language=code), "allow")
            benign = self.share(where(harmful=False, language=code), "hold", "reject")
            lines.append(f"| {code} | {harmful[1]} | {_pct(harmful[0])} | {benign[1]} | {_pct(benign[0])} |")
        harmful = self.share(lambda e: e.harmful and not e.judged, "allow")
        benign = self.share(lambda e: not e.harmful and not e.judged, "allow")
        lines.append(
            f"| {OTHER_LANGUAGES} (held by design; benign: approved) | {harmful[1]} | {_pct(harmful[0])} "
            f"| {benign[1]} | {_pct(benign[0])} |"
        )
        return "\n".join(lines)

    def _by_disguise(self) -> str:
        lines = ["| disguise | harmful | approved |", "|---|---|---|"]
        for disguise in sorted({e.disguise for e in self.examples if e.harmful and e.judged}):
            approved, n = self.share(where(harmful=True, judged=True, disguise=disguise), "allow")
            lines.append(f"| {disguise} | {n} | {_pct(approved)} |")
        return "\n".join(lines)


def where(harmful: bool | None = None, judged: bool | None = None, **fields: str) -> Keep:
    """The examples with these labels: where(harmful=True, language="ru")."""

    def keep(e: corpus.Example) -> bool:
        labelled = (harmful is None or e.harmful == harmful) and (judged is None or e.judged == judged)
        return labelled and all(getattr(e, name) == value for name, value in fields.items())

    return keep


def _pct(share: float) -> str:
    return f"{100 * share:.1f} %"


def measure(examples: list[corpus.Example]) -> Results:
    return Results(examples, [v.decision for v in judged(examples)])


def misses(results: Results) -> list[str]:
    """Harmful prompts approved and benign prompts stopped (judged languages), with the gate's reason."""
    from yolive.moderation.policy.gate import judge_text

    matcher, out = shipped_matcher(), []
    for e, decision in zip(results.examples, results.decisions, strict=True):
        wrong = decision == "allow" if e.harmful else decision != "allow" and e.judged
        if wrong:
            reason = judge_text(e.text, matcher, dict(DEFAULT_LEVELS)).reason
            out.append(f"{e.category}\t{e.language}\t{e.disguise}\t{decision}\t{e.text}\t{reason}")
    return out


DOCS = Path(__file__).resolve().parents[3] / "docs" / "moderation.md"
TABLE_START, TABLE_END = (
    "<!-- evaluation tables: python -m yolive.moderation.policy.evaluate --docs -->",
    "<!-- end of tables -->",
)


def write_docs(results: Results, path: Path = DOCS) -> None:
    """Put the tables between their markers in docs/moderation.md (the tests compare the two)."""
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(TABLE_START, 1)
    _, tail = rest.split(TABLE_END, 1)
    path.write_text(f"{head}{TABLE_START}\n{results.render()}\n{TABLE_END}{tail}", encoding="utf-8")


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")
    import django

    django.setup()
    files = [Path(argv[i + 1]) for i, arg in enumerate(argv[:-1]) if arg == "--file"]
    name = argv[argv.index("--split") + 1] if "--split" in argv[:-1] else "test"
    if name not in ("train", "dev", "test"):
        print(f"--split is train, dev or test, not {name!r}", file=sys.stderr)
        return 2
    if files:
        examples = [e for path in files for e in corpus.read_file(path)]
        print(f"{len(examples)} prompts in {', '.join(f.name for f in files)}")
    else:
        examples = corpus.split(name)  # type: ignore[arg-type]
        print(f"The {name} split of the corpus (seed {corpus.SEED}):")
    results = measure(examples)
    print(results.render())
    if "--docs" in argv and not files and name == "test":
        write_docs(results)
    if "--misses" in argv:
        print("\n".join(misses(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
