"""The offline index: jump tables and landmark fields together, both repaired after an edit.

Jump tables (`sim.navigation.searches.jump_table`) make a query fast where jumps are long; on
mazes and random maps every jump is short and a query still expands thousands of jump points,
because octile distance ignores walls. There a *differential heuristic* (landmarks: Goldberg &
Harrelson, SODA 2005; Sturtevant et al., IJCAI 2009; `sim.navigation.searches.landmarks`)
cuts the search to the corridor the path takes. `OfflineIndex` keeps both for one grid and its
search is jump point search with

    h(n) = max(octile(n, goal), max_i |q_i(goal) - q_i(n)| / S)

over the landmarks ``i`` whose field reaches both cells: the jump table's A* where jumps are
long, the compiled block scan (`_jps.search_landmarks`) with the same fields where they are
short (`SHORT_JUMPS`), which measures faster there. The fields are int32 in units of ``1/S``
cell (`unit_cells` is S: 5741 up to 512 x 512, 985 up to 1.5 M cells, `UNIT_CELLS`), so 11 landmarks
cost 44 bytes a cell: with the table (17 bytes a cell) 61 bytes a cell, 15.25 MB at 512 x 512.

**Why any 1-Lipschitz field serves, and why it survives edits.** Write ``c(u, v)`` for the
cost of a step between neighbours of the current grid (1 or sqrt(2), Moving AI rule) and call
a field ``q`` *Lipschitz* when ``|q(u) - q(v)| <= S c(u, v)`` for every such step, where ``q``
is finite at both ends or at neither. Then h is consistent: for a step, each landmark's term
changes by at most ``c(u, v)`` (``||a - x| - |a - y|| <= |x - y|``) and both cells have the
same landmarks finite; octile is consistent too, and a maximum of consistent functions is
consistent. A consistent h with ``h(goal) = 0`` never overestimates, so A* over jump points
stays optimal (jump points only prune which cells are queued, not their costs). Nothing else
is asked of the field: it need not be the true distance, only a lower bound's shape.

- *Build*: each field is an integer Dijkstra from its landmark with step costs ``S`` and
  ``floor(S sqrt 2)``: every step's difference is at most its step cost, so the field is
  Lipschitz, and no value rounds: there is no float to round down.
- *Closing a cell* removes steps and adds none, so every remaining step still satisfies the
  bound: the field stays Lipschitz untouched (it grows looser, never wrong).
- *Opening a cell* ``x`` adds the steps between ``x`` and its walkable neighbours, and the
  diagonal steps between two of its neighbours that ``x`` had blocked (no corner cutting); all
  their ends lie in the 3 x 3 block around ``x``. `lower` runs Dijkstra from those cells at
  their current values, lowering each cell to ``min(q(v), q(u) + cost(u, v))``. Its result is
  ``q'(v) = min_s (q(s) + S d'(s, v))`` (``d'`` the new grid's distance): for every step
  ``q'(v) <= q'(u) + S c(u, v)`` by the triangle inequality, both ways, so ``q'`` is
  Lipschitz; a cell whose value did not drop keeps its constraints from before, which held.
  A finite cell next to an unreached one lowers it, so finiteness agrees along every step.
  The work is local: it stops where values no longer drop (one cell in open space, a
  cube's step about a hundred; opening a wall that shortcuts a maze can reach the whole map).

So the index never drops its fields: the table is repaired as `JumpTable.update` repairs it,
the fields only where a cell opened. Fields loosened by many closings can be rebuilt at will
(`OfflineIndex.build` again); answers are optimal either way.

>>> walkable = np.ones((3, 5), dtype=bool)
>>> walkable[0:2, 2] = False  # a wall: from (0, 0) to (0, 4) is 6.83, octile says 4
>>> index = OfflineIndex.build(walkable, landmarks=2)
>>> round(index.find_path((0, 0), (0, 4)).cost, 4)
6.8284
>>> walkable[1, 2] = True  # the wall shrinks: the fields are lowered, the path shortens
>>> _ = index.update(walkable)
>>> round(index.find_path((0, 0), (0, 4)).cost, 4)
4.8284
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import Cell, check_walkable
from sim.navigation.searches.jump_table import JUMP_TABLE_AVAILABLE, Found, JumpTable
from sim.navigation.searches.kernel import JPS_AVAILABLE

if JUMP_TABLE_AVAILABLE:
    from sim.navigation.searches import _jump_table
if JPS_AVAILABLE:
    from sim.navigation.searches import _jps

LANDMARKS = 11
"""How many landmark fields `OfflineIndex.build` keeps by default (4 bytes a cell each): the
most that keep a 512 x 512 map's index within 16 MB (on the shared mazes, random and room
maps 11 expand 8-20 % fewer jump points than 8)."""
UNIT_CELLS = (5741, 985, 169, 29, 5, 1)
"""The field units per cell to choose from, finest first: the first whose largest value fits
int32 on the map (5741 at 512 x 512). Pell numbers: S sqrt 2 lies just above an integer
(5741 sqrt 2 = 8119.00006), so a diagonal step of floor(S sqrt 2) units falls short of sqrt 2
by 1e-8 cells, where 4096 would lose 1.5e-4. The error adds up along a path (at most 2e-6 cells
on the shared 512 x 512 maps) and still ranks A*'s ties among equally short paths: with the
same landmarks, exact float64 fields expand up to 1.8x fewer jump points
(`benchmarks/RESULTS.md`, the offline section)."""
SHORT_JUMPS = 8.0
"""The mean straight entry (cells to the next jump point or wall) below which a map's jumps
are short and the index searches by scanning (the compiled block jump point search) with its
fields instead of reading its table: on the shared maps the mazes and random maps (1-3 cells)
answer 1.4x sooner by scanning, the open ones (15-55) 1.3x sooner from the table."""
FIELD_NONE = np.iinfo(np.int32).max
"""A field's value at cells its landmark does not reach."""


@dataclass(frozen=True, slots=True, eq=False)
class IndexFields:
    """An index's integer fields as the Python reference reads them.

    ``JumpPointSearch(walkable, start, goal, landmarks=index.reference_fields())`` is the twin of
    the compiled scan with these fields: h is octile raised to ``|u_goal - u_cell| * unit`` over
    the fields that reach both cells, the same operations as ``h_of`` in ``_jps.c``.

    Attributes:
        fields: ``[cell, landmark]`` int32 units, `FIELD_NONE` where a landmark does not reach.
        snapshot: the cells the fields hold for.
        unit: one unit in cells (1 / `OfflineIndex.unit_cells`).
    """

    fields: NDArray[np.int32]
    snapshot: NDArray[np.bool_]
    unit: float

    def matches(self, walkable: NDArray[np.bool_]) -> bool:
        """Whether `walkable` holds exactly the cells the fields hold for."""
        return walkable.shape == self.snapshot.shape and bool(
            np.array_equal(walkable, self.snapshot)
        )

    def goal_terms(self, goal: int) -> tuple[tuple[int, float], ...]:
        """The fields that reach flat cell `goal`, each with its units there."""
        row = self.fields[goal]
        return tuple((index, int(value)) for index, value in enumerate(row) if value != FIELD_NONE)

    def raise_by(self, h: float, cell: int, goal_terms: tuple[tuple[int, float], ...]) -> float:
        """`h` raised to the largest ``|u_goal - u_cell| * unit`` over `goal_terms` that reach."""
        row = self.fields[cell]
        for index, goal_units in goal_terms:
            units = int(row[index])
            if units == FIELD_NONE:
                continue
            gap = abs(int(goal_units) - units) * self.unit
            if gap > h:
                h = gap
        return h


class OfflineIndex(JumpTable):
    """A jump table and landmark fields of one grid; `update` repairs both after cells flip.

    Answers as `JumpTable` does (`find_path`, `search`, `search_if_matches`), with the
    landmark heuristic: the same costs, fewer jump points expanded on cluttered maps.

    Attributes:
        landmark_cells: the landmarks' flat cells, in the order picked.
        unit_cells: S, the field units per cell.
        scans: whether queries scan the grid (short jumps, `SHORT_JUMPS`) rather than read
            the table; both with the fields, both Dijkstra's costs.
        build_ms: the whole build (table and fields), in milliseconds.
        last_update_ms: the last `update` (table and fields), None before one.
        last_lowered: the field values the last `update` lowered.
    """

    def __init__(
        self,
        table: JumpTable,
        fields: NDArray[np.int32],
        landmark_cells: tuple[int, ...],
        unit_cells: int,
        build_ms: float,
    ):
        super().__init__(table._snapshot, table._entries, build_ms)
        self._fields = fields
        self.landmark_cells = landmark_cells
        self.unit_cells = unit_cells
        self._unit = 1.0 / unit_cells
        self._diagonal_units = math.floor(unit_cells * math.sqrt(2.0))
        self.last_lowered = 0
        straight = np.abs(table._entries.reshape(-1, 8)[table._snapshot.ravel(), 0::2])
        self.scans = JPS_AVAILABLE and bool(straight.size) and bool(straight.mean() < SHORT_JUMPS)

    @classmethod
    def build(
        cls,
        walkable: NDArray[np.bool_],
        *,
        diagonal: DiagonalRule | bool | str = DiagonalRule.NO_CORNER_CUTTING,
        landmarks: int = LANDMARKS,
    ) -> OfflineIndex:
        """Build the table and `landmarks` fields of `walkable` (``[row, col]`` bool).

        The landmarks are picked far apart (farthest-point, as `landmarks.build` does) in the
        region of the walkable cell nearest the grid's centre; cells of other regions get no
        field values and are searched with octile alone there.

        Raises:
            ValueError: as `JumpTable.build`, or for `landmarks` outside 1 to 32.
            RuntimeError: when the compiled extension is not built.
        """
        if not 1 <= landmarks <= 32:
            raise ValueError(f"landmarks must be 1 to 32, got {landmarks!r}")
        began = time.perf_counter()
        table = JumpTable.build(check_walkable(walkable), diagonal=diagonal)
        snapshot = table._snapshot
        height, width = snapshot.shape
        # Every value is at most a path's steps (one a cell) of floor(S sqrt 2) units each.
        unit_cells = next(
            s for s in UNIT_CELLS if snapshot.size * math.ceil(s * math.sqrt(2.0)) < FIELD_NONE
        )
        index = cls(
            table,
            np.full((snapshot.size, landmarks), FIELD_NONE, dtype=np.int32),
            (),
            unit_cells,
            0.0,
        )
        open_cells = np.flatnonzero(snapshot)
        if open_cells.size:
            rows, cols = np.divmod(open_cells, width)
            seed = int(open_cells[np.argmin((rows - height // 2) ** 2 + (cols - width // 2) ** 2)])
            nearest = index._field_from(seed)
            picked: list[int] = []
            for column in range(landmarks):
                cell = int(np.argmax(np.where(nearest < FIELD_NONE, nearest, -1)))
                picked.append(cell)
                # Built apart and copied in: a Dijkstra over a column 44 bytes a row apart
                # misses the cache at every cell, over its own 4 bytes a row it does not.
                field = index._field_from(cell)
                index._fields[:, column] = field
                # The seed only finds the first landmark: it repels none (as `landmarks.build`).
                nearest = field if column == 0 else np.minimum(nearest, field)
            index.landmark_cells = tuple(picked)
        index.build_ms = (time.perf_counter() - began) * 1000.0
        return index

    @property
    def nbytes(self) -> int:
        """The bytes the index keeps: the table, its copy of the cells, and the fields."""
        return super().nbytes + int(self._fields.nbytes)

    @property
    def fields(self) -> NDArray[np.int32]:
        """A read-only ``[cell, landmark]`` view of the fields (units of 1/`unit_cells` cell)."""
        view = self._fields.view()
        view.flags.writeable = False
        return view

    def update(
        self,
        walkable: NDArray[np.bool_],
        cells: Iterable[Cell] | None = None,
        *,
        box: tuple[Cell, Cell] | None = None,
    ) -> int:
        """Repair the table and the fields after cells flipped; return the entries rewritten.

        The cells read are as in `JumpTable.update`; the fields are lowered around each cell
        that opened (see the module), `last_lowered` counts the values lowered.

        Raises:
            ValueError: for a mask of another shape, or a cell outside it.
        """
        began = time.perf_counter()
        height, width = self.shape
        if cells is None and box is None:
            before = self._snapshot.copy()
            written = super().update(walkable)
            opened = np.flatnonzero(self._snapshot.ravel() & ~before.ravel())
        else:
            # Only the cells named can open: a cube's step reads two, not the whole grid.
            if box is not None:
                (row0, col0), (row1, col1) = box
                rows = np.arange(min(row0, row1), max(row0, row1) + 1)
                cols = np.arange(min(col0, col1), max(col0, col1) + 1)
                named = [(int(r), int(c)) for r in rows for c in cols]
            else:
                named = [(int(row), int(col)) for row, col in cells or ()]
            flat = np.array(
                [r * width + c for r, c in named if 0 <= r < height and 0 <= c < width],
                dtype=np.int64,
            )
            was_open = self._snapshot.ravel()[flat]
            written = super().update(walkable, named)
            opened = flat[~was_open & self._snapshot.ravel()[flat]]
        self.last_lowered = 0
        if opened.size:
            seeds = self._around(opened)
            for column in range(self._fields.shape[1]):
                self.last_lowered += self._lower(column, seeds)
        self.last_update_ms = (time.perf_counter() - began) * 1000.0
        return written

    def heuristic(self, cell: int, goal: int) -> float:
        """h(`cell`) toward `goal` (flat cells), as the compiled search computes it."""
        width = self.shape[1]
        row, col = divmod(cell, width)
        goal_row, goal_col = divmod(goal, width)
        d_row, d_col = abs(row - goal_row), abs(col - goal_col)
        h = abs(d_row - d_col) + math.sqrt(2.0) * min(d_row, d_col)
        for here, there in zip(self._fields[cell], self._fields[goal], strict=True):
            if here != FIELD_NONE and there != FIELD_NONE:
                h = max(h, abs(int(there) - int(here)) * self._unit)
        return h

    def reference_fields(self) -> IndexFields:
        """The landmark fields as the Python reference reads them (`IndexFields`)."""
        return IndexFields(self._fields, self._snapshot, self._unit)

    def search(self, start: int, goal: int) -> Found:
        """The compiled search between walkable flat cells, with the landmark heuristic."""
        found = self._search(start, goal, None)
        assert found is not None  # only a comparison with another array gives None
        return found

    def search_if_matches(self, start: int, goal: int, walkable: NDArray[np.bool_]) -> Found | None:
        """`search`, or None, without a search, when `walkable` differs from the index's cells."""
        return self._search(start, goal, walkable)

    def _search(self, start: int, goal: int, compare: NDArray[np.bool_] | None) -> Found | None:
        height, width = self.shape
        if self.scans:
            return _jps.search_landmarks(
                self._snapshot if compare is None else compare,
                height,
                width,
                start,
                goal,
                self._fields,
                self._snapshot,
                self._unit,
            )
        return _jump_table.search(
            self._snapshot,
            height,
            width,
            self._entries,
            start,
            goal,
            compare,
            self._fields,
            self._unit,
        )

    def _field_from(self, cell: int) -> NDArray[np.int32]:
        """The field of flat `cell` (the seed's, or a landmark's), in an array of its own."""
        field = np.full((self._snapshot.size, 1), FIELD_NONE, dtype=np.int32)
        field[cell, 0] = 0
        height, width = self.shape
        _jump_table.lower(
            self._snapshot,
            height,
            width,
            field,
            0,
            self.unit_cells,
            self._diagonal_units,
            np.array([cell], dtype=np.int64),
        )
        return field[:, 0]

    def _lower(self, column: int, seeds: NDArray[np.int64]) -> int:
        height, width = self.shape
        return _jump_table.lower(
            self._snapshot,
            height,
            width,
            self._fields,
            column,
            self.unit_cells,
            self._diagonal_units,
            seeds,
        )

    def _around(self, opened: NDArray[np.int64]) -> NDArray[np.int64]:
        """The cells of the 3 x 3 blocks around flat cells `opened`: every new step's ends."""
        height, width = self.shape
        rows, cols = np.divmod(opened, width)
        around = [
            ((rows + d_row) * width + cols + d_col)[
                (rows + d_row >= 0)
                & (rows + d_row < height)
                & (cols + d_col >= 0)
                & (cols + d_col < width)
            ]
            for d_row in (-1, 0, 1)
            for d_col in (-1, 0, 1)
        ]
        return np.unique(np.concatenate(around)).astype(np.int64)


def lipschitz_violations(index: OfflineIndex) -> int:
    """The steps of `index`'s grid where a field breaks the bound its heuristic needs.

    A step between walkable neighbours (Moving AI rule) breaks it for a landmark when the
    field is finite at one end only, or its two values differ by more than the step's units
    (`unit_cells`, or ``floor(unit_cells * sqrt 2)`` diagonally). Zero means every answer of
    the index is optimal (see the module).

    >>> lipschitz_violations(OfflineIndex.build(np.ones((4, 4), dtype=bool), landmarks=2))
    0
    """
    open_ = index._snapshot
    height, width = index.shape
    fields = index._fields.reshape(height, width, -1).astype(np.int64)
    broken = 0
    # E, S, SE, SW: every step once.
    for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
        rows, there_rows = slice(0, height - d_row), slice(d_row, height)
        here_cols = slice(max(0, -d_col), width - max(0, d_col))
        there_cols = slice(max(0, d_col), width - max(0, -d_col))
        step = open_[rows, here_cols] & open_[there_rows, there_cols]
        if d_row and d_col:
            # No corner cutting: both cells the diagonal passes between are walkable.
            step &= open_[there_rows, here_cols] & open_[rows, there_cols]
        units = index._diagonal_units if d_row and d_col else index.unit_cells
        here, there = fields[rows, here_cols][step], fields[there_rows, there_cols][step]
        finite_here, finite_there = here != FIELD_NONE, there != FIELD_NONE
        too_far = finite_here & finite_there & (np.abs(here - there) > units)
        broken += int(np.count_nonzero((finite_here != finite_there) | too_far))
    return broken
