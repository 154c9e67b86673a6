"""Jump tables (JPS+): jump point search with every jump precomputed, repaired after an edit.

Jump point search (`sim.navigation.searches.jps`) scans the grid from each jump point it
expands to find the next ones. JPS+ (Rabin & Silva, "JPS+: An Extreme A* Speed Optimization for
Static Uniform Cost Grids", Game AI Pro 2, 2015; Harabor & Grastien's offline variant in
"Improving Jump Point Search", ICAPS 2014) does those scans once per map: for every walkable
cell and each of the 8 directions the table holds how far the next jump point lies (``v > 0``
legal steps) or, when there is none before a wall, how many legal steps lead to it (``-v``).
A query then reads one entry per direction instead of scanning. The rules are jps.py's: the
Moving AI one (8-connected, a diagonal step needs both cells it passes between walkable), a
straight jump point is a cell with a forced neighbour, a diagonal one a cell from which a
straight scan along one of the two components finds one.

The search is A* over jump points with the octile heuristic. It queues the straight jump
points found from each diagonal jump point instead of the diagonal one itself (the pruning of
the ICAPS 2014 paper, as jps.py does), and stops a jump at the goal: a straight jump ends there
when the goal lies on its ray before the wall or the next jump point, a diagonal one where it
meets the goal's row or column when the goal lies in its quadrant. The path runs cell by cell;
its cost sums its steps from the start (1.0 or sqrt(2) each, left to right) as `find_path` does,
so the cost is Dijkstra's and jps's (all shortest paths have the same number of straight and
diagonal steps); the cells may be another shortest path.

**Edits.** A cell's walkability reaches the straight entries of its row and column and of the
rows and columns beside it (forced neighbours), and the diagonal entries whose steps pass
through or beside it or whose lines cross a straight entry that turned positive or not.
`JumpTable.update` recomputes those only, and equals a fresh build byte for byte: each row and
column it reaches whole, and each diagonal from its first changed input back against its
direction, stopping at the first entry past the changed inputs that comes out as it was (every
entry behind it is computed from that one alone). A cube's step in the editor rewrites some ten
thousand of the two million entries of a 512 x 512 map, about 0.1 ms, where a build takes some
20-50 ms.

Storage: 16 bytes a cell (8 int16 entries) plus a byte for the copy of the cells it holds for,
4.25 MB at 512 x 512.

>>> walkable = np.ones((5, 7), dtype=bool)
>>> walkable[0:4, 3] = False  # a wall with a gap at the bottom
>>> table = JumpTable.build(walkable)
>>> result = table.find_path((1, 0), (1, 6))
>>> round(result.cost, 4), result.cells[0], result.cells[-1], len(result.cells)
(9.6569, (1, 0), (1, 6), 9)
>>> walkable[4, 3] = False  # the gap closes
>>> table.update(walkable, [(4, 3)]) > 0, table.find_path((1, 0), (1, 6)).found
(True, False)
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.grid import Cell, check_walkable
from sim.navigation.query import PathResult, check_ends, reason_before_search
from sim.navigation.searches import kernel

JUMP_TABLE_AVAILABLE: bool
"""Whether the compiled jump tables imported (they have no Python fallback)."""
try:
    from sim.navigation.searches import _jump_table

    JUMP_TABLE_AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the build
    JUMP_TABLE_AVAILABLE = False

DIRECTIONS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
"""The order of a cell's 8 entries: clockwise from north (north is row - 1)."""

MAX_SIDE = 32767
"""The longest side a table takes: entries are int16."""

Found = tuple[bool, bytes | tuple[tuple[int, int], ...], float, int]
"""What the compiled search returns: found, cells, cost, expanded."""


class JumpTable:
    """The jump distances of one grid, per cell and direction, and a copy of the grid's cells.

    Build one with `JumpTable.build`; after cells flip, `update` repairs it; `find_path`
    answers queries on the cells it holds (`matches` tells whether an array holds the same).
    Queries may run from several threads at once, but not while another thread updates the
    table (`sim.navigation.searches.jump_cache` holds a lock around both).

    Attributes:
        shape: ``(height, width)`` of the grid.
        build_ms: how long the build took, in milliseconds.
        last_update_ms: how long the last `update` took (None before one).
    """

    def __init__(self, snapshot: NDArray[np.bool_], entries: NDArray[np.int16], build_ms: float):
        self._snapshot = snapshot
        self._entries = entries
        self.shape: tuple[int, int] = (int(snapshot.shape[0]), int(snapshot.shape[1]))
        self.build_ms = build_ms
        self.last_update_ms: float | None = None

    @classmethod
    def build(
        cls,
        walkable: NDArray[np.bool_],
        *,
        diagonal: DiagonalRule | bool | str = DiagonalRule.NO_CORNER_CUTTING,
    ) -> JumpTable:
        """Build the table of `walkable` (``[row, col]`` bool) under the `diagonal` rule.

        Raises:
            ValueError: for a mask that is not 2-D bool, a side over `MAX_SIDE`, or a rule
                other than no-corner-cutting (True), the one jump tables follow.
            RuntimeError: when the compiled extension is not built.
        """
        rule = parse_diagonal(diagonal)
        if rule is not DiagonalRule.NO_CORNER_CUTTING:
            raise ValueError(
                "jump tables follow the no-corner-cutting rule only (diagonal=True), "
                f"got {rule.value!r}"
            )
        if not JUMP_TABLE_AVAILABLE:
            raise RuntimeError("sim.navigation.searches._jump_table is not built")
        began = time.perf_counter()
        # A copy: the table holds for these cells, whatever the caller's array does next.
        snapshot = np.array(check_walkable(walkable), dtype=np.bool_, order="C", copy=True)
        height, width = snapshot.shape
        if height > MAX_SIDE or width > MAX_SIDE:
            raise ValueError(
                f"jump tables take up to {MAX_SIDE} cells a side, got {height}x{width}"
            )
        entries = np.empty(height * width * len(DIRECTIONS), dtype=np.int16)
        _jump_table.build(snapshot, height, width, entries)
        return cls(snapshot, entries, (time.perf_counter() - began) * 1000.0)

    @property
    def nbytes(self) -> int:
        """The bytes the table keeps: its entries and its copy of the cells."""
        return int(self._entries.nbytes + self._snapshot.nbytes)

    @property
    def entries(self) -> NDArray[np.int16]:
        """A read-only ``[row, col, direction]`` view of the entries (`DIRECTIONS` order)."""
        view = self._entries.reshape(*self.shape, len(DIRECTIONS)).view()
        view.flags.writeable = False
        return view

    def matches(self, walkable: NDArray[np.bool_]) -> bool:
        """Whether `walkable` holds exactly the cells the table holds for."""
        return walkable.shape == self.shape and bool(np.array_equal(walkable, self._snapshot))

    def update(
        self,
        walkable: NDArray[np.bool_],
        cells: Iterable[Cell] | None = None,
        *,
        box: tuple[Cell, Cell] | None = None,
    ) -> int:
        """Repair the table after cells of `walkable` flipped; return the entries rewritten.

        Only the given cells are read from `walkable`: the `cells` listed, or every cell of
        `box` (two corners, both included), or, with neither, every cell that differs from
        the table's copy. The lines those cells reach are recomputed (see the module); a cell
        that did not change costs nothing.

        Raises:
            ValueError: for a mask of another shape, or a cell outside it.
        """
        began = time.perf_counter()
        walkable = check_walkable(walkable)
        if walkable.shape != self.shape:
            raise ValueError(f"walkable is {walkable.shape}, the table {self.shape}")
        height, width = self.shape
        if box is not None:
            (row0, col0), (row1, col1) = box
            rows = np.arange(min(row0, row1), max(row0, row1) + 1)
            cols = np.arange(min(col0, col1), max(col0, col1) + 1)
            flat = (rows[:, None] * width + cols[None, :]).ravel()
            _check_inside(int(rows[0]), int(cols[0]), height, width)
            _check_inside(int(rows[-1]), int(cols[-1]), height, width)
        elif cells is not None:
            pairs = [(int(row), int(col)) for row, col in cells]
            for row, col in pairs:
                _check_inside(row, col, height, width)
            flat = np.array([row * width + col for row, col in pairs], dtype=np.int64)
        else:
            flat = np.flatnonzero(walkable.ravel() != self._snapshot.ravel())
        fresh = walkable.ravel()[flat]
        changed = flat[fresh != self._snapshot.ravel()[flat]].astype(np.int64)
        written = 0
        if changed.size:
            self._snapshot.ravel()[changed] = walkable.ravel()[changed]
            written = _jump_table.repair(self._snapshot, height, width, self._entries, changed)
        self.last_update_ms = (time.perf_counter() - began) * 1000.0
        return written

    def find_path(self, start: Cell, goal: Cell) -> PathResult:
        """A shortest path on the table's cells, both ends included, as `find_path` returns it.

        No path is ``found=False`` with its reason (goal outside, start or goal blocked,
        unreachable); `expanded` counts the jump points taken off the frontier.

        Raises:
            ValueError: for a cell that is not two integers, or a start outside the grid.
        """
        height, width = self.shape
        if (
            type(start) is tuple
            and type(goal) is tuple
            and len(start) == 2
            and len(goal) == 2
            and type(start[0]) is int
            and type(start[1]) is int
            and type(goal[0]) is int
            and type(goal[1]) is int
            and 0 <= start[0] < height
            and 0 <= start[1] < width
            and 0 <= goal[0] < height
            and 0 <= goal[1] < width
            and self._snapshot.item(start[0] * width + start[1])
            and self._snapshot.item(goal[0] * width + goal[1])
        ):
            # Two plain cells inside the grid, both walkable: the general checks below would
            # take more time than a search on an open map.
            flat_start, flat_goal = start[0] * width + start[1], goal[0] * width + goal[1]
        else:
            start, goal = check_ends(start, goal, self.shape)
            early = reason_before_search(self._snapshot, start, goal)
            if early is not None:
                return PathResult.none(early)
            flat_start, flat_goal = start[0] * width + start[1], goal[0] * width + goal[1]
        # The cells cross flat and are laid out on first read (`lazy_cells`).
        return kernel.path_result(self.search(flat_start, flat_goal))

    def search(self, start: int, goal: int) -> Found:
        """The compiled search between walkable flat cells of the table's grid."""
        height, width = self.shape
        return _jump_table.search(self._snapshot, height, width, self._entries, start, goal)

    def search_if_matches(self, start: int, goal: int, walkable: NDArray[np.bool_]) -> Found | None:
        """`search`, or None, without a search, when `walkable` differs from the table's cells.

        The comparison runs in C on every call (about 10 microseconds at 512 x 512): an array
        edited since the build or the last `update` gets no answer, never a stale one.
        """
        height, width = self.shape
        return _jump_table.search(
            self._snapshot, height, width, self._entries, start, goal, walkable
        )


def _check_inside(row: int, col: int, height: int, width: int) -> None:
    if not (0 <= row < height and 0 <= col < width):
        raise ValueError(f"cell ({row}, {col}) lies outside the {height}x{width} grid [row, col]")
