"""Jams seen coming: two groups converging on a one-cell passage from its two sides.

The stall rule (`sim.crowd.jams.detect`) hands a jam off once its agents have stood a while,
`JamSettings.window_s`: at a doorway that second is spent pressing into each other while the
door stays shut. A passage one cell wide lets one agent through at a time, whoever comes, so
two groups heading through it from its two sides will jam; the rule here hands them off as
they converge instead.

A **narrow cell** (`narrow_cells`) is walkable with both of its neighbours along one axis
blocked (or off the grid) and at least one open along the other: a doorway in a wall, any
cell of a one-cell corridor. An agent **funnels into** one when the cell lies within
`JamSettings.funnel_cells` steps of its own (4-connected, Manhattan) and on a shortest way to
its goal: its grid distance to the goal is the cell's plus their Manhattan distance (no
shorter way exists, so that one is shortest). A narrow cell into which agents funnel from
both of its sides (its open axis: columns for a door in a north-south wall) makes a
**funnel** (`funnel_groups`): those agents, handed to the planner as a jam is.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray


def narrow_cells(walkable: NDArray[np.bool_]) -> NDArray[np.int8]:
    """``[row, col]`` each narrow cell's open axis: 1 along rows (east-west), 2 columns; 0 none.

    >>> door = np.ones((3, 5), bool); door[0, 2] = door[2, 2] = False
    >>> narrow_cells(door).tolist()
    [[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0]]
    """
    padded = np.pad(walkable, 1, constant_values=False)
    north, south = padded[:-2, 1:-1], padded[2:, 1:-1]
    west, east = padded[1:-1, :-2], padded[1:-1, 2:]
    across_rows = walkable & ~north & ~south & (west | east)
    across_cols = walkable & ~west & ~east & (north | south)
    axis: NDArray[np.int8] = np.where(across_rows, 1, np.where(across_cols, 2, 0)).astype(np.int8)
    return axis


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
    side = np.sign(np.where(axis[slot, offset] == 1, -d_col[offset], -d_row[offset]))
    use = on_way & (side != 0)
    agent, cell, side = agent[use], cell[use], side[use]
    found = []
    for narrow_cell in np.unique(cell):
        here = cell == narrow_cell
        if (side[here] > 0).any() and (side[here] < 0).any():
            found.append((int(narrow_cell), np.unique(agent[here]).astype(np.intp)))
    return found
