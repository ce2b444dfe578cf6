"""PNG charts of the benchmarks' figures (matplotlib, no display needed), linked from docs/benchmarks.md.

Each benchmark hands its measured rows to one function here; the chart's title says what run drew it,
so a chart from a short run is never mistaken for the documented figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: benchmarks run on machines without a display

import matplotlib.pyplot as plt  # after choosing the backend

CHARTS_DIR = Path(__file__).resolve().parent.parent / "docs" / "charts"
PANEL_IN = (5, 4)  # inches per panel, side by side: readable in a docs column
DPI = 100


@dataclass(frozen=True)
class Panel:
    """One chart: bars (x are labels) or a line (x are numbers), each series a list of y values."""

    title: str
    x: Sequence[object]
    series: dict[str, Sequence[float]]
    ylabel: str
    kind: str = "bars"  # or "line"
    xlabel: str = ""


def draw(path: Path, title: str, panels: Sequence[Panel]) -> Path:
    """Write the panels side by side to `path` (a PNG) and return it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    figsize = (PANEL_IN[0] * len(panels), PANEL_IN[1])
    figure, axes = plt.subplots(1, len(panels), figsize=figsize, squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        if panel.kind == "line":
            for name, values in panel.series.items():
                ax.plot(list(panel.x), list(values), marker="o", label=name)
        else:
            width = 0.8 / max(1, len(panel.series))
            for i, (name, values) in enumerate(panel.series.items()):
                positions = [n + (i - (len(panel.series) - 1) / 2) * width for n in range(len(panel.x))]
                ax.bar(positions, list(values), width=width, label=name)
            ax.set_xticks(range(len(panel.x)), [str(x) for x in panel.x], rotation=20, ha="right")
        ax.set_title(panel.title, fontsize=10)
        ax.set_ylabel(panel.ylabel)
        if panel.xlabel:
            ax.set_xlabel(panel.xlabel)
        ax.grid(axis="y", alpha=0.3)
        if len(panel.series) > 1:
            ax.legend(fontsize=8)
    figure.suptitle(title, fontsize=11)
    figure.tight_layout()
    figure.savefig(path, dpi=DPI)
    plt.close(figure)
    return path
