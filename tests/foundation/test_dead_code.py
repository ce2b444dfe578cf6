"""No dead code in the apps: every public function and property is named somewhere besides its definition."""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from tests.helpers.processes import ROOT

APPS = ("yolive", "generation", "streaming", "frontend", "benchmarks")
SKIPPED = {".venv", "node_modules", "migrations", "var"}


def sources(suffix: str) -> Iterator[Path]:
    for path in ROOT.rglob(f"*{suffix}"):
        if not SKIPPED & set(path.relative_to(ROOT).parts):
            yield path


def public_definitions(tree: ast.Module) -> Iterator[str]:
    """Module-level functions without a decorator (a decorator may register them) and class properties."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.decorator_list:
            yield node.name
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and any(
                    isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list
                ):
                    yield item.name


def test_every_public_function_and_property_of_the_apps_is_used():
    words = Counter(
        word for suffix in (".py", ".html", ".js") for path in sources(suffix)
        for word in re.findall(r"\w+", path.read_text())
    )  # fmt: skip
    unused = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sources(".py")
        if path.relative_to(ROOT).parts[0] in APPS
        for name in public_definitions(ast.parse(path.read_text()))
        if not name.startswith("_") and words[name] == 1
    ]
    assert unused == []
