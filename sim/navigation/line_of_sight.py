"""Line of sight on a grid: the cells a segment crosses, whether a move is clear, string pulling.

Everything here works in *cell space*: a point is ``(x, y)``, ``x`` the column coordinate and
``y`` the row coordinate, so cell ``(row, col)`` is the square ``x in [col, col + 1]``,
``y in [row, row + 1]`` with its centre at ``(col + 0.5, row + 0.5)``. A world point maps to cell
space as ``(world - origin) / cell_size`` (see `GridMap`).

Every decision is exact. A float is a dyadic rational, so the four coordinates of a segment are
scaled by the largest power-of-two denominator among them (`float.as_integer_ratio`) to
integers; grid lines become multiples of that scale and the traversal compares integer
products. A segment through a grid corner goes through it exactly, never an ulp to one side,
and walking a segment backwards visits the same cells.

The traversal is Amanatides & Woo's voxel walk ("A Fast Voxel Traversal Algorithm for Ray
Tracing", 1987) made exact, with its ties (a grid corner) and its starts on grid lines decided
explicitly; listing the cells on both sides of a grid line is what Dedu calls a supercover.
The smoothing is the greedy line-of-sight string pulling of Pinter's "Toward More Realistic
Pathfinding" (Gamasutra, 2001).
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.clearance import check_radius, disc_segment_is_clear
from sim.navigation.grid import Cell, check_point, check_walkable

Point = tuple[float, float]
"""A point ``(x, y)`` in cell space: ``x`` along the columns, ``y`` along the rows."""


def cells_on_segment(start: Point, end: Point) -> list[Cell]:
    """List the cells ``(row, col)`` a segment runs through, in order from `start` to `end`.

    `start` and `end` are ``(x, y)`` points in cell space, any finite floats. A cell is listed
    when the closed segment meets its closed square in more than one point, i.e. when the
    segment passes through the cell's interior or runs along one of its edges. So:

    - along a grid line (an axis-parallel segment on an integer coordinate) it touches the cells
      on *both* sides, and both are listed: two cells per step, the smaller row or column first;
    - exactly through a grid corner it steps diagonally: the two cells it passes between are
      listed, the two *corner cells* it touches only at that point are not (`segment_is_clear`
      checks them as well);
    - an end on a cell's edge or corner adds no cell the segment does not go into:
      ``(0.5, 0.5) -> (1.0, 0.5)`` is just ``[(0, 0)]``;
    - a zero-length segment gives the one cell holding the point, half-open like
      `GridMap.world_to_cell` (a point on a grid line belongs to the cell on its +x / +y side).

    Cells are not clipped to any grid (indices may be negative) and each appears once. Cells
    come in the order the segment enters them (cells entered together, on both sides of a grid
    line, by ascending index); the reversed segment lists the same set of cells.

    Raises:
        ValueError: if a point is not a pair of finite numbers.

    >>> cells_on_segment((0.5, 0.5), (2.5, 1.5))
    [(0, 0), (0, 1), (1, 1), (1, 2)]
    >>> cells_on_segment((0.5, 0.5), (1.5, 1.5))  # through the corner (1, 1): no (0, 1), (1, 0)
    [(0, 0), (1, 1)]
    >>> cells_on_segment((0.5, 1.0), (2.0, 1.0))  # along the line y = 1: both sides
    [(0, 0), (1, 0), (0, 1), (1, 1)]
    """
    ax, ay, bx, by, scale = _scaled(start, end)
    return list(_walk(ax, ay, bx, by, scale, touching=False))


def segment_is_clear(
    walkable: NDArray[np.bool_],
    start: Point,
    end: Point,
    *,
    costs: NDArray[Any] | None = None,
    radius: float = 0.0,
) -> bool:
    """Tell whether the straight move from `start` to `end` (cell space) touches no obstacle.

    Clear means that no cell whose closed square the closed segment touches, even at a single
    point, lies outside the grid, is blocked, or (with `costs`) costs anything but exactly 1.0.
    That is every cell of `cells_on_segment`, and also:

    - at every grid corner the segment passes through, all four cells around it: Moving AI's
      rule against cutting corners, made conservative. No squeezing between two blocked cells
      that share a corner, and no grazing the corner of a single blocked cell;
    - at each end, every cell whose square holds the point: an end on an edge needs the cells on
      both sides, an end on a grid corner all four.

    The border of the grid counts as a wall (a segment reaching ``x = 0`` is not clear). A
    position reached by a clear move never touches a wall, so agents can check their small
    continuous moves with it, down to a zero-length segment inside one cell.

    Smoothing must never shortcut through costly terrain: a mud cell costs its multiplier to
    cross, and the planner's path may have gone around it because that was cheaper, which a
    straight line would silently undo. With `costs`, any touched cell whose cost is not exactly
    1.0 makes the segment not clear; NaN or a cost below 1 also count as not clear, so the values
    are not validated further (that would cost a pass over the whole grid per call).

    An agent with a size passes `radius` (in cells, > 0): the segment must then also keep the
    whole disc clear, every point of it at least `radius` from every blocked cell's square and
    from the border (`sim.navigation.clearance.disc_segment_is_clear`, exact); the costs rule
    still reads the cells the centre line touches.

    Args:
        walkable: 2-D bool ``[row, col]`` mask, True where an agent may go.
        start: ``(x, y)`` in cell space.
        end: ``(x, y)`` in cell space.
        costs: optional per-cell cost multipliers, an array of real numbers of `walkable`'s
            shape (as for `find_path`).
        radius: the agent's radius in cells, finite and >= 0; 0 checks the centre line alone.

    Returns:
        Whether the segment is clear.

    Raises:
        ValueError: naming the value, for a mask that is not 2-D bool, costs that are not an
            array of real numbers of the mask's shape, a point that is not two finite numbers,
            a radius that is not a finite number >= 0.

    >>> walkable = np.array([[True, False], [True, True]])
    >>> segment_is_clear(walkable, (0.5, 1.5), (1.5, 1.5))
    True
    >>> segment_is_clear(walkable, (0.5, 0.5), (1.5, 1.5))  # grazes the corner of (0, 1)
    False
    >>> segment_is_clear(walkable, (0.5, 1.5), (1.5, 1.5), costs=np.array([[1, 1], [1, 3]]))
    False
    >>> segment_is_clear(walkable, (0.5, 1.5), (1.5, 1.5), radius=0.5)  # touches (0, 1)
    True
    >>> segment_is_clear(walkable, (0.5, 1.5), (1.5, 1.5), radius=0.51)
    False
    """
    check_walkable(walkable)
    checked_costs = _check_costs(costs, walkable)
    checked_radius = check_radius(radius, allow_zero=True)
    ax, ay, bx, by, scale = _scaled(start, end)
    if checked_radius > 0.0 and not disc_segment_is_clear(walkable, start, end, checked_radius):
        return False
    return _all_clear(walkable, checked_costs, _walk(ax, ay, bx, by, scale, touching=True))


def smooth_path(
    walkable: NDArray[np.bool_],
    cells: Sequence[Cell],
    *,
    costs: NDArray[Any] | None = None,
    radius: float = 0.0,
) -> list[Cell]:
    """Drop the cells of a grid path that a straight line between cell centres can skip.

    String pulling, greedy: from the anchor cell ``i`` (the first cell to begin with), try
    ``j = i + 2, i + 3, ...`` while the centre of cell ``j`` is visible from the centre of cell
    ``i`` (`segment_is_clear`, with `costs`), stop at the first ``j`` that is not, keep the last
    visible one as the next anchor, and repeat until the last cell. Visibility is not monotonic
    along a path (a cell past the first hidden one can be visible again round a corner), so a
    scan to the end could sometimes skip more; stopping early keeps the checks per anchor
    proportional to the stretch it skips, and is the usual choice. When no cell past ``i + 1`` is
    visible, ``i + 1`` is kept whether or not it is visible itself: a step of the path is a move
    the planner allowed, even through costly cells.

    The result is a subsequence of `cells` with the same first and last cell; any two
    consecutive cells of it are consecutive in `cells` or see each other (their centres'
    segment is clear). On a legal 8-connected path without `costs`, as `find_path` returns,
    every consecutive pair is clear. Its Euclidean length between centres (`path_length`) is
    never more than that of `cells`. Fewer than three cells come back as a copy.

    Args:
        walkable: 2-D bool ``[row, col]`` mask, True where an agent may go.
        cells: the path, ``(row, col)`` cells in order; cells outside the grid or blocked stay
            in it (nothing touching them is clear).
        costs: optional per-cell cost multipliers; only cells costing exactly 1.0 are skipped
            over (see `segment_is_clear`).
        radius: the agent's radius in cells: a skip must keep its whole disc clear
            (`segment_is_clear` with `radius`). A path planned for that radius on
            `sim.navigation.clearance.usable_mask` keeps it clear at every step already, so
            the smoothed path does too.

    Returns:
        The kept cells, as ``(row, col)`` tuples of ints.

    Raises:
        ValueError: for the mask, costs or radius (as `segment_is_clear`), or a cell that is
            not a pair of integers.

    >>> walkable = np.ones((3, 4), dtype=bool)
    >>> walkable[0, 2] = False
    >>> path = [(0, 0), (1, 1), (1, 2), (1, 3), (2, 3)]
    >>> smooth_path(walkable, path)  # (0, 0) -> (1, 3) would graze the corner of (0, 2)
    [(0, 0), (1, 2), (2, 3)]
    >>> smooth_path(walkable, path, radius=0.3)  # (0, 0) -> (1, 2) passes 0.22 from it
    [(0, 0), (1, 1), (2, 3)]
    """
    check_walkable(walkable)
    checked_costs = _check_costs(costs, walkable)
    checked_radius = check_radius(radius, allow_zero=True)
    path = [_check_cell(index, cell) for index, cell in enumerate(cells)]
    if len(path) < 3:
        return path
    # One pass over the grid here saves a cost lookup per touched cell in every check below.
    clear = walkable if checked_costs is None else walkable & (checked_costs == 1.0)
    # Centres in cell space times 2 are odd integers: scale 2, no conversion per check.
    centres = [(2 * col + 1, 2 * row + 1) for row, col in path]
    kept = [path[0]]
    anchor = 0
    while anchor < len(path) - 1:
        best = anchor + 1
        ax, ay = centres[anchor]
        for candidate in range(anchor + 2, len(path)):
            bx, by = centres[candidate]
            if not _all_clear(clear, None, _walk(ax, ay, bx, by, 2, touching=True)):
                break
            if checked_radius > 0.0 and not disc_segment_is_clear(
                walkable, (ax / 2, ay / 2), (bx / 2, by / 2), checked_radius
            ):
                break
            best = candidate
        kept.append(path[best])
        anchor = best
    return kept


def centres_in_sight(walkable: NDArray[np.bool_], a: Cell, b: Cell) -> bool:
    """Tell whether the centres of cells `a` and `b` see each other, for search loops.

    The same rule and the same walk as ``segment_is_clear(walkable, centre(a), centre(b))``,
    without checking the arguments: Theta* (`sim.navigation.searches.theta`) asks once per move it
    considers, and the checks would cost it twice the walk. `walkable` must be a 2-D bool
    array and the cells pairs of ints (cells off the grid are simply not clear).

    >>> walkable = np.array([[True, False], [True, True]])
    >>> centres_in_sight(walkable, (0, 0), (1, 1)), centres_in_sight(walkable, (0, 0), (1, 0))
    (False, True)
    """
    (a_row, a_col), (b_row, b_col) = a, b
    # Centres in cell space times 2 are odd integers: scale 2, as smooth_path walks them.
    cells = _walk(2 * a_col + 1, 2 * a_row + 1, 2 * b_col + 1, 2 * b_row + 1, 2, touching=True)
    return _all_clear(walkable, None, cells)


def path_length(points: Sequence[Point]) -> float:
    """Sum the straight-line lengths between consecutive points; 0.0 for fewer than two.

    Works for ``(x, y)`` points and for ``(row, col)`` cells alike (Euclidean length does not
    care about the order of the axes), in cell units.

    >>> path_length([(0, 0), (3, 4), (3, 5)])
    6.0
    """
    return math.fsum(math.dist(a, b) for a, b in itertools.pairwise(points))


def _walk(ax: int, ay: int, bx: int, by: int, scale: int, *, touching: bool) -> Iterator[Cell]:
    """Yield the cells of the segment (ax, ay) -> (bx, by), given in units of 1 / scale.

    With ``touching=False``: exactly `cells_on_segment`, in order. With ``touching=True``:
    every cell whose closed square the closed segment touches, in no useful order and perhaps
    more than once (the ends' cells come first, where a failed check is most likely).
    """
    if touching:
        yield from _cells_holding(ax, ay, scale)
        yield from _cells_holding(bx, by, scale)
    dx, dy = bx - ax, by - ay
    if dx == 0 and dy == 0:
        yield ay // scale, ax // scale
        return
    if dy == 0:
        rows = _sides(ay, scale)
        for col in _span(ax, bx, scale):
            for row in rows:
                yield row, col
        return
    if dx == 0:
        cols = _sides(ax, scale)
        for row in _span(ay, by, scale):
            for col in cols:
                yield row, col
        return
    step_col = 1 if dx > 0 else -1
    step_row = 1 if dy > 0 else -1
    col, row = _first(ax, dx, scale), _first(ay, dy, scale)
    last_col, last_row = _last(bx, dx, scale), _last(by, dy, scale)
    # The parameter t of the next vertical / horizontal grid line, times |dx| * |dy|, so that
    # comparing them is comparing integers.
    next_x = (((col + 1) * scale - ax) if dx > 0 else (ax - col * scale)) * abs(dy)
    next_y = (((row + 1) * scale - ay) if dy > 0 else (ay - row * scale)) * abs(dx)
    delta_x, delta_y = scale * abs(dy), scale * abs(dx)
    # Counting the steps left, rather than testing for the last cell, makes termination plain.
    remaining = abs(last_col - col) + abs(last_row - row)
    yield row, col
    while remaining > 0:
        if next_x < next_y:
            col += step_col
            next_x += delta_x
            remaining -= 1
        elif next_y < next_x:
            row += step_row
            next_y += delta_y
            remaining -= 1
        else:
            # Exactly through a grid corner: the two cells beside it are only touched.
            if touching:
                yield row, col + step_col
                yield row + step_row, col
            col += step_col
            row += step_row
            next_x += delta_x
            next_y += delta_y
            remaining -= 2
        yield row, col


def _sides(a: int, scale: int) -> tuple[int, ...]:
    """The indices of the cells whose closed range holds `a`: two when `a` is on a grid line."""
    index, remainder = divmod(a, scale)
    return (index - 1, index) if remainder == 0 else (index,)


def _cells_holding(x: int, y: int, scale: int) -> Iterator[Cell]:
    """Yield the 1, 2 or 4 cells whose closed square holds the point."""
    for row in _sides(y, scale):
        for col in _sides(x, scale):
            yield row, col


def _span(a: int, b: int, scale: int) -> range:
    """The indices whose open range meets the open range between a != b, in order from a."""
    low, high = min(a, b), max(a, b)
    first, last = low // scale, -(-high // scale) - 1
    return range(first, last + 1) if b > a else range(last, first - 1, -1)


def _first(a: int, d: int, scale: int) -> int:
    """The index of the cell a segment starting at `a` with direction `d` != 0 goes into."""
    index, remainder = divmod(a, scale)
    return index - 1 if remainder == 0 and d < 0 else index


def _last(b: int, d: int, scale: int) -> int:
    """The index of the cell a segment ending at `b` with direction `d` != 0 comes from."""
    index, remainder = divmod(b, scale)
    return index - 1 if remainder == 0 and d > 0 else index


def _all_clear(
    walkable: NDArray[np.bool_], costs: NDArray[Any] | None, cells: Iterable[Cell]
) -> bool:
    """Whether every cell is in the grid, walkable and (with costs) costs exactly 1.0."""
    height, width = walkable.shape
    for row, col in cells:
        if not (0 <= row < height and 0 <= col < width and walkable[row, col]):
            return False
        if costs is not None and costs[row, col] != 1.0:
            return False
    return True


def _scaled(start: Point, end: Point) -> tuple[int, int, int, int, int]:
    """Return ``ax, ay, bx, by, scale``: the exact coordinates times `scale`, all integers."""
    ratios = [
        value.as_integer_ratio()
        for value in (*check_point("start", start), *check_point("end", end))
    ]
    # Every denominator is a power of two, so the largest is a multiple of all the others.
    scale = max(denominator for _, denominator in ratios)
    ax, ay, bx, by = (numerator * (scale // denominator) for numerator, denominator in ratios)
    return ax, ay, bx, by, scale


def _check_costs(costs: object, walkable: NDArray[np.bool_]) -> NDArray[Any] | None:
    """Return `costs` if it is None or a real-number array of `walkable`'s shape (O(1) check)."""
    if costs is None:
        return None
    if not isinstance(costs, np.ndarray):
        raise ValueError(f"costs must be a numpy array or None, got {type(costs).__name__}")
    if costs.shape != walkable.shape:
        raise ValueError(
            f"costs must have the shape of walkable {walkable.shape}, got {costs.shape}"
        )
    dtype = costs.dtype
    if (
        dtype == np.bool_
        or not np.issubdtype(dtype, np.number)
        or np.issubdtype(dtype, np.complexfloating)
    ):
        raise ValueError(f"costs must have a real number dtype, got {dtype}")
    return costs


def _check_cell(index: int, cell: Any) -> Cell:
    """Return `cell` as two Python ints, or raise ValueError naming it."""
    try:
        row, col = cell
        return operator.index(row), operator.index(col)
    except (TypeError, ValueError):
        raise ValueError(
            f"cells[{index}] must be a (row, col) pair of integers, got {cell!r}"
        ) from None
