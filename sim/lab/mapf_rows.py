"""One row of a MAPF sweep's `results.csv`: one solver run on one instance; its CSV form.

The columns: ``map`` (its file stem), ``scen`` (the scenario file's name), ``agents``,
``solver``, ``seed``, ``time_limit_s``; ``solved`` (``true``/``false``: a plan within the
limit), ``valid`` (the checker found no violation; empty when not solved), ``optimal`` (the
solver proved its sum of costs optimal), ``sum_of_costs`` and ``makespan`` (empty when not
solved), ``soc_lower_bound`` and ``makespan_lower_bound`` (each agent alone), ``time_s``
(the solver's wall time on its worker, distance tables included).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields
from typing import Final


@dataclass(frozen=True, slots=True)
class MapfLabRow:
    """One line of a MAPF sweep's `results.csv` (see the module for each column)."""

    map: str
    scen: str
    agents: int
    solver: str
    seed: int
    time_limit_s: float
    solved: bool
    valid: bool | None
    optimal: bool
    sum_of_costs: int | None
    makespan: int | None
    soc_lower_bound: int
    makespan_lower_bound: int
    time_s: float


COLUMNS: Final[tuple[str, ...]] = tuple(field.name for field in fields(MapfLabRow))


def format_rows(rows: Sequence[MapfLabRow]) -> str:
    """`rows` as CSV text, the header first; absent values empty, booleans ``true``/``false``.

    >>> row = MapfLabRow("m", "m-random-1.scen", 2, "pibt", 0, 1.0, True, True, False, 7, 4,
    ...                  7, 4, 0.000123)
    >>> format_rows([row]).splitlines()[1]
    'm,m-random-1.scen,2,pibt,0,1.0,true,true,false,7,4,7,4,0.000123'
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(
        [_field(name, value) for name, value in zip(COLUMNS, astuple(row), strict=True)]
        for row in rows
    )
    return buffer.getvalue()


def _field(name: str, value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if name == "time_s":
        return f"{value:.6f}"
    return str(value)


def soc_ratio(row: MapfLabRow) -> float:
    """Sum of costs over its lower bound (1.0 for a bound of 0: nobody had to move)."""
    if not row.sum_of_costs or not row.soc_lower_bound:
        return 1.0
    return row.sum_of_costs / row.soc_lower_bound
