"""Room for agents with a size: the grid's clearance map, cached, and the cells each radius uses.

`GridManager` owns one `Room`. An agent of radius up to half a cell fits on every walkable cell,
so it plans on the grid itself; a larger one plans on the cells whose clearance (the distance
from the centre to the nearest wall, `sim.navigation.clearance`) is at least its radius. The
clearance map is computed only when such an agent asks, once per walkable mask, and each
radius keeps its own usable grid until the mask or the costs change.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from sim.navigation import GridMap
from sim.navigation.clearance import clearance, usable_mask
from sim.navigation.line_of_sight import segment_is_clear

Point = tuple[float, float]


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
        the point moves, so a segment whose ends lie within ``d`` of a cell centre with
        clearance ``c`` (the clearance map, when it exists) keeps ``c - d`` from every wall.
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
        if self._clearance is not None and self._clearance[0] == mask_version:
            centre = (col + 0.5, row + 0.5)
            away = max(math.dist(start, centre), math.dist(end, centre))
            if float(self._clearance[1][row, col]) - away >= radius:
                return True
        return segment_is_clear(walkable, start, end, radius=radius)

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
