"""Jams seen coming: two groups converging on a one-cell passage from its two sides.

The stall rule (`sim.crowd.jams.detect`) hands a jam off once its agents have stood a while,
`JamSettings.window_s`: at a doorway that second is spent pressing into each other while the
door stays shut. A passage one cell wide lets one agent through at a time, whoever comes, so
two groups heading through it from its two sides will jam; the rule here hands them off as
they converge instead.

A **narrow cell** (`narrow_cells`) is walkable with both of its neighbours along one axis
blocked (or off the grid) and at least one open along the other: a doorway in a wall, any
cell of a one-cell corridor. So is a **pinch**: a cell whose open neighbours (of the eight
round it) fall into two runs round it with walls between, each run holding a side neighbour
of it, so that locally the two runs meet only through the cell; it turns a passage one cell
wide round a bend (a door two cells wide with a wall beside one of them, whose way through
is one cell wide and no cell of it narrow). Only pinches with no narrow cell beside them
count: beside a door or a corridor's mouth the narrow cell is the passage. An agent
**funnels into** a narrow cell when the cell lies within
`JamSettings.funnel_cells` steps of its own (4-connected, Manhattan) and on a shortest way to
its goal: its grid distance to the goal is the cell's plus their Manhattan distance (no
shorter way exists, so that one is shortest). A narrow cell into which agents funnel from
both of its sides (its open axis: columns for a door in a north-south wall; for a pinch,
the run its way leaves the cell by) makes a **funnel** (`funnel_groups`): those agents,
handed to the planner as a jam is.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

SIDES = ((-1, 0), (0, 1), (1, 0), (0, -1))
"""A cell's side neighbours as (row, column) offsets, in the order of a pinch's bits."""
RING = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
"""The eight cells round a cell, in order round it (each shares a side with the next)."""
PINCH = 4
"""A pinch's code: `PINCH` plus a bit per side neighbour (`SIDES`) in the run that holds
its first open side neighbour; the others lie in the other run."""


def narrow_cells(walkable: NDArray[np.bool_]) -> NDArray[np.int8]:
    """``[row, col]`` each narrow cell's code (0: not narrow); a pinch's is `PINCH` plus bits.

    A narrow cell's code is its open axis: 1 along rows (east-west), 2 along columns.

    >>> door = np.ones((3, 5), bool); door[0, 2] = door[2, 2] = False
    >>> narrow_cells(door).tolist()
    [[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0]]
    >>> bend = np.ones((3, 4), bool); bend[0, 1] = bend[2, 2] = False  # walls at its NW, SE
    >>> narrow_cells(bend)[1].tolist()  # (1, 1): its east one way, south and west the other
    [0, 6, 7, 0]
    """
    padded = np.pad(walkable, 1, constant_values=False)
    north, south = padded[:-2, 1:-1], padded[2:, 1:-1]
    west, east = padded[1:-1, :-2], padded[1:-1, 2:]
    across_rows = walkable & ~north & ~south & (west | east)
    across_cols = walkable & ~west & ~east & (north | south)
    axis: NDArray[np.int8] = np.where(across_rows, 1, np.where(across_cols, 2, 0)).astype(np.int8)
    pinches = _pinches(walkable, padded) & ~_beside(axis > 0)
    axis[pinches] = PINCH + _first_run(padded)[pinches]
    return axis


def _exit_sides(
    cells: NDArray[np.intp],
    goals: NDArray[np.int64],
    codes: NDArray[np.int8],
    field_of: Callable[[int], NDArray[np.float64]],
    width: int,
) -> NDArray[np.int64]:
    """Which run of its pinch each agent leaves by: 1 the first (`PINCH`'s bits), else -1.

    `cells` are the pinches (flat), `codes` theirs, `goals` each agent's goal cell: it leaves
    by the side neighbour nearest its goal along the grid (`field_of`).
    """
    row, col = cells // width, cells % width
    ahead = np.full((len(cells), 4), np.inf)
    for goal in np.unique(goals):
        chasing = goals == goal
        field = field_of(int(goal))
        height = len(field) // width
        for k, (d_row, d_col) in enumerate(SIDES):
            r, c = row[chasing] + d_row, col[chasing] + d_col
            inside = (r >= 0) & (r < height) & (c >= 0) & (c < width)
            at = np.where(inside, r * width + c, 0)
            ahead[chasing, k] = np.where(inside, field[at], np.inf)
    exit_side = np.argmin(ahead, axis=1)
    first = ((codes.astype(np.int64) - PINCH) >> exit_side) & 1
    sides: NDArray[np.int64] = np.where(first == 1, 1, -1)
    return sides


def _ring(padded: NDArray[np.bool_]) -> list[NDArray[np.bool_]]:
    """Each cell's eight neighbours (`RING` order) as whole-grid masks (off the grid: blocked)."""
    height, width = padded.shape[0] - 2, padded.shape[1] - 2
    return [padded[1 + dr : 1 + dr + height, 1 + dc : 1 + dc + width] for dr, dc in RING]


def _pinches(walkable: NDArray[np.bool_], padded: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Walkable cells whose ring holds exactly two runs of open cells with a side cell each."""
    ring = _ring(padded)
    runs = np.zeros(walkable.shape, dtype=np.int8)
    for k in range(8):
        # A run starts where an open cell follows a blocked one; it counts if some cell of
        # it is a side neighbour (even k): a lone corner cell leads nowhere but through it.
        runs += ring[k] & ~ring[k - 1] & _run_has_side(ring, k)
    found: NDArray[np.bool_] = walkable & (runs == 2)
    return found


def _run_has_side(ring: list[NDArray[np.bool_]], start: int) -> NDArray[np.bool_]:
    """Whether the run of open ring cells from `start` on holds a side neighbour (even index)."""
    has = np.zeros(ring[0].shape, dtype=bool)
    going = np.ones(ring[0].shape, dtype=bool)
    for step in range(8):
        k = (start + step) % 8
        going &= ring[k]
        if k % 2 == 0:
            has |= going
    return has


def _first_run(padded: NDArray[np.bool_]) -> NDArray[np.int8]:
    """Per cell, the bits (`SIDES` order) of the open side neighbours in its first side's run.

    The first side is the first open one in `SIDES` order; the run holds it and the open
    ring cells either way from it up to a blocked one.
    """
    ring = _ring(padded)
    bits = np.zeros(ring[0].shape, dtype=np.int8)
    chosen = np.zeros(ring[0].shape, dtype=bool)
    for side in range(4):
        start = 2 * side
        first = ring[start] & ~chosen
        chosen |= first
        for direction in (1, -1):
            going = first.copy()
            for step in range(8):
                k = (start + direction * step) % 8
                going &= ring[k]
                if k % 2 == 0:
                    bits |= np.where(going, np.int8(1 << (k // 2)), np.int8(0))
    return bits


def _beside(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """`mask` grown by one cell to every side neighbour."""
    grown = mask.copy()
    grown[1:] |= mask[:-1]
    grown[:-1] |= mask[1:]
    grown[:, 1:] |= mask[:, :-1]
    grown[:, :-1] |= mask[:, 1:]
    return grown


def funnel_groups(
    cells: NDArray[np.intp],
    watched: NDArray[np.bool_],
    distance: NDArray[np.float64],
    goals: NDArray[np.int64],
    field_of: Callable[[int], NDArray[np.float64]],
    narrow: NDArray[np.int8],
    reach: int,
) -> list[tuple[int, NDArray[np.intp]]]:
    """The funnels (see the module): each narrow cell and the rows funnelling into it.

    `cells` are the rows' flat cells, `watched` the rows that may be taken (moving to a goal,
    in no plan), `distance` each row's grid distance to its goal, `goals` its goal cell and
    `field_of(goal)` that goal's distance field, flat. Array work throughout: a crowd of
    thousands in a maze costs a few array operations per goal. Funnels come in the order of
    their cells, rows ascending.

    >>> walkable = np.ones((3, 5), bool); walkable[0, 2] = walkable[2, 2] = False
    >>> east = np.abs(np.arange(15) % 5 - 4.0) + np.abs(np.arange(15) // 5 - 1.0)
    >>> west = np.abs(np.arange(15) % 5 - 0.0) + np.abs(np.arange(15) // 5 - 1.0)
    >>> fields = {9: east, 5: west}
    >>> found = funnel_groups(np.array([5, 9, 0]), np.ones(3, bool), np.array([4.0, 4.0, 5.0]),
    ...                       np.array([9, 5, 9]), fields.__getitem__, narrow_cells(walkable), 2)
    >>> [(cell, rows.tolist()) for cell, rows in found]
    [(7, [0, 1])]
    """
    if reach <= 0 or not narrow.any() or not watched.any():
        return []
    height, width = narrow.shape
    span = np.arange(-reach, reach + 1)
    d_row, d_col = (grid.ravel() for grid in np.meshgrid(span, span, indexing="ij"))
    keep = np.abs(d_row) + np.abs(d_col) <= reach
    d_row, d_col = d_row[keep], d_col[keep]
    rows_of = np.flatnonzero(watched)
    at_row = (cells[rows_of] // width)[:, None] + d_row[None, :]
    at_col = (cells[rows_of] % width)[:, None] + d_col[None, :]
    inside = (at_row >= 0) & (at_row < height) & (at_col >= 0) & (at_col < width)
    axis = np.where(
        inside, narrow[np.clip(at_row, 0, height - 1), np.clip(at_col, 0, width - 1)], 0
    )
    slot, offset = np.nonzero(axis)
    if not len(slot):
        return []
    agent = rows_of[slot]
    cell = at_row[slot, offset] * width + at_col[slot, offset]
    ahead = np.empty(len(agent))
    for goal in np.unique(goals[agent]):
        chasing = goals[agent] == goal
        ahead[chasing] = field_of(int(goal))[cell[chasing]]
    steps = np.abs(d_row[offset]) + np.abs(d_col[offset])
    # On a shortest way to its goal (a cell its goal does not reach, inf, is on none).
    reached = np.isfinite(distance[agent]) & np.isfinite(ahead)
    gap = np.subtract(distance[agent], ahead, out=np.zeros(len(agent)), where=reached)
    on_way = reached & (np.abs(gap - steps) <= 1e-9)
    code = axis[slot, offset]
    side = np.sign(np.where(code == 1, -d_col[offset], -d_row[offset]))
    pinch = np.flatnonzero(code >= PINCH)
    if len(pinch):
        side[pinch] = _exit_sides(cell[pinch], goals[agent[pinch]], code[pinch], field_of, width)
    use = on_way & (side != 0)
    agent, cell, side = agent[use], cell[use], side[use]
    found = []
    for narrow_cell in np.unique(cell):
        here = cell == narrow_cell
        if (side[here] > 0).any() and (side[here] < 0).any():
            found.append((int(narrow_cell), np.unique(agent[here]).astype(np.intp)))
    return found
