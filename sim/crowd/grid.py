"""What the crowd reads of the scene's grid: a protocol, so the crowd needs no component.

The scene's `GridManager` is one; a test may hand in anything with the same members. Points are
world ``(x, y)``, cells ``(row, col)``.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from sim.navigation import GridMap

Cell = tuple[int, int]
Point = tuple[float, float]


class CrowdGrid(Protocol):
    """The grid the crowd moves on, as it changes while the scene runs.

    Attributes:
        origin: World ``(x, y)`` of the grid's lower-left corner.
        num_of_rows: Rows of cells.
        num_of_columns: Columns of cells.
        grid_cell_size: A cell's side, world units.
        grid: The search grid of the current walkable mask and costs.
        version: Counts every change of the mask, the costs or the planner's settings.
        mask_version: Counts every change of the walkable mask.
    """

    origin: tuple[float, float]
    num_of_rows: int
    num_of_columns: int
    grid_cell_size: float
    grid: GridMap
    version: int
    mask_version: int

    @property
    def walkable(self) -> NDArray[np.bool_]:
        """``[row, col]`` True where a cell is free."""

    @property
    def costs(self) -> NDArray[np.float64] | None:
        """``[row, col]`` each cell's cost to enter, or None where every cell costs 1."""

    @property
    def planning_key(self) -> tuple[str, str]:
        """The planner's settings: the diagonal rule and the heuristic."""

    def world_to_cell(self, x: float, y: float, *, clamp: bool = False) -> Cell | None:
        """The cell under `(x, y)`; None off the grid unless `clamp`."""

    def clamped_cell(self, point: Point) -> Cell:
        """The cell under `point`, or the nearest one off the grid."""

    def cell_to_world(self, cell: Cell) -> Point:
        """The centre of `cell`."""

    def move_is_clear(self, start: Point, end: Point, *, radius: float = 0.0) -> bool:
        """Whether a disc of `radius` sweeps from `start` to `end` over free cells only."""

    def usable_grid(self, radius: float) -> GridMap:
        """The grid of the cells a disc of `radius` fits in."""

    def blocked_since_mask(self, cells: NDArray[np.intp], mask_version: int) -> bool:
        """Whether a cell of `cells` became blocked after `mask_version`."""

    def allowed_cells(self, areas: frozenset[str] | None) -> NDArray[np.bool_] | None:
        """``[row, col]`` the cells an agent kept to `areas` may enter; None: all of them."""
