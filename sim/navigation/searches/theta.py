"""Theta*: A* whose parents need not be neighbours, so paths run at any angle between cells.

Theta* (Nash, Daniel, Koenig & Felner, "Theta*: Any-Angle Path Planning on Grids", AAAI 2007)
is A* with one change. Expanding a cell ``s`` with parent ``p``, a neighbour ``n`` is first
offered to ``p`` directly: when ``p`` sees ``n`` (line of sight), ``n`` may get parent ``p`` at
cost ``g(p) + |p n|``; otherwise it is relaxed from ``s`` as in A*, at ``g(s) + |s n|``. Every
cost is a straight-line (Euclidean) length between cell centres, and the heuristic is the
straight-line distance to the goal, which stays below every any-angle path and is consistent.

Vertices are the centres of cells, the moves to expand are those of the grid (the Moving AI
rule: 8 neighbours, no corner cutting; or 4), and line of sight is the app's smoothing rule,
`sim.navigation.line_of_sight.segment_is_clear` between the two centres: every cell the segment
touches must be walkable, and at every grid corner it passes through all four cells around it
(no squeezing past a corner). A legal grid move is always in sight, so every parent sees its child.

The result: `PathResult.cells` holds the path's *vertices*, from the start, through the cells
where it turns, to the goal; consecutive vertices need not be neighbours, but they always see
each other, and the path is the straight segments between their centres. `cost` is the sum of
the segments' Euclidean lengths, in path order from the start (the very sums that made ``g``).
Cell costs have no meaning for a straight segment that crosses cells in unequal parts, so
Theta* refuses costs other than 1.

Theta* is not optimal among all any-angle paths, but its path never costs more than A*'s over
the same moves (each relaxation is no dearer than A*'s, by the triangle inequality) and never
less than the straight line from start to goal. The frontier is ordered as A*'s
(`sim.navigation.searches.best_first`): priority ``floor((g + h) * TIE_SCALE)``, then the smaller
``h``, then the smaller flat cell index; closed cells are never reopened, and `expanded` counts the
cells closed.

>>> walkable = np.ones((3, 6), dtype=bool)
>>> walkable[0:2, 2] = False  # a wall with a gap at the bottom
>>> result = ThetaStar(walkable, (0, 0), (0, 5)).run()
>>> result.cells  # it turns on either side of the gap (2, 2)
((0, 0), (2, 1), (2, 3), (0, 5))
>>> round(result.cost, 4)  # sqrt(5) + 2 + sqrt(8); A* on the grid: 7.2426
7.0645
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from heapq import heappop, heappush
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell, check_costs
from sim.navigation.line_of_sight import centres_in_sight
from sim.navigation.moves import MoveGraph
from sim.navigation.query import (
    Algorithm,
    PathResult,
    Query,
    Reason,
    SearchSettings,
    check_ends,
    check_theta,
    reason_before_search,
)
from sim.navigation.searches import readout
from sim.navigation.searches.declaration import (
    CellStatus,
    SearchKind,
    SearchProblem,
    TableFacts,
    Tape,
    TapeFrame,
    ViewHints,
)

TIE_SCALE = 2.0**30
"""Priorities are floored to multiples of 1 / TIE_SCALE,
as `sim.navigation.searches.best_first` does."""


def solve(query: Query) -> PathResult:
    """Run a checked `Query` as Theta* and return its result.

    The query's heuristic and weight are not read: Theta* always estimates with the straight
    line, the one estimate that stays a lower bound for paths at any angle.

    >>> query = Query.check(np.ones((3, 3), dtype=bool), (0, 0), (2, 1))
    >>> solve(query).cells
    ((0, 0), (2, 1))
    """
    return ThetaStar.with_settings(query.walkable, query.start, query.goal, query.settings).run()


class ThetaStar:
    """One Theta* search, run all at once or one expansion at a time.

    Between expansions read `current`, `frontier_mask`, `closed_mask`, `g_costs`, `f_costs`
    and `came_from` (``[row, col]`` arrays, fresh copies; a parent need not be a neighbour).

    Args:
        walkable: ``[row, col]`` bool mask.
        start: first cell ``(row, col)``; must lie in the grid.
        goal: last cell; a goal outside the grid or on a blocked cell gives ``found=False``.
        diagonal: expand the 4 diagonal moves too (never cutting a corner); segments between
            parents and children go at any angle either way. True, False, "never" or
            "no-corner-cutting": the rules that cut corners are refused (`check_theta`).
        costs: None, or 1 on every walkable cell (`sim.navigation.query.check_theta`).

    Raises:
        ValueError: naming the value, for a mask that is not 2-D bool, costs that are not 1,
            a diagonal rule that cuts corners, a cell that is not two integers, a start
            outside the grid.

    >>> search = ThetaStar(np.ones((3, 3), dtype=bool), (0, 0), (2, 2))
    >>> search.advance(1), search.current, int(search.frontier_mask().sum())
    (False, (0, 0), 3)
    >>> search.run().cells
    ((0, 0), (2, 2))
    """

    def __init__(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        *,
        diagonal: bool | str = True,
        costs: NDArray[Any] | None = None,
    ) -> None:
        self._begin(walkable, start, goal, SearchSettings.parse(diagonal=diagonal, costs=costs))

    @classmethod
    def with_settings(
        cls, walkable: NDArray[np.bool_], start: Cell, goal: Cell, settings: SearchSettings
    ) -> ThetaStar:
        """A search under `settings`' rule and costs (its heuristic is always the line)."""
        search = cls.__new__(cls)
        search._begin(walkable, start, goal, settings)
        return search

    def _begin(
        self, walkable: NDArray[np.bool_], start: Cell, goal: Cell, settings: SearchSettings
    ) -> None:
        graph = MoveGraph.build(walkable, diagonal=settings.rule)
        check_theta(graph.walkable, check_costs(settings.costs, graph.walkable), graph.rule)
        start, goal = check_ends(start, goal, (graph.height, graph.width))
        size = graph.height * graph.width
        self._graph = graph
        self._start = start[0] * graph.width + start[1]
        self._goal_row, self._goal_col = goal
        self._goal = self._goal_row * graph.width + self._goal_col
        self._cost_so_far = [math.inf] * size
        self._came_from = [-1] * size
        self._closed = bytearray(size)
        self._h_cache = [-1.0] * size
        # A binary heap of (floored priority, h, cell), as in `sim.navigation.searches.best_first`.
        self._frontier: list[tuple[float, float, int]] = []
        self._expanded = 0
        self._current = -1
        self._done = False
        self._reason = Reason.UNREACHABLE
        early = reason_before_search(graph.walkable, start, goal)
        if early is not None:
            self._done, self._reason = True, early
            return
        self._cost_so_far[self._start] = 0.0
        h = self._h_of(self._start)
        self._frontier.append((h * TIE_SCALE // 1.0, h, self._start))

    @property
    def done(self) -> bool:
        """Whether the search has ended (found the goal or proved there is no path)."""
        return self._done

    @property
    def expanded(self) -> int:
        """How many cells have been expanded so far."""
        return self._expanded

    @property
    def current(self) -> Cell | None:
        """The cell expanded last, ``(row, col)``; None before the first expansion."""
        return None if self._current < 0 else divmod(self._current, self._graph.width)

    def advance(self, max_expansions: int | None = None) -> bool:
        """Expand up to `max_expansions` cells (all it takes if None); return `done`."""
        if max_expansions is not None and max_expansions < 1:
            raise ValueError(f"max_expansions must be >= 1 or None, got {max_expansions!r}")
        if self._done:
            return True
        frontier, closed = self._frontier, self._closed
        cost_so_far, came_from = self._cost_so_far, self._came_from
        graph = self._graph
        walkable, legal, moves, width = graph.walkable, graph.legal, graph.moves, graph.width
        stop_at = -1 if max_expansions is None else self._expanded + max_expansions
        reason: Reason | None = None
        while True:
            if not frontier:
                reason = Reason.UNREACHABLE
                break
            cell = heappop(frontier)[2]
            if closed[cell]:
                continue  # a stale entry: the cell was pushed again with a lower cost
            closed[cell] = 1
            self._current = cell
            self._expanded += 1
            if cell == self._goal:
                reason = Reason.FOUND
                break
            parent = came_from[cell]
            parent_cell = divmod(parent, width)
            g = cost_so_far[cell]
            for offset, length in moves[legal[cell]]:
                neighbour = cell + offset
                if closed[neighbour]:
                    continue
                # Offer the neighbour to the grandparent first: one straight segment past
                # `cell`, when it is clear, is never longer than the two through it.
                if parent >= 0 and centres_in_sight(
                    walkable, parent_cell, divmod(neighbour, width)
                ):
                    new_parent = parent
                    new_cost = cost_so_far[parent] + self._distance(parent, neighbour)
                else:
                    new_parent = cell
                    new_cost = g + length
                if new_cost < cost_so_far[neighbour]:
                    cost_so_far[neighbour] = new_cost
                    came_from[neighbour] = new_parent
                    h = self._h_of(neighbour)
                    heappush(frontier, ((new_cost + h) * TIE_SCALE // 1.0, h, neighbour))
            if self._expanded == stop_at:
                break
        if reason is not None:
            self._done, self._reason = True, reason
        return self._done

    def steps(self) -> Iterator[Cell]:
        """Expand one cell per item, yielding its ``(row, col)``, until the search ends."""
        while not self._done:
            before = self._expanded
            self.advance(1)
            if self._expanded > before:
                yield divmod(self._current, self._graph.width)

    def run(self) -> PathResult:
        """Run the search to its end and return its result."""
        self.advance()
        return self.result()

    def result(self) -> PathResult:
        """Return the result of a finished search (RuntimeError if it is not finished).

        `cells` are the path's vertices (see the module's docstring), `cost` their segments'
        summed Euclidean lengths.
        """
        if not self._done:
            raise RuntimeError("the search has not finished; call run() or exhaust steps()")
        if self._reason is not Reason.FOUND:
            return PathResult.none(self._reason, self._expanded)
        vertices = [self._goal]
        while vertices[-1] != self._start:
            vertices.append(self._came_from[vertices[-1]])
        vertices.reverse()
        total = 0.0
        for here, there in itertools.pairwise(vertices):
            total += self._distance(here, there)
        width = self._graph.width
        cells = tuple(divmod(cell, width) for cell in vertices)
        return PathResult(True, cells, total, self._expanded, Reason.FOUND)

    def frontier_mask(self) -> NDArray[np.bool_]:
        """``[row, col]`` True on cells waiting on the frontier (open, not yet closed)."""
        return readout.frontier_mask(self._frontier, self._closed, self._shape())

    def closed_mask(self) -> NDArray[np.bool_]:
        """``[row, col]`` True on expanded (closed) cells."""
        return readout.closed_mask(self._closed, self._shape())

    def g_costs(self) -> NDArray[np.float64]:
        """``[row, col]`` best known any-angle cost from the start; inf on untouched cells."""
        return self._grid_shaped(np.array(self._cost_so_far, dtype=np.float64))

    def f_costs(self) -> NDArray[np.float64]:
        """``[row, col]`` priority ``g + h`` the cell was last queued with; inf if untouched."""
        return readout.priorities(self._cost_so_far, self._h_cache, self._shape())

    def came_from(self) -> NDArray[np.intp]:
        """``[row, col]`` flat index of each cell's parent; -1 for the start and untouched cells."""
        return self._grid_shaped(np.array(self._came_from, dtype=np.intp))

    def _distance(self, a: int, b: int) -> float:
        """The straight-line length between the centres of flat cells `a` and `b`."""
        a_row, a_col = divmod(a, self._graph.width)
        b_row, b_col = divmod(b, self._graph.width)
        return math.hypot(b_row - a_row, b_col - a_col)

    def _h_of(self, cell: int) -> float:
        h = self._h_cache[cell]
        if h < 0.0:
            row, col = divmod(cell, self._graph.width)
            h = math.hypot(row - self._goal_row, col - self._goal_col)
            self._h_cache[cell] = h
        return h

    def _grid_shaped(self, flat: NDArray[Any]) -> NDArray[Any]:
        return flat.reshape(self._shape())

    def _shape(self) -> tuple[int, int]:
        return self._graph.height, self._graph.width


def start_recording(problem: SearchProblem) -> ThetaStar:
    """A search of `problem` to record step by step (its heuristic is always the line)."""
    return ThetaStar.with_settings(problem.walkable, problem.start, problem.goal, problem.settings)


def read_state(search: ThetaStar, problem: SearchProblem) -> TapeFrame:
    """Its frontier, closed cells and tree; parents are any-angle (they see their child)."""
    status = np.zeros(problem.walkable.size, dtype=np.uint8)
    status[search.frontier_mask().ravel()] = CellStatus.OPEN
    status[search.closed_mask().ravel()] = CellStatus.CLOSED
    return TapeFrame(
        status,
        search.g_costs().ravel(),
        search.f_costs().ravel(),
        search.came_from().ravel().astype(np.intp),
        np.zeros(problem.walkable.size, dtype=np.uint8),
    )


SEARCHES = (
    # Theta*'s heuristic is always the straight line: no choice to offer.
    SearchKind(
        "THETA",
        "Theta*",
        Algorithm.THETA,
        "any-angle: never longer than A*'s",
        order=90,
        solver=solve,
        stepper=ThetaStar,
        recording=Tape(start_recording, read_state),
        table=TableFacts(
            90,
            own_loop=True,
            note=lambda case, guaranteed: "any-angle: straight segments, not grid moves",
        ),
        hints=ViewHints(arrows=True, straight_path=True),  # any-angle parents, vertices
    ),
)
"""Theta*, declared for the catalogue (`sim.navigation.catalogue`)."""
