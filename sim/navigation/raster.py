"""Rasterize obstacle footprints: which cells does a (rotated, inflated) box overlap?

A cell is covered when the box and the cell's square share a positive area: touching an edge
or a corner does not count. Rotated boxes use the separating-axis test on the four candidate
axes (the grid's x, y and the box's two sides), so every overlapped cell is found, not only the
one under the centre. Inflation by an agent radius grows the box by exactly that distance
(a rectangle with rounded corners, the Minkowski sum with a disc), so a cell is covered when its
square comes closer than `inflate` to the box.

Cell geometry follows `sim.navigation.grid`: cell ``(r, c)`` spans
``[origin_x + c * cell_size, origin_x + (c + 1) * cell_size)`` in x and likewise in y with ``r``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Box:
    """An obstacle footprint seen from above: a rectangle in the world's x-y plane.

    Attributes:
        x: world x of the centre.
        y: world y of the centre.
        size_x: full extent along the box's own x axis (its width), world units, >= 0.
        size_y: full extent along the box's own y axis, world units, >= 0.
        heading_deg: rotation counter-clockwise about +Z in degrees, Panda3D's heading: the
            box's own +x axis points along ``(cos h, sin h)``.

    >>> Box(1.0, 2.0, 4.0, 2.0, 90.0).corners()  # 4 long along world y
    ((2.0, 4.0), (0.0, 4.0), (0.0, 0.0), (2.0, 0.0))
    """

    x: float
    y: float
    size_x: float
    size_y: float
    heading_deg: float = 0.0

    def __post_init__(self) -> None:
        for name in ("x", "y", "size_x", "size_y", "heading_deg"):
            value = getattr(self, name)
            if not math.isfinite(value):
                raise ValueError(f"box {name} must be finite, got {value!r}")
        if self.size_x < 0 or self.size_y < 0:
            raise ValueError(f"box sizes must be >= 0, got ({self.size_x!r}, {self.size_y!r})")

    def axes(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """Return the box's own unit x and y axes in world coordinates.

        Multiples of 90 degrees give exact 0 and 1 (not 6e-17), so a box aligned with the
        grid and touching a cell edge does not spill into that cell through rounding.

        >>> Box(0.0, 0.0, 1.0, 1.0, 90.0).axes()
        ((0.0, 1.0), (-1.0, 0.0))
        """
        turns, rest = divmod(self.heading_deg, 90.0)
        if rest == 0.0:
            cos, sin = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[int(turns) % 4]
        else:
            cos, sin = (
                math.cos(math.radians(self.heading_deg)),
                math.sin(math.radians(self.heading_deg)),
            )
        return (cos, sin), (-sin, cos)

    def corners(self) -> tuple[tuple[float, float], ...]:
        """Return the four corners (x, y), counter-clockwise from local (+x, -y)."""
        (ux, uy), (vx, vy) = self.axes()
        half_x, half_y = self.size_x / 2, self.size_y / 2
        return tuple(
            (
                self.x + sx * half_x * ux + sy * half_y * vx,
                self.y + sx * half_x * uy + sy * half_y * vy,
            )
            for sx, sy in ((1, -1), (1, 1), (-1, 1), (-1, -1))
        )


@dataclass(frozen=True, slots=True, eq=False)
class Footprint:
    """The cells one box covers, as a bool `mask` over a window of the grid.

    ``mask[i, j]`` is cell ``(row_start + i, col_start + j)``; the window is the bounding
    rectangle of the covered cells inside the grid, empty (shape ``(0, 0)``) when there are
    none. Add a footprint to a per-cell count with ``counts[fp.rows, fp.cols] += fp.mask``.

    Attributes:
        row_start: first row of the window.
        col_start: first column of the window.
        mask: ``[row, col]`` bool window, True where the box covers the cell.
    """

    row_start: int
    col_start: int
    mask: NDArray[np.bool_]

    @property
    def rows(self) -> slice:
        """Row slice of the window in the full grid."""
        return slice(self.row_start, self.row_start + self.mask.shape[0])

    @property
    def cols(self) -> slice:
        """Column slice of the window in the full grid."""
        return slice(self.col_start, self.col_start + self.mask.shape[1])

    def flat_cells(self, width: int) -> NDArray[np.intp]:
        """Return the covered cells as flat indices ``row * width + col``, ascending.

        >>> fp = box_footprint(Box(1.0, 1.0, 1.0, 1.0), (3, 4))
        >>> fp.flat_cells(4).tolist()
        [0, 1, 4, 5]
        """
        rows, cols = np.nonzero(self.mask)
        return ((rows + self.row_start) * width + cols + self.col_start).astype(np.intp)


FOOTPRINT_DECIMALS = 5
"""Transform values are rounded to this many decimals before rasterizing (see `transform_box`)."""


def transform_box(x: float, y: float, scale_x: float, scale_y: float, heading_deg: float) -> Box:
    """Return the footprint of a unit cube placed by a transform, as the app rasterizes it.

    A mirrored scale covers the same ground (sizes lose their sign), the heading is taken
    modulo 360, and every value is rounded to `FOOTPRINT_DECIMALS`, so that the float32 noise
    of reading a transform back from a scene graph never counts as a move.

    >>> transform_box(1.0000001, 2.0, -3.0, 1.0, -90.0)
    Box(x=1.0, y=2.0, size_x=3.0, size_y=1.0, heading_deg=270.0)
    """
    values = (x, y, abs(scale_x), abs(scale_y), heading_deg % 360.0)
    x, y, size_x, size_y, heading = (round(float(value), FOOTPRINT_DECIMALS) for value in values)
    return Box(x, y, size_x, size_y, heading)


def box_footprint(
    box: Box,
    shape: tuple[int, int],
    *,
    origin: tuple[float, float] = (0.0, 0.0),
    cell_size: float = 1.0,
    inflate: float = 0.0,
) -> Footprint:
    """Return the cells of a ``shape = (rows, cols)`` grid that `box` overlaps.

    A cell counts when it shares a positive area with the box grown by `inflate` world units
    (rounded corners); touching does not count. Cells outside the grid are dropped.

    >>> fp = box_footprint(Box(2.0, 1.0, 2.0, 2.0), (4, 4))  # x in [1, 3], y in [0, 2]
    >>> (fp.rows, fp.cols), fp.mask.all()
    ((slice(0, 2, None), slice(1, 3, None)), np.True_)
    >>> int(box_footprint(Box(2.0, 1.0, 2.0, 2.0), (4, 4), inflate=0.5).mask.sum())
    12
    """
    rows, cols = shape
    if not (math.isfinite(cell_size) and cell_size > 0):
        raise ValueError(f"cell_size must be finite and > 0, got {cell_size!r}")
    if not (math.isfinite(inflate) and inflate >= 0):
        raise ValueError(f"inflate must be finite and >= 0, got {inflate!r}")
    (ux, uy), _ = box.axes()
    if inflate == 0.0 and (ux == 0.0 or uy == 0.0):
        return _aligned_footprint(box, shape, origin, cell_size)
    corners = np.array(box.corners())
    low = corners.min(axis=0) - inflate
    high = corners.max(axis=0) + inflate
    origin_xy = np.array(origin, dtype=np.float64)
    col_lo, row_lo = (math.floor(v) for v in (low - origin_xy) / cell_size)
    col_hi, row_hi = (math.floor(v) for v in (high - origin_xy) / cell_size)
    col_lo, row_lo = max(col_lo, 0), max(row_lo, 0)
    col_hi, row_hi = min(col_hi, cols - 1), min(row_hi, rows - 1)
    if col_lo > col_hi or row_lo > row_hi:
        return Footprint(min(row_lo, rows), min(col_lo, cols), np.zeros((0, 0), dtype=bool))
    col_index = np.arange(col_lo, col_hi + 1, dtype=np.float64)
    row_index = np.arange(row_lo, row_hi + 1, dtype=np.float64)
    # Cell edges, computed as world_to_cell's inverse; broadcast to [row, col].
    x0 = (origin[0] + col_index * cell_size)[np.newaxis, :]
    x1 = (origin[0] + (col_index + 1) * cell_size)[np.newaxis, :]
    y0 = (origin[1] + row_index * cell_size)[:, np.newaxis]
    y1 = (origin[1] + (row_index + 1) * cell_size)[:, np.newaxis]
    if inflate == 0.0:
        mask = _overlaps(box, corners, x0, x1, y0, y1, strict=True)
    else:
        touching = _overlaps(box, corners, x0, x1, y0, y1, strict=False)
        mask = touching | (_distance(box, corners, x0, x1, y0, y1) < inflate)
    return _trimmed(row_lo, col_lo, mask)


def _aligned_footprint(
    box: Box, shape: tuple[int, int], origin: tuple[float, float], cell_size: float
) -> Footprint:
    """`box_footprint` of a box aligned with the grid, without inflation, in plain floats.

    The same arithmetic as the general path, cell edge by cell edge, so the result is the
    same bit for bit; an aligned box covers a rectangle of cells, so each axis is tested on
    its own. About 5 times faster on small boxes (24 us against 124): a scene may hold
    100,000 obstacles.
    """
    rows, cols = shape
    # `corners` along aligned axes, without its sums: the axes' components are exactly 0 or
    # +-1, so a corner is the centre plus or minus a half size, bit for bit.
    (ux, _), _ = box.axes()
    half_x, half_y = (box.size_x / 2, box.size_y / 2) if ux else (box.size_y / 2, box.size_x / 2)
    low_x, high_x, low_y, high_y = box.x - half_x, box.x + half_x, box.y - half_y, box.y + half_y
    col_lo = max(math.floor((low_x - origin[0]) / cell_size), 0)
    row_lo = max(math.floor((low_y - origin[1]) / cell_size), 0)
    col_hi = min(math.floor((high_x - origin[0]) / cell_size), cols - 1)
    row_hi = min(math.floor((high_y - origin[1]) / cell_size), rows - 1)
    if col_lo > col_hi or row_lo > row_hi:
        return Footprint(min(row_lo, rows), min(col_lo, cols), np.zeros((0, 0), dtype=bool))
    covered_cols = _covered(origin[0], cell_size, col_lo, col_hi, low_x, high_x)
    covered_rows = _covered(origin[1], cell_size, row_lo, row_hi, low_y, high_y)
    if not (covered_cols and covered_rows):
        return Footprint(row_lo, col_lo, np.zeros((0, 0), dtype=bool))
    mask = np.ones((len(covered_rows), len(covered_cols)), dtype=bool)
    return Footprint(covered_rows[0], covered_cols[0], mask)


def _covered(
    start: float, cell_size: float, first: int, last: int, low: float, high: float
) -> range:
    """Cells `first..last` along one axis whose span shares a positive length with [low, high].

    Only the two end cells can miss: those between lie whole inside [low, high].
    """

    def shares(index: int) -> bool:
        return (
            min(start + (index + 1) * cell_size, high) - max(start + index * cell_size, low) > 0.0
        )

    return range(first if shares(first) else first + 1, last + 1 if shares(last) else last)


def rasterize_box_into(
    mask: NDArray[np.bool_],
    box: Box,
    *,
    origin: tuple[float, float] = (0.0, 0.0),
    cell_size: float = 1.0,
    inflate: float = 0.0,
) -> Footprint:
    """Set True in `mask` (``[row, col]``, in place) every cell `box` overlaps; return them.

    The returned footprint names the touched window (``rows``, ``cols``), so a caller can
    redo only that part of a derived array.

    >>> mask = np.zeros((3, 3), dtype=bool)
    >>> rasterize_box_into(mask, Box(0.5, 0.5, 1.0, 1.0)).rows
    slice(0, 1, None)
    >>> mask.sum()
    np.int64(1)
    """
    rows, cols = mask.shape
    footprint = box_footprint(
        box, (rows, cols), origin=origin, cell_size=cell_size, inflate=inflate
    )
    mask[footprint.rows, footprint.cols] |= footprint.mask
    return footprint


def footprint_diff(
    old: Footprint, new: Footprint, width: int
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Return the flat cells a move from `old` to `new` leaves and enters, each ascending.

    A cell both footprints cover is in neither: a box sliding a fraction of a cell along a
    wall of a thousand cells touches only the few at its leading and trailing edges. `width`
    is the grid's column count (cells are ``row * width + col``).

    >>> left, entered = footprint_diff(
    ...     box_footprint(Box(1.0, 0.5, 2.0, 1.0), (2, 4)),
    ...     box_footprint(Box(2.0, 0.5, 2.0, 1.0), (2, 4)), 4)
    >>> left.tolist(), entered.tolist()
    ([0], [2])
    """
    if old.mask.size == 0 or new.mask.size == 0:
        return old.flat_cells(width), new.flat_cells(width)
    top = min(old.row_start, new.row_start)
    left_col = min(old.col_start, new.col_start)
    bottom = max(old.rows.stop, new.rows.stop)
    right = max(old.cols.stop, new.cols.stop)
    before = np.zeros((bottom - top, right - left_col), dtype=bool)
    after = np.zeros_like(before)
    for window, footprint in ((before, old), (after, new)):
        row, col = footprint.row_start - top, footprint.col_start - left_col
        height, breadth = footprint.mask.shape
        window[row : row + height, col : col + breadth] = footprint.mask
    return (
        _flat_window(before & ~after, top, left_col, width),
        _flat_window(after & ~before, top, left_col, width),
    )


def _flat_window(
    mask: NDArray[np.bool_], row_start: int, col_start: int, width: int
) -> NDArray[np.intp]:
    rows, cols = np.nonzero(mask)
    return ((rows + row_start) * width + cols + col_start).astype(np.intp)


def rasterize_boxes(
    boxes: Iterable[Box],
    shape: tuple[int, int],
    *,
    origin: tuple[float, float] = (0.0, 0.0),
    cell_size: float = 1.0,
    inflate: float = 0.0,
) -> NDArray[np.bool_]:
    """Return a ``[row, col]`` bool mask, True on every cell at least one box overlaps.

    The walkable mask of a scene is ``~rasterize_boxes(obstacles, shape, ...)``.

    >>> rasterize_boxes([Box(1.0, 1.0, 1.0, 1.0, 45.0)], (3, 3)).astype(int)
    array([[1, 1, 0],
           [1, 1, 0],
           [0, 0, 0]])
    """
    mask = np.zeros(shape, dtype=bool)
    for box in boxes:
        rasterize_box_into(mask, box, origin=origin, cell_size=cell_size, inflate=inflate)
    return mask


def _trimmed(row_start: int, col_start: int, mask: NDArray[np.bool_]) -> Footprint:
    """Shrink the window to the rows and columns that hold a covered cell."""
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        return Footprint(row_start, col_start, np.zeros((0, 0), dtype=bool))
    top, bottom, left, right = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
    return Footprint(row_start + top, col_start + left, mask[top:bottom, left:right])


def _overlaps(
    box: Box,
    corners: FloatArray,
    x0: FloatArray,
    x1: FloatArray,
    y0: FloatArray,
    y1: FloatArray,
    *,
    strict: bool,
) -> NDArray[np.bool_]:
    """Separating-axis test of the box against every cell; strict means interiors overlap."""

    def apart(lo_a: FloatArray, hi_a: FloatArray, lo_b: float, hi_b: float) -> NDArray[np.bool_]:
        # Strict: the open intervals share no point (a zero-width box covers nothing).
        gap = np.minimum(hi_a, hi_b) - np.maximum(lo_a, lo_b)
        return gap <= 0.0 if strict else gap < 0.0

    separated = apart(x0, x1, float(corners[:, 0].min()), float(corners[:, 0].max()))
    separated = separated | apart(y0, y1, float(corners[:, 1].min()), float(corners[:, 1].max()))
    (ux, uy), (vx, vy) = box.axes()
    if ux != 0.0 and uy != 0.0:  # Aligned boxes need no more axes than x and y.
        for (ax, ay), half in (((ux, uy), box.size_x / 2), ((vx, vy), box.size_y / 2)):
            # The cell's projection spans the min and max over its four corners.
            at_x0, at_x1 = x0 * ax, x1 * ax
            at_y0, at_y1 = y0 * ay, y1 * ay
            lo = np.minimum(at_x0, at_x1) + np.minimum(at_y0, at_y1)
            hi = np.maximum(at_x0, at_x1) + np.maximum(at_y0, at_y1)
            centre = box.x * ax + box.y * ay
            separated = separated | apart(lo, hi, centre - half, centre + half)
    return ~separated


def _distance(
    box: Box, corners: FloatArray, x0: FloatArray, x1: FloatArray, y0: FloatArray, y1: FloatArray
) -> FloatArray:
    """Distance between the box and each cell square, exact when they do not intersect.

    Two disjoint convex polygons are closest at a vertex of one of them, so the minimum over
    box corners to the square and square corners to the box is the distance.
    """
    best = np.full(np.broadcast_shapes(x0.shape, y0.shape), np.inf)
    for px, py in corners:
        dx = np.maximum(np.maximum(x0 - px, px - x1), 0.0)
        dy = np.maximum(np.maximum(y0 - py, py - y1), 0.0)
        best = np.minimum(best, np.hypot(dx, dy))
    (ux, uy), (vx, vy) = box.axes()
    half_x, half_y = box.size_x / 2, box.size_y / 2
    for cx in (x0, x1):
        for cy in (y0, y1):
            rel_x, rel_y = cx - box.x, cy - box.y
            along_u = np.maximum(np.abs(rel_x * ux + rel_y * uy) - half_x, 0.0)
            along_v = np.maximum(np.abs(rel_x * vx + rel_y * vy) - half_y, 0.0)
            best = np.minimum(best, np.hypot(along_u, along_v))
    return best
