"""One map's results in `sim bench`: each planner's row, the unreachable row, table and JSON.

`sim.bench.maps` fills a `MapReport`; this module only shows it: the Markdown table printed on
the terminal and written into benchmarks/RESULTS.md, and the map's entry of ``--json``.
Ratios are of medians over the same queries: ``ours/peer`` is ours (auto, the first row) over
the peer, ``A*/peer`` ours with ``algorithm="astar"`` over the peer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from sim.bench.tables import pipe_table
from sim.bench.unreachable import UnreachableRow

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from sim.bench.peers import Planner

OURS_AUTO = "ours_auto"
OURS_ASTAR = "ours_astar"
OURS_PYTHON = "ours_python"
"""The `Contestant.key` of our rows (a peer's key is its ``--peers`` name)."""


@dataclass(frozen=True, slots=True)
class Contestant:
    """One row of every table: ours or a peer.

    Attributes:
        label: the row's name in the tables (a peer's includes its version).
        rule: the movement rule it plans under.
        prepare: ``walkable -> Planner`` for one map, built outside the timing.
        slow: pure Python: only ``--peer-limit`` queries, on maps up to 256x256.
        ours: one of our planners.
        key: a stable name for JSON: `OURS_AUTO`, `OURS_ASTAR`, `OURS_PYTHON` or the peer's.
    """

    label: str
    rule: str
    prepare: Callable[[NDArray[np.bool_]], Planner]
    slow: bool = False
    ours: bool = False
    key: str = ""


@dataclass
class Row:
    """What one contestant did on one map."""

    contestant: Contestant
    ms: dict[int, float] = field(default_factory=dict)
    expanded: dict[int, int] = field(default_factory=dict)
    illegal: list[str] = field(default_factory=list)
    longer: int = 0
    skipped: str = ""

    @property
    def good_paths(self) -> int:
        """Queries answered with a legal path as short as the published optimum."""
        return len(self.ms) - len(self.illegal) - self.longer

    def legal_text(self) -> str:
        """Say whether every path was legal and optimal under the Moving AI rule."""
        if self.illegal:
            return f"NO ({len(self.illegal)}/{len(self.ms)}: {self.illegal[0]})"
        if self.longer:
            return f"legal, {self.longer}/{len(self.ms)} longer than optimal"
        return "yes"


@dataclass
class MapReport:
    """One map's rows, ours (auto) first, and its unreachable row when one could be made."""

    name: str
    width: int
    height: int
    queries: int
    rows: list[Row]
    unreachable: UnreachableRow | None = None
    landmarks_build_ms: float | None = None
    """What building ours (auto)'s landmark fields took (`sim.navigation.searches.landmarks`), in
    the query that decided it; None when no query built them."""

    def median_ms(self, row: Row, over: Sequence[int] | None = None) -> float:
        """Median ms of `row`, over the query indices `over` (default all it answered)."""
        keys = row.ms.keys() if over is None else over
        return float(np.median([row.ms[key] for key in keys]))

    def ratio(self, row: Row) -> float | None:
        """Ours (the first row) / `row`: medians over the queries `row` answered."""
        return self.ratio_of(self.rows[0], row)

    def ratio_of(self, mine: Row | None, row: Row) -> float | None:
        """`mine` / `row`, medians over the queries `row` answered (None if not comparable)."""
        if mine is None or row is mine or not row.ms or not mine.ms:
            return None
        if any(key not in mine.ms for key in row.ms):
            return None
        return self.median_ms(mine, list(row.ms)) / self.median_ms(row)

    def row(self, label: str) -> Row | None:
        """The row of contestant `label`, if it ran."""
        return next((r for r in self.rows if r.contestant.label == label and r.ms), None)

    def row_by_key(self, key: str) -> Row | None:
        """The row of the contestant with `key` (`OURS_ASTAR`, "tcod", ...), if it ran."""
        return next((r for r in self.rows if r.contestant.key == key and r.ms), None)

    def peer_ratio(self, peer: str, ours: str = OURS_AUTO) -> float | None:
        """Ours (`ours`: a key) / the peer named `peer`, or None when either did not run."""
        row = self.row_by_key(peer)
        return None if row is None else self.ratio_of(self.row_by_key(ours), row)

    def unreachable_ratio(self) -> float | None:
        """The median unreachable repeat / the median reachable query of ours (auto)."""
        auto = self.rows[0]
        if self.unreachable is None or not auto.ms:
            return None
        return self.unreachable.ratio(self.median_ms(auto))

    def expanded_text(self, row: Row) -> str:
        """Median expanded nodes; for a peer that ran fewer queries, ours on the same ones."""
        if not row.expanded:
            return "n/a"
        text = str(int(np.median(list(row.expanded.values()))))
        ours = self.rows[0]
        if len(row.ms) < len(ours.ms) and ours.expanded:
            same = int(np.median([ours.expanded[key] for key in row.ms]))
            text += f" (ours {same})"
        return text

    def table(self) -> list[list[str]]:
        """Header and one line per contestant, then the unreachable row, as strings."""
        lines = [
            [
                "planner",
                "rule",
                "legal?",
                "queries",
                "median ms",
                "p95 ms",
                "expanded",
                "ours/peer",
                "A*/peer",
            ]
        ]
        astar = self.row_by_key(OURS_ASTAR)
        for row in self.rows:
            name, rule = row.contestant.label, row.contestant.rule
            if not row.ms:
                lines.append([name, rule, "-", "0", "-", "-", "-", row.skipped or "-", "-"])
                continue
            lines.append(
                [
                    name,
                    rule,
                    row.legal_text(),
                    str(len(row.ms)),
                    f"{self.median_ms(row):.3f}",
                    f"{np.percentile(list(row.ms.values()), 95):.3f}",
                    self.expanded_text(row),
                    _ratio_text(self.ratio(row)),
                    _ratio_text(self.ratio_of(astar, row)),
                ]
            )
        if self.unreachable is not None:
            lines.append(self._unreachable_cells(self.unreachable))
        return lines

    def _unreachable_cells(self, row: UnreachableRow) -> list[str]:
        repeats = row.ms or [row.first_ms]
        return [
            f"{self.rows[0].contestant.label}, unreachable",
            row.describe(),
            row.verdict(),
            str(row.queries),
            _ms_text(row.median_ms),
            _ms_text(float(np.percentile(repeats, 95))),
            f"{int(np.median(row.expanded or [0]))} (first {row.first_expanded})",
            "-",
            "-",
        ]

    def unreachable_note(self) -> str | None:
        """One line under the table: the first unreachable query and the repeats' ratio."""
        row, ratio = self.unreachable, self.unreachable_ratio()
        if row is None:
            return None
        text = (
            f"Unreachable, {row.describe()}: the first query on a fresh copy of the array "
            f"took {row.first_ms:.3f} ms (expanded {row.first_expanded}), then {len(row.ms)} "
            f"more on the same array a median {_ms_text(row.median_ms)} ms"
        )
        if ratio is not None:
            reachable = self.median_ms(self.rows[0])
            text += f", {ratio:.4f}x the median reachable query ({reachable:.3f} ms)"
        return text + "."

    def lines(self) -> list[str]:
        """The table as text: a title line, a pipe table (valid Markdown), the note if any."""
        title = f"{self.name} ({self.width}x{self.height}), {self.queries} queries"
        notes = [note for note in (self.landmarks_note(), self.unreachable_note()) if note]
        return [title, "", *pipe_table(self.table()), *(["", *notes] if notes else [])]

    def landmarks_note(self) -> str | None:
        """One line under the table when ours (auto) built landmark fields during the run."""
        if self.landmarks_build_ms is None:
            return None
        return (
            f"Landmarks: {self.rows[0].contestant.label} built its 8 distance fields in "
            f"{self.landmarks_build_ms:.0f} ms, within the query that decided they pay (after "
            "the first few queries on the array); that query's time includes it."
        )

    def to_json(self) -> dict[str, Any]:
        """The map's entry of ``sim bench --json``: size, every row, the unreachable row."""
        rows = []
        astar = self.row_by_key(OURS_ASTAR)
        for row in self.rows:
            ran = bool(row.ms)
            rows.append(
                {
                    "planner": row.contestant.label,
                    "key": row.contestant.key,
                    "ours": row.contestant.ours,
                    "rule": row.contestant.rule,
                    "queries": len(row.ms),
                    "median_ms": round(self.median_ms(row), 6) if ran else None,
                    "p95_ms": round(float(np.percentile(list(row.ms.values()), 95)), 6)
                    if ran
                    else None,
                    "median_expanded": int(np.median(list(row.expanded.values())))
                    if row.expanded
                    else None,
                    "illegal": len(row.illegal),
                    "longer": row.longer,
                    "legal_and_optimal": ran and row.good_paths == len(row.ms),
                    "auto_over_peer": _rounded(self.ratio(row)),
                    "astar_over_peer": _rounded(self.ratio_of(astar, row)),
                    "skipped": row.skipped or None,
                }
            )
        auto_ms = self.median_ms(self.rows[0]) if self.rows[0].ms else None
        return {
            "map": self.name,
            "width": self.width,
            "height": self.height,
            "queries": self.queries,
            "rows": rows,
            "unreachable": None if self.unreachable is None else self.unreachable.to_json(auto_ms),
            "landmarks_build_ms": _rounded(self.landmarks_build_ms),
        }


def _ratio_text(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.2f}"


def _ms_text(ms: float) -> str:
    """Milliseconds with 3 decimals, or 4 below 0.01 ms (microsecond answers)."""
    return f"{ms:.3f}" if ms >= 0.01 else f"{ms:.4f}"


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
