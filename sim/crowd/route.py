"""An agent's route as grid cells, to see at once when the world cuts it; a push out of a wall.

`RouteCells` keeps, for the legs of one plan (the agent's position when it planned, then its
waypoints), the flat indices of the cells each leg's swept disc touches, so the check "did a
cell my remaining route crosses become blocked?" is one array lookup on the frames the grid's
walkable mask changed. `nearest_clear_point` finds where an agent goes when an obstacle moved
onto it: the nearest point where its whole disc has room, not merely the nearest cell centre.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from sim.crowd.grid import CrowdGrid

Point = tuple[float, float]

CHUNK_CELLS = 16.0
"""Cells of a leg examined at once: a long diagonal leg's bounding box would hold its square."""
INSET = 1e-3
"""Cells kept between a pushed point agent and the edge of the cell it is pushed into."""
BISECTIONS = 24
"""Halvings of the gap between a blocked point and a clear one when looking for the edge."""
PUSH_MARGIN = 1e-6
"""Cells a pushed disc keeps beyond its radius from what pushed it."""
DEPENETRATION_ROUNDS = 8
"""Rounds of pushing a disc out of each cell it overlaps in turn."""


def swept_cells(
    start: Point, end: Point, radius: float, shape: tuple[int, int]
) -> NDArray[np.intp]:
    """The flat cells (``row * width + col``) a disc swept from `start` to `end` shares area with.

    Points are in cell space (``x`` along the columns, as `sim.navigation.line_of_sight`);
    `radius` is in cells. A radius of 0 is a point: the cells whose closed square the segment
    meets, corners included (the planner's no-corner-cutting rule blocks a move through a
    blocked corner). Cells off the grid are left out. Ascending, each once.

    >>> swept_cells((0.5, 0.5), (2.5, 0.5), 0.0, (2, 3)).tolist()
    [0, 1, 2]
    >>> swept_cells((0.5, 0.5), (2.5, 0.5), 0.6, (2, 3)).tolist()  # reaches row 1
    [0, 1, 2, 3, 4, 5]
    >>> swept_cells((0.5, 0.5), (1.0, 1.0), 0.0, (2, 2)).tolist()  # ends on a corner
    [0, 1, 2, 3]
    """
    height, width = shape
    length = math.dist(start, end)
    pieces = max(1, math.ceil(length / CHUNK_CELLS))
    found: list[NDArray[np.intp]] = []
    for piece in range(pieces):
        t0, t1 = piece / pieces, (piece + 1) / pieces
        a = (start[0] + t0 * (end[0] - start[0]), start[1] + t0 * (end[1] - start[1]))
        b = (start[0] + t1 * (end[0] - start[0]), start[1] + t1 * (end[1] - start[1]))
        col_lo = max(math.floor(min(a[0], b[0]) - radius) - 1, 0)
        col_hi = min(math.floor(max(a[0], b[0]) + radius) + 2, width)
        row_lo = max(math.floor(min(a[1], b[1]) - radius) - 1, 0)
        row_hi = min(math.floor(max(a[1], b[1]) + radius) + 2, height)
        if col_lo >= col_hi or row_lo >= row_hi:
            continue
        rows, cols = np.mgrid[row_lo:row_hi, col_lo:col_hi]
        rows, cols = rows.ravel(), cols.ravel()
        distance_sq = _segment_square_distance_sq(a, b, cols.astype(float), rows.astype(float))
        # Touching is allowed for a disc (as `clearance` has it), never for a point.
        inside = (distance_sq < radius * radius) | (distance_sq == 0.0)
        found.append(rows[inside] * width + cols[inside])
    if not found:
        return np.empty(0, dtype=np.intp)
    return np.unique(np.concatenate(found)).astype(np.intp)


def _segment_square_distance_sq(
    a: Point, b: Point, x0: NDArray[np.float64], y0: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Squared distance from segment a-b to each unit square ``[x0, x0+1] x [y0, y0+1]``.

    Zero where they meet; otherwise the closest pair of two disjoint convex shapes includes a
    vertex of one: the least of the ends' distances to the square and the corners' distances
    to the segment (as `sim.navigation.clearance` has it, there exactly).
    """
    (ax, ay), (bx, by) = a, b
    x1, y1 = x0 + 1.0, y0 + 1.0

    def point_square_sq(px: float, py: float) -> NDArray[np.float64]:
        gap_x = np.maximum(np.maximum(x0 - px, px - x1), 0.0)
        gap_y = np.maximum(np.maximum(y0 - py, py - y1), 0.0)
        return np.asarray(gap_x * gap_x + gap_y * gap_y, dtype=np.float64)

    best = np.minimum(point_square_sq(ax, ay), point_square_sq(bx, by))
    dx, dy = bx - ax, by - ay
    length_sq = dx * dx + dy * dy
    if length_sq > 0.0:
        for cx in (x0, x1):
            for cy in (y0, y1):
                t = np.clip(((cx - ax) * dx + (cy - ay) * dy) / length_sq, 0.0, 1.0)
                px, py = ax + t * dx - cx, ay + t * dy - cy
                best = np.minimum(best, px * px + py * py)
    # Liang-Barsky: the segment meets the square where its parameter ranges inside the two
    # slabs overlap.
    enter = np.zeros(x0.shape)
    leave = np.ones(x0.shape)
    for a0, d, lo, hi in ((ax, dx, x0, x1), (ay, dy, y0, y1)):
        if d == 0.0:
            inside = (lo <= a0) & (a0 <= hi)
            enter = np.where(inside, enter, 1.0)
            leave = np.where(inside, leave, 0.0)
        else:
            t_lo, t_hi = (lo - a0) / d, (hi - a0) / d
            enter = np.maximum(enter, np.minimum(t_lo, t_hi))
            leave = np.minimum(leave, np.maximum(t_lo, t_hi))
    return np.where(enter <= leave, 0.0, best)


class BlockStamps:
    """When each cell of a grid was last blocked, by the grid's `mask_version`.

    The GridManager reports each cell a sync blocks or frees (`changed`); a route planned on
    mask version ``v`` is cut by a cell blocked now whose stamp is above ``v``
    (`blocked_after`). A block that moves on by less than its size frees and covers the same
    cells in one sync: those keep their old stamp. The arrays are made at the first change, so
    a scene that never changes holds none.
    """

    def __init__(self, cells: int) -> None:
        self._cells = cells
        self._blocked_at: NDArray[np.int32] | None = None
        self._freed_at: NDArray[np.int32] | None = None

    def changed(self, flat: NDArray[np.intp], *, blocked: bool, version: int) -> None:
        """Record that the sync making mask `version` blocked (or freed) the flat cells."""
        if self._blocked_at is None or self._freed_at is None:
            self._blocked_at = np.zeros(self._cells, dtype=np.int32)
            self._freed_at = np.full(self._cells, -1, dtype=np.int32)
        if blocked:
            self._blocked_at[flat[self._freed_at[flat] != version]] = version
        else:
            self._freed_at[flat] = version

    def blocked_after(self, blocked: NDArray[np.intp], version: int) -> bool:
        """Whether one of the flat cells, all blocked now, was blocked after mask `version`."""
        if self._blocked_at is None:
            return False
        return bool((self._blocked_at[blocked] > version).any())


class RouteCells:
    """The cells one plan's route crosses, leg by leg, for the check that it is still open.

    Leg ``i`` runs from ``points[i]`` to ``points[i + 1]``, where ``points`` is where the agent
    stood when it planned followed by its waypoints; leg ``i`` ends on waypoint ``i``. The
    cells are worked out the first time they are asked for (most plans never are: nothing
    moves in most scenes), and only cells the plan found walkable count as a cut: a leg that
    grazed a wall when it was laid (the start moved out of one) must not look cut for ever.

    Args:
        points: World ``(x, y)``: the position the route starts from, then its waypoints.
        radius: The agent's radius, world units.
        mask_version: The grid's `mask_version` when the route was planned.
    """

    def __init__(self, points: Sequence[Point], radius: float, mask_version: int) -> None:
        self._points = tuple(points)
        self._radius = radius
        self.mask_version = mask_version
        self._cells: NDArray[np.intp] | None = None
        self._starts: list[int] = []  # where each leg's cells begin in `_cells`

    @property
    def legs(self) -> int:
        """How many legs the route has (its waypoints)."""
        return max(len(self._points) - 1, 0)

    def remaining(self, grid: CrowdGrid, waypoints_left: int) -> NDArray[np.intp]:
        """The flat cells of the legs not yet passed, while `waypoints_left` waypoints remain.

        Waypoints put in front of the plan's own (a detour) keep every leg.
        """
        if self._cells is None:
            self._cells, self._starts = self._sweep(grid)
        passed = self.legs - min(waypoints_left, self.legs)
        if passed >= self.legs:
            return self._cells[:0]
        return self._cells[self._starts[passed] :]

    def is_cut(self, grid: CrowdGrid, waypoints_left: int) -> bool:
        """Whether a cell the remaining legs cross became blocked since the route was planned."""
        cells = self.remaining(grid, waypoints_left)
        return cells.size > 0 and grid.blocked_since_mask(cells, self.mask_version)

    def _sweep(self, grid: CrowdGrid) -> tuple[NDArray[np.intp], list[int]]:
        shape = (grid.num_of_rows, grid.num_of_columns)
        size = grid.grid_cell_size
        x0, y0 = grid.origin
        radius = self._radius / size
        starts: list[int] = []
        parts: list[NDArray[np.intp]] = []
        total = 0
        for a, b in itertools.pairwise(self._points):
            starts.append(total)
            cells = swept_cells(
                ((a[0] - x0) / size, (a[1] - y0) / size),
                ((b[0] - x0) / size, (b[1] - y0) / size),
                radius,
                shape,
            )
            parts.append(cells)
            total += cells.size
        flat = np.concatenate(parts) if parts else np.empty(0, dtype=np.intp)
        return flat.astype(np.intp, copy=False), starts


def nearest_clear_point(grid: CrowdGrid, point: Point, radius: float) -> Point | None:
    """The point nearest `point` where a disc of `radius` world units keeps clear of walls.

    As a kinematic body is pushed out of what moved into it: the candidates are the points
    just clear of each blocked cell near `point` (and of the grid's border) along the shortest
    way out of it, the point reached by pushing out of each overlapping cell in turn, and in
    each nearby cell with room (`CrowdGrid.usable_grid`) the edge of the room between the
    point and that cell's centre (found by halving). The nearest candidate whose disc is clear
    wins, so an agent a block slid onto ends up just beside the block, not on a cell centre.
    When none is, the centre of the nearest cell with room; None when no cell has room.
    """
    usable = grid.usable_grid(radius)
    home = grid.world_to_cell(*point, clamp=True)
    if home is None:
        return None
    size = grid.grid_cell_size
    reach = math.ceil(radius / size) + 2
    rows, cols = usable.walkable.shape
    top, bottom = max(home[0] - reach, 0), min(home[0] + reach + 1, rows)
    left, right = max(home[1] - reach, 0), min(home[1] + reach + 1, cols)
    squares = [
        _square(grid, cell) for cell in _cells(~grid.walkable[top:bottom, left:right], top, left)
    ]
    # A hair beyond the radius: the clear test allows touching, float rounding may not.
    out = radius + PUSH_MARGIN * size
    candidates = [_clamped_to_grid(grid, point, out)]
    candidates += [_pushed_out(point, square, out) for square in squares]
    candidates.append(_depenetrated(grid, point, squares, out))
    best: Point | None = None
    best_distance = math.inf
    for candidate in sorted(candidates, key=lambda q: math.dist(q, point)):
        if grid.move_is_clear(candidate, candidate, radius=radius):
            best, best_distance = candidate, math.dist(candidate, point)
            break
    rooms = _cells(usable.walkable[top:bottom, left:right], top, left)
    for cell, nearest in sorted(
        ((cell, _nearest_in_cell(grid, cell, point)) for cell in rooms),
        key=lambda item: math.dist(item[1], point),
    ):
        if math.dist(nearest, point) >= best_distance:
            break
        found = _clear_point_in(grid, cell, nearest, radius)
        if found is not None and math.dist(found, point) < best_distance:
            best, best_distance = found, math.dist(found, point)
    if best is not None:
        return best
    free = usable.nearest_walkable(home)
    return None if free is None else grid.cell_to_world(free)


Square = tuple[float, float, float, float]  # x0, y0, x1, y1 in world units


def _cells(mask: NDArray[np.bool_], top: int, left: int) -> list[tuple[int, int]]:
    """The ``(row, col)`` of the True cells of `mask`, a window whose corner is (top, left)."""
    rows, cols = np.nonzero(mask)
    return list(zip((rows + top).tolist(), (cols + left).tolist(), strict=True))


def _square(grid: CrowdGrid, cell: tuple[int, int]) -> Square:
    size = grid.grid_cell_size
    x0 = grid.origin[0] + cell[1] * size
    y0 = grid.origin[1] + cell[0] * size
    return (x0, y0, x0 + size, y0 + size)


def _pushed_out(point: Point, square: Square, out: float) -> Point:
    """`point` moved the shortest way to `out` from `square` (itself if it is that far)."""
    x0, y0, x1, y1 = square
    nearest = (min(max(point[0], x0), x1), min(max(point[1], y0), y1))
    away = math.dist(point, nearest)
    if away >= out:
        return point
    if away > 0.0:
        scale = out / away
        return (
            nearest[0] + (point[0] - nearest[0]) * scale,
            nearest[1] + (point[1] - nearest[1]) * scale,
        )
    # Inside the square: out through the nearest side.
    sides = [
        (point[0] - x0, (x0 - out, point[1])),
        (x1 - point[0], (x1 + out, point[1])),
        (point[1] - y0, (point[0], y0 - out)),
        (y1 - point[1], (point[0], y1 + out)),
    ]
    return min(sides)[1]


def _clamped_to_grid(grid: CrowdGrid, point: Point, out: float) -> Point:
    """`point` moved in to keep `out` from the grid's border (a wall too, for a disc)."""
    x0, y0 = grid.origin
    x1 = x0 + grid.num_of_columns * grid.grid_cell_size
    y1 = y0 + grid.num_of_rows * grid.grid_cell_size
    return (min(max(point[0], x0 + out), x1 - out), min(max(point[1], y0 + out), y1 - out))


def _depenetrated(grid: CrowdGrid, point: Point, squares: list[Square], out: float) -> Point:
    """Push `point` out of each square it is too near, in turn, a few rounds (as physics does)."""
    current = _clamped_to_grid(grid, point, out)
    for _ in range(DEPENETRATION_ROUNDS):
        moved = current
        for square in squares:
            moved = _pushed_out(moved, square, out)
        moved = _clamped_to_grid(grid, moved, out)
        if moved == current:
            break
        current = moved
    return current


def _nearest_in_cell(grid: CrowdGrid, cell: tuple[int, int], point: Point) -> Point:
    """The point of `cell`'s square (inset a hair, so it lies in the cell) nearest `point`."""
    size = grid.grid_cell_size
    inset = INSET * size
    x0 = grid.origin[0] + cell[1] * size
    y0 = grid.origin[1] + cell[0] * size
    return (
        min(max(point[0], x0 + inset), x0 + size - inset),
        min(max(point[1], y0 + inset), y0 + size - inset),
    )


def _clear_point_in(
    grid: CrowdGrid, cell: tuple[int, int], nearest: Point, radius: float
) -> Point | None:
    """The clear point nearest `nearest` on the line to `cell`'s centre; None if none is."""
    centre = grid.cell_to_world(cell)
    if grid.move_is_clear(nearest, nearest, radius=radius):
        return nearest
    if not grid.move_is_clear(centre, centre, radius=radius):
        return None
    blocked, clear = nearest, centre
    for _ in range(BISECTIONS):
        middle = ((blocked[0] + clear[0]) / 2.0, (blocked[1] + clear[1]) / 2.0)
        if grid.move_is_clear(middle, middle, radius=radius):
            clear = middle
        else:
            blocked = middle
    return clear if grid.move_is_clear(clear, centre, radius=radius) else centre
