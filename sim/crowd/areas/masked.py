"""The grid as agents kept to some areas see it: the cells outside their areas are walls.

An agent with ``areas`` (`AgentConfig.areas`) may enter only the cells `allowed_cells` gives
for them. The crowd drives such agents like any others, on a `MaskedGrid`: the scene's grid
with those cells blocked, so their field, their aims, their walls and their pushes all keep
to the mask (one field per goal and set of areas, shared by every agent with that set).

>>> import numpy as np
>>> class Open:
...     walkable = np.ones((1, 3), dtype=bool)
...     mask_version = 0
>>> MaskedGrid(Open(), np.array([[True, True, False]])).walkable.tolist()  # type: ignore[arg-type]
[[True, True, False]]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from sim.crowd.grid import Cell, CrowdGrid, Point
from sim.navigation import GridMap
from sim.navigation.areas import within_areas
from sim.navigation.line_of_sight import segment_is_clear


class MaskedGrid:
    """`base` (a `CrowdGrid`) with the cells outside `allowed` blocked (see the module).

    Its `mask_version` counts the base's mask changes and each new `allowed` (`reallow`).
    """

    def __init__(self, base: CrowdGrid, allowed: NDArray[np.bool_]) -> None:
        self._base = base
        self._allowed = allowed
        self._changes = 0
        self._walkable: tuple[int, NDArray[np.bool_]] | None = None

    def reallow(self, allowed: NDArray[np.bool_]) -> None:
        """Keep to `allowed` from now on (the areas' cells changed when it is a new array)."""
        if allowed is not self._allowed:
            self._allowed = allowed
            self._changes += 1
            self._walkable = None

    @property
    def origin(self) -> tuple[float, float]:
        """The base grid's (`CrowdGrid`)."""
        return self._base.origin

    @property
    def num_of_rows(self) -> int:
        """The base grid's (`CrowdGrid`)."""
        return self._base.num_of_rows

    @property
    def num_of_columns(self) -> int:
        """The base grid's (`CrowdGrid`)."""
        return self._base.num_of_columns

    @property
    def grid_cell_size(self) -> float:
        """The base grid's (`CrowdGrid`)."""
        return self._base.grid_cell_size

    @property
    def version(self) -> int:
        """The base's: a shared field is computed again when it changes."""
        return self._base.version

    @property
    def mask_version(self) -> int:
        """The base's, plus one for each new `allowed`."""
        return self._base.mask_version + self._changes

    @property
    def grid(self) -> GridMap:
        """The base's search grid within the mask."""
        return within_areas(self._base.grid, self._allowed)

    @property
    def walkable(self) -> NDArray[np.bool_]:
        """``[row, col]`` the base's free cells within the mask (kept per base mask)."""
        version = self._base.mask_version
        if self._walkable is None or self._walkable[0] != version:
            self._walkable = (version, self._base.walkable & self._allowed)
        return self._walkable[1]

    @property
    def costs(self) -> NDArray[np.float64] | None:
        """The base grid's (`CrowdGrid`)."""
        return self._base.costs

    @property
    def planning_key(self) -> tuple[str, str]:
        """The base grid's (`CrowdGrid`)."""
        return self._base.planning_key

    def world_to_cell(self, x: float, y: float, *, clamp: bool = False) -> Cell | None:
        """The base grid's (`CrowdGrid`)."""
        return self._base.world_to_cell(x, y, clamp=clamp)

    def clamped_cell(self, point: Point) -> Cell:
        """The base grid's (`CrowdGrid`)."""
        return self._base.clamped_cell(point)

    def cell_to_world(self, cell: Cell) -> Point:
        """The base grid's (`CrowdGrid`)."""
        return self._base.cell_to_world(cell)

    def move_is_clear(self, start: Point, end: Point, *, radius: float = 0.0) -> bool:
        """The base's test, and the same over the mask's cells (in cell space)."""
        if not self._base.move_is_clear(start, end, radius=radius):
            return False
        size, (x0, y0) = self.grid_cell_size, self.origin
        a = ((start[0] - x0) / size, (start[1] - y0) / size)
        b = ((end[0] - x0) / size, (end[1] - y0) / size)
        return segment_is_clear(self.walkable, a, b, radius=radius / size)

    def usable_grid(self, radius: float) -> GridMap:
        """The base grid's (`CrowdGrid`) within the mask."""
        return within_areas(self._base.usable_grid(radius), self._allowed)

    def blocked_since_mask(self, cells: NDArray[np.intp], mask_version: int) -> bool:
        """The base grid's (`CrowdGrid`), for a `mask_version` of this one."""
        return self._base.blocked_since_mask(cells, mask_version - self._changes)

    def allowed_cells(self, areas: frozenset[str] | None) -> NDArray[np.bool_] | None:
        """The base grid's (`CrowdGrid`)."""
        return self._base.allowed_cells(areas)
