"""Room for an agent with a size: one clearance map serves every radius, and swept discs.

Everything here is in *cell space* (see `sim.navigation.line_of_sight`): cell ``(row, col)``
is the square ``x in [col, col + 1]``, ``y in [row, row + 1]``, lengths are in cells, and the
app converts a radius from world units by dividing it by the cell size.

**Clearance.** An agent of radius ``r`` may stand on a cell when the open disc of radius ``r``
around the cell's centre shares no positive area with a blocked cell and lies inside the grid
(the border is a wall). That holds exactly when the centre's Euclidean distance to every
blocked cell's closed square, and to the border, is at least ``r``: a disc that only touches a
wall shares no area with it, hence ``>=``. `clearance` gives that distance for every cell at
once (0 on blocked cells), so one map per grid answers every radius: `usable_mask` is the
walkable mask an agent of radius ``r`` plans on, with the usual no-corner-cutting rule among
usable cells. The moves that rule allows keep the disc clear all the way, not only at the
centres: the distance to an axis-aligned square (or to the border) is smallest over the
2x2 block of cell centres a move stays inside at one of those centres, which all have room.

The map is an exact Euclidean distance transform. The point of a closed square nearest to a
cell centre is a corner of the square or the middle of one of its sides, and the nearest
point of the border is the middle of a border cell's side: all of them lie on the lattice of
half cells. So on that lattice (doubled coordinates: integers) the sites are the half-cell
points of blocked squares and of the border, and the distance from each centre to the nearest
site is computed separably, exactly in integers: per column of the lattice the nearest site
up or down (a running index), then along each row the lower envelope of parabolas of
Felzenszwalb and Huttenlocher ("Distance Transforms of Sampled Functions", 2012), vectorized
over the rows. The result is ``sqrt(d2) / 2`` for an integer ``d2``: exact up to the one
rounding of the square root.

**Swept discs.** `disc_segment_is_clear` tells whether a disc moving along a segment keeps at
least ``r`` from every blocked square and from the border; `segment_is_clear` and
`smooth_path` in `sim.navigation.line_of_sight` take a ``radius`` and use it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import check_point, check_walkable

Point = tuple[float, float]
"""A point ``(x, y)`` in cell space."""


def clearance(walkable: NDArray[np.bool_], *, implementation: str = "auto") -> NDArray[np.float64]:
    """Return ``[row, col]`` the distance from each cell's centre to the nearest wall, in cells.

    A wall is a blocked cell's closed square or the grid's border. Blocked cells get 0; a
    walkable cell at least 0.5 (its own square is free). Compute it once per grid version and
    ask it about any radius with `usable_mask`.

    Args:
        walkable: 2-D bool ``[row, col]`` mask, True where an agent may go.
        implementation: "c" runs the compiled kernel
            (`sim.navigation.searches.kernel.clearance_flat`, about 50 times faster), "python" the
            numpy reference, "auto" the kernel when it is built; both give the same integers, so
            identical maps.

    Raises:
        ValueError: for a mask that is not a 2-D bool array, an unknown implementation, or
            "c" when the kernel is not built.

    >>> walkable = np.ones((3, 5), dtype=bool)
    >>> walkable[0, 0] = False
    >>> clearance(walkable).round(4).tolist()
    [[0.0, 0.5, 0.5, 0.5, 0.5], [0.5, 0.7071, 1.5, 1.5, 0.5], [0.5, 0.5, 0.5, 0.5, 0.5]]
    """
    # Imported here: importing kernel warns once when the extension is not built.
    from sim.navigation.searches import kernel

    check_walkable(walkable)
    height, width = walkable.shape
    if height == 0 or width == 0:
        return np.zeros((height, width), dtype=np.float64)
    if kernel.choose(implementation):
        doubled_sq = kernel.clearance_flat(np.ascontiguousarray(walkable))
    else:
        doubled_sq = _doubled_distance_sq(walkable)
    return np.sqrt(doubled_sq.astype(np.float64)) / 2.0


def _doubled_distance_sq(walkable: NDArray[np.bool_]) -> NDArray[np.int64]:
    """The numpy reference of the map: squared distances in half cells, as integers."""
    height, width = walkable.shape
    # The envelope loop runs along one lattice row; vectorize over the other, longer side.
    if width > height:
        return np.ascontiguousarray(_doubled_distance_sq(np.ascontiguousarray(walkable.T)).T)
    return _row_envelope(_column_gaps(walkable))


def usable_mask(clearance_map: NDArray[np.float64], radius: float) -> NDArray[np.bool_]:
    """Return ``[row, col]`` True where an agent of `radius` cells may stand.

    That is ``clearance >= radius`` on walkable cells (those with clearance > 0). A radius up
    to 0.5 gives the walkable mask itself; a radius above half the grid's shorter side gives
    no cell at all. Plan on it with `find_path`: its moves keep the whole disc clear.

    Raises:
        ValueError: for a radius that is not a finite number >= 0.

    >>> usable_mask(clearance(np.ones((3, 5), dtype=bool)), 1.5).astype(int).tolist()
    [[0, 0, 0, 0, 0], [0, 1, 1, 1, 0], [0, 0, 0, 0, 0]]
    """
    checked = check_radius(radius, allow_zero=True)
    usable: NDArray[np.bool_] = (clearance_map >= checked) & (clearance_map > 0.0)
    return usable


def disc_segment_is_clear(
    walkable: NDArray[np.bool_], start: Point, end: Point, radius: float
) -> bool:
    """Tell whether a disc of `radius` cells swept from `start` to `end` stays clear of walls.

    Clear means every point of the segment is at least `radius` from every blocked cell's
    closed square and from the grid's border (touching is allowed, as for `clearance`), so
    the open disc never shares area with a wall anywhere along the move. For a zero-length
    segment it is the disc at one point; with the centres of two cells it agrees with
    `clearance` at both ends.

    The decision is exact: the distances are computed in floats, and the few squares whose
    float distance lies within a rounding margin of `radius` are decided again in rational
    arithmetic (`fractions.Fraction`). Only blocked cells within `radius` of the segment's
    bounding box are examined.

    Raises:
        ValueError: for a mask that is not 2-D bool, a point that is not two finite numbers,
            or a radius that is not a finite number > 0.

    >>> walkable = np.ones((3, 6), dtype=bool)
    >>> walkable[0, 2] = False
    >>> disc_segment_is_clear(walkable, (0.5, 1.5), (5.5, 1.5), 0.5)  # grazes (0, 2)
    True
    >>> disc_segment_is_clear(walkable, (0.5, 1.5), (5.5, 1.5), 0.6)
    False
    """
    check_walkable(walkable)
    r = check_radius(radius, allow_zero=False)
    ax, ay = check_point("start", start)
    bx, by = check_point("end", end)
    return _disc_clear(walkable, ax, ay, bx, by, r)


def _disc_clear(
    walkable: NDArray[np.bool_], ax: float, ay: float, bx: float, by: float, r: float
) -> bool:
    """`disc_segment_is_clear` on checked values."""
    height, width = walkable.shape
    if not _inside_border(ax, ay, bx, by, r, height, width):
        return False
    low_x, high_x = min(ax, bx), max(ax, bx)
    low_y, high_y = min(ay, by), max(ay, by)
    # A square closer than r to the segment meets its bounding box grown by r.
    col_lo = max(math.floor(low_x - r) - 1, 0)
    col_hi = min(math.floor(high_x + r) + 1, width)
    row_lo = max(math.floor(low_y - r) - 1, 0)
    row_hi = min(math.floor(high_y + r) + 1, height)
    rows, cols = np.nonzero(~walkable[row_lo:row_hi, col_lo:col_hi])
    if rows.size == 0:
        return True
    x0 = (cols + col_lo).astype(np.float64)
    y0 = (rows + row_lo).astype(np.float64)
    distance_sq = _segment_square_distance_sq(ax, ay, bx, by, x0, y0)
    r_sq = r * r
    scale = max(abs(ax), abs(ay), abs(bx), abs(by), r) + 2.0
    margin = 1e-9 * scale * scale
    if bool((distance_sq < r_sq - margin).any()):
        return False
    close = np.flatnonzero(distance_sq <= r_sq + margin)
    exact_r_sq = Fraction(r) ** 2
    segment = (Fraction(ax), Fraction(ay), Fraction(bx), Fraction(by))
    for index in close.tolist():
        square = (int(x0[index]), int(y0[index]))
        if _exact_distance_sq(*segment, *square) < exact_r_sq:
            return False
    return True


def _inside_border(
    ax: float, ay: float, bx: float, by: float, r: float, height: int, width: int
) -> bool:
    """Whether both ends, and so the whole segment, keep `r` from the border (exactly)."""
    if min(ax, ay, bx, by) < r:  # float comparisons are exact
        return False
    exact_r = Fraction(r)
    return all(
        Fraction(limit) - Fraction(value) >= exact_r
        for value, limit in ((ax, width), (bx, width), (ay, height), (by, height))
    )


def _segment_square_distance_sq(
    ax: float,
    ay: float,
    bx: float,
    by: float,
    x0: NDArray[np.float64],
    y0: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Squared distance from segment A-B to each unit square ``[x0, x0+1] x [y0, y0+1]``.

    Zero where they meet; otherwise the closest pair of two disjoint convex shapes includes a
    vertex of one, so it is the least of the ends' distances to the square and the corners'
    distances to the segment.
    """
    x1, y1 = x0 + 1.0, y0 + 1.0
    best = np.minimum(_point_square_sq(ax, ay, x0, y0), _point_square_sq(bx, by, x0, y0))
    dx, dy = bx - ax, by - ay
    length_sq = dx * dx + dy * dy
    for cx in (x0, x1):
        for cy in (y0, y1):
            if length_sq == 0.0:
                t: NDArray[np.float64] | float = 0.0
            else:
                t = np.clip(((cx - ax) * dx + (cy - ay) * dy) / length_sq, 0.0, 1.0)
            px, py = ax + t * dx - cx, ay + t * dy - cy
            best = np.minimum(best, px * px + py * py)
    enter, leave = _slab(ax, dx, x0, x1)
    enter_y, leave_y = _slab(ay, dy, y0, y1)
    meets = np.maximum(enter, enter_y) <= np.minimum(leave, leave_y)
    return np.where(meets, 0.0, best)


def _point_square_sq(
    px: float, py: float, x0: NDArray[np.float64], y0: NDArray[np.float64]
) -> NDArray[np.float64]:
    gap_x = np.maximum(np.maximum(x0 - px, px - (x0 + 1.0)), 0.0)
    gap_y = np.maximum(np.maximum(y0 - py, py - (y0 + 1.0)), 0.0)
    distance_sq: NDArray[np.float64] = gap_x * gap_x + gap_y * gap_y
    return distance_sq


def _slab(
    a: float, d: float, lo: NDArray[np.float64], hi: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The range of t in [0, 1] where ``a + t * d`` lies in ``[lo, hi]`` (empty: enter > leave)."""
    if d == 0.0:
        inside = (lo <= a) & (a <= hi)
        return np.where(inside, 0.0, 1.0), np.where(inside, 1.0, 0.0)
    t_lo, t_hi = (lo - a) / d, (hi - a) / d
    enter = np.maximum(np.minimum(t_lo, t_hi), 0.0)
    leave = np.minimum(np.maximum(t_lo, t_hi), 1.0)
    return enter, leave


def _exact_distance_sq(
    ax: Fraction, ay: Fraction, bx: Fraction, by: Fraction, col: int, row: int
) -> Fraction:
    """`_segment_square_distance_sq` for one square, in exact rational arithmetic."""
    x0, x1, y0, y1 = Fraction(col), Fraction(col + 1), Fraction(row), Fraction(row + 1)
    dx, dy = bx - ax, by - ay
    if _meets_exact(ax, dx, x0, x1, ay, dy, y0, y1):
        return Fraction(0)

    def point_square(px: Fraction, py: Fraction) -> Fraction:
        gap_x = max(x0 - px, px - x1, Fraction(0))
        gap_y = max(y0 - py, py - y1, Fraction(0))
        return gap_x * gap_x + gap_y * gap_y

    best = min(point_square(ax, ay), point_square(bx, by))
    length_sq = dx * dx + dy * dy
    for cx in (x0, x1):
        for cy in (y0, y1):
            t = Fraction(0)
            if length_sq:
                t = min(
                    max(((cx - ax) * dx + (cy - ay) * dy) / length_sq, Fraction(0)), Fraction(1)
                )
            px, py = ax + t * dx - cx, ay + t * dy - cy
            best = min(best, px * px + py * py)
    return best


def _meets_exact(
    ax: Fraction,
    dx: Fraction,
    x0: Fraction,
    x1: Fraction,
    ay: Fraction,
    dy: Fraction,
    y0: Fraction,
    y1: Fraction,
) -> bool:
    """Whether the segment ``a + t * d``, t in [0, 1], meets the closed box (exactly)."""
    enter, leave = Fraction(0), Fraction(1)
    for a, d, lo, hi in ((ax, dx, x0, x1), (ay, dy, y0, y1)):
        if d == 0:
            if not lo <= a <= hi:
                return False
            continue
        t_lo, t_hi = (lo - a) / d, (hi - a) / d
        enter = max(enter, min(t_lo, t_hi))
        leave = min(leave, max(t_lo, t_hi))
    return enter <= leave


def _column_gaps(walkable: NDArray[np.bool_]) -> NDArray[np.int64]:
    """``[row, X]`` the vertical distance in half cells from each centre's row to a site.

    ``X`` is a column of the half-cell lattice: ``X = 2 * col + 1`` runs through the cell
    centres, even ``X`` along grid lines, 0 and ``2 * width`` along the border.
    """
    height, width = walkable.shape
    index = np.arange(height, dtype=np.int64)[:, np.newaxis]
    blocked = ~walkable
    # Rows -1 and `height` are the border: a blocked row just outside the grid, both ends.
    above = np.maximum.accumulate(np.where(blocked, index, -1), axis=0)
    below = np.minimum.accumulate(np.where(blocked, index, height)[::-1], axis=0)[::-1]
    rows_away = np.minimum(index - above, below - index)
    # A blocked square's nearest lattice point is on its side: 2 * rows_away - 1 half cells.
    centres = np.maximum(2 * rows_away - 1, 0)
    gaps = np.zeros((height, 2 * width + 1), dtype=np.int64)
    gaps[:, 1::2] = centres
    # A grid line between two columns holds the sides of the squares on both of them.
    gaps[:, 2:-1:2] = np.minimum(centres[:, :-1], centres[:, 1:])
    return gaps


def _row_envelope(gaps: NDArray[np.int64]) -> NDArray[np.int64]:
    """``[row, col]`` the squared distance, in half cells, from each cell centre to a site.

    Along each row of the lattice, ``min over X' of (X - X')^2 + gaps[X']^2`` at the centres
    ``X = 2 * col + 1``: the lower envelope of parabolas (Felzenszwalb and Huttenlocher), one
    pass per lattice column for all rows at once. Every column has a finite gap (the border
    rows are sites), so every parabola is real. The envelope's breakpoints are ratios of
    integers below 2**53, whose floats compare as the ratios do.
    """
    rows, size = gaps.shape
    f = gaps * gaps
    every = np.arange(rows)
    apex = np.zeros((rows, size), dtype=np.int64)  # v: the parabolas on the envelope
    start = np.empty((rows, size + 1), dtype=np.float64)  # z: where each one begins
    start[:, 0], start[:, 1] = -math.inf, math.inf
    top = np.zeros(rows, dtype=np.intp)  # k: the last parabola on each row's envelope
    for q in range(1, size):
        fq = f[:, q] + q * q
        while True:
            v = apex[every, top]
            cross = (fq - (f[every, v] + v * v)) / (2.0 * (q - v))
            below = cross <= start[every, top]
            if not below.any():
                break
            top -= below
        top += 1
        apex[every, top] = q
        start[every, top] = cross
        start[every, top + 1] = math.inf
    width = (size - 1) // 2
    out = np.empty((rows, width), dtype=np.int64)
    top[:] = 0
    for col in range(width):
        x = 2 * col + 1
        while True:
            ahead = start[every, top + 1] < x
            if not ahead.any():
                break
            top += ahead
        v = apex[every, top]
        out[:, col] = (x - v) ** 2 + f[every, v]
    return out


def check_radius(radius: object, *, allow_zero: bool) -> float:
    """Return `radius` (cells) as a float if it is finite and > 0 (or 0 when allowed).

    >>> check_radius(1, allow_zero=False)
    1.0
    >>> check_radius(0.0, allow_zero=False)
    Traceback (most recent call last):
    ...
    ValueError: radius must be a finite number > 0 (cells), got 0.0
    """
    if isinstance(radius, bool) or not isinstance(radius, int | float | np.integer | np.floating):
        raise ValueError(f"radius must be a number (cells), got {radius!r}")
    value = float(radius)
    if not math.isfinite(value) or value < 0.0 or (value == 0.0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"radius must be a finite number {bound} (cells), got {radius!r}")
    return value
