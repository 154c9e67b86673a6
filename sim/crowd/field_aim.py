"""Where an agent on a distance field heads from each cell: the farthest cell down it in view.

A crowd following one distance field (`sim.navigation.field`) needs, every frame, a direction
for each agent. Walking the field cell by cell zigzags (its paths run diagonally, then
straight), and smoothing each agent's path by lines of sight costs far too much for thousands
of agents. An `AimTable` gives each cell an *aim*: the cell ``k`` steps down the field from it,
for the largest ``k`` of `REACHES` whose straight line from the cell's centre keeps a disc of
the table's radius clear of walls (one step always does: the field's moves keep any disc up to
half a cell clear). An agent steers toward its cell's aim; entering the next cell gives the
next aim, so the direction changes smoothly and rounds corners close.

The line test (`Walls.lines_clear`, in C when built) samples points every `SPACING` cells along
it. A cheap bound goes first: the distance to the walls changes no faster than a point moves,
so a point's clearance is at least its cell's (`sim.navigation.clearance`) less its offset from
the cell's centre; lines whose every sample keeps the radius plus half the spacing that way are
clear. That bound refuses most lines near walls, so those get the exact test of a disc of the
radius plus half the spacing at every sample (`sim.crowd.disc_walls.Walls`, exact up to half a
cell: for radii above `SPACING` less than that a line may graze a wall by a little between
samples, which the agents' own wall test then stops). On terrain only lines over cells costing
1 are taken (as `smooth_path` skips only those), so a crowd does not cut across the mud its
field goes round.

Aims are computed the first time a cell is asked about, with the rest of its `BLOCK` x
`BLOCK` block, for every new block of a call at once (numpy), and kept: a crowd pays only for
the ground it covers.

>>> import numpy as np
>>> from sim.navigation.clearance import clearance
>>> walkable = np.ones((1, 5), dtype=bool)
>>> costs = np.array([4.0, 3.0, 2.0, 1.0, 0.0])       # the goal is the last cell
>>> following = np.array([1, 2, 3, 4, -1])
>>> table = AimTable(following, costs, walkable, clearance(walkable), radius=0.4)
>>> table.aims(np.array([0, 2, 4])).tolist()
[4, 4, 4]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.crowd.disc_walls import Walls, line_samples

REACHES = (2, 4, 8, 16, 32)
"""Steps down the field an aim may lie, tried from the farthest to the nearest; 1 is implied."""
SPACING = 0.2
"""Cells between the sample points of a line's clearance test."""
BLOCK = 8
"""Aims are computed for whole blocks of this many cells square at a time."""
UNREACHABLE = -1
"""The aim of a cell that cannot reach the goal."""
_UNKNOWN = -2


class AimTable:
    """Each cell's aim down one distance field, for discs of one radius; filled as asked.

    Args:
        following: (cells,) flat, the next cell down the field from each cell, -1 where none
            (the goal and cells that cannot reach it).
        costs: (cells,) the field: 0 at the goal, inf where it cannot be reached.
        walkable: ``[row, col]`` the field's walkable mask.
        room: ``[row, col]`` the clearance map of the field's walkable mask (cells).
        radius: the discs' radius, in cells.
        cell_costs: ``[row, col]`` terrain costs, or None (all 1).
        reaches: the steps down the field an aim may lie.

    Raises:
        ValueError: when the arrays' sizes do not match or the radius is negative.
    """

    def __init__(
        self,
        following: NDArray[Any],
        costs: NDArray[Any],
        walkable: NDArray[np.bool_],
        room: NDArray[np.float64],
        *,
        radius: float,
        cell_costs: NDArray[np.float64] | None = None,
        reaches: tuple[int, ...] = REACHES,
    ) -> None:
        self._following = np.asarray(following, dtype=np.int64)
        self._costs = np.asarray(costs, dtype=np.float64)
        self._room = np.asarray(room, dtype=np.float64)
        self._walls = Walls(walkable)
        size = self._room.size
        if np.shape(walkable) != self._room.shape:
            raise ValueError(f"walkable {np.shape(walkable)} and room {self._room.shape} differ")
        if self._following.shape != (size,) or self._costs.shape != (size,):
            raise ValueError(
                f"following and costs must have one value per cell ({size}), got "
                f"{self._following.shape} and {self._costs.shape}"
            )
        if not (math.isfinite(radius) and radius >= 0.0):
            raise ValueError(f"radius must be a finite number >= 0, got {radius!r}")
        self.radius = radius
        self._cell_costs = cell_costs
        self._reaches = tuple(sorted(set(reaches)))
        self._width = self._room.shape[1]
        self._table = np.full(size, _UNKNOWN, dtype=np.int64)
        self.cells_computed = 0

    def aims(self, cells: NDArray[Any]) -> NDArray[np.int64]:
        """The aim (a flat cell) of each flat cell in `cells`; `UNREACHABLE` where none.

        The goal's aim is the goal itself.
        """
        flat = np.asarray(cells, dtype=np.intp)
        found = self._table[flat]
        missing = found == _UNKNOWN
        if missing.any():
            new = self._blocks_of(flat[missing])
            self._table[new] = self._compute(new)
            self.cells_computed += len(new)
            found = self._table[flat]
        return found

    def _blocks_of(self, cells: NDArray[np.intp]) -> NDArray[np.intp]:
        """Every cell not known yet in the `BLOCK` x `BLOCK` blocks holding `cells`.

        A crowd enters many new cells a frame, a few at a time; computing their neighbours
        with them makes fewer, larger batches, where numpy's cost per call is spread thin.
        """
        height, width = self._room.shape
        rows, cols = cells // width // BLOCK, cells % width // BLOCK
        blocks = np.unique(rows * (width // BLOCK + 1) + cols)
        block_rows, block_cols = np.divmod(blocks, width // BLOCK + 1)
        offsets = np.arange(BLOCK)
        all_rows = (block_rows[:, None, None] * BLOCK + offsets[None, :, None]).repeat(BLOCK, 2)
        all_cols = (block_cols[:, None, None] * BLOCK + offsets[None, None, :]).repeat(BLOCK, 1)
        inside = (all_rows < height) & (all_cols < width)
        flat = (all_rows * width + all_cols)[inside]
        new: NDArray[np.intp] = flat[self._table[flat] == _UNKNOWN].astype(np.intp)
        return new

    def _compute(self, cells: NDArray[np.intp]) -> NDArray[np.int64]:
        following, costs = self._following, self._costs
        aims = np.where(np.isfinite(costs[cells]), cells, UNREACHABLE).astype(np.int64)
        moving = (aims >= 0) & (costs[cells] > 0.0)
        start = cells[moving]
        if not len(start):
            return aims
        best = start.astype(np.int64)
        current = best.copy()
        reaches = iter(self._reaches)
        reach = next(reaches, None)
        for step in range(1, max(self._reaches, default=1) + 1):
            below = following[current]
            current = np.where(below < 0, current, below)
            if step == 1:
                best = current.copy()  # one step is always clear
            if step == reach:
                clear = self._line_clear(start, current, step)
                best = np.where(clear, current, best)
                reach = next(reaches, None)
        aims[moving] = best
        return aims

    def _line_clear(
        self, start: NDArray[np.int64], end: NDArray[np.int64], steps: int
    ) -> NDArray[np.bool_]:
        """Whether the line between the cells' centres keeps the radius clear (sampled)."""
        samples = math.ceil(steps * math.sqrt(2.0) / SPACING) + 1
        clear = self._walls.lines_clear(self._room, start, end, samples, self.radius)
        if self._cell_costs is not None:
            points, _ = line_samples(start, end, self._width, samples)
            cols = np.floor(points[..., 0]).astype(np.intp)
            rows = np.floor(points[..., 1]).astype(np.intp)
            clear &= (self._cell_costs[rows, cols] <= 1.0).all(axis=1)
        return clear
