"""The sweep's plots, drawn with matplotlib's Agg canvas (no display, no pyplot state).

- ``expanded_vs_optimal.png``: cells expanded against the optimal length, one series per
  search: every scenario a faint dot, the median per length bin a line; log-log, since both
  span orders of magnitude.
- ``time_vs_optimal.png``: the same for the search's time in ms.
- ``suboptimality.png``: cost / optimal per search, one box each (whiskers 5 to 95 %).

All maps are pooled: a plot compares searches. Rows without a path or an optimum are left
out (the summary counts them).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from sim.lab.rows import Row
from sim.lab.store import write_atomic

SIZE_IN: Final = (8.0, 5.0)
DPI: Final = 100
BINS: Final = 12
"""Length bins of the median lines, spaced evenly on the log axis."""
MIN_IN_BIN: Final = 3
"""A bin with fewer scenarios gets no median point: one search's noise is no trend."""


def write_plots(rows: Sequence[Row], folder: Path, title: str) -> list[Path]:
    """Draw every plot of `rows` into `folder` (made if missing); return the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    searches = list(dict.fromkeys(row.search for row in rows))
    usable = [row for row in rows if row.found and row.optimal]
    drawn = {
        "expanded_vs_optimal.png": _versus(
            usable, searches, lambda row: row.expanded, "cells expanded", title
        ),
        "time_vs_optimal.png": _versus(
            usable, searches, lambda row: row.time_ms, "time per search (ms)", title
        ),
        "suboptimality.png": _suboptimality(rows, searches, title),
    }
    written = []
    for name, figure in drawn.items():
        buffer = io.BytesIO()
        FigureCanvasAgg(figure)
        figure.savefig(buffer, format="png", dpi=DPI)
        write_atomic(folder / name, buffer.getvalue())
        written.append(folder / name)
    return written


def _versus(
    rows: Sequence[Row],
    searches: list[str],
    measure: Callable[[Row], float],
    label: str,
    title: str,
) -> Figure:
    figure = Figure(figsize=SIZE_IN, layout="constrained")
    axes = figure.add_subplot()
    lengths = np.array([row.optimal for row in rows], dtype=float)
    edges = np.geomspace(
        max(lengths.min(initial=1.0), 1.0), max(lengths.max(initial=2.0), 2.0), BINS + 1
    )
    for index, search in enumerate(searches):
        mine = [row for row in rows if row.search == search]
        if not mine:
            continue
        x = np.array([row.optimal for row in mine], dtype=float)
        # Zero expansions or time (start == goal) have no place on a log axis.
        y = np.maximum(np.array([measure(row) for row in mine], dtype=float), 1e-3)
        color = f"C{index % 10}"
        axes.scatter(x, y, s=6, alpha=0.25, color=color, linewidths=0)
        which = np.clip(np.digitize(x, edges) - 1, 0, BINS - 1)
        centres, medians = [], []
        for bin_index in range(BINS):
            inside = y[which == bin_index]
            if inside.size >= MIN_IN_BIN:
                centres.append(float(np.sqrt(edges[bin_index] * edges[bin_index + 1])))
                medians.append(float(np.median(inside)))
        axes.plot(
            centres, medians, color=color, linewidth=2, marker="o", markersize=3, label=search
        )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("optimal length (cells)")
    axes.set_ylabel(label)
    axes.set_title(f"{title}: {label} against optimal length (line: median per length bin)")
    axes.grid(True, which="both", alpha=0.3)
    if searches:
        axes.legend(title="search", fontsize="small")
    return figure


def _suboptimality(rows: Sequence[Row], searches: list[str], title: str) -> Figure:
    figure = Figure(figsize=SIZE_IN, layout="constrained")
    axes = figure.add_subplot()
    data = [
        [
            row.suboptimality
            for row in rows
            if row.search == search and row.suboptimality is not None
        ]
        for search in searches
    ]
    kept = [
        (index, search, values)
        for index, (search, values) in enumerate(zip(searches, data, strict=True))
        if values
    ]
    if kept:
        boxes = axes.boxplot(
            [values for _, _, values in kept],
            tick_labels=[search for _, search, _ in kept],
            whis=(5, 95),
            patch_artist=True,
            medianprops={"color": "black"},
            flierprops={"markersize": 2, "alpha": 0.4},
        )
        for (index, _, _), box in zip(kept, boxes["boxes"], strict=True):
            box.set_facecolor(f"C{index % 10}")  # each search keeps its colour of the other plots
            box.set_alpha(0.6)
    axes.axhline(1.0, color="grey", linewidth=1, linestyle="--")
    axes.set_ylabel("cost / optimal")
    axes.set_title(f"{title}: suboptimality per search (box: quartiles, whiskers: 5-95 %)")
    axes.grid(True, axis="y", alpha=0.3)
    return figure
