"""`sim compare --csv F --chart F.png`: the comparison table as a CSV file and as a bar chart.

The CSV has one row per search and the table's columns (`CSV_COLUMNS`), numbers unformatted:
cost and gap are empty where no path was found, heuristic where the search takes none. The
chart draws cells expanded and path cost per search as bars, the rows that miss the shortest
path hatched, with matplotlib's Agg canvas (no display, no pyplot state). matplotlib is in the
``lab`` extra and is imported only when a chart is drawn (`require_matplotlib` says what to
install without it).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from sim.errors import SimError
from sim.lab.store import write_atomic
from sim.navigation.replay.compare import ComparisonRow, more_order, table_order

CSV_COLUMNS: Final = ("algorithm", "heuristic", "expanded", "ms", "cost", "gap", "mark", "note")
"""The table's columns (`format_table`), in its order; cost and gap in the scene's units."""
INSTALL_HINT: Final = 'sim compare --chart needs matplotlib: pip install -e ".[lab]"'
CHART_SIZE_IN: Final = (9.0, 6.0)
CHART_DPI: Final = 100
_HEADER_READ_BYTES: Final = 4096


def csv_text(rows: Sequence[ComparisonRow]) -> str:
    """The rows as CSV text: a header of `CSV_COLUMNS`, then one line per row.

    >>> import numpy as np
    >>> from sim.navigation.replay.compare import compare_searches
    >>> rows = compare_searches(np.ones((2, 2), dtype=bool), (0, 0), (1, 1), repeat=1)
    >>> csv_text(rows).splitlines()[0]
    'algorithm,heuristic,expanded,ms,cost,gap,mark,note'
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow(
            (
                row.label,
                "" if row.heuristic is None else row.heuristic.value,
                row.expanded,
                f"{row.ms:.4f}",
                repr(row.cost) if row.found else "",
                "" if row.gap is None else repr(row.gap),
                "*" if row.marked else "",
                row.note,
            )
        )
    return buffer.getvalue()


def write_csv(rows: Sequence[ComparisonRow], path: Path) -> None:
    """Write `csv_text(rows)` to `path` (atomically: a reader never sees half a table)."""
    write_atomic(path, csv_text(rows))


def check_csv_target(flag: str, path: Path) -> None:
    """Refuse to replace `path` unless it is new, empty, or a table this command wrote.

    Any text would pass for CSV, so notes or code named by mistake would be lost: an existing
    file is ours only if its first line is the `CSV_COLUMNS` header (a spreadsheet's byte order
    mark or CRLF line end allowed). `path` is otherwise checked already (`check_outputs`).

    Raises:
        SimError: One line naming the flag and the path.
    """
    if not path.exists():
        return
    try:
        with path.open("rb") as existing:
            head = existing.read(_HEADER_READ_BYTES)
    except OSError as error:
        reason = error.strerror or error
        raise SimError(f"{flag} {path}: cannot read it to see what it holds: {reason}") from None
    first_line = head.removeprefix(b"\xef\xbb\xbf").split(b"\n", 1)[0].rstrip(b"\r")
    if head and first_line != ",".join(CSV_COLUMNS).encode("ascii"):
        raise SimError(
            f"{flag} {path}: exists and is not a CSV file sim compare wrote (its first line is"
            " not the table's header); refusing to replace it"
        )


def require_matplotlib() -> None:
    """Raise `SimError` saying what to install unless matplotlib imports."""
    try:
        import matplotlib  # noqa: F401  (only whether it imports)
    except ImportError:
        raise SimError(INSTALL_HINT) from None


def chart_png(rows: Sequence[ComparisonRow], title: str, *, cost_unit: str = "units") -> bytes:
    """Draw cells expanded and path cost per search as two bar charts; return the PNG bytes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    names = [row.name for row in rows]
    places = list(range(len(rows)))
    # Hatched bars are the rows `format_table` marks with *: they miss the shortest path.
    hatches = ["//" if row.marked else "" for row in rows]
    colours = [f"C{_family(row)}" for row in rows]
    figure = Figure(figsize=CHART_SIZE_IN)
    FigureCanvasAgg(figure)
    expanded_axes, cost_axes = figure.subplots(2, 1, sharex=True)
    series = (
        (expanded_axes, [row.expanded for row in rows], "cells expanded"),
        (cost_axes, [row.cost if row.found else 0.0 for row in rows], f"cost ({cost_unit})"),
    )
    for axes, values, label in series:
        bars = axes.bar(places, values, color=colours, edgecolor="black", linewidth=0.5)
        for bar, hatch in zip(bars, hatches, strict=True):
            bar.set_hatch(hatch)
        axes.set_ylabel(label)
        axes.grid(axis="y", alpha=0.3)
    cost_axes.set_xticks(places, names, rotation=60, ha="right", fontsize=8)
    expanded_axes.set_title(title, fontsize=10)
    if any(hatches):
        cost_axes.legend(
            handles=[Patch(facecolor="white", edgecolor="black", hatch="//")],
            labels=["not a shortest path"],
            fontsize=8,
        )
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=CHART_DPI)
    return buffer.getvalue()


def write_chart(rows: Sequence[ComparisonRow], path: Path, title: str) -> None:
    """Write `chart_png(rows, title)` to `path` (atomically)."""
    write_atomic(path, chart_png(rows, title))


def _family(row: ComparisonRow) -> int:
    """A colour index per search, in row order, so the four heuristics of one search share it."""
    kinds = [*table_order(), *more_order()]
    return next(
        (index for index, kind in enumerate(kinds) if row.label == kind.titled(row.weight)),
        len(kinds),
    )
