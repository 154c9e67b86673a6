"""GridMap: a walkable mask in the world, and the only place that converts world <-> cell.

Conventions (shared by the whole package):

- Arrays are indexed ``[row, col]``; a cell given as a pair is ``(row, col)``.
- The column grows with world x and the row with world y: cell ``(r, c)`` covers the half-open
  square ``x in [origin_x + c * cell_size, origin_x + (c + 1) * cell_size)`` and
  ``y in [origin_y + r * cell_size, origin_y + (r + 1) * cell_size)``.
- The search core names a cell by one flat integer, ``row * width + col``.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

Cell = tuple[int, int]
"""A cell as ``(row, col)``."""


@dataclass(frozen=True, slots=True)
class Endpoints:
    """The cells a plan between two world points runs between (see `GridMap.endpoints`).

    Attributes:
        start: the start cell, or None when the grid has no walkable cell at all.
        goal: the goal cell, or None when the grid has no walkable cell at all.
        start_moved: the start point lay on a blocked cell; `start` is the nearest free one.
        goal_moved: the same for the goal point.
    """

    start: Cell | None
    goal: Cell | None
    start_moved: bool = False
    goal_moved: bool = False


def check_walkable(walkable: object) -> NDArray[np.bool_]:
    """Return `walkable` if it is a 2-D numpy bool array, else raise ValueError naming the problem.

    >>> check_walkable(np.ones((2, 3), dtype=bool)).shape
    (2, 3)
    >>> check_walkable(np.ones((2, 3)))
    Traceback (most recent call last):
    ...
    ValueError: walkable must have dtype bool, got float64
    """
    if not isinstance(walkable, np.ndarray):
        raise ValueError(f"walkable must be a numpy array, got {type(walkable).__name__}")
    if walkable.ndim != 2:
        raise ValueError(f"walkable must be 2-D [row, col], got shape {walkable.shape}")
    if walkable.dtype != np.bool_:
        raise ValueError(f"walkable must have dtype bool, got {walkable.dtype}")
    return walkable


def check_point(name: str, point: Any) -> tuple[float, float]:
    """Return `point` as two finite floats ``(x, y)``, or raise ValueError naming it.

    >>> check_point("start", (1, 2.5))
    (1.0, 2.5)
    >>> check_point("end", (1.0, float("nan")))
    Traceback (most recent call last):
    ...
    ValueError: end must be finite, got (1.0, nan)
    """
    try:
        x_part, y_part = point
        x, y = float(x_part), float(y_part)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be an (x, y) pair of numbers, got {point!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"{name} must be finite, got {point!r}")
    return x, y


MIN_COST = 0.25
"""The lowest cost multiplier a walkable cell may have (a road at a quarter of the price)."""

MAX_COST = 100.0
"""The highest cost multiplier a walkable cell may have."""


def check_costs(costs: object, walkable: NDArray[np.bool_]) -> NDArray[np.float64] | None:
    """Return `costs` as float64 if it is a valid per-cell cost multiplier for `walkable`.

    Every walkable cell needs a finite multiplier from `MIN_COST` (0.25) to `MAX_COST` (100);
    blocked cells may hold anything (``inf`` is a common choice), since no step enters them.
    None means "every cell costs 1".

    Why the bounds: A* scales its heuristic by the smallest cost (`heuristic_scale`), so one
    cheaper cell would leave the search little guidance on the whole grid; and a cell dearer
    than 100 is in effect a wall (a detour of 100 cells is cheaper than one step onto it),
    which blocking says plainly and searches faster.

    >>> check_costs(None, np.ones((1, 2), dtype=bool)) is None
    True
    >>> check_costs(np.array([[1.0, 0.1]]), np.ones((1, 2), dtype=bool))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: costs[0, 1] = 0.1 on a walkable cell; a cost multiplier must be finite, >= 0.25 ...
    """
    if costs is None:
        return None
    if not isinstance(costs, np.ndarray):
        raise ValueError(f"costs must be a numpy array or None, got {type(costs).__name__}")
    if costs.shape != walkable.shape:
        raise ValueError(
            f"costs must have the shape of walkable {walkable.shape}, got {costs.shape}"
        )
    if costs.dtype == np.bool_ or not np.issubdtype(costs.dtype, np.number):
        raise ValueError(f"costs must have a real number dtype, got {costs.dtype}")
    if np.issubdtype(costs.dtype, np.complexfloating):
        raise ValueError(f"costs must have a real number dtype, got {costs.dtype}")
    as_float = costs.astype(np.float64)
    # The comparisons are False for NaN, so NaN is caught too; inf fails the upper bound.
    bad = walkable & ~((as_float >= MIN_COST) & (as_float <= MAX_COST))
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"costs[{row}, {col}] = {float(as_float[row, col])!r} on a walkable cell; "
            f"a cost multiplier must be finite, >= {MIN_COST:g} (A* scales its heuristic by "
            f"the smallest cost) and <= {MAX_COST:g} (dearer ground should be blocked)"
        )
    return as_float


def heuristic_scale(walkable: NDArray[np.bool_], costs: NDArray[np.float64] | None) -> float:
    """Return the factor every heuristic is multiplied by so that A* stays optimal under `costs`.

    The heuristics (`sim.navigation.heuristics`) estimate the cost of a path over cells that
    cost 1. A step costs its length times the cost of the cell it enters, so when some cells
    cost less than 1 (a road), a heuristic times the smallest cost is again a lower bound, and
    a consistent one. The smallest cost is taken over the walkable cells only: no step enters
    a blocked cell, so its entry is never paid (and may hold anything, 0 or ``inf``). When every
    walkable cell costs at least 1 (or there are no costs) the scale is 1: the heuristic as it
    always was, already a lower bound there. (Scaling up by a smallest cost above 1 would also
    be admissible, but would change which cells a search expands on every costed grid.)

    `costs` must be valid for `walkable` (`check_costs`); the result is in (0, 1].

    >>> walkable = np.array([[True, True, False]])
    >>> heuristic_scale(walkable, None), heuristic_scale(walkable, np.array([[2.0, 3.0, 0.0]]))
    (1.0, 1.0)
    >>> heuristic_scale(walkable, np.array([[2.0, 0.5, 0.25]]))  # (0, 2) is blocked
    0.5
    """
    if costs is None or costs.size == 0:
        return 1.0
    # Most grids cost at least 1 everywhere: one pass, no masked copy.
    if float(costs.min()) >= 1.0:
        return 1.0
    on_walkable = costs[walkable]
    if on_walkable.size == 0:
        return 1.0
    return min(1.0, float(on_walkable.min()))


@dataclass(frozen=True, slots=True, eq=False)
class GridMap:
    """A walkable mask placed in the world: where the agents may go, and what it costs.

    Attributes:
        walkable: ``[row, col]`` bool mask, True where an agent may stand.
        costs: optional ``[row, col]`` multiplier (finite, 0.25 to 100 on walkable cells)
            applied to a step that enters the cell, e.g. 3.0 for mud, 0.5 for a road; None
            means 1 everywhere.
        origin: world ``(x, y)`` of the corner of cell ``(0, 0)``, in world units.
        cell_size: side of a cell in world units, > 0.

    The arrays are held, not copied: whoever mutates them must not rely on a stale GridMap.
    Comparison is by identity (two GridMaps are equal only if they are the same object).

    >>> grid = GridMap.open(2, 3, origin=(-1.5, -1.0))
    >>> grid.shape, grid.cell_to_world(0, 0)
    ((2, 3), (-1.0, -0.5))
    """

    walkable: NDArray[np.bool_]
    costs: NDArray[np.float64] | None = None
    origin: tuple[float, float] = (0.0, 0.0)
    cell_size: float = 1.0

    def __post_init__(self) -> None:
        walkable = check_walkable(self.walkable)
        object.__setattr__(self, "costs", check_costs(self.costs, walkable))
        if len(self.origin) != 2 or not all(math.isfinite(v) for v in self.origin):
            raise ValueError(f"origin must be two finite numbers (x, y), got {self.origin!r}")
        object.__setattr__(self, "origin", (float(self.origin[0]), float(self.origin[1])))
        if not (math.isfinite(self.cell_size) and self.cell_size > 0):
            raise ValueError(f"cell_size must be finite and > 0, got {self.cell_size!r}")
        object.__setattr__(self, "cell_size", float(self.cell_size))

    @classmethod
    def open(
        cls,
        rows: int,
        cols: int,
        *,
        origin: tuple[float, float] = (0.0, 0.0),
        cell_size: float = 1.0,
    ) -> GridMap:
        """Make a grid of `rows` x `cols` cells, all walkable, all costing 1.

        >>> GridMap.open(2, 5).walkable.sum()
        np.int64(10)
        """
        return cls(np.ones((rows, cols), dtype=bool), origin=origin, cell_size=cell_size)

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the grid."""
        rows, cols = self.walkable.shape
        return int(rows), int(cols)

    def contains(self, row: int, col: int) -> bool:
        """Tell whether ``(row, col)`` is a cell of this grid.

        >>> GridMap.open(2, 2).contains(1, 2)
        False
        """
        rows, cols = self.shape
        return 0 <= row < rows and 0 <= col < cols

    def with_blocked(self, cells: Collection[Cell]) -> GridMap:
        """This grid with `cells` blocked too (a copy of the mask); itself when there are none.

        Cells off the grid are ignored. Agents plan round others standing in their way on it.

        >>> GridMap.open(1, 3).with_blocked([(0, 1), (5, 5)]).walkable.tolist()
        [[True, False, True]]
        """
        if not cells:
            return self
        walkable = self.walkable.copy()
        for row, col in cells:
            if self.contains(row, col):
                walkable[row, col] = False
        return GridMap(walkable, self.costs, self.origin, self.cell_size)

    def world_to_cell(self, x: float, y: float, *, clamp: bool = False) -> Cell | None:
        """Return the ``(row, col)`` whose square contains world point ``(x, y)``.

        Cells are half-open: a point on the line between two cells belongs to the cell on its
        +x / +y side. A point outside the grid gives None, or with ``clamp=True`` the nearest
        cell on the border (each coordinate clamped on its own, so a point off a corner gets the
        corner cell).
        NaN or infinite coordinates raise ValueError.

        >>> grid = GridMap.open(4, 4, cell_size=0.5)
        >>> grid.world_to_cell(1.2, 0.3), grid.world_to_cell(9.0, -1.0)
        ((0, 2), None)
        >>> grid.world_to_cell(9.0, -1.0, clamp=True)
        (0, 3)
        """
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"world point ({x!r}, {y!r}) must be finite")
        col = math.floor((x - self.origin[0]) / self.cell_size)
        row = math.floor((y - self.origin[1]) / self.cell_size)
        rows, cols = self.walkable.shape
        if 0 <= row < rows and 0 <= col < cols:
            return row, col
        if not clamp:
            return None
        return min(max(row, 0), rows - 1), min(max(col, 0), cols - 1)

    def cell_to_world(self, row: int, col: int) -> tuple[float, float]:
        """Return the world ``(x, y)`` of the centre of cell ``(row, col)``.

        The cell need not lie in the grid (the formula extends beyond it);
        ``world_to_cell(*cell_to_world(r, c)) == (r, c)`` for every cell of the grid.

        >>> GridMap.open(3, 3, origin=(10.0, 20.0), cell_size=2.0).cell_to_world(1, 2)
        (15.0, 23.0)
        """
        return (
            self.origin[0] + (col + 0.5) * self.cell_size,
            self.origin[1] + (row + 0.5) * self.cell_size,
        )

    def nearest_walkable(self, cell: Cell) -> Cell | None:
        """Return the walkable cell nearest to `cell` (itself if walkable); None if none is.

        Nearest means the smallest Euclidean distance between cell centres, ignoring walls
        (use it to move a start or goal out of an obstacle, then search). Ties go to the
        smaller row, then the smaller column. The search grows a square window around `cell`
        until it holds a walkable cell, then widens it once to the found distance so that no
        closer cell outside the window is missed. A cell outside the grid raises ValueError.

        >>> walkable = np.array([[True, False, False], [False, False, True]])
        >>> GridMap(walkable).nearest_walkable((0, 2))
        (1, 2)
        >>> GridMap(walkable).nearest_walkable((1, 1))
        (1, 2)
        """
        row, col = cell
        if not self.contains(row, col):
            rows, cols = self.shape
            raise ValueError(f"cell {cell!r} lies outside the {rows}x{cols} grid")
        if self.walkable[row, col]:
            return row, col
        rows, cols = self.shape
        limit = max(row, rows - 1 - row, col, cols - 1 - col)
        radius = 1
        while True:
            found = self._nearest_in_window(row, col, radius)
            if found is not None:
                best, distance_sq = found
                # Any cell at Chebyshev distance > isqrt(d2) is farther than the best one.
                reach = math.isqrt(distance_sq)
                if reach <= radius:
                    return best
                # The wider window still holds `best`, so it finds a cell.
                widened = self._nearest_in_window(row, col, reach)
                return best if widened is None else widened[0]
            if radius >= limit:
                return None
            radius = min(radius * 2, limit)

    def endpoints(self, start: tuple[float, float], goal: tuple[float, float]) -> Endpoints:
        """Return the cells to plan between for the world points `start` and `goal`.

        A point off the grid takes the nearest border cell (`world_to_cell` with clamping); a
        point on a blocked cell takes the nearest walkable cell (`nearest_walkable`), and the
        result says so. Both cells are None when no cell of the grid is walkable.

        >>> grid = GridMap(np.array([[True, True, False]]))
        >>> grid.endpoints((-5.0, 0.5), (2.5, 0.5))
        Endpoints(start=(0, 0), goal=(0, 1), start_moved=False, goal_moved=True)
        """
        start_cell = self.world_to_cell(*start, clamp=True)
        goal_cell = self.world_to_cell(*goal, clamp=True)
        if start_cell is None or goal_cell is None:  # clamping always finds a cell
            raise ValueError(f"no cell for {start!r} or {goal!r}")
        start_free, goal_free = self.nearest_walkable(start_cell), self.nearest_walkable(goal_cell)
        if start_free is None or goal_free is None:
            return Endpoints(None, None)
        return Endpoints(start_free, goal_free, start_free != start_cell, goal_free != goal_cell)

    def _nearest_in_window(self, row: int, col: int, radius: int) -> tuple[Cell, int] | None:
        """Return the nearest walkable cell within Chebyshev `radius` and its squared distance."""
        top, left = max(row - radius, 0), max(col - radius, 0)
        window = self.walkable[top : row + radius + 1, left : col + radius + 1]
        found_rows, found_cols = np.nonzero(window)
        if found_rows.size == 0:
            return None
        found_rows = found_rows + top
        found_cols = found_cols + left
        distance_sq = (found_rows - row) ** 2 + (found_cols - col) ** 2
        best = int(np.lexsort((found_cols, found_rows, distance_sq))[0])
        return (int(found_rows[best]), int(found_cols[best])), int(distance_sq[best])
