"""How large a grid the search view may record a search on: estimated before it starts.

The view keeps every step of the search it shows (`sim.navigation.replay`), and any walkable
cell may be expanded, so the walkable cells bound what a recording may take:

- a search recorded by its expansions keeps about `BYTES_PER_CELL` a cell in all (the log's
  events, the replay's arrays, the cells drawn): measured at some 1,400 bytes on a 1024 x 1024
  grid, where a 2048 x 2048 one took 7.8 GB and a 4096 x 4096 one ran out of memory;
- a search recorded by tape reads the whole grid each step (`sim.navigation.replay.tape`), so
  its time grows with cells times steps: up to the square of the walkable cells.

A recording past its budget is refused before it starts, with the estimate, the way a search
that cannot search a grid is (`sim plan` plans on maps of any size without recording).
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

from sim.navigation.catalogue import SearchKind
from sim.navigation.searches.declaration import Tape

BYTES_PER_CELL: Final = 1_500
"""Memory a recording takes per walkable cell, at most (all its steps, drawn)."""

MAX_RECORDING_BYTES: Final = 2 * 2**30
"""The memory the view's recordings may take together: 1.4 million walkable cells."""

MAX_TAPE_CELL_READS: Final = 2**34
"""Cell reads a tape recording may take (cells times steps): some 131,000 walkable cells, a
minute or so at worst."""


def check_recording_budget(
    kind: SearchKind, walkable: NDArray[np.bool_], *, recordings: int = 1
) -> None:
    """Refuse to record `kind` on `walkable` when the worst case would not fit, with the estimate.

    Args:
        kind: The search to record.
        walkable: The grid it searches (True where walkable).
        recordings: How many recordings share the budget (a race's lanes).

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
        most = int(MAX_TAPE_CELL_READS**0.5) // recordings
        if cells > most:
            raise ValueError(
                f"recording it reads the whole grid each step: up to {float(cells) ** 2:.1e} "
                f"cell reads for {cells:,} walkable cells; the view records it on at most "
                f"{most:,}; sim plan has no such limit"
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
