"""Room for agents with a size: the grid's clearance map, cached, and the cells each radius uses.

`GridManager` owns one `Room`. An agent of radius up to half a cell fits on every walkable cell,
so it plans on the grid itself; a larger one plans on the cells whose clearance (the distance
from the centre to the nearest wall, `sim.navigation.clearance`) is at least its radius. The
clearance map is computed when an agent first needs it (to plan, to smooth its path, or to check
a move away from open ground), once per walkable mask; each radius keeps its usable grid and its
smoothing mask until the mask (or, for the grid, the costs) change.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from sim.navigation.clearance import clearance, usable_mask
from sim.navigation.grid import GridMap
from sim.navigation.line_of_sight import segment_is_clear

Point = tuple[float, float]

HALF_DIAGONAL = math.sqrt(0.5)
"""How far a point of a cell lies from its centre at most, in cells."""
SAMPLE_SPACING = 0.25
"""Cells between the points where `Room.disc_is_clear` bounds a long move's room."""


class Room:
    """Clearance and usable grids of one grid, cached by its `mask_version`.

    Radii here are in *cells* (world units divided by the cell size); points are in cell
    space, as `sim.navigation.line_of_sight` has them.
    """

    def __init__(self) -> None:
        self._clearance: tuple[int, NDArray[np.float64]] | None = None
        # A cell whose 3 x 3 block lies on the grid and is all walkable: every point of it is at
        # least one cell from any wall.
        self._roomy: tuple[int, NDArray[np.bool_]] | None = None
        self._usable: dict[float, tuple[int, GridMap, GridMap]] = {}
        self._smoothing: dict[float, tuple[int, NDArray[np.bool_]]] = {}

    def clearance(self, walkable: NDArray[np.bool_], mask_version: int) -> NDArray[np.float64]:
        """``[row, col]`` the distance from each cell's centre to the nearest wall, in cells."""
        if self._clearance is None or self._clearance[0] != mask_version:
            self._clearance = (mask_version, clearance(walkable))
        return self._clearance[1]

    def usable_grid(self, grid: GridMap, mask_version: int, radius: float) -> GridMap:
        """`grid` restricted to the cells an agent of `radius` cells may stand on.

        Up to half a cell that is `grid` itself; past it a grid of the same place and costs
        whose walkable mask is `usable_mask` of the clearance map.
        """
        if radius <= 0.5:
            return grid
        cached = self._usable.get(radius)
        if cached is not None and cached[0] == mask_version and cached[1] is grid:
            return cached[2]
        if cached is not None and cached[0] != mask_version:
            self._usable.clear()  # every radius's cells changed with the mask
        usable = usable_mask(self.clearance(grid.walkable, mask_version), radius)
        restricted = GridMap(usable, grid.costs, origin=grid.origin, cell_size=grid.cell_size)
        self._usable[radius] = (mask_version, grid, restricted)
        return restricted

    def smoothing_mask(
        self, walkable: NDArray[np.bool_], mask_version: int, radius: float
    ) -> NDArray[np.bool_]:
        """``[row, col]`` True on the cells every point of which keeps `radius` cells from walls.

        Those whose clearance is at least ``radius + sqrt(1/2)``: no point of a cell is farther
        from its centre, and the distance to the walls changes no faster than the point moves.
        So a line that touches only such cells (`smooth_path` with this as its walkable mask)
        keeps the whole disc clear, and costs a point's check instead of a disc's.
        """
        cached = self._smoothing.get(radius)
        if cached is not None and cached[0] == mask_version:
            return cached[1]
        room = self.clearance(walkable, mask_version)
        mask: NDArray[np.bool_] = room >= radius + HALF_DIAGONAL
        self._smoothing[radius] = (mask_version, mask)
        return mask

    def disc_is_clear(
        self,
        walkable: NDArray[np.bool_],
        mask_version: int,
        start: Point,
        end: Point,
        radius: float,
    ) -> bool:
        """Whether a disc of `radius` cells swept from `start` to `end` keeps clear of walls.

        Exact (`segment_is_clear` with the radius); two cheap sufficient tests go first, since
        every agent asks every frame. Both ends inside one cell whose 3 x 3 block is walkable
        keep a whole cell from any wall. And the distance to the walls changes no faster than
        the point moves, so a point ``d`` from the centre of a cell with clearance ``c`` keeps
        ``c - d`` from every wall: points every `SAMPLE_SPACING` along the segment that all
        keep ``radius`` plus half that spacing leave the whole segment clear.
        """
        col, row = math.floor(start[0]), math.floor(start[1])
        height, width = walkable.shape
        if not (0 <= row < height and 0 <= col < width):
            return False
        if (
            radius <= 1.0
            and (math.floor(end[0]), math.floor(end[1])) == (col, row)
            and bool(self._roomy_mask(walkable, mask_version)[row, col])
        ):
            return True
        if self._sampled_room(walkable, mask_version, start, end) >= radius:
            return True
        return segment_is_clear(walkable, start, end, radius=radius)

    def _sampled_room(
        self, walkable: NDArray[np.bool_], mask_version: int, start: Point, end: Point
    ) -> float:
        """A lower bound of the room along the segment (cells): -inf if it leaves the grid."""
        room = self.clearance(walkable, mask_version)
        length = math.dist(start, end)
        count = max(1, math.ceil(length / SAMPLE_SPACING))
        t = np.linspace(0.0, 1.0, count + 1)
        xs = start[0] + t * (end[0] - start[0])
        ys = start[1] + t * (end[1] - start[1])
        cols, rows = np.floor(xs).astype(np.intp), np.floor(ys).astype(np.intp)
        height, width = room.shape
        if cols.min() < 0 or rows.min() < 0 or cols.max() >= width or rows.max() >= height:
            return -math.inf
        away = np.hypot(xs - (cols + 0.5), ys - (rows + 0.5))
        return float((room[rows, cols] - away).min()) - length / count / 2.0

    def is_open(
        self, walkable: NDArray[np.bool_], mask_version: int, cell: tuple[int, int]
    ) -> bool:
        """Whether `cell` and its eight neighbours lie on the grid and are all walkable."""
        return bool(self._roomy_mask(walkable, mask_version)[cell])

    def _roomy_mask(self, walkable: NDArray[np.bool_], mask_version: int) -> NDArray[np.bool_]:
        if self._roomy is None or self._roomy[0] != mask_version:
            padded = np.pad(walkable, 1, constant_values=False)
            height, width = walkable.shape
            roomy = np.ones_like(walkable)
            for dr in range(3):
                for dc in range(3):
                    roomy &= padded[dr : dr + height, dc : dc + width]
            self._roomy = (mask_version, roomy)
        return self._roomy[1]
