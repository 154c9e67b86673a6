"""Why there is no path: the regions Start and End lie in, and the fewest cells to open.

`explain_no_path` answers "why can End not be reached?" the way a person would: Start's
region holds these cells, End's those, and opening these few blocked cells would join them.
It answers under each diagonal rule (`sim.navigation.diagonal`).

Why three of the four rules share the 4-connected answer. Under "never" moves are
orthogonal. Under "no-corner-cutting" a diagonal step from ``a`` to ``b`` needs both of its
corners (the orthogonal cells it passes) walkable, and under "one-obstacle" at least one: in
both, a walkable corner ``o`` gives ``a -> o -> b``, two orthogonal steps. So on any mask two
cells are joined under these three rules exactly when they are by orthogonal steps, and the
regions are the 4-connected ones (`sim.navigation.regions.labels`). Opening a set ``S`` of blocked
cells gives another mask, so ``S`` joins Start and End under one of these rules exactly when it
does under the others: the sets that fix the grid are the same, and so is the smallest.
"always" is different: a diagonal step needs only its two end cells walkable, so it joins
diagonal neighbours across two blocked corners. Its regions and its steps are 8-connected,
and so are its fixes: two diagonal neighbours opened are joined without their corners, so
under "always" a fix may be a diagonal line of cells where the other rules need a staircase.

Why the cheapest path gives the fewest cells. Let a path (of the rule's steps: orthogonal, or
also diagonal for "always") cost the blocked cells it enters, the start cell counted as
entered. The blocked cells of a path are a set that joins the ends once opened, so the fewest
cells are at most the cheapest path's cost; and any set ``S`` that joins them leaves a path
between them whose blocked cells all lie in ``S``, so the cheapest cost is at most ``|S|``.
The two are equal, and the blocked cells of a cheapest path are a smallest fix.

The cheapest path comes from a 0-1 breadth-first search (entering a blocked cell costs 1, a
walkable one 0) run level by level on whole arrays: a level's zero-cost steps fill whole
regions at once through their labels (`label_regions`, in C when built; for "always" its
4-connected regions are merged across diagonal pairs of walkable cells), so a level costs a few
passes over the array, not a Python step per cell, and the search stops at End's level.
A 128 x 128 grid walled in three deep takes about a millisecond.

With links (`sim.navigation.links`), Start and End are connected when the grid and the links
join them (`sim.navigation.regions.linked`: a link leads from its start's region to its end's).
When they are not, the fix is still the grid's fewest cells (a way in by grid moves alone; with
links a smaller one may exist), and `one_way_links` names each one-way link that would join
them if it ran the other way: the cheap answer to "I came down a drop and cannot go back up".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.grid import Cell, check_walkable
from sim.navigation.link_graph import LinkGraph
from sim.navigation.links import NavLink
from sim.navigation.query import check_cell
from sim.navigation.regions import linked
from sim.navigation.regions.labels import label_regions

# The four orthogonal steps, in the order a tie between them is broken.
_STEPS: tuple[Cell, ...] = ((-1, 0), (0, 1), (1, 0), (0, -1))
# "always" steps diagonally too; orthogonal steps first, since a straight wall reads best.
_STEPS_8: tuple[Cell, ...] = (*_STEPS, (-1, -1), (-1, 1), (1, 1), (1, -1))


@dataclass(frozen=True, slots=True)
class NoPathExplanation:
    """Why Start cannot reach End, or that it can (`connected`).

    Attributes:
        start_region_cells: Cells of Start's region (0 when Start's cell is blocked).
        goal_region_cells: Cells of End's region (0 when End's cell is blocked; the same
            region as Start's when they are connected).
        fix_cells: The fewest blocked cells whose opening joins Start and End, ``(row, col)``
            in order from Start's side to End's; a blocked Start or End cell is one of them.
            Empty when they are joined already.
        start_region: ``[row, col]`` mask of Start's region (read-only).
        goal_region: ``[row, col]`` mask of End's region (read-only).
        one_way_links: The one-way links that would join Start to End if they ran the other
            way (Start reaches the link's end, its start reaches End); empty without links.
    """

    start_region_cells: int
    goal_region_cells: int
    fix_cells: tuple[Cell, ...]
    start_region: NDArray[np.bool_] = field(repr=False, compare=False)
    goal_region: NDArray[np.bool_] = field(repr=False, compare=False)
    one_way_links: tuple[NavLink, ...] = ()

    @property
    def connected(self) -> bool:
        """Whether Start reaches End as the grid is (nothing to open)."""
        return not self.fix_cells


def explain_no_path(
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    *,
    diagonal: bool | str | DiagonalRule = True,
    links: Sequence[NavLink] | None = None,
) -> NoPathExplanation:
    """Explain why `goal` cannot be reached from `start`: their regions and the fewest fix.

    Under "never", "no-corner-cutting" and "one-obstacle" regions are 4-connected and so
    are the steps between fix cells; under "always" both are 8-connected (see the module
    docstring). A blocked `start` or `goal` has no region (0 cells, an empty mask) and is
    itself one of the fix cells: the fix is what must be opened for a path to exist, ends
    included. Of several smallest fixes the one given is fixed by the mask and the rule
    alone: levels are searched in a set order, a region is left by the blocked cell of the
    right level nearest to where it was entered (the first in row-major order on a tie), and
    a blocked cell steps on straight when it can, else up, right, down, left (then, under
    "always", up-left, up-right, down-right, down-left).

    Args:
        walkable: ``[row, col]`` bool mask, True where a cell may be entered.
        start: ``(row, col)`` of Start, in the grid.
        goal: ``(row, col)`` of End, in the grid.
        diagonal: The diagonal rule, as `find_path` takes it: True (no-corner-cutting),
            False (never), a `DiagonalRule` or one of its names.
        links: `NavLink`s a path may take, as `find_path` takes them (module docstring).

    Raises:
        ValueError: for a mask that is not 2-D bool, an end that is not a pair of ints or
            lies outside the grid, a `diagonal` that names no rule, or a bad link.

    >>> walkable = np.array([[1, 1, 0, 1],
    ...                      [1, 1, 0, 1]], dtype=bool)
    >>> why = explain_no_path(walkable, (0, 0), (1, 3))
    >>> why.start_region_cells, why.goal_region_cells, why.fix_cells
    (4, 2, ((1, 2),))
    >>> explain_no_path(walkable, (0, 0), (1, 1)).connected
    True

    Under "always" a diagonal joins two cells across two blocked corners:

    >>> walkable = np.array([[1, 0, 0],
    ...                      [0, 1, 0],
    ...                      [0, 0, 0]], dtype=bool)
    >>> explain_no_path(walkable, (0, 0), (2, 2), diagonal="always").fix_cells
    ((2, 2),)
    >>> explain_no_path(walkable, (0, 0), (2, 2), diagonal="one-obstacle").fix_cells
    ((0, 1), (1, 2), (2, 2))
    """
    walkable = check_walkable(walkable)
    eight = parse_diagonal(diagonal) is DiagonalRule.ALWAYS
    start, goal = _in_grid("start", start, walkable.shape), _in_grid("goal", goal, walkable.shape)
    labels, count = _labels(walkable, eight=eight)
    start_region, goal_region = _region(labels, start), _region(labels, goal)
    graph = None if not links else LinkGraph.build(links, walkable)
    one_way: tuple[NavLink, ...] = ()
    joined = False  # by the links, across regions
    if graph is not None and walkable[start] and walkable[goal]:
        edges = linked.region_edges(labels, walkable, graph)
        ahead = linked.reachable(edges, int(labels[start]))
        joined = int(labels[goal]) in ahead
        behind = linked.reachable(linked.reversed_edges(edges), int(labels[goal]))
        one_way = tuple(
            link
            for link in graph.links
            if not (joined or link.bidirectional)
            and int(labels[link.end]) in ahead
            and int(labels[link.start]) in behind
        )
    if joined or (start_region.any() and bool(start_region[goal])):
        fix: tuple[Cell, ...] = ()
    else:
        level_of = _levels(walkable, labels, count, start, goal, eight=eight)
        fix = _fix_cells(walkable, labels, level_of, start, goal, eight=eight)
    return NoPathExplanation(
        start_region_cells=int(np.count_nonzero(start_region)),
        goal_region_cells=int(np.count_nonzero(goal_region)),
        fix_cells=fix,
        start_region=start_region,
        goal_region=goal_region,
        one_way_links=one_way,
    )


def _in_grid(name: str, cell: object, shape: tuple[int, ...]) -> Cell:
    """`cell` as a pair of ints in a grid of `shape`, or ValueError naming it."""
    row, col = check_cell(name, cell)
    height, width = shape
    if not (0 <= row < height and 0 <= col < width):
        raise ValueError(f"{name} {(row, col)!r} lies outside the {height}x{width} grid [row, col]")
    return row, col


def _labels(walkable: NDArray[np.bool_], *, eight: bool) -> tuple[NDArray[np.int32], int]:
    """Region labels (-1 on blocked cells) and a bound on them: 4-connected, or 8 if `eight`.

    8-connected regions are 4-connected ones joined across diagonal pairs of walkable cells;
    the joins are found by hooking each pair's larger root onto the smaller and halving the
    paths, a few whole-array passes however many regions there are.
    """
    labels, sizes = label_regions(walkable)
    count = len(sizes)
    if not eight or count < 2:
        return labels, count
    firsts, seconds = [], []
    for first, second in (
        (labels[:-1, :-1], labels[1:, 1:]),  # down-right pairs
        (labels[:-1, 1:], labels[1:, :-1]),  # down-left pairs
    ):
        apart = (first >= 0) & (second >= 0) & (first != second)
        firsts.append(first[apart])
        seconds.append(second[apart])
    ends_a, ends_b = np.concatenate(firsts), np.concatenate(seconds)
    parent = np.arange(count, dtype=np.int32)
    while True:
        roots_a, roots_b = parent[ends_a], parent[ends_b]
        differ = roots_a != roots_b
        if not differ.any():
            break
        roots_a, roots_b = roots_a[differ], roots_b[differ]
        lower = np.minimum(roots_a, roots_b)
        np.minimum.at(parent, roots_a, lower)
        np.minimum.at(parent, roots_b, lower)
        while True:  # every label straight to its root: parents only ever point lower
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
    merged = np.where(labels >= 0, parent[np.maximum(labels, 0)], -1).astype(np.int32)
    return merged, count


def _region(labels: NDArray[np.int32], cell: Cell) -> NDArray[np.bool_]:
    """Read-only mask of the region of `cell`; empty when the cell is blocked."""
    label = labels[cell]
    mask = labels == label if label >= 0 else np.zeros(labels.shape, dtype=bool)
    mask.flags.writeable = False
    return mask


def _grow(mask: NDArray[np.bool_], *, eight: bool = False) -> NDArray[np.bool_]:
    """The cells 4-adjacent (8-adjacent if `eight`) to a cell of `mask` (its own only so)."""
    grown = np.zeros_like(mask)
    grown[1:] |= mask[:-1]
    grown[:-1] |= mask[1:]
    grown[:, 1:] |= mask[:, :-1]
    grown[:, :-1] |= mask[:, 1:]
    if eight:
        grown[1:, 1:] |= mask[:-1, :-1]
        grown[1:, :-1] |= mask[:-1, 1:]
        grown[:-1, 1:] |= mask[1:, :-1]
        grown[:-1, :-1] |= mask[1:, 1:]
    return grown


def _levels(
    walkable: NDArray[np.bool_],
    labels: NDArray[np.int32],
    count: int,
    start: Cell,
    goal: Cell,
    *,
    eight: bool,
) -> NDArray[np.int32]:
    """Each cell's fewest blocked cells on a path from `start`, ends counted.

    Paths are 4-connected, or 8-connected if `eight` (then `labels` must be 8-connected
    regions). -1 for cells the search did not reach: it stops once `goal` has its level.
    Level by level: the blocked cells next to the last level start the next one, and the
    regions beside them join it whole (entering a walkable cell is free).
    """
    level_of = np.full(walkable.shape, -1, dtype=np.int32)
    if walkable[start]:
        level, layer = 0, labels == labels[start]
    else:
        level, layer = 1, np.zeros(walkable.shape, dtype=bool)
        layer[start] = True
    reached = layer.copy()
    level_of[layer] = level
    while not reached[goal]:
        touched = _grow(layer & ~walkable, eight=eight) & walkable & ~reached
        if touched.any():
            joined = np.zeros(count + 1, dtype=bool)  # the last entry stands for label -1
            joined[labels[touched]] = True
            regions = joined[labels]
            layer |= regions
            reached |= regions
            level_of[regions] = level
            if reached[goal]:
                break
        # Every walkable neighbour of the level is in it now: what is left around it is blocked.
        layer = _grow(layer, eight=eight) & ~reached
        level += 1
        reached |= layer
        level_of[layer] = level
    return level_of


def _fix_cells(
    walkable: NDArray[np.bool_],
    labels: NDArray[np.int32],
    level_of: NDArray[np.int32],
    start: Cell,
    goal: Cell,
    *,
    eight: bool,
) -> tuple[Cell, ...]:
    """The blocked cells of a cheapest path, found by walking the levels back from `goal`."""
    height, width = walkable.shape
    steps = _STEPS_8 if eight else _STEPS
    fix: list[Cell] = []
    current, heading = goal, _STEPS[0]
    while True:
        level = int(level_of[current])
        if walkable[current]:
            if level == 0:  # Start's region
                break
            # The region joined this level through a blocked cell of the level beside it.
            region = labels == labels[current]
            rows, cols = np.nonzero(_grow(region, eight=eight) & ~walkable & (level_of == level))
            nearest = int(np.argmin((rows - current[0]) ** 2 + (cols - current[1]) ** 2))
            current = (int(rows[nearest]), int(cols[nearest]))
            continue
        fix.append(current)
        if current == start:
            break
        # Straight on first: a wall crossed in a straight line reads best.
        for step in (heading, *(step for step in steps if step != heading)):
            row, col = current[0] + step[0], current[1] + step[1]
            if 0 <= row < height and 0 <= col < width and level_of[row, col] == level - 1:
                current, heading = (row, col), step
                break
        else:  # cannot happen with levels from `_levels`; a bug must not hang the app
            raise RuntimeError(f"no cell of level {level - 1} beside {current}")
    return tuple(reversed(fix))
