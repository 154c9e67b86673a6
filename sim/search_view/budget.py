"""How large a grid the search view may record a search on: estimated before it starts.

The view keeps every step of the search it shows (`sim.navigation.replay`), and any walkable
cell may be expanded, so the walkable cells bound what a recording may take:

- a search recorded by its expansions keeps about `BYTES_PER_CELL` a cell in all (the log's
  events, the replay's arrays, the cells drawn): measured at some 1,400 bytes on a 1024 x 1024
  grid, where a 2048 x 2048 one took 7.8 GB and a 4096 x 4096 one ran out of memory;
- a search recorded by tape reads the whole grid each step (`sim.navigation.replay.tape`), so
  its time grows with cells times steps. Steps are at most the walkable cells, but jump point
  search takes a few dozen on a large open grid where bidirectional A* takes thousands: when
  the square of the cells would not fit, a search the compiled kernel runs (jump point search)
  is first run unrecorded to count its steps (milliseconds in C), and cells times those steps
  must fit; the others (in Python, as slow to count as to record) are held to the square.

A recording past its budget is refused before it starts, with the estimate, the way a search
that cannot search a grid is (`sim plan` plans on maps of any size without recording).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from sim.navigation.catalogue import SearchKind
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import Cell
from sim.navigation.heuristics import Heuristic, parse_heuristic
from sim.navigation.pathfinder import find_path_with
from sim.navigation.query import SearchSettings
from sim.navigation.searches.declaration import Tape
from sim.navigation.searches.kernel import JPS_AVAILABLE as KERNEL_AVAILABLE

BYTES_PER_CELL: Final = 1_500
"""Memory a recording takes per walkable cell, at most (all its steps, drawn)."""

MAX_RECORDING_BYTES: Final = 2 * 2**30
"""The memory the view's recordings may take together: 1.4 million walkable cells."""

MAX_TAPE_CELL_READS: Final = 2**34
"""Cell reads a tape recording may take (cells times steps): a minute or so at worst."""


def check_recording_budget(
    kind: SearchKind,
    walkable: NDArray[np.bool_],
    *,
    recordings: int = 1,
    ends: tuple[Cell, Cell] | None = None,
    rule: DiagonalRule = DiagonalRule.NO_CORNER_CUTTING,
    heuristic: str = Heuristic.OCTILE.value,
    costs: NDArray[Any] | None = None,
) -> None:
    """Refuse to record `kind` on `walkable` when the worst case would not fit, with the estimate.

    Args:
        kind: The search to record.
        walkable: The grid it searches (True where walkable).
        recordings: How many recordings share the budget (a race's lanes).
        ends: The search's start and goal: with them a tape search's steps are counted when
            the square of the cells would not fit; without them that square decides.
        rule: The diagonal rule it searches under (for counting its steps).
        heuristic: Its heuristic's name (for counting its steps).
        costs: The cells' costs, or None (for counting its steps).

    Raises:
        ValueError: in words, with the estimate and the most walkable cells that fit.

    >>> check_recording_budget(SearchKind.ASTAR, np.ones((64, 64), dtype=bool))
    >>> check_recording_budget(SearchKind.DIJKSTRA, np.ones((2048, 2048), dtype=bool))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: recording it could take 6.3 GB (1500 bytes for each of the 4,194,304 walkable ...
    """
    cells = int(np.count_nonzero(walkable))
    if isinstance(kind.recording, Tape):
        budget = MAX_TAPE_CELL_READS // recordings
        if cells * cells <= budget:
            return
        steps = cells
        if ends is not None and kind.kernel and KERNEL_AVAILABLE:
            steps = _steps(kind, walkable, ends, rule, heuristic, costs)
        if cells * steps > budget:
            raise ValueError(
                f"recording it reads the whole grid each step: {float(cells) * steps:.1e} "
                f"cell reads ({steps:,} steps over {cells:,} walkable cells), past the view's "
                f"{float(budget):.1e}; sim plan has no such limit"
            )
        return
    most = MAX_RECORDING_BYTES // BYTES_PER_CELL // recordings
    if cells > most:
        estimate_gb = cells * BYTES_PER_CELL / 1e9
        raise ValueError(
            f"recording it could take {estimate_gb:.1f} GB ({BYTES_PER_CELL} bytes for each of "
            f"the {cells:,} walkable cells it may expand); the view records on at most "
            f"{most:,} ({MAX_RECORDING_BYTES // 2**30} GB); sim plan has no such limit"
        )


def _steps(
    kind: SearchKind,
    walkable: NDArray[np.bool_],
    ends: tuple[Cell, Cell],
    rule: DiagonalRule,
    heuristic: str,
    costs: NDArray[Any] | None,
) -> int:
    """How many expansions (a recording's steps) `kind` makes on this query, unrecorded.

    A query the search refuses counts as none: recording it is refused by its own check.
    """
    settings = SearchSettings(
        rule,
        parse_heuristic(heuristic) if kind.takes_heuristic else Heuristic.ZERO,
        kind.algorithm,
        1.0,
        costs,
    )
    try:
        return find_path_with(walkable, ends[0], ends[1], settings).expanded
    except ValueError:
        return 0
