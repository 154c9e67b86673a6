"""One best-first search core for A*, weighted A*, Dijkstra, breadth-first, greedy and DFS.

The variants differ only in data, never in code, so they share one loop, one tie-break and one
set of tests; depth-first search, the teaching baseline, is the exception with its own small loop:

=========  ===============================  ===========================  =====================
algorithm  priority of a frontier cell      step length                  path returned
=========  ===============================  ===========================  =====================
astar      g + weight * s * h               1 or sqrt(2), times cost     optimal if h is
                                                                         admissible, weight 1
dijkstra   g                                1 or sqrt(2), times cost     optimal
bfs        number of moves                  1 (cell costs ignored)       fewest moves
greedy     s * h                            1 or sqrt(2), times cost     any path
dfs        -(push sequence number): LIFO    1 or sqrt(2), times cost     any path (usually
                                                                         not the shortest)
=========  ===============================  ===========================  =====================

``s`` is the heuristic scale of the grid (`sim.navigation.grid.heuristic_scale`): the smallest
cost of a walkable cell when some cost less than 1 (roads), else 1. The heuristics estimate a
path over cells costing 1; scaled by the smallest cost they stay lower bounds (and consistent),
so A* stays optimal under any costs from 0.25 to 100.

The loop: pop the frontier cell with the lowest priority (a binary heap); skip it if already
closed; close it; stop at the goal; otherwise relax each legal move: a neighbour's
``cost_so_far`` and ``came_from`` change only when the new cost is strictly lower, and then it
is pushed again (stale heap entries are skipped when popped). Closed cells are never reopened:
with a consistent heuristic (every admissible one in `sim.navigation.heuristics`) that loses
nothing; weighted A* then stays within ``weight`` times the optimum.

Ties on priority go to the smaller ``h`` (equivalently the larger ``g``: the cell deeper along
its path, which favours straight paths and ends sooner), then to the smaller flat cell index,
so every run is deterministic. Equal-cost paths sum their steps in different orders and so
differ in the last bits; priorities are therefore floored to multiples of ``1 / TIE_SCALE``
(about 1e-9) before comparing, or the tie-break would rarely apply. The price: two costs closer
than that count as equal, so "optimal" means optimal to within about 1e-9 per step of depth
(exact for grid moves, whose distinct path lengths a + b*sqrt(2) lie much further apart).

Depth-first search keeps its frontier as a stack: the most recent push pops first (its
priority is minus the push sequence number, so there are never ties). Every legal move to a
cell not yet closed sets that cell's ``came_from`` and ``cost_so_far`` (the latest discovery
wins, matching the pop order) and pushes it; ``h`` is 0, so f = g. The path it returns is
legal and its cost is the true cost of its steps, but it is rarely the shortest. The compiled
kernel does not run it: `find_path` keeps dfs in Python. Jump point search (jps, and the
"auto" that picks it), bidirectional A* and Theta* have loops of their own (`OWN_LOOPS`);
`solve` hands them over.

The search state lives in flat lists indexed by the cell ``row * width + col``
(``cost_so_far``, ``came_from``, a ``closed`` bytearray, a cache of ``h``), the shape the
compiled kernel (`sim.navigation.searches.kernel`) takes over. The same loop runs a whole search
(`Search.run`) or a budget of expansions at a time (`Search.advance`, `Search.steps`) for a
visualizer. This module is the Python reference only: `find_path`
(`sim.navigation.pathfinder`) checks a `Query` once and runs it here (`solve`) or in C. The six
searches of this loop are declared for the catalogue in `best_first_family`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from heapq import heappop, heappush
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell
from sim.navigation.heuristics import HEURISTICS, Heuristic
from sim.navigation.link_graph import LinkGraph
from sim.navigation.moves import SQRT2, MoveGraph
from sim.navigation.query import (
    AUTO,
    Algorithm,
    PathResult,
    PriorityTerms,
    Query,
    Reason,
    SearchSettings,
    check_ends,
    check_options,
    check_weight,
    priority_terms,
    reason_before_search,
)
from sim.navigation.searches import bidirectional, jps, readout, theta
from sim.navigation.searches.linked import bounded, path_cost_with_links

TIE_SCALE = 2.0**30
"""Priorities are floored to multiples of 1 / TIE_SCALE (about 1e-9) before comparing."""

OWN_LOOPS: dict[Algorithm, str] = {
    Algorithm.JPS: "jump point search runs in sim.navigation.searches.jps.JumpPointSearch",
    Algorithm.BIDIRECTIONAL: "bidirectional A* runs in "
    "sim.navigation.searches.bidirectional.BidirectionalSearch",
    Algorithm.THETA: "Theta* runs in sim.navigation.searches.theta.ThetaStar",
}
"""The algorithms with a loop of their own, not `Search`'s, and where it is."""

STEPPED_ALGORITHMS: tuple[Algorithm, ...] = tuple(a for a in Algorithm if a not in OWN_LOOPS)
"""The algorithms `Search` runs: all but those in `OWN_LOOPS`."""


def solve(query: Query) -> PathResult:
    """Run a checked `Query` on the Python reference loop and return its result.

    >>> solve(Query.check(np.ones((1, 3), dtype=bool), (0, 0), (0, 2))).cells
    ((0, 0), (0, 1), (0, 2))
    """
    if query.algorithm is Algorithm.JPS:
        return jps.solve(query)
    if query.algorithm is Algorithm.BIDIRECTIONAL:
        return bidirectional.solve(query)
    if query.algorithm is Algorithm.THETA:
        return theta.solve(query)
    graph = MoveGraph.build(query.walkable, diagonal=query.rule, costs=query.costs)
    settings = query.settings
    return Search.with_settings(graph, query.start, query.goal, settings, query.links).run()


def start_search(
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    *,
    diagonal: bool | str = True,
    heuristic: str = "octile",
    algorithm: str = "astar",
    costs: NDArray[Any] | None = None,
    weight: float = 1.0,
) -> Search:
    """Set up the search `find_path` would run, without running it; same arguments and errors.

    Drive it with `Search.steps` (one expansion per item) or `Search.advance`, then read
    `Search.result`. `start_search_with` takes the options as `SearchSettings`.

    >>> search = start_search(np.ones((1, 3), dtype=bool), (0, 0), (0, 2))
    >>> list(search.steps())
    [(0, 0), (0, 1), (0, 2)]
    >>> search.result().cost
    2.0
    """
    graph = MoveGraph.build(walkable, diagonal=diagonal, costs=costs)
    return Search(graph, start, goal, heuristic=heuristic, algorithm=algorithm, weight=weight)


def start_search_with(
    walkable: NDArray[np.bool_], start: Cell, goal: Cell, settings: SearchSettings
) -> Search:
    """`start_search` with its options as one value (an algorithm `Search` runs, not None).

    >>> stepped = SearchSettings(algorithm=Algorithm.BFS)
    >>> start_search_with(np.ones((1, 3), dtype=bool), (0, 0), (0, 2), stepped).run().cost
    2.0
    """
    graph = MoveGraph.build(walkable, diagonal=settings.rule, costs=settings.costs)
    return Search.with_settings(graph, start, goal, settings)


def _not_stepped(name: str) -> NoReturn:
    """Refuse, in words, an algorithm `Search` does not run ("auto" or one in `OWN_LOOPS`)."""
    stepped = ", ".join(a.value for a in STEPPED_ALGORITHMS)
    elsewhere = OWN_LOOPS[Algorithm.JPS if name == AUTO else Algorithm(name)]
    raise ValueError(f"Search runs {stepped}, not {name!r}; {elsewhere}")


class Search:
    """One search on a MoveGraph, run all at once or a few expansions at a time.

    Between expansions it exposes the search tree for drawing: `frontier_mask`, `closed_mask`,
    `g_costs`, `f_costs`, `came_from` (all ``[row, col]`` arrays, fresh copies), and
    `cell_state` reads one cell without copying anything (`sim.navigation.replay.log` records
    a whole search that way).

    >>> graph = MoveGraph.build(np.ones((3, 3), dtype=bool))
    >>> search = Search(graph, (0, 0), (2, 2))
    >>> search.advance(1), search.current, int(search.frontier_mask().sum())
    (False, (0, 0), 3)
    >>> round(search.run().cost, 3)
    2.828
    """

    def __init__(
        self,
        graph: MoveGraph,
        start: Cell,
        goal: Cell,
        *,
        algorithm: str = "astar",
        heuristic: str = "octile",
        weight: float = 1.0,
    ) -> None:
        """Check the arguments (ValueError naming the value) and put `start` on the frontier."""
        if algorithm == AUTO or algorithm in OWN_LOOPS:
            _not_stepped(algorithm)
        algorithm_chosen, heuristic_chosen, weight_checked = check_options(
            algorithm, heuristic, weight
        )
        self._begin(graph, start, goal, algorithm_chosen, heuristic_chosen, weight_checked)

    @classmethod
    def with_settings(
        cls,
        graph: MoveGraph,
        start: Cell,
        goal: Cell,
        settings: SearchSettings,
        links: LinkGraph | None = None,
    ) -> Search:
        """A search of `settings`' algorithm, heuristic and weight on `graph`, and `links`.

        The graph holds the diagonal rule and the costs, so the settings' are not read. A link
        is one more edge out of its start, relaxed after the grid moves, costing its cost (one
        move for bfs); the heuristic is lowered where links make it overestimate
        (`sim.navigation.link_graph`), so astar stays optimal.
        """
        algorithm = settings.algorithm
        if algorithm is None or algorithm in OWN_LOOPS:
            _not_stepped(AUTO if algorithm is None else algorithm.value)
        search = cls.__new__(cls)
        # Checked again: settings built by hand have not met `SearchSettings.parse`.
        weight = check_weight(settings.weight)
        search._begin(graph, start, goal, algorithm, settings.heuristic, weight, links)
        return search

    def _begin(
        self,
        graph: MoveGraph,
        start: Cell,
        goal: Cell,
        algorithm: Algorithm,
        heuristic: Heuristic,
        weight: float,
        links: LinkGraph | None = None,
    ) -> None:
        self._graph = graph
        self._links = links
        self._link_out = None if links is None else links.out
        self._bounds: tuple[tuple[int, int, float], ...] = ()
        self._algorithm = algorithm
        (start_row, start_col), (goal_row, goal_col) = check_ends(
            start, goal, (graph.height, graph.width)
        )
        width = graph.width
        size = graph.height * width
        self._start = start_row * width + start_col
        self._goal = goal_row * width + goal_col
        self._goal_row, self._goal_col = goal_row, goal_col
        self._cost_so_far = [math.inf] * size
        self._came_from = [-1] * size
        self._closed = bytearray(size)
        # A binary heap of (floored priority, h, cell); a plain stack for dfs.
        self._frontier: list[tuple[float, float, int]] = []
        self._pushes = 0  # dfs only: the push sequence number its priorities count down
        self._expanded = 0
        self._current = -1
        self._done = False
        self._reason = Reason.UNREACHABLE

        terms = priority_terms(algorithm, heuristic, weight, graph.heuristic_scale)
        self._terms = terms
        self._g_weight, self._h_weight = terms.g_weight, terms.h_factor
        self._heuristic_name = terms.heuristic
        self._heuristic = HEURISTICS[terms.heuristic]
        if terms.unit_steps:
            self._moves, self._cell_cost = graph.unit_moves, [1.0] * size
        else:
            self._moves, self._cell_cost = graph.moves, graph.cell_cost
        # h is computed once per touched cell; -1 marks "not yet", 0 everywhere skips it.
        self._h_cache = [0.0 if terms.heuristic is Heuristic.ZERO else -1.0] * size

        early = reason_before_search(graph.walkable, (start_row, start_col), (goal_row, goal_col))
        if early is not None:
            self._finish(early)
        else:
            if links is not None:
                found = links.bounds((goal_row, goal_col), terms.heuristic, terms.h_scale)
                self._bounds = tuple((row, col, terms.h_weight * d) for row, col, d in found)
            h = self._h_of(self._start)
            self._cost_so_far[self._start] = 0.0
            self._frontier.append((h * TIE_SCALE // 1.0, h, self._start))
            self._pushes = 1

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

    @property
    def algorithm(self) -> Algorithm:
        """The variant this search runs."""
        return self._algorithm

    @property
    def heuristic(self) -> Heuristic:
        """The heuristic the priorities use: zero for dijkstra, bfs and dfs."""
        return self._heuristic_name

    @property
    def priority_weights(self) -> tuple[float, float]:
        """``(g_weight, h_factor)``: a frontier cell's priority is g_weight * g + h_factor * h.

        ``h_factor`` is the weight times the heuristic scale (`terms`). dfs reports
        ``(1.0, 1.0)`` with h = 0 (f = g), though its stack ignores priorities.
        """
        return self._g_weight, self._h_weight

    @property
    def terms(self) -> PriorityTerms:
        """How this search orders its frontier: heuristic, weights and heuristic scale."""
        return self._terms

    @property
    def graph(self) -> MoveGraph:
        """The MoveGraph searched (its moves and walkable mask, shared, not copied)."""
        return self._graph

    def cell_state(self, cell: int) -> tuple[float, int]:
        """Return ``(cost_so_far, came_from)`` of flat `cell` now: ``(inf, -1)`` if untouched.

        One cell, no copy: cheap enough to call for every neighbour of every expansion.

        >>> search = Search(MoveGraph.build(np.ones((1, 3), dtype=bool)), (0, 0), (0, 2))
        >>> search.advance(1), search.cell_state(1), search.cell_state(2)
        (False, (1.0, 0), (inf, -1))
        """
        return self._cost_so_far[cell], self._came_from[cell]

    def advance(self, max_expansions: int | None = None) -> bool:
        """Expand up to `max_expansions` cells (all it takes if None); return `done`.

        A bounded budget lets a frame loop spread one search over several frames.
        """
        if max_expansions is not None and max_expansions < 1:
            raise ValueError(f"max_expansions must be >= 1 or None, got {max_expansions!r}")
        if self._done:
            return True
        if self._algorithm is Algorithm.DFS:
            return self._advance_dfs(max_expansions)
        # Local names: this loop is the hot path of the whole simulator.
        frontier = self._frontier
        cost_so_far = self._cost_so_far
        came_from = self._came_from
        closed = self._closed
        h_cache = self._h_cache
        graph = self._graph
        legal = graph.legal
        moves, cell_cost = self._moves, self._cell_cost
        heuristic, h_weight, g_weight = self._heuristic, self._h_weight, self._g_weight
        width, goal_row, goal_col = graph.width, self._goal_row, self._goal_col
        goal = self._goal
        link_out, bounds = self._link_out, self._bounds
        expanded = self._expanded
        stop_at = -1 if max_expansions is None else expanded + max_expansions
        current = self._current
        reason: Reason | None = None
        while True:
            if not frontier:
                reason = Reason.UNREACHABLE
                break
            cell = heappop(frontier)[2]
            if closed[cell]:
                continue  # a stale entry: the cell was pushed again with a lower cost
            current = cell
            closed[current] = 1
            expanded += 1
            if current == goal:
                reason = Reason.FOUND
                break
            g = cost_so_far[current]
            for offset, length in moves[legal[current]]:
                neighbour = current + offset
                if closed[neighbour]:
                    continue
                new_cost = g + length * cell_cost[neighbour]
                if new_cost < cost_so_far[neighbour]:
                    cost_so_far[neighbour] = new_cost
                    came_from[neighbour] = current
                    h = h_cache[neighbour]
                    if h < 0.0:
                        row, col = divmod(neighbour, width)
                        h = h_weight * heuristic(abs(col - goal_col), abs(row - goal_row))
                        if bounds:
                            h = bounded(h, row, col, bounds, heuristic, h_weight)
                        h_cache[neighbour] = h
                    priority = (g_weight * new_cost + h) * TIE_SCALE // 1.0
                    heappush(frontier, (priority, h, neighbour))
            if link_out is not None and current in link_out:
                self._relax_links(current, g)
            if expanded == stop_at:
                break
        self._expanded = expanded
        self._current = current
        if reason is not None:
            self._finish(reason)
        return self._done

    def _advance_dfs(self, max_expansions: int | None) -> bool:
        """`advance` for depth-first search: a stack, and the latest discovery always wins."""
        frontier = self._frontier
        cost_so_far = self._cost_so_far
        came_from = self._came_from
        closed = self._closed
        legal = self._graph.legal
        moves, cell_cost = self._moves, self._cell_cost
        goal = self._goal
        pushes = self._pushes
        expanded = self._expanded
        stop_at = -1 if max_expansions is None else expanded + max_expansions
        current = self._current
        reason: Reason | None = None
        while True:
            if not frontier:
                reason = Reason.UNREACHABLE
                break
            cell = frontier.pop()[2]
            if closed[cell]:
                continue  # pushed again later by another cell, and expanded from there
            current = cell
            closed[current] = 1
            expanded += 1
            if current == goal:
                reason = Reason.FOUND
                break
            g = cost_so_far[current]
            for offset, length in moves[legal[current]]:
                neighbour = current + offset
                if closed[neighbour]:
                    continue
                new_cost = g + length * cell_cost[neighbour]
                # Unconditional: the entry pushed last pops first, so its parent must win.
                cost_so_far[neighbour] = new_cost
                came_from[neighbour] = current
                frontier.append((-float(pushes), 0.0, neighbour))
                pushes += 1
            if self._link_out is not None:
                for neighbour, hop in self._link_out.get(current, ()):
                    if closed[neighbour] or not self._graph.walkable.flat[neighbour]:
                        continue
                    cost_so_far[neighbour] = g + hop
                    came_from[neighbour] = current
                    frontier.append((-float(pushes), 0.0, neighbour))
                    pushes += 1
            if expanded == stop_at:
                break
        self._pushes = pushes
        self._expanded = expanded
        self._current = current
        if reason is not None:
            self._finish(reason)
        return self._done

    def steps(self) -> Iterator[Cell]:
        """Expand one cell per item, yielding its ``(row, col)``, until the search ends.

        Read the search state between items; `result` is ready when the iterator ends.
        """
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
        """Return the result of a finished search (RuntimeError if it is not finished)."""
        if not self._done:
            raise RuntimeError("the search has not finished; call run() or exhaust steps()")
        if self._reason is not Reason.FOUND:
            return PathResult.none(self._reason, self._expanded)
        flat_path = self._flat_path()
        width = self._graph.width
        cells = tuple(divmod(cell, width) for cell in flat_path)
        return PathResult(True, cells, self._path_cost(flat_path), self._expanded, self._reason)

    def frontier_mask(self) -> NDArray[np.bool_]:
        """``[row, col]`` True on cells waiting on the frontier (open, not yet closed)."""
        return readout.frontier_mask(self._frontier, self._closed, self._shape())

    def closed_mask(self) -> NDArray[np.bool_]:
        """``[row, col]`` True on expanded (closed) cells."""
        return readout.closed_mask(self._closed, self._shape())

    def g_costs(self) -> NDArray[np.float64]:
        """``[row, col]`` best known cost from the start (g); inf on untouched cells."""
        return self._grid_shaped(np.array(self._cost_so_far, dtype=np.float64))

    def f_costs(self) -> NDArray[np.float64]:
        """``[row, col]`` priority the cell was last queued with (f); inf on untouched cells."""
        return readout.priorities(self._cost_so_far, self._h_cache, self._shape(), self._g_weight)

    def came_from(self) -> NDArray[np.intp]:
        """``[row, col]`` flat index of each cell's parent; -1 for the start and untouched cells."""
        return self._grid_shaped(np.array(self._came_from, dtype=np.intp))

    def _finish(self, reason: Reason) -> None:
        self._done = True
        self._reason = reason

    def _relax_links(self, current: int, g: float) -> None:
        """Relax the links out of `current` as grid moves are relaxed (after them)."""
        assert self._link_out is not None
        walkable, closed = self._graph.walkable.flat, self._closed
        cost_so_far, unit = self._cost_so_far, self._terms.unit_steps
        for neighbour, hop in self._link_out[current]:
            if closed[neighbour] or not walkable[neighbour]:
                continue  # a link is shut while its end is blocked
            new_cost = g + (1.0 if unit else hop)
            if new_cost < cost_so_far[neighbour]:
                cost_so_far[neighbour] = new_cost
                self._came_from[neighbour] = current
                h = self._h_of(neighbour)
                priority = (self._g_weight * new_cost + h) * TIE_SCALE // 1.0
                heappush(self._frontier, (priority, h, neighbour))

    def _h_of(self, cell: int) -> float:
        h = self._h_cache[cell]
        if h < 0.0:
            row, col = divmod(cell, self._graph.width)
            dx, dy = abs(col - self._goal_col), abs(row - self._goal_row)
            h = self._h_weight * self._heuristic(dx, dy)
            if self._bounds:
                h = bounded(h, row, col, self._bounds, self._heuristic, self._h_weight)
            self._h_cache[cell] = h
        return h

    def _flat_path(self) -> list[int]:
        """Follow came_from back from the goal; return flat cells from start to goal."""
        path = [self._goal]
        came_from = self._came_from
        while path[-1] != self._start:
            path.append(came_from[path[-1]])
        path.reverse()
        return path

    def _path_cost(self, flat_path: list[int]) -> float:
        """Sum the true step costs in path order (the same sums the search made for g)."""
        graph = self._graph
        if self._links is not None:
            return path_cost_with_links(graph, self._links, flat_path)
        width, cell_cost = graph.width, graph.cell_cost
        total = 0.0
        for here, there in itertools.pairwise(flat_path):
            diagonal = (here % width != there % width) and (here // width != there // width)
            total += (SQRT2 if diagonal else 1.0) * cell_cost[there]
        return total

    def _grid_shaped(self, flat: NDArray[Any]) -> NDArray[Any]:
        return flat.reshape(self._shape())

    def _shape(self) -> tuple[int, int]:
        return self._graph.height, self._graph.width
