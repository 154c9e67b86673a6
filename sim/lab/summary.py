"""`summary.md`: the run in a few lines, then per map and search how each search did.

The header names the experiment, the date, the machine and the workers; each table line
gives the success rate, mean suboptimality, median expanded cells and median time.

The statistics are over all of a map's rows for that search: success is the share with a
path; the mean suboptimality is over the rows that have one (found, with an optimum); the
medians are over all rows (a search that fails still expanded and spent time). A last table
pools every map per search.
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from sim.lab.rows import Row


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What the header says about the run.

    Attributes:
        experiment: the experiment's name.
        source: the experiment file, as given.
        workers: how the chunks ran, e.g. ``2 local worker processes`` or ``none needed``.
        chunks_run: chunks this run computed.
        chunks_reused: chunks it took from an earlier, interrupted run (`--resume`).
        elapsed_s: the run's wall time.
    """

    experiment: str
    source: str
    workers: str
    chunks_run: int
    chunks_reused: int
    elapsed_s: float


@dataclass(frozen=True, slots=True)
class Stats:
    """One line of a summary table."""

    rows: int
    success_rate: float
    mean_suboptimality: float | None
    median_expanded: float
    median_time_ms: float


def stats(rows: Sequence[Row]) -> Stats:
    """The summary's numbers over `rows` (not empty).

    >>> from sim.lab.rows import Row
    >>> def row(found, sub, expanded):
    ...     return Row("m", 0, "a", "h", 1.0, 8, found, None, None, sub, expanded, 1.0, 0, 0,
    ...                "a", "auto", 0, 0, 0, 0, 0, "published")
    >>> stats([row(True, 1.0, 10), row(True, 1.5, 20), row(False, None, 30)])
    Stats(rows=3, success_rate=0.6666666666666666, mean_suboptimality=1.25, median_expanded=20, median_time_ms=1.0)
    """  # noqa: E501 - a doctest's output is one line
    ratios = [row.suboptimality for row in rows if row.suboptimality is not None]
    return Stats(
        rows=len(rows),
        success_rate=sum(row.found for row in rows) / len(rows),
        mean_suboptimality=statistics.fmean(ratios) if ratios else None,
        median_expanded=statistics.median(row.expanded for row in rows),
        median_time_ms=statistics.median(row.time_ms for row in rows),
    )


def format_summary(rows: Sequence[Row], facts: RunFacts) -> str:
    """The whole of `summary.md` for `rows` (in results order) and the run's `facts`."""
    maps = list(dict.fromkeys(row.map for row in rows))
    searches = list(dict.fromkeys(row.search for row in rows))
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.map, row.search), []).append(row)
    lines = [
        f"# Sweep: {facts.experiment}",
        "",
        f"- experiment: `{facts.source}`",
        f"- date: {datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {_machine()}",
        f"- workers: {facts.workers}",
        f"- chunks: {facts.chunks_run} run now, {facts.chunks_reused} from an earlier run; "
        f"{len(rows)} rows, {len(maps)} maps x {len(searches)} searches; "
        f"{facts.elapsed_s:.1f} s",
        "",
        "## Per map and search",
        "",
        *_table(["map", "search"], [((m, s), groups[m, s]) for m in maps for s in searches]),
        "",
        "## All maps, per search",
        "",
        *_table(
            ["search"],
            [((s,), [row for m in maps for row in groups[m, s]]) for s in searches],
        ),
        "",
        "Success: share of scenarios with a path. Suboptimality: cost / optimal (1 is "
        "optimal), mean over the paths found. Expanded and time: medians over all scenarios; "
        "time is one search on one worker.",
        "",
    ]
    return "\n".join(lines)


def _table(keys: list[str], groups: list[tuple[tuple[str, ...], list[Row]]]) -> list[str]:
    header = [*keys, "scenarios", "success", "mean suboptimality", "median expanded", "median ms"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(keys) + "---:|" * 5]
    for names, rows in groups:
        numbers = stats(rows)
        mean = numbers.mean_suboptimality
        cells = [
            *(_cell(name) for name in names),
            str(numbers.rows),
            f"{numbers.success_rate:.1%}",
            "n/a" if mean is None else f"{mean:.4f}",
            f"{numbers.median_expanded:g}",
            f"{numbers.median_time_ms:.3f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _cell(text: str) -> str:
    r"""`text` as one Markdown table cell: a `|` would end the cell, a line break the row.

    >>> _cell("a|b"), _cell("two\nlines")
    ('a\\|b', 'two lines')
    """
    return " ".join(text.replace("\\", "\\\\").replace("|", "\\|").splitlines())


def _machine() -> str:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    processor = platform.processor() or platform.machine()
    return (
        f"{platform.node()}, {platform.system()} {platform.machine()} ({processor}), "
        f"{cores} cores, Python {platform.python_version()}"
    )
