"""Routes down a distance field, shared by every agent on them: tables built once per field.

A crowd of thousands on a large grid cannot afford one Python walk of its whole path per agent
per replan, nor one tuple of every cell per plan (10,000 agents times 4,000 cells is gigabytes).
So a field gets a `DescentTables`: the next cell down the field from every cell at once
(`descent_table`, numpy, the same choice as `sim.navigation.field.descend_on_graph`), and the
steps and length to the goal, filled in lazily and kept, so a walk stops where an earlier one
passed. A plan's cells are a `FieldRoute`: a sequence that walks the table when read.

With links, a cell whose best way down is a link hop (`sim.crowd.links.hops`) steps to the
link's far end: a route lists both ends one after the other, as `find_path` does, and its
length counts the hop as one grid step.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import overload

import numpy as np
from numpy.typing import NDArray

from sim.navigation.field import TIE_SCALE
from sim.navigation.moves import DIRECTIONS, SQRT2, MoveGraph

Cell = tuple[int, int]

NO_CELL = -1
"""In a table of flat cells: none (the goal, an unreachable cell, or not known yet)."""


def descent_table(graph: MoveGraph, field: Sequence[float]) -> NDArray[np.int64]:
    """Return, per flat cell, the cell `descend_on_graph(graph, field, cell)` steps to.

    `NO_CELL` where it returns None: the goal (field 0) and cells that cannot reach it
    (``inf``). The same floats and the same tie rule (floored to multiples of 1 / TIE_SCALE,
    the first move in `DIRECTIONS` order wins), vectorized over the grid.

    >>> graph = MoveGraph.build(np.ones((1, 3), dtype=bool))
    >>> descent_table(graph, [0.0, 1.0, 2.0]).tolist()
    [-1, 0, 1]
    """
    here = np.asarray(field, dtype=np.float64)
    size = graph.height * graph.width
    legal = np.frombuffer(graph.legal, dtype=np.uint8)
    cell_cost = np.asarray(graph.cell_cost, dtype=np.float64)
    best = np.full(size, NO_CELL, dtype=np.int64)
    best_value = np.full(size, math.inf)
    count = len(DIRECTIONS) if graph.diagonal else 4
    for bit, (d_row, d_col) in enumerate(DIRECTIONS[:count]):
        cells = np.flatnonzero(legal & (1 << bit))
        neighbours = cells + (d_row * graph.width + d_col)
        length = SQRT2 if d_row and d_col else 1.0
        # inf stays inf here where Python's `inf // 1.0` is nan: neither is ever the best.
        value = np.floor((here[neighbours] + length * cell_cost[neighbours]) * TIE_SCALE)
        better = value < best_value[cells]
        best[cells[better]] = neighbours[better]
        best_value[cells[better]] = value[better]
    best[(here == 0.0) | (here == math.inf)] = NO_CELL
    return best


class DescentTables:
    """One field's next cells, and its steps and lengths to the goal as far as walked.

    Attributes:
        following: per flat cell the next cell down the field, or `NO_CELL`.
        width: columns of the grid (flat cell = row * width + col).
    """

    def __init__(
        self, graph: MoveGraph, field: Sequence[float], hops: Mapping[int, int] | None = None
    ) -> None:
        """`hops`: per flat cell whose way down is a link, the link's far end (none: no links)."""
        self.width = graph.width
        table = descent_table(graph, field)
        for start, end in (hops or {}).items():
            table[start] = end
        self.following = array("q", table.tobytes())
        size = len(self.following)
        self._steps = array("q", [NO_CELL]) * size
        self._length = array("d", [0.0]) * size

    def steps(self, cell: int) -> int:
        """Moves from flat `cell` (which reaches the goal) down to the goal."""
        self._fill(cell)
        return self._steps[cell]

    def length(self, cell: int) -> float:
        """Length in cells of the path from flat `cell` (which reaches the goal) to the goal."""
        self._fill(cell)
        return self._length[cell]

    def cell_at(self, cell: int, moves: int) -> int:
        """The cell `moves` steps down from flat `cell` (at most its `steps`)."""
        following = self.following
        for _ in range(moves):
            cell = following[cell]
        return cell

    def _fill(self, cell: int) -> None:
        """Walk down from `cell` to a cell already known, then fill in the cells walked."""
        following, steps, length = self.following, self._steps, self._length
        walked = []
        while steps[cell] == NO_CELL:
            walked.append(cell)
            below = following[cell]
            if below == NO_CELL:  # the goal
                steps[cell] = 0
                walked.pop()
                break
            cell = below
        width = self.width
        for above in reversed(walked):
            below = following[above]
            diagonal = below // width != above // width and below % width != above % width
            steps[above] = steps[below] + 1
            length[above] = length[below] + (SQRT2 if diagonal else 1.0)


class FieldRoute(Sequence[Cell]):
    """The cells ``(row, col)`` from a start down the field to its goal, read on demand.

    Holds only its start and the shared tables; indexing walks them (the first and the last
    cell cost nothing), so a plan costs no memory per cell.
    """

    __slots__ = ("_goal", "_size", "_start", "_tables")

    def __init__(self, tables: DescentTables, start: int, goal: int) -> None:
        self._tables, self._start, self._goal = tables, start, goal
        self._size = tables.steps(start) + 1

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> Cell: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Cell, ...]: ...

    def __getitem__(self, index: int | slice) -> Cell | tuple[Cell, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError(f"route index {index} out of range (length {self._size})")
        width = self._tables.width
        if index == self._size - 1:
            return divmod(self._goal, width)
        return divmod(self._tables.cell_at(self._start, index), width)

    def __iter__(self) -> Iterator[Cell]:
        following, width = self._tables.following, self._tables.width
        cell = self._start
        for _ in range(self._size):
            yield divmod(cell, width)
            cell = following[cell]

    def __repr__(self) -> str:
        return f"FieldRoute({self[0]} -> {self[-1]}, {self._size} cells)"
