"""A MAPF sweep's plots, the field's standard three (matplotlib's Agg canvas, no pyplot state).

- ``success_rate.png``: the share of runs solved against the number of agents, one panel per
  map, one line per solver;
- ``runtime.png``: the median time of the solved runs against the number of agents, one
  panel per map, log scale;
- ``soc_over_bound.png``: sum of costs over its lower bound against the number of agents
  (mean over the solved runs), one panel per map.
"""

from __future__ import annotations

import io
import math
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from sim.lab.mapf_rows import MapfLabRow, soc_ratio
from sim.lab.store import write_atomic

PANEL_IN: Final = (4.0, 3.2)
DPI: Final = 100
MAX_COLUMNS: Final = 4
LINE_STYLES: Final = ("-", "--", ":", "-.")

Measure = Callable[[list[MapfLabRow]], float | None]


def write_mapf_plots(rows: Sequence[MapfLabRow], folder: Path, title: str) -> list[Path]:
    """Draw the three plots of `rows` into `folder` (made if missing); the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    drawn = {
        "success_rate.png": _per_map(rows, _success, "solved (%)", title, log=False),
        "runtime.png": _per_map(
            rows, _median_time, "median time of solved runs (s)", title, log=True
        ),
        "soc_over_bound.png": _per_map(
            rows, _mean_ratio, "sum of costs / lower bound", title, log=False
        ),
    }
    written = []
    for name, figure in drawn.items():
        buffer = io.BytesIO()
        FigureCanvasAgg(figure)
        figure.savefig(buffer, format="png", dpi=DPI)
        write_atomic(folder / name, buffer.getvalue())
        written.append(folder / name)
    return written


def _success(group: list[MapfLabRow]) -> float | None:
    return 100.0 * sum(1 for row in group if row.solved and row.valid) / len(group)


def _median_time(group: list[MapfLabRow]) -> float | None:
    solved = [max(row.time_s, 1e-6) for row in group if row.solved]
    return statistics.median(solved) if solved else None


def _mean_ratio(group: list[MapfLabRow]) -> float | None:
    ratios = [soc_ratio(row) for row in group if row.solved]
    return statistics.fmean(ratios) if ratios else None


def _per_map(
    rows: Sequence[MapfLabRow], measure: Measure, label: str, title: str, *, log: bool
) -> Figure:
    maps = list(dict.fromkeys(row.map for row in rows))
    solvers = list(dict.fromkeys(row.solver for row in rows))
    columns = max(1, min(MAX_COLUMNS, len(maps)))
    lines = max(1, math.ceil(len(maps) / columns))
    figure = Figure(figsize=(PANEL_IN[0] * columns, PANEL_IN[1] * lines), layout="constrained")
    figure.suptitle(f"{title}: {label} against agents")
    for index, map_name in enumerate(maps):
        axes = figure.add_subplot(lines, columns, index + 1)
        for colour, solver in enumerate(solvers):
            counts = sorted({r.agents for r in rows if r.map == map_name and r.solver == solver})
            points = [
                (
                    agents,
                    measure(
                        [
                            r
                            for r in rows
                            if (r.map, r.solver, r.agents) == (map_name, solver, agents)
                        ]
                    ),
                )
                for agents in counts
            ]
            kept = [(x, y) for x, y in points if y is not None]
            axes.plot(
                [x for x, _ in kept],
                [y for _, y in kept],
                marker="o",
                markersize=3,
                color=f"C{colour % 10}",  # each solver keeps its colour in every panel
                linestyle=LINE_STYLES[colour % len(LINE_STYLES)],  # lines that coincide stay seen
                label=solver,
            )
        if log:
            axes.set_yscale("log")
        axes.set_title(map_name, fontsize="medium")
        axes.set_xlabel("agents")
        axes.set_ylabel(label)
        axes.grid(True, alpha=0.3)
        axes.legend(fontsize="small")
    return figure
