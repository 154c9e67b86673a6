"""A jam's window of the grid, and its members' goals within it.

`sim.crowd.jams.handoff` plans a jam over a window: the jam's cells' bounding box grown by a
margin and on to take in its goal cells nearby (`with_goals`); windows are ``(first row,
last row, first column, last column)``, inclusive. Each member heads for a local goal in the
window (`local_goals`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from sim.mapf import MapfProblem, distance_tables

Window = tuple[int, int, int, int]


def local_goals(
    starts: Sequence[int],
    arrived: NDArray[np.bool_],
    goals: NDArray[np.int64],
    members: NDArray[np.intp],
    walkable: NDArray[np.bool_],
    window: Window,
    width: int,
    field_of: Callable[[int], NDArray[np.float64]],
) -> list[int] | None:
    """Each member's local goal (window cells, flat); None when the window has too few cells.

    An arrived member keeps its start cell. The others, group by group (by `goals`, their
    goal cells on the whole grid, `width` wide; `field_of(goal)` its distance field, flat),
    take the free window cells nearest their goal along the grid, as many as the group has
    members; within the group they **fill from the back**: the member nearest its goal (the
    first through whatever lies between) takes the cell farthest from where the group stands,
    and so on, so that those coming last stop first and nobody walks past one arrived before
    it. Farthest is the mean of the plan's steps from the members' start cells (`mean_steps`),
    not a straight line from their middle: round a wall's end, a goal cell the line put near
    the group can lie in a pocket behind others, walled in once they stand, so that it could
    only be reached first (a doorway of 15 a side with a bend: the priority planner found no
    plan at all, LaCAM* one of 44 steps against 40 on goals by steps). Groups go in the order
    of their member nearest its goal, ties by row (`members`).

    >>> open_row = np.ones((1, 5), bool)
    >>> field = np.abs(np.arange(5) - 4.0)
    >>> local_goals([0, 1], np.zeros(2, bool), np.array([4, 4]), np.array([7, 8]),
    ...             open_row, (0, 0, 0, 4), 5, lambda goal: field)
    [3, 4]
    """
    r0, _, c0, _ = window
    local_width = walkable.shape[1]
    free = np.flatnonzero(walkable.ravel())
    global_cells = (free // local_width + r0) * width + free % local_width + c0
    chosen: list[int | None] = [None] * len(members)
    taken: set[int] = set()
    for slot in np.flatnonzero(arrived).tolist():
        chosen[slot] = starts[slot]
        taken.add(starts[slot])

    def start_distance(slot: int) -> float:
        row, col = divmod(starts[slot], local_width)
        return float(field_of(int(goals[slot]))[(row + r0) * width + col + c0])

    order = sorted(
        np.flatnonzero(~arrived).tolist(), key=lambda s: (start_distance(s), int(members[s]))
    )
    for goal in dict.fromkeys(int(goals[slot]) for slot in order):
        group = [int(slot) for slot in order if int(goals[slot]) == goal]
        cost = field_of(goal)[global_cells]
        best = np.lexsort((free, cost))
        ranked = [int(cell) for cell in free[best][np.isfinite(cost[best])] if cell not in taken]
        if len(ranked) < len(group):
            return None
        cells = ranked[: len(group)]
        taken.update(cells)
        away = mean_steps(walkable, [starts[slot] for slot in group])[cells]
        deepest = [cells[i] for i in np.lexsort((np.array(cells), -away))]
        for slot, cell in zip(group, deepest, strict=True):
            chosen[slot] = cell
    return [int(cell) for cell in chosen if cell is not None]


def mean_steps(walkable: NDArray[np.bool_], sources: Sequence[int]) -> NDArray[np.float64]:
    """The mean of the steps from each of `sources` to each cell, 4-connected as a plan moves.

    Flat over `walkable`; a wall or a cell some source cannot reach counts `UNREACHABLE` steps
    from it, so it lies farther than any cell they all reach.

    >>> mean_steps(np.array([[True, False, True], [True, True, True]]), [0, 5]).tolist()[2:]
    [2.5, 1.5, 1.5, 1.5]
    """
    cells = tuple(int(cell) for cell in sources)
    tables = distance_tables(MapfProblem(walkable, cells, cells))
    return np.asarray(tables.mean(axis=0), dtype=np.float64)


def with_goals(window: Window, goals: NDArray[np.int64], width: int, reach: int) -> Window:
    """`window` grown to take in the jam's goal cells within `reach` cells of it.

    A member whose goal lies in the window is brought to the cells round it and arrives with
    the plan; one whose goal lies just outside is brought to the window's edge, where all of
    its group crowd onto the few cells nearest their goal (12 agents on a column of 8 cells
    beside a doorway) and then walk on alone.

    >>> with_goals((2, 4, 2, 4), np.array([5 * 10 + 7, 9 * 10 + 9]), 10, 3)
    (2, 5, 2, 7)
    """
    r0, r1, c0, c1 = window
    for goal in np.unique(goals[goals >= 0]):
        row, col = divmod(int(goal), width)
        if max(r0 - row, row - r1, c0 - col, col - c1) <= reach:
            r0, r1, c0, c1 = min(r0, row), max(r1, row), min(c0, col), max(c1, col)
    return (r0, r1, c0, c1)


def window_union(a: Window, b: Window) -> Window:
    """The smallest window holding both."""
    return (min(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), max(a[3], b[3]))


def windows_overlap(a: Window, b: Window) -> bool:
    """Whether the two windows share a cell."""
    return a[0] <= b[1] and b[0] <= a[1] and a[2] <= b[3] and b[2] <= a[3]


def sorted_union(a: NDArray[np.integer], b: NDArray[np.integer], size: int) -> NDArray[np.intp]:
    """`np.union1d` of two sets of indices below `size`, by a mask instead of a sort.

    The agents joining a plan pile up to thousands in a dense crowd of many goal groups
    (every jam next door merges in), and `np.union1d` sorted them all again each frame.

    >>> sorted_union(np.array([5, 1]), np.array([1, 3]), 8).tolist()
    [1, 3, 5]
    """
    taken = np.zeros(size, dtype=bool)
    taken[a] = True
    taken[b] = True
    return np.flatnonzero(taken)


def near_points(
    positions: NDArray[np.float64], points: NDArray[np.float64], reach: float
) -> NDArray[np.bool_]:
    """Which of `positions` lie within `reach` of one of `points` (both ``(n, 2)``).

    Only positions round the points' bounding box (grown by twice the reach: a sieve, the
    distances decide) are measured: a plan's few members against a crowd of 10,000.

    >>> near_points(np.array([[0.0, 0.0], [3.0, 0.0], [9.0, 9.0]]), np.array([[1.0, 0.0]]),
    ...             2.0).tolist()
    [True, True, False]
    """
    near = np.zeros(len(positions), dtype=bool)
    if not len(points):
        return near
    low, high = points.min(axis=0) - 2.0 * reach, points.max(axis=0) + 2.0 * reach
    box = np.flatnonzero(((positions >= low) & (positions <= high)).all(axis=1))
    gap = positions[box, None, :] - points[None, :, :]
    near[box] = (gap[..., 0] * gap[..., 0] + gap[..., 1] * gap[..., 1] <= reach * reach).any(1)
    return near
