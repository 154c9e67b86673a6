"""Walls on the grid's cells as few quads: merged tops and only the sides that show.

A Moving AI map's walls are thousands of boxes (maze512-1-0: 39,764); drawn box by box they
are 24 vertices and 12 triangles each, most of them bottoms on the ground and sides pressed
against a neighbour. Boxes that stand square on the grid's cells with the same height and
colour are one solid: `wall_quads` draws its top as runs merged across rows and its sides only
where a wall cell meets an open one (or the grid's edge), one quad per straight run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

ALIGN_TOLERANCE: Final = 1e-4
"""How far (in cells) a box's side may lie from a cell edge and still count as on it."""


@dataclass(frozen=True, slots=True)
class CellFrame:
    """Where the grid's cells lie: cell ``[row, col]`` spans ``origin + (col, row) * size``.

    Attributes:
        origin: The world ``(x, y)`` of the grid's minimum corner.
        size: A cell's side, world units.
        rows: How many rows (along +y).
        columns: How many columns (along +x).
    """

    origin: tuple[float, float]
    size: float
    rows: int
    columns: int


def cell_rectangles(
    placed: NDArray[np.float64], frame: CellFrame
) -> tuple[NDArray[np.bool_], NDArray[np.intp]]:
    """Which boxes stand square on whole cells, and their cells ``(row0, row1, col0, col1)``.

    `placed` is one row per box: centre x, y, z, scale x, y, z (the unit cube's extents), heading
    in radians. A box counts when its heading is a multiple of 90 degrees and its sides lie on
    cell edges inside the grid; its row and column ranges are half-open.

    >>> boxes = np.array([[1.0, 1.5, 0, 2, 1, 1, 0], [1.2, 1, 0, 1, 1, 1, 0]])
    >>> on, cells = cell_rectangles(boxes, CellFrame((0.0, 0.0), 1.0, 4, 4))
    >>> on.tolist(), cells[0].tolist()
    ([True, False], [1, 2, 0, 2])
    """
    quarter = np.round(placed[:, 6] / (np.pi / 2))
    square = np.abs(placed[:, 6] - quarter * (np.pi / 2)) < 1e-6
    turned = (quarter.astype(np.int64) % 2) == 1
    half_x = np.where(turned, placed[:, 4], placed[:, 3]) / 2
    half_y = np.where(turned, placed[:, 3], placed[:, 4]) / 2
    x0, y0 = frame.origin
    edges = np.stack(
        [
            (placed[:, 1] - half_y - y0) / frame.size,
            (placed[:, 1] + half_y - y0) / frame.size,
            (placed[:, 0] - half_x - x0) / frame.size,
            (placed[:, 0] + half_x - x0) / frame.size,
        ],
        axis=1,
    )
    cells = np.round(edges).astype(np.intp)
    on = (
        square
        & np.all(np.abs(edges - cells) < ALIGN_TOLERANCE, axis=1)
        & (cells[:, 0] >= 0)
        & (cells[:, 2] >= 0)
        & (cells[:, 1] <= frame.rows)
        & (cells[:, 3] <= frame.columns)
        & (cells[:, 1] > cells[:, 0])
        & (cells[:, 3] > cells[:, 2])
    )
    return on, cells


def covered_mask(cells: NDArray[np.intp], rows: int, columns: int) -> NDArray[np.bool_]:
    """The cells any of the rectangles ``(row0, row1, col0, col1)`` covers, `(rows, columns)`.

    >>> covered_mask(np.array([[0, 1, 1, 3]]), 2, 3).astype(int).tolist()
    [[0, 1, 1], [0, 0, 0]]
    """
    # A summed difference array: four marks per rectangle, however large, then two cumsums.
    marks = np.zeros((rows + 1, columns + 1), np.int64)
    np.add.at(marks, (cells[:, 0], cells[:, 2]), 1)
    np.add.at(marks, (cells[:, 0], cells[:, 3]), -1)
    np.add.at(marks, (cells[:, 1], cells[:, 2]), -1)
    np.add.at(marks, (cells[:, 1], cells[:, 3]), 1)
    return np.cumsum(np.cumsum(marks, axis=0), axis=1)[:rows, :columns] > 0


def wall_quads(
    solid: NDArray[np.bool_], frame: CellFrame, z0: float, z1: float, *, tile: int = 0
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.intp]]:
    """The quads that draw the `solid` cells as walls from `z0` to `z1`.

    Returns corners `(N, 4, 3)`, counter-clockwise seen from outside, each quad's outward
    normal `(N, 3)` and the ``[row, col]`` of its first cell `(N, 2)`: the tops first (runs
    along rows, merged with identical runs in the rows above), then the sides facing +y, -y,
    +x and -x, one per straight run of exposed edge. With `tile` > 0 no quad crosses a line
    between `tile`-cell squares, so each lies in the square of its first cell.

    >>> corners, normals, _ = wall_quads(np.ones((2, 3), bool), CellFrame((0, 0), 1, 2, 3), 0, 1)
    >>> len(corners), normals.tolist()
    (5, [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    >>> len(wall_quads(np.ones((2, 3), bool), CellFrame((0, 0), 1, 2, 3), 0, 1, tile=2)[0])
    8
    """
    x0, y0 = frame.origin
    size = frame.size
    parts: list[tuple[NDArray[np.float64], tuple[float, float, float], NDArray[np.intp]]] = []
    row0, row1, col0, col1 = _top_rectangles(solid, tile)
    xa, xb = x0 + col0 * size, x0 + col1 * size
    ya, yb = y0 + row0 * size, y0 + row1 * size
    top = np.full(xa.shape, float(z1))
    tops = _corners([(xa, ya, top), (xb, ya, top), (xb, yb, top), (xa, yb, top)])
    parts.append((tops, (0, 0, 1), np.stack([row0, col0], axis=1)))
    padded = np.zeros((solid.shape[0] + 2, solid.shape[1] + 2), bool)
    padded[1:-1, 1:-1] = solid
    inner = padded[1:-1, 1:-1]
    # Exposed edges: a wall cell whose neighbour on that side is open (or off the grid).
    north = inner & ~padded[2:, 1:-1]
    south = inner & ~padded[:-2, 1:-1]
    east = inner & ~padded[1:-1, 2:]
    west = inner & ~padded[1:-1, :-2]
    for exposed, normal in ((north, (0, 1, 0)), (south, (0, -1, 0))):
        line, start, stop = _runs(exposed, tile)
        y = y0 + (line + (1 if normal[1] > 0 else 0)) * size
        xa, xb = x0 + start * size, x0 + stop * size
        if normal[1] < 0:
            xa, xb = xb, xa
        parts.append((_side(xb, y, xa, y, z0, z1), normal, np.stack([line, start], axis=1)))
    for exposed, normal in ((east, (1, 0, 0)), (west, (-1, 0, 0))):
        line, start, stop = _runs(exposed.T, tile)
        x = x0 + (line + (1 if normal[0] > 0 else 0)) * size
        ya, yb = y0 + start * size, y0 + stop * size
        if normal[0] < 0:
            ya, yb = yb, ya
        parts.append((_side(x, ya, x, yb, z0, z1), normal, np.stack([start, line], axis=1)))
    corners = np.concatenate([quads for quads, _n, _c in parts])
    normals = np.concatenate(
        [np.tile(np.array(n, np.float64), (len(quads), 1)) for quads, n, _c in parts]
    )
    return corners, normals, np.concatenate([cells for _q, _n, cells in parts])


def _side(
    xa: NDArray[Any] | float,
    ya: NDArray[Any] | float,
    xb: NDArray[Any] | float,
    yb: NDArray[Any] | float,
    z0: float,
    z1: float,
) -> NDArray[np.float64]:
    """Upright quads from ground point a to b, counter-clockwise seen from their front."""
    count = max(np.size(xa), np.size(ya), np.size(xb), np.size(yb))
    xa, ya, xb, yb = (
        np.broadcast_to(np.asarray(v, np.float64), (count,)) for v in (xa, ya, xb, yb)
    )
    low, high = np.full(count, float(z0)), np.full(count, float(z1))
    return _corners([(xa, ya, low), (xb, yb, low), (xb, yb, high), (xa, ya, high)])


def _corners(points: list[tuple[NDArray[Any], ...]]) -> NDArray[np.float64]:
    return np.stack([np.stack(point, axis=-1) for point in points], axis=1)


def _runs(exposed: NDArray[np.bool_], tile: int) -> tuple[NDArray[np.intp], ...]:
    """Each row's runs of True, cut at multiples of `tile`: the row, first column, one past last."""
    width = exposed.shape[1]
    before = np.zeros_like(exposed)
    before[:, 1:] = exposed[:, :-1]
    after = np.zeros_like(exposed)
    after[:, :-1] = exposed[:, 1:]
    column = np.arange(width)
    if tile > 0:
        before[:, column % tile == 0] = False
        after[:, column % tile == tile - 1] = False
    rows, starts = np.nonzero(exposed & ~before)
    _rows, lasts = np.nonzero(exposed & ~after)
    return rows, starts, lasts + 1


def _top_rectangles(solid: NDArray[np.bool_], tile: int) -> tuple[NDArray[np.intp], ...]:
    """Rows' runs merged with the same run in the rows above: ``(row0, row1, col0, col1)``."""
    rows, starts, stops = _runs(solid, tile)
    order = np.lexsort((rows, stops, starts))
    rows, starts, stops = rows[order], starts[order], stops[order]
    # A rectangle begins where the run differs from the one before, or does not sit on it.
    begins = np.ones(rows.size, bool)
    begins[1:] = (
        (starts[1:] != starts[:-1]) | (stops[1:] != stops[:-1]) | (rows[1:] != rows[:-1] + 1)
    )
    if tile > 0:
        begins |= rows % tile == 0
    first = np.flatnonzero(begins)
    last = np.append(first[1:], rows.size) - 1
    return rows[first], rows[last] + 1, starts[first], stops[first]
