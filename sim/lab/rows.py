"""One row of `results.csv`: one search on one scenario of one map; its columns and CSV form.

The first fourteen columns are the contract's, in their order; the others follow. Floats are
written as Python's shortest round-trip form (``repr``), so costs read back bit for bit;
``time_ms`` to 4 decimals. An absent value (no cost when no path was found) is an empty
field. What each column means:

- ``map``: the map's name (its file stem); ``scenario``: the scenario's index in that map's
  sample (0 is the first, in the sample's order: by bucket for Moving AI files);
- ``algorithm``, ``heuristic``, ``weight``, ``connectivity``: the search, as `find_path`
  took it (the heuristic is find_path's default when the experiment names none);
- ``found``: ``true`` or ``false``; ``cost``: the path's cost (empty when not found);
- ``optimal``: the published length for Moving AI rows searched 8-connected, our Dijkstra's
  otherwise (4-connected rows; generated maps, whose .scen holds our Dijkstra's lengths);
  empty when the goal cannot be reached at all;
- ``suboptimality``: cost / optimal; exactly 1.0 when the cost equals the optimum within the
  precision the optimum is known to (`Scenario.tolerance` for a printed length), so start ==
  goal (cost 0, optimum 0) is 1.0; empty when no path was found or none exists;
- ``expanded``: cells expanded; ``time_ms``: the search's wall time on its worker;
- ``length_cells``: cells on the path, both ends included (0 when not found); ``turns``: how
  often the path changes direction;
- ``search``: the search's label in the summary and plots; ``implementation``: find_path's;
  ``bucket``, ``start_x``, ``start_y``, ``goal_x``, ``goal_y``: the scenario as its .scen
  gives it (x the column, y the row); ``optimal_source``: ``published`` or ``dijkstra``.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import astuple, dataclass, fields
from typing import Any, Final


@dataclass(frozen=True, slots=True)
class Row:
    """One line of `results.csv` (see the module for each column)."""

    map: str
    scenario: int
    algorithm: str
    heuristic: str
    weight: float
    connectivity: int
    found: bool
    cost: float | None
    optimal: float | None
    suboptimality: float | None
    expanded: int
    time_ms: float
    length_cells: int
    turns: int
    search: str
    implementation: str
    bucket: int
    start_x: int
    start_y: int
    goal_x: int
    goal_y: int
    optimal_source: str


COLUMNS: Final[tuple[str, ...]] = tuple(field.name for field in fields(Row))
_TYPES: Final = {field.name: field.type for field in fields(Row)}


def format_rows(rows: list[Row]) -> str:
    """Return `rows` as CSV text with the header line first.

    >>> row = Row("m", 0, "astar", "octile", 1.0, 8, True, 2.0, 2.0, 1.0, 3, 0.01234, 3, 0,
    ...           "astar", "auto", 0, 0, 0, 2, 0, "published")
    >>> format_rows([row]).splitlines()[1]
    'm,0,astar,octile,1.0,8,true,2.0,2.0,1.0,3,0.0123,3,0,astar,auto,0,0,0,2,0,published'
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(
        [_field(name, value) for name, value in zip(COLUMNS, astuple(row), strict=True)]
        for row in rows
    )
    return buffer.getvalue()


def parse_rows(text: str) -> list[Row]:
    """Read CSV text `format_rows` wrote back into rows; ValueError if it is not such text."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or tuple(header) != COLUMNS:
        raise ValueError("not a results table: the header differs")
    rows = []
    for line in reader:
        if len(line) != len(COLUMNS):
            raise ValueError(f"expected {len(COLUMNS)} fields, got {len(line)}")
        rows.append(Row(*[_value(name, text) for name, text in zip(COLUMNS, line, strict=True)]))
    return rows


def suboptimality(cost: float, optimal: float, tolerance: float) -> float | None:
    """Cost / optimal; 1.0 within `tolerance` of the optimum; None without a path or optimum.

    >>> suboptimality(0.0, 0.0, 0.0), suboptimality(3.0, 2.0, 1e-9)
    (1.0, 1.5)
    >>> suboptimality(math.inf, 2.0, 1e-9) is None
    True
    """
    if not (math.isfinite(cost) and math.isfinite(optimal)):
        return None
    if abs(cost - optimal) <= tolerance:
        return 1.0
    return cost / optimal


def _field(name: str, value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if name == "time_ms":
        return f"{value:.4f}"
    return repr(value) if isinstance(value, float) else str(value)


def _value(name: str, text: str) -> Any:
    kind = _TYPES[name]
    if "None" in kind and text == "":
        return None
    if kind == "bool":
        if text not in ("true", "false"):
            raise ValueError(f"{name}: expected true or false, got {text!r}")
        return text == "true"
    if kind == "int":
        return int(text)
    if kind.startswith("float"):
        return float(text)
    return text
