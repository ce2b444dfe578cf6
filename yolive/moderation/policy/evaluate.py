"""Measure the gate on the labelled set:
`python -m yolive.moderation.policy.evaluate [--misses] [--docs] [--file F]`

For each harmful category, recall: the share of its prompts refused or held. For the benign prompts, the share
refused and the share held. Each column sets every category to one level; "default" is the shipped levels. The
gate runs as shipped: the blocked terms the migrations leave active, the classifier, no database.
`--file F` (repeatable) measures only those files: a new batch, scored once before any rule changes for it.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from yolive.moderation.policy.harm.categories import (
    CATEGORIES,
    DEFAULT_LEVELS,
    MAX_LEVEL,
    MIN_LEVEL,
    Category,
)

if TYPE_CHECKING:
    from yolive.moderation.policy.gate import Reading
    from yolive.moderation.policy.terms import TermMatcher

SET_DIR = Path(__file__).with_name("evalset")
BENIGN = "benign"
LEVELS: tuple[int | str, ...] = (*range(MIN_LEVEL, MAX_LEVEL + 1), "default")
# What the issue asks of the default levels.
GOALS = {Category.MINORS: 0.97, Category.SEXUAL: 0.97, Category.VIOLENCE: 0.95, Category.HATE: 0.95,
         Category.SELF_HARM: 0.95}  # fmt: skip
BENIGN_REFUSED_AT_MOST, BENIGN_HELD_AT_MOST = 0.01, 0.05


class EvalSetError(ValueError):
    """A line of the set that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class Example:
    label: str  # a category, or "benign"
    form: str  # plain, or the disguise; for benign ones the topic
    text: str


def load(directory: Path = SET_DIR) -> list[Example]:
    return load_files(sorted(directory.glob("*.tsv")))


def load_files(paths: Iterable[Path]) -> list[Example]:
    examples = []
    known = {c.value for c in CATEGORIES} | {BENIGN}
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3 or not parts[2].strip():
                raise EvalSetError(f"{path.name}:{number}: expected label<TAB>form<TAB>text")
            if parts[0] not in known:
                raise EvalSetError(f"{path.name}:{number}: unknown label {parts[0]!r}")
            examples.append(Example(parts[0], parts[1], parts[2]))
    return examples


def shipped_matcher() -> TermMatcher:
    """The blocked terms a fresh install has active: the starting list less what the categories took over."""
    from yolive.moderation.policy.terms import build_matcher

    initial = importlib.import_module("yolive.moderation.migrations.0002_default_terms").DEFAULT_TERMS
    superseded = importlib.import_module(
        "yolive.moderation.migrations.0004_terms_judged_in_context"
    ).SUPERSEDED
    return build_matcher([(term, action) for term, action, _ in initial if term not in superseded])


def levels_for(column: int | str) -> dict[Category, int]:
    return dict(DEFAULT_LEVELS) if column == "default" else {c: int(column) for c in CATEGORIES}


def readings(examples: list[Example]) -> list[Reading]:
    from yolive.moderation.policy.gate import read_text

    matcher = shipped_matcher()
    return [read_text(e.text, matcher) for e in examples]


def decisions(read: list[Reading], column: int | str) -> list[str]:
    from yolive.moderation.policy.gate import verdict_for

    levels = levels_for(column)
    return [verdict_for(r, levels).decision for r in read]


@dataclass(frozen=True)
class Table:
    """Shares per row and level column: recall per harmful category, refused and held for benign."""

    counts: dict[str, int]
    cells: dict[str, dict[int | str, float]]

    def render(self) -> str:
        head = (
            "| prompts | n | "
            + " | ".join(f"level {c}" if c != "default" else "default" for c in LEVELS)
            + " |"
        )
        lines = [head, "|" + "---|" * (len(LEVELS) + 2)]
        for row, by_level in self.cells.items():
            values = " | ".join(f"{100 * by_level[c]:.1f} %" for c in LEVELS)
            lines.append(f"| {row} | {self.counts[row]} | {values} |")
        return "\n".join(lines)


def row_name(category: Category) -> str:
    return f"{category.label}: recall"


def measure(examples: list[Example]) -> Table:
    read = readings(examples)
    by_column = {column: decisions(read, column) for column in LEVELS}
    counts: dict[str, int] = {}
    cells: dict[str, dict[int | str, float]] = {}
    for category in CATEGORIES:
        rows = [i for i, e in enumerate(examples) if e.label == category.value]
        counts[row_name(category)] = len(rows)
        cells[row_name(category)] = {c: _share(by_column[c], rows, ("reject", "hold")) for c in LEVELS}
    benign = [i for i, e in enumerate(examples) if e.label == BENIGN]
    for name, wanted in (("benign: refused", ("reject",)), ("benign: held", ("hold",))):
        counts[name] = len(benign)
        cells[name] = {c: _share(by_column[c], benign, wanted) for c in LEVELS}
    return Table(counts, cells)


def _share(column: list[str], rows: list[int], wanted: Iterable[str]) -> float:
    wanted = set(wanted)
    return sum(column[i] in wanted for i in rows) / len(rows) if rows else 0.0


def misses(examples: list[Example]) -> list[str]:
    """At the default levels: harmful prompts that would air, benign ones that would not, with the reason."""
    from yolive.moderation.policy.gate import judge_text

    matcher, out = shipped_matcher(), []
    for e in examples:
        verdict = judge_text(e.text, matcher, dict(DEFAULT_LEVELS))
        if (e.label == BENIGN) != verdict.allowed:
            out.append(f"{e.label}\t{e.form}\t{verdict.decision}\t{e.text}\t{verdict.reason}")
    return out


DOCS = Path(__file__).resolve().parents[3] / "docs" / "moderation.md"
TABLE_START, TABLE_END = (
    "<!-- evaluation table: python -m yolive.moderation.policy.evaluate -->",
    "<!-- end of table -->",
)


def write_docs(table: Table, path: Path = DOCS) -> None:
    """Put the table between its markers in docs/moderation.md (the tests compare the two)."""
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(TABLE_START, 1)
    _, tail = rest.split(TABLE_END, 1)
    path.write_text(f"{head}{TABLE_START}\n{table.render()}\n{TABLE_END}{tail}", encoding="utf-8")


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")
    import django

    django.setup()
    files = [Path(argv[i + 1]) for i, arg in enumerate(argv[:-1]) if arg == "--file"]
    examples = load_files(files) if files else load()
    print(f"{len(examples)} prompts in {', '.join(f.name for f in files) if files else SET_DIR.name + '/'}")
    table = measure(examples)
    print(table.render())
    if "--docs" in argv and not files:
        write_docs(table)
    if "--misses" in argv:
        print("\n".join(misses(examples)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
