"""Keep many discs off blocked cells at once: which overlap a wall, and moves that slide along.

Everything is in *cell space* (see `sim.navigation.line_of_sight`): cell ``(row, col)`` is the
square ``x in [col, col + 1]``, ``y in [row, row + 1]``; radii are in cells, at most half a
cell, so a disc can only reach the 3 x 3 block of cells around the one holding its centre.
The grid's border is a wall. A disc *hits* a wall when it shares area with a blocked cell's
closed square or leaves the grid; touching is allowed, as in `sim.navigation.clearance`.

`Walls` is built once per walkable mask: beside the mask it keeps, per cell, which of its
eight neighbours are blocked (a byte of bits), so a disc in open ground costs one lookup and
only discs beside a wall get their distances measured. Every method works on whole arrays of
discs: in C (`_disc_walls.c`, one pass over the discs) when it is built, else with numpy (no
Python loop over them either); both give the same bits.

>>> import numpy as np
>>> walls = Walls(np.array([[True, True, False]]))
>>> walls.hit(np.array([[0.5, 0.5], [1.65, 0.5], [2.1, 0.5]]), np.full(3, 0.4))
array([False,  True,  True])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

WALLS_KERNEL_AVAILABLE: bool
"""Whether `_disc_walls.c` imported; `Walls` tests discs in numpy without it (the same bits)."""
try:
    from sim.crowd import _disc_walls

    WALLS_KERNEL_AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the build
    WALLS_KERNEL_AVAILABLE = False

MAX_RADIUS = 0.5
"""The largest radius (cells) these tests are exact for: the disc stays in its 3 x 3 block."""

_OFFSETS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)


class Walls:
    """A walkable mask ``[row, col]`` and, per cell, which of its neighbours are walls.

    Args:
        walkable: 2-D bool mask, True where a disc may be. It is copied.
        implementation: "auto" (the C kernel when built) or "python" (numpy).
    """

    def __init__(self, walkable: NDArray[np.bool_], *, implementation: str = "auto") -> None:
        mask = np.asarray(walkable, dtype=bool)
        if mask.ndim != 2:
            raise ValueError(f"walkable must be 2-D, got shape {mask.shape}")
        if implementation not in ("auto", "python"):
            raise ValueError(f"implementation must be auto or python, got {implementation!r}")
        self._c = implementation == "auto" and WALLS_KERNEL_AVAILABLE
        self.height, self.width = mask.shape
        padded = np.pad(mask, 1, constant_values=False)  # the border is a wall
        self._open = mask.copy()
        bits = np.zeros(mask.shape, dtype=np.uint8)
        for bit, (d_row, d_col) in enumerate(_OFFSETS):
            window = padded[1 + d_row : 1 + d_row + self.height, 1 + d_col : 1 + d_col + self.width]
            bits |= (~window).astype(np.uint8) << bit
        self._bits = bits
        self._mask = (self._open, bits, self.height, self.width)

    def hit(self, centres: NDArray[Any], radii: NDArray[Any]) -> NDArray[np.bool_]:
        """Whether each disc (centre (m, 2) in cell space, radius (m,) cells) overlaps a wall.

        A centre off the grid or on a blocked cell always hits (whatever the radius, so a point
        agent too). Radii above `MAX_RADIUS` are treated as `MAX_RADIUS`.

        >>> walls = Walls(np.ones((2, 2), dtype=bool))
        >>> walls.hit(np.array([[0.4, 1.0], [0.5, 1.0], [2.5, 1.0]]), np.full(3, 0.5))
        array([ True, False,  True])
        """
        points = np.ascontiguousarray(centres, dtype=np.float64).reshape(-1, 2)
        if self._c:
            found = np.empty(len(points), dtype=np.bool_)
            reach = np.ascontiguousarray(np.broadcast_to(radii, len(points)), dtype=np.float64)
            _disc_walls.hit(*self._mask, points, reach, found)
            return found
        x, y = points[:, 0], points[:, 1]
        cols, rows = np.floor(x), np.floor(y)
        inside = (cols >= 0) & (rows >= 0) & (cols < self.width) & (rows < self.height)
        hit: NDArray[np.bool_] = ~inside
        cell_cols = np.where(inside, cols, 0).astype(np.intp)
        cell_rows = np.where(inside, rows, 0).astype(np.intp)
        hit |= ~self._open[cell_rows, cell_cols]
        bits = self._bits[cell_rows, cell_cols]
        near = np.flatnonzero(~hit & (bits != 0))
        if not len(near):
            return hit
        radius = np.minimum(np.asarray(radii, dtype=np.float64)[near], MAX_RADIUS)
        reach_sq = radius * radius
        fx, fy = x[near] - cell_cols[near], y[near] - cell_rows[near]  # 0 to 1 in the cell
        # How far the centre is from the near side of the cell before it (-1), from the far
        # side of the cell after it (+1); 0 along the same column or row.
        zero = np.zeros_like(fx)
        gap_x: dict[int, NDArray[np.float64]] = {-1: fx * fx, 0: zero, 1: (1.0 - fx) ** 2}
        gap_y: dict[int, NDArray[np.float64]] = {-1: fy * fy, 0: zero, 1: (1.0 - fy) ** 2}
        near_bits = bits[near]
        touched = np.zeros(len(near), dtype=bool)
        for bit, (d_row, d_col) in enumerate(_OFFSETS):
            blocked = (near_bits >> bit) & 1 != 0
            touched |= blocked & (gap_x[d_col] + gap_y[d_row] < reach_sq)
        hit[near] = touched
        return hit

    def nearest(self, centres: NDArray[Any]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Each centre's distance to the nearest wall in its 3 x 3 block, and the unit normal.

        The normal points from that wall toward the centre. No wall in the block (or a centre
        off the grid or on a blocked cell): distance inf, normal 0.

        >>> walls = Walls(np.array([[True, False]]))  # (row 0, col 1) blocked
        >>> distance, normal = walls.nearest(np.array([[0.75, 0.5]]))
        >>> distance.tolist(), normal.tolist()
        ([0.25], [[-1.0, 0.0]])
        """
        points = np.ascontiguousarray(centres, dtype=np.float64).reshape(-1, 2)
        distance = np.full(len(points), np.inf)
        normal = np.zeros_like(points)
        if self._c:
            _disc_walls.nearest(*self._mask, points, distance, normal)
            return distance, normal
        x, y = points[:, 0], points[:, 1]
        cols, rows = np.floor(x), np.floor(y)
        inside = (cols >= 0) & (rows >= 0) & (cols < self.width) & (rows < self.height)
        cell_cols = np.where(inside, cols, 0).astype(np.intp)
        cell_rows = np.where(inside, rows, 0).astype(np.intp)
        bits = self._bits[cell_rows, cell_cols]
        near = np.flatnonzero(inside & self._open[cell_rows, cell_cols] & (bits != 0))
        if not len(near):
            return distance, normal
        px, py = x[near], y[near]
        best = np.full(len(near), np.inf)
        best_x, best_y = np.zeros(len(near)), np.zeros(len(near))
        for bit, (d_row, d_col) in enumerate(_OFFSETS):
            blocked = (bits[near] >> bit) & 1 != 0
            left, bottom = cell_cols[near] + d_col, cell_rows[near] + d_row
            qx = np.clip(px, left, left + 1.0)
            qy = np.clip(py, bottom, bottom + 1.0)
            gap = np.where(blocked, np.hypot(px - qx, py - qy), np.inf)
            closer = gap < best
            best = np.where(closer, gap, best)
            best_x, best_y = np.where(closer, qx, best_x), np.where(closer, qy, best_y)
        distance[near] = best
        away = np.column_stack([px - best_x, py - best_y])
        length = np.where(best > 0.0, best, 1.0)[:, None]
        normal[near] = np.where(np.isfinite(best)[:, None], away / length, 0.0)
        return distance, normal

    def slide(
        self, centres: NDArray[Any], moves: NDArray[Any], radii: NDArray[Any]
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """Move each disc by its move where it stays clear, else along x only, else y only.

        The move is taken whole when the disc's new place is clear; otherwise its x part
        alone, then its y part alone (sliding along a wall), the first that is clear;
        otherwise the disc stays. Only the end point is tested: moves are meant to be
        shorter than the radius (one frame's step), so a disc cannot jump a wall. A disc whose
        centre is off the grid walks in as a point does: only a blocked cell stops it.

        Args:
            centres: (m, 2) disc centres, cell space.
            moves: (m, 2) the wanted moves, cells.
            radii: (m,) radii, cells (at most `MAX_RADIUS` counts).

        Returns:
            The new centres (m, 2) and which discs wanted to move but could not at all (m,).

        >>> walls = Walls(np.array([[True, False], [True, True]]))  # (row 0, col 1) blocked
        >>> new, held = walls.slide(np.array([[0.5, 0.5]]), np.array([[0.2, 0.2]]), [0.4])
        >>> new.round(3).tolist(), held.tolist()  # x is blocked: it slides along y
        ([[0.5, 0.7]], [False])
        """
        start = np.ascontiguousarray(centres, dtype=np.float64).reshape(-1, 2)
        step = np.ascontiguousarray(moves, dtype=np.float64).reshape(-1, 2)
        radius = np.ascontiguousarray(np.broadcast_to(radii, len(start)), dtype=np.float64)
        if self._c:
            new_centres = np.empty_like(start)
            held = np.empty(len(start), dtype=np.bool_)
            _disc_walls.slide(*self._mask, start, step, radius, new_centres, held)
            return new_centres, held
        on_grid = (
            (start[:, 0] >= 0.0)
            & (start[:, 1] >= 0.0)
            & (start[:, 0] < self.width)
            & (start[:, 1] < self.height)
        )
        reach = np.where(on_grid, radius, 0.0)  # walking in from off the grid: a point
        new = start + step
        pending = self._stops(new, reach, on_grid)
        for axis in (0, 1):
            if not pending.any():
                break
            index = np.flatnonzero(pending)
            partial = start[index].copy()
            partial[:, axis] += step[index, axis]
            clear = ~self._stops(partial, reach[index], on_grid[index])
            new[index[clear]] = partial[clear]
            pending[index[clear]] = False
        new[pending] = start[pending]
        return new, pending & (step != 0.0).any(axis=1)

    def lines_clear(
        self,
        room: NDArray[np.float64],
        starts: NDArray[np.int64],
        ends: NDArray[np.int64],
        samples: int,
        radius: float,
    ) -> NDArray[np.bool_]:
        """Whether a disc of `radius` (cells) keeps clear along each line, tested at samples.

        Each line runs from the centre of flat cell ``starts[i]`` to that of ``ends[i]``, tested
        at `samples` (>= 2) evenly spaced points, both ends included, with the radius plus half
        the spacing. A cheap bound goes first: a point's clearance is at least its cell's in
        `room` (`sim.navigation.clearance` of this mask) less its offset from the cell's
        centre; the lines it does not clear get the exact test, `hit`, at every sample
        (`sim.crowd.field_aim` explains the use).

        >>> from sim.navigation.clearance import clearance
        >>> mask = np.array([[True, True, True], [True, False, True], [True, True, True]])
        >>> Walls(mask).lines_clear(clearance(mask), np.array([0, 0]), np.array([2, 8]), 15, 0.3)
        array([ True, False])
        """
        first = np.ascontiguousarray(starts, dtype=np.int64)
        last = np.ascontiguousarray(ends, dtype=np.int64)
        if self._c:
            clear = np.empty(len(first), dtype=np.bool_)
            room_map = np.ascontiguousarray(room, dtype=np.float64)
            _disc_walls.lines_clear(*self._mask, room_map, first, last, samples, radius, clear)
            return clear
        points, spacing = line_samples(first, last, self.width, samples)
        cols = np.floor(points[..., 0]).astype(np.intp)
        rows = np.floor(points[..., 1]).astype(np.intp)
        away = np.hypot(points[..., 0] - (cols + 0.5), points[..., 1] - (rows + 0.5))
        reach = radius + spacing / 2.0
        found: NDArray[np.bool_] = (room[rows, cols] - away).min(axis=1) >= reach
        doubtful = np.flatnonzero(~found)
        if len(doubtful):
            inside = points[doubtful].reshape(-1, 2)
            hit = self.hit(inside, np.repeat(reach[doubtful], samples))
            found[doubtful] = ~hit.reshape(len(doubtful), samples).any(axis=1)
        return found

    def _stops(
        self, centres: NDArray[np.float64], radii: NDArray[np.float64], on_grid: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """`hit`, but a disc coming from off the grid is stopped only by a blocked cell."""
        hit = self.hit(centres, radii)
        if on_grid.all():
            return hit
        cols, rows = np.floor(centres[:, 0]), np.floor(centres[:, 1])
        inside = (cols >= 0) & (rows >= 0) & (cols < self.width) & (rows < self.height)
        cell_cols = np.where(inside, cols, 0).astype(np.intp)
        cell_rows = np.where(inside, rows, 0).astype(np.intp)
        point_hit = inside & ~self._open[cell_rows, cell_cols]
        stops: NDArray[np.bool_] = np.where(on_grid, hit, point_hit)
        return stops


def line_samples(
    starts: NDArray[np.int64], ends: NDArray[np.int64], width: int, samples: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Points from each start cell's centre to its end cell's, and their spacing, in cell space.

    Returns (m, samples, 2) points, both ends included, and the (m,) spacing; cells are flat
    cells of a grid `width` wide.
    """
    a = np.column_stack([starts % width, starts // width]).astype(np.float64) + 0.5
    b = np.column_stack([ends % width, ends // width]).astype(np.float64) + 0.5
    t = np.linspace(0.0, 1.0, samples)
    points = a[:, None, :] + t[None, :, None] * (b - a)[:, None, :]
    spacing: NDArray[np.float64] = np.hypot(*(b - a).T) / (samples - 1)
    return points, spacing
