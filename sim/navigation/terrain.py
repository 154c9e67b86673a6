"""Terrain costs: flat patches (mud, water, road) rasterized into the per-cell cost array.

A patch is a `Box` seen from above, as an obstacle is, with a cost multiplier from
`MIN_COST` (0.25) to `MAX_COST` (100). It covers a cell by the obstacles' exact rule
(`box_footprint`: the box and the cell's square share a positive area; touching does not
count). The cost of a cell is the highest cost among the patches covering it, and 1 where no
patch does, so a road (0.5) under mud (4) is mud, and a road alone is a road.

Blocked beats terrain without either array knowing of the other: the cost array holds the
terrain under obstacles too, and no search ever enters a blocked cell, so its cost is never
paid (and `heuristic_scale` reads walkable cells only). What a person is shown or told about
terrain should read walkable cells only as well (`terrain_summary`).

`rasterize_terrain` computes the array at once; `TerrainLayer` keeps one footprint per patch
and, when a patch moves, changes cost or goes, recomputes the maximum only over the window of
cells it covered or covers now: the terrain counterpart of the obstacles' per-footprint
coverage counts.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import MAX_COST, MIN_COST
from sim.navigation.raster import Box, Footprint, box_footprint

Window = tuple[slice, slice]
"""``(rows, cols)`` slices of a rectangle of cells (empty slices for no cells)."""

_UNCOVERED = -math.inf  # below every cost, so the maximum over patches ignores it


def check_terrain_cost(cost: object) -> float:
    """Return `cost` as a float if it is a valid terrain cost multiplier, else raise ValueError.

    Valid is a real number from 0.25 to 100, the range `find_path` accepts for a walkable cell
    (see `sim.navigation.grid.check_costs` for why).

    >>> check_terrain_cost(4)
    4.0
    >>> check_terrain_cost(0.0)
    Traceback (most recent call last):
    ...
    ValueError: terrain cost must be a finite number from 0.25 to 100, got 0.0
    """
    if isinstance(cost, bool) or not isinstance(cost, int | float | np.integer | np.floating):
        raise ValueError(f"terrain cost must be a number from 0.25 to 100, got {cost!r}")
    value = float(cost)
    if not MIN_COST <= value <= MAX_COST:  # also False for NaN
        raise ValueError(f"terrain cost must be a finite number from 0.25 to 100, got {cost!r}")
    return value


def rasterize_terrain(
    patches: Iterable[tuple[Box, float]],
    shape: tuple[int, int],
    *,
    origin: tuple[float, float] = (0.0, 0.0),
    cell_size: float = 1.0,
) -> NDArray[np.float64]:
    """Return the ``[row, col]`` cost of every cell under `patches` of ``(box, cost)``.

    A cell costs the highest cost of the patches covering it (positive shared area, as
    `box_footprint` decides for obstacles), and 1.0 where none does. Patches off the grid are
    clipped. Blocked cells are not special here (see the module's note).

    Raises:
        ValueError: for a cost outside [0.25, 100] (`check_terrain_cost`), or a bad
            `cell_size` (`box_footprint`).

    >>> mud, road = Box(1.0, 1.0, 2.0, 2.0), Box(2.0, 0.5, 4.0, 1.0)  # road: the bottom row
    >>> rasterize_terrain([(mud, 4.0), (road, 0.5)], (2, 4)).tolist()
    [[4.0, 4.0, 0.5, 0.5], [4.0, 4.0, 1.0, 1.0]]
    """
    costs = np.full(shape, _UNCOVERED, dtype=np.float64)
    for box, cost in patches:
        footprint = box_footprint(box, shape, origin=origin, cell_size=cell_size)
        window = (footprint.rows, footprint.cols)
        _raise_to(costs, (0, 0), footprint, check_terrain_cost(cost), window)
    costs[costs == _UNCOVERED] = 1.0
    return costs


@dataclass(frozen=True, slots=True)
class TerrainSummary:
    """What the terrain means for the walkable cells (for a HUD or a report).

    Attributes:
        cells: walkable cells whose cost is not 1.
        lowest: the smallest cost of a walkable cell (1.0 when none is walkable).
        highest: the largest cost of a walkable cell (1.0 when none is walkable).
    """

    cells: int
    lowest: float
    highest: float


def terrain_summary(costs: NDArray[np.float64], walkable: NDArray[np.bool_]) -> TerrainSummary:
    """Summarize `costs` over the walkable cells only: blocked beats terrain.

    >>> costs = np.array([[1.0, 4.0, 0.5]])
    >>> terrain_summary(costs, np.array([[True, True, False]]))
    TerrainSummary(cells=1, lowest=1.0, highest=4.0)
    """
    if costs.shape != walkable.shape:
        raise ValueError(f"costs has shape {costs.shape}, walkable {walkable.shape}")
    on_walkable = costs[walkable]
    if on_walkable.size == 0:
        return TerrainSummary(0, 1.0, 1.0)
    return TerrainSummary(
        int(np.count_nonzero(on_walkable != 1.0)),
        float(on_walkable.min()),
        float(on_walkable.max()),
    )


@dataclass(frozen=True, slots=True, eq=False)
class _Patch:
    footprint: Footprint
    cost: float


class TerrainLayer:
    """The cost array of a grid's terrain patches, updated one patch at a time.

    Each patch is kept by a key of the caller's choosing (an object's name) with its footprint
    (`box_footprint`, computed by the caller, who knows the grid's origin and cell size) and
    its cost. `put` and `remove` recompute only the window of cells the patch covered before
    or covers now, as the maximum over the patches overlapping that window, so the array is
    always what `rasterize_terrain` gives for the patches held.

    >>> layer = TerrainLayer((2, 3))
    >>> layer.put("mud", box_footprint(Box(1.0, 1.0, 2.0, 2.0), (2, 3)), 4.0)
    (slice(0, 2, None), slice(0, 2, None))
    >>> layer.put("road", box_footprint(Box(1.5, 0.5, 3.0, 1.0), (2, 3)), 0.5)
    (slice(0, 1, None), slice(0, 3, None))
    >>> layer.costs.tolist()
    [[4.0, 4.0, 0.5], [4.0, 4.0, 1.0]]
    >>> _ = layer.remove("mud"); layer.costs.tolist()
    [[0.5, 0.5, 0.5], [1.0, 1.0, 1.0]]
    """

    def __init__(self, shape: tuple[int, int]) -> None:
        """Start with no patches: every cell costs 1."""
        rows, cols = shape
        if rows < 1 or cols < 1:
            raise ValueError(f"shape must be at least 1x1 cells, got {shape!r}")
        self._shape = (int(rows), int(cols))
        self._costs = np.ones(self._shape, dtype=np.float64)
        self._view = self._costs.view()
        self._view.flags.writeable = False
        self._patches: dict[Hashable, _Patch] = {}
        self.version = 0
        """Counts the changes that altered at least one cell's cost."""

    @property
    def costs(self) -> NDArray[np.float64]:
        """``[row, col]`` cost of every cell now (a read-only view; copy it to keep it)."""
        return self._view

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the grid."""
        return self._shape

    def __len__(self) -> int:
        return len(self._patches)

    def __contains__(self, key: object) -> bool:
        return key in self._patches

    def cost_of(self, key: Hashable) -> float:
        """The cost of patch `key` (KeyError if there is none)."""
        return self._patches[key].cost

    def put(self, key: Hashable, footprint: Footprint, cost: float) -> Window:
        """Add patch `key`, or replace its footprint and cost; return the window recomputed.

        Raises:
            ValueError: for a cost outside [0.25, 100], or a footprint reaching outside the grid.
        """
        checked = check_terrain_cost(cost)
        _check_inside(footprint, self._shape)
        old = self._patches.get(key)
        self._patches[key] = _Patch(footprint, checked)
        window = _window_of(footprint) if old is None else _union(old.footprint, footprint)
        return self._recompute(window)

    def remove(self, key: Hashable) -> Window:
        """Drop patch `key` (KeyError if there is none); return the window recomputed."""
        patch = self._patches.pop(key)
        return self._recompute(_window_of(patch.footprint))

    def _recompute(self, window: Window) -> Window:
        rows, cols = window
        if rows.start >= rows.stop or cols.start >= cols.stop:
            return window
        recomputed = np.full((rows.stop - rows.start, cols.stop - cols.start), _UNCOVERED)
        for patch in self._patches.values():
            overlap = _intersect(_window_of(patch.footprint), window)
            if overlap is not None:
                _raise_to(
                    recomputed, (rows.start, cols.start), patch.footprint, patch.cost, overlap
                )
        recomputed[recomputed == _UNCOVERED] = 1.0
        if not np.array_equal(recomputed, self._costs[rows, cols]):
            self._costs[rows, cols] = recomputed
            self.version += 1
        return window


def _raise_to(
    costs: NDArray[np.float64],
    corner: tuple[int, int],
    footprint: Footprint,
    cost: float,
    window: Window,
) -> None:
    """Raise to `cost` the cells of `footprint` inside `window` (grid slices), in place.

    `costs` holds the cells from grid cell `corner` on: cell ``(r, c)`` is
    ``costs[r - corner[0], c - corner[1]]``.
    """
    rows, cols = window
    mask = footprint.mask[
        rows.start - footprint.row_start : rows.stop - footprint.row_start,
        cols.start - footprint.col_start : cols.stop - footprint.col_start,
    ]
    part = costs[
        rows.start - corner[0] : rows.stop - corner[0],
        cols.start - corner[1] : cols.stop - corner[1],
    ]
    part[mask] = np.maximum(part[mask], cost)


def _window_of(footprint: Footprint) -> Window:
    return footprint.rows, footprint.cols


def _union(a: Footprint, b: Footprint) -> Window:
    """The bounding window of two footprints' windows (either may be empty)."""
    windows = [w for w in (_window_of(a), _window_of(b)) if w[0].start < w[0].stop]
    if not windows:
        return _window_of(b)
    return (
        slice(min(w[0].start for w in windows), max(w[0].stop for w in windows)),
        slice(min(w[1].start for w in windows), max(w[1].stop for w in windows)),
    )


def _intersect(a: Window, b: Window) -> Window | None:
    rows = slice(max(a[0].start, b[0].start), min(a[0].stop, b[0].stop))
    cols = slice(max(a[1].start, b[1].start), min(a[1].stop, b[1].stop))
    if rows.start >= rows.stop or cols.start >= cols.stop:
        return None
    return rows, cols


def _check_inside(footprint: Footprint, shape: tuple[int, int]) -> None:
    rows, cols = footprint.mask.shape
    if (
        rows
        and cols
        and (
            footprint.row_start < 0
            or footprint.col_start < 0
            or footprint.row_start + rows > shape[0]
            or footprint.col_start + cols > shape[1]
        )
    ):
        raise ValueError(
            f"footprint rows {footprint.rows}, cols {footprint.cols} reach outside the "
            f"{shape[0]}x{shape[1]} grid"
        )
