"""Bidirectional A*: one A* from the start, one from the goal back, in turn, meeting in the middle.

The forward half searches from the start, the backward half from the goal over the reversed
moves. Moves are symmetric (a diagonal needs the same four cells walkable both ways), but their
costs are not: a step costs its length times the cost of the cell it *enters*, so the backward
half, walking a step ``u -> v`` from ``v`` back to ``u``, charges the cost of ``v``, the cell
it leaves.

Each half is A* with the *average* of the two ends' estimates as its heuristic (Ikeda et al.,
"A Fast Algorithm for Finding Better Routes by AI Search Techniques", VNIS 1994; the
"consistent approach" of Goldberg & Harrelson, "Computing the Shortest Path: A* Search Meets
Graph Theory", SODA 2005, section 5). With ``h_goal`` and ``h_start`` the (scaled) heuristic to
each end, the forward half orders its frontier by ``g + (h_goal - h_start) / 2`` and the
backward half by ``g + (h_start - h_goal) / 2``. The two halves then see the same reduced step
costs, which stay >= 0 for a consistent heuristic, so they behave like the two halves of a
bidirectional Dijkstra: every closed cell has its optimal ``g``.

Whenever a half lowers the ``g`` of a cell the other half has reached, the two partial paths
through that cell make a whole one; the cheapest so far costs ``mu`` and the cell is the
*meeting cell*. The search stops when the best priorities of the two frontiers add up to at
least ``mu``: a cheaper path would have to leave the forward half's closed cells through an
open cell and enter the backward half's through another, and the sum of their priorities is a
lower bound on its cost. So the path through the meeting cell is optimal. Priorities are
compared floored, as A* compares them (`sim.navigation.searches.best_first`: ``floor(priority *
TIE_SCALE)``, then the smaller heuristic term, then the smaller flat cell index; closed cells
are never reopened), so "optimal" carries A*'s fine print: two costs closer than about 1e-9
count as equal. With an inadmissible heuristic (manhattan on an 8-connected grid) the path is
legal but may be longer, as A*'s would be.

Why the average and not each half's own estimate (the "symmetric approach", Pohl 1971)? Each
half would then stop only when *its* best priority reaches ``mu``, which means one half closes
everything one A* closes: on 8 scenarios of each of the 18 Moving AI maps `sim bench` runs,
that expanded 1.6x A*'s cells (geometric mean of the maps' ratios),
the average 1.25x: about half of A*'s on the mazes, 0.8 to 1.4x on most maps, but 10x on
arena, a small open map where octile is nearly exact and halving its difference gives the
search less to go on. The halves do meet in the middle, which is what the search view shows.

The halves take turns, one expansion each, the forward half first; when one frontier empties,
every cell its end can reach is closed, so the search ends: unreachable if the halves never met
(an end shut in by walls is proven unreachable in as many expansions as its enclosure has
cells). `expanded` counts the expansions of both halves. With start == goal the halves meet
before any expansion (``expanded == 0``, where A* expands the start once).

>>> walkable = np.ones((3, 5), dtype=bool)
>>> walkable[0:2, 2] = False  # a wall with a gap at the bottom
>>> search = BidirectionalSearch(walkable, (0, 0), (0, 4))
>>> result = search.run()
>>> result.cells
((0, 0), (1, 1), (2, 1), (2, 2), (2, 3), (1, 3), (0, 4))
>>> round(result.cost, 4), search.meeting_cell, result.expanded
(6.8284, (2, 2), 13)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from heapq import heappop, heappush
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell
from sim.navigation.heuristics import HEURISTICS, HeuristicFn, is_admissible
from sim.navigation.link_graph import Bound, Hops, LinkGraph
from sim.navigation.moves import SQRT2, MoveGraph
from sim.navigation.query import (
    Algorithm,
    PathResult,
    Query,
    Reason,
    SearchSettings,
    check_ends,
    reason_before_search,
)
from sim.navigation.searches import readout
from sim.navigation.searches.declaration import (
    CellStatus,
    RowCase,
    SearchKind,
    SearchProblem,
    TableFacts,
    Tape,
    TapeFrame,
    ViewHints,
)
from sim.navigation.searches.linked import bounded, path_cost_with_links

TIE_SCALE = 2.0**30
"""Priorities are floored to multiples of 1 / TIE_SCALE,
as `sim.navigation.searches.best_first` does."""


class Side(StrEnum):
    """Which half of a bidirectional search: from the start, or from the goal back."""

    FORWARD = "forward"
    BACKWARD = "backward"


def solve(query: Query) -> PathResult:
    """Run a checked `Query` as a bidirectional A* and return its result.

    The query's weight is not read (both halves run plain A*).

    >>> query = Query.check(np.ones((1, 3), dtype=bool), (0, 0), (0, 2))
    >>> solve(query).cells
    ((0, 0), (0, 1), (0, 2))
    """
    return BidirectionalSearch.with_settings(
        query.walkable, query.start, query.goal, query.settings, query.links
    ).run()


@dataclass(frozen=True, slots=True)
class HalfLinks:
    """What one half walks of the links, and its two link-lowered estimates.

    Attributes:
        hops: the links out of each cell as this half walks them (`LinkGraph.out` forward,
            `LinkGraph.into` backward).
        ahead: the bounds towards the end this half heads for (`LinkGraph.bounds`).
        behind: the bounds from the end it started at, over the links reversed.
    """

    hops: Hops
    ahead: tuple[Bound, ...]
    behind: tuple[Bound, ...]


class HalfSearch:
    """One half of a bidirectional search: A*'s state from one end towards the other.

    Its priority is ``g + p``, with the potential ``p = (h to the other end - h to its own
    end) / 2`` (see the module's docstring); the other half's potential is ``-p``. Read it
    between expansions to draw its frontier and tree: `frontier_mask`, `closed_mask`,
    `g_costs`, `f_costs`, `came_from` (all ``[row, col]`` arrays, fresh copies). Its
    ``came_from`` points towards the end it started from: the start for the forward half, the
    goal for the backward half. `BidirectionalSearch` builds and drives the two halves.
    """

    def __init__(
        self,
        graph: MoveGraph,
        origin: int,
        target: Cell,
        heuristic: HeuristicFn,
        side: Side,
        links: HalfLinks | None = None,
    ) -> None:
        size = graph.height * graph.width
        self._links = links
        self._graph = graph
        self._side = side
        self._target_row, self._target_col = target
        self._origin_row, self._origin_col = divmod(origin, graph.width)
        self._heuristic = heuristic
        self._h_factor = graph.heuristic_scale
        self.cost_so_far = [math.inf] * size
        """Best known cost from this half's end, per flat cell (inf: not reached)."""
        self._came_from = [-1] * size
        self._closed = bytearray(size)
        # p is computed once per touched cell; inf marks "not yet" (p itself may be < 0).
        self._potential = [math.inf] * size
        # A binary heap of (floored priority, p, cell), as
        # `sim.navigation.searches.best_first` keeps h.
        self._frontier: list[tuple[float, float, int]] = []
        self.expanded = 0
        """How many cells this half has expanded."""
        self.cost_so_far[origin] = 0.0
        p = self._potential_of(origin)
        self._frontier.append((p * TIE_SCALE // 1.0, p, origin))

    @property
    def side(self) -> Side:
        """Which half this is."""
        return self._side

    def top_key(self) -> float:
        """The floored priority at the head of the frontier (inf when it is empty).

        Stale entries (cells already closed) are dropped first, so the head is a live cell
        whose entry holds its current ``g``: a lower ``g`` pushes an entry that pops sooner.
        """
        frontier, closed = self._frontier, self._closed
        while frontier and closed[frontier[0][2]]:
            heappop(frontier)
        return frontier[0][0] if frontier else math.inf

    def expand(self, other_cost: list[float], best: float) -> tuple[int, float, int]:
        """Expand the head of the frontier (call `top_key` first; it must not be empty).

        Args:
            other_cost: the other half's ``cost_so_far``, to notice where the halves meet.
            best: the cheapest whole path known so far, ``mu`` (inf: none yet).

        Returns:
            ``(expanded cell, best, meeting cell)``: `best` lowered and the flat cell where
            the cheaper path meets when this expansion found one, else `best` and -1.
        """
        cell = heappop(self._frontier)[2]
        self._closed[cell] = 1
        self.expanded += 1
        meeting = -1
        g = self.cost_so_far[cell]
        graph = self._graph
        cell_cost, cost_so_far, closed = graph.cell_cost, self.cost_so_far, self._closed
        backward = self._side is Side.BACKWARD
        for offset, length in graph.moves[graph.legal[cell]]:
            neighbour = cell + offset
            if closed[neighbour]:
                continue
            # The backward half walks each step against its direction: the step enters `cell`.
            new_cost = g + length * cell_cost[cell if backward else neighbour]
            if new_cost < cost_so_far[neighbour]:
                cost_so_far[neighbour] = new_cost
                self._came_from[neighbour] = cell
                p = self._potential_of(neighbour)
                heappush(self._frontier, ((new_cost + p) * TIE_SCALE // 1.0, p, neighbour))
                through = new_cost + other_cost[neighbour]
                if through < best:
                    best, meeting = through, neighbour
        if self._links is not None:
            # A link is walked as it points forward, and against it backward (`HalfLinks`).
            for neighbour, hop in self._links.hops.get(cell, ()):
                if closed[neighbour] or not graph.walkable.flat[neighbour]:
                    continue
                new_cost = g + hop
                if new_cost < cost_so_far[neighbour]:
                    cost_so_far[neighbour] = new_cost
                    self._came_from[neighbour] = cell
                    p = self._potential_of(neighbour)
                    heappush(self._frontier, ((new_cost + p) * TIE_SCALE // 1.0, p, neighbour))
                    through = new_cost + other_cost[neighbour]
                    if through < best:
                        best, meeting = through, neighbour
        return cell, best, meeting

    def chain(self, cell: int) -> list[int]:
        """Follow ``came_from`` from flat `cell` back to this half's end, both included."""
        chain = [cell]
        came_from = self._came_from
        while came_from[chain[-1]] >= 0:
            chain.append(came_from[chain[-1]])
        return chain

    def frontier_mask(self) -> NDArray[np.bool_]:
        """``[row, col]`` True on cells waiting on this half's frontier."""
        return readout.frontier_mask(self._frontier, self._closed, self._shape())

    def closed_mask(self) -> NDArray[np.bool_]:
        """``[row, col]`` True on cells this half has expanded."""
        return readout.closed_mask(self._closed, self._shape())

    def g_costs(self) -> NDArray[np.float64]:
        """``[row, col]`` best known cost from this half's end; inf on untouched cells."""
        return self._grid_shaped(np.array(self.cost_so_far, dtype=np.float64))

    def f_costs(self) -> NDArray[np.float64]:
        """``[row, col]`` priority ``g + p`` the cell was last queued with; inf if untouched."""
        return readout.priorities(self.cost_so_far, self._potential, self._shape())

    def came_from(self) -> NDArray[np.intp]:
        """``[row, col]`` flat index of each cell's parent towards this half's end; else -1."""
        return self._grid_shaped(np.array(self._came_from, dtype=np.intp))

    def _potential_of(self, cell: int) -> float:
        p = self._potential[cell]
        if p == math.inf:
            row, col = divmod(cell, self._graph.width)
            to_target = self._heuristic(abs(col - self._target_col), abs(row - self._target_row))
            to_origin = self._heuristic(abs(col - self._origin_col), abs(row - self._origin_row))
            links, scale = self._links, self._h_factor
            if links is None:
                p = 0.5 * scale * (to_target - to_origin)
            else:
                # Both estimates lowered by the links, each consistent in its direction: the
                # reduced step costs stay >= 0 (`sim.navigation.link_graph`).
                ahead = bounded(scale * to_target, row, col, links.ahead, self._heuristic, scale)
                behind = bounded(scale * to_origin, row, col, links.behind, self._heuristic, scale)
                p = 0.5 * (ahead - behind)
            self._potential[cell] = p
        return p

    def _grid_shaped(self, flat: NDArray[Any]) -> NDArray[Any]:
        return flat.reshape(self._shape())

    def _shape(self) -> tuple[int, int]:
        return self._graph.height, self._graph.width


class BidirectionalSearch:
    """One bidirectional A*, run all at once or one expansion at a time, the halves in turn.

    Between expansions read `forward` and `backward` (each a `HalfSearch`: its frontier,
    closed cells and tree), `current` and `current_side` (the cell expanded last and by which
    half), `meeting_cell` and `best_cost` (the cheapest whole path found so far).

    Args:
        walkable: ``[row, col]`` bool mask.
        start: first cell ``(row, col)``; must lie in the grid.
        goal: last cell; a goal outside the grid or on a blocked cell gives ``found=False``.
        diagonal: True, False or a diagonal rule name, as for `find_path`.
        heuristic: as for `find_path`; each half estimates the distance to the other end.
        costs: optional per-cell cost multipliers, as for `find_path` (charged on entering).

    Raises:
        ValueError: naming the value, as `find_path` does: the mask, the costs, the
            heuristic, a cell that is not two integers, a start outside the grid.

    >>> search = BidirectionalSearch(np.ones((1, 5), dtype=bool), (0, 0), (0, 4))
    >>> [(cell, str(search.current_side)) for cell in search.steps()]
    [((0, 0), 'forward'), ((0, 4), 'backward'), ((0, 1), 'forward'), ((0, 3), 'backward')]
    >>> search.meeting_cell, search.result().cost
    ((0, 2), 4.0)
    """

    def __init__(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        *,
        diagonal: bool | str = True,
        heuristic: str = "octile",
        costs: NDArray[Any] | None = None,
    ) -> None:
        settings = SearchSettings.parse(diagonal=diagonal, heuristic=heuristic, costs=costs)
        self._begin(walkable, start, goal, settings)

    @classmethod
    def with_settings(
        cls,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        settings: SearchSettings,
        links: LinkGraph | None = None,
    ) -> BidirectionalSearch:
        """A search under `settings`' rule, heuristic and costs (both halves with weight 1).

        With `links`, the forward half walks each link from start to end, the backward half
        from end to start (so a one-way link only against its direction, as it should).
        """
        search = cls.__new__(cls)
        search._begin(walkable, start, goal, settings, links)
        return search

    def _begin(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        settings: SearchSettings,
        links: LinkGraph | None = None,
    ) -> None:
        self._links = links
        graph = MoveGraph.build(walkable, diagonal=settings.rule, costs=settings.costs)
        heuristic_fn = HEURISTICS[settings.heuristic]
        start, goal = check_ends(start, goal, (graph.height, graph.width))
        self._graph = graph
        self._start, self._goal = start, goal
        self._best = math.inf
        self._meeting = -1
        self._current = -1
        self._current_side: Side | None = None
        self._turn = Side.FORWARD
        self._done = False
        self._reason = Reason.UNREACHABLE
        self._halves: dict[Side, HalfSearch] = {}
        early = reason_before_search(graph.walkable, start, goal)
        if early is not None:
            self._done, self._reason = True, early
            return
        width = graph.width
        flat_start, flat_goal = start[0] * width + start[1], goal[0] * width + goal[1]
        ahead = behind = None
        if links is not None:
            scale, kind = graph.heuristic_scale, settings.heuristic
            to_goal, from_start = (
                links.bounds(goal, kind, scale),
                links.bounds(start, kind, scale, reverse=True),
            )
            ahead = HalfLinks(links.out, to_goal, from_start)
            behind = HalfLinks(links.into, from_start, to_goal)
        self._halves = {
            Side.FORWARD: HalfSearch(graph, flat_start, goal, heuristic_fn, Side.FORWARD, ahead),
            Side.BACKWARD: HalfSearch(graph, flat_goal, start, heuristic_fn, Side.BACKWARD, behind),
        }
        if flat_start == flat_goal:
            self._best, self._meeting = 0.0, flat_start

    @property
    def done(self) -> bool:
        """Whether the search has ended (found the best path or proved there is none)."""
        return self._done

    @property
    def expanded(self) -> int:
        """How many cells both halves have expanded so far."""
        return sum(half.expanded for half in self._halves.values())

    @property
    def forward(self) -> HalfSearch | None:
        """The half from the start (None when the search ended before it began)."""
        return self._halves.get(Side.FORWARD)

    @property
    def backward(self) -> HalfSearch | None:
        """The half from the goal back (None when the search ended before it began)."""
        return self._halves.get(Side.BACKWARD)

    @property
    def current(self) -> Cell | None:
        """The cell expanded last, ``(row, col)``; None before the first expansion."""
        return None if self._current < 0 else divmod(self._current, self._graph.width)

    @property
    def current_side(self) -> Side | None:
        """The half that expanded `current`; None before the first expansion."""
        return self._current_side

    @property
    def meeting_cell(self) -> Cell | None:
        """Where the cheapest path found so far passes from one half to the other, or None."""
        return None if self._meeting < 0 else divmod(self._meeting, self._graph.width)

    @property
    def best_cost(self) -> float:
        """The cost of the cheapest whole path found so far (``mu``); inf before they meet."""
        return self._best

    def advance(self, max_expansions: int | None = None) -> bool:
        """Expand up to `max_expansions` cells (all it takes if None); return `done`."""
        if max_expansions is not None and max_expansions < 1:
            raise ValueError(f"max_expansions must be >= 1 or None, got {max_expansions!r}")
        done_now = 0
        while not self._done and done_now != max_expansions:
            forward, backward = self._halves[Side.FORWARD], self._halves[Side.BACKWARD]
            best_key = self._best * TIE_SCALE // 1.0 if self._best < math.inf else math.inf
            # The stopping rule: either frontier's best priority reaches mu. An empty
            # frontier's key is inf, so an end shut in by walls also ends the search here.
            if forward.top_key() + backward.top_key() >= best_key:
                self._done = True
                self._reason = Reason.FOUND if self._meeting >= 0 else Reason.UNREACHABLE
                break
            half = self._halves[self._turn]
            other = backward if half is forward else forward
            cell, self._best, meeting = half.expand(other.cost_so_far, self._best)
            if meeting >= 0:
                self._meeting = meeting
            self._current, self._current_side = cell, self._turn
            self._turn = Side.BACKWARD if self._turn is Side.FORWARD else Side.FORWARD
            done_now += 1
        return self._done

    def steps(self) -> Iterator[Cell]:
        """Expand one cell per item, yielding its ``(row, col)``, until the search ends.

        `current_side` tells which half expanded it; `result` is ready when the iterator ends.
        """
        while not self._done:
            before = self.expanded
            self.advance(1)
            if self.expanded > before:
                yield divmod(self._current, self._graph.width)

    def run(self) -> PathResult:
        """Run the search to its end and return its result."""
        self.advance()
        return self.result()

    def result(self) -> PathResult:
        """Return the result of a finished search (RuntimeError if it is not finished).

        The cells run from start to goal through the meeting cell; the cost sums the steps
        from the start in path order, as A*'s ``g`` does.
        """
        if not self._done:
            raise RuntimeError("the search has not finished; call run() or exhaust steps()")
        if self._reason is not Reason.FOUND:
            return PathResult.none(self._reason, self.expanded)
        forward, backward = self._halves[Side.FORWARD], self._halves[Side.BACKWARD]
        flat_path = forward.chain(self._meeting)[::-1] + backward.chain(self._meeting)[1:]
        width = self._graph.width
        cells = tuple(divmod(cell, width) for cell in flat_path)
        return PathResult(True, cells, self._path_cost(flat_path), self.expanded, Reason.FOUND)

    def _path_cost(self, flat_path: list[int]) -> float:
        """Sum the true step costs in path order, exactly as `Search` sums them."""
        if self._links is not None:
            return path_cost_with_links(self._graph, self._links, flat_path)
        width, cell_cost = self._graph.width, self._graph.cell_cost
        total = 0.0
        for here, there in itertools.pairwise(flat_path):
            diagonal = (here % width != there % width) and (here // width != there // width)
            total += (SQRT2 if diagonal else 1.0) * cell_cost[there]
        return total


def start_recording(problem: SearchProblem) -> BidirectionalSearch:
    """A search of `problem` to record step by step (a step is one cell of either half)."""
    return BidirectionalSearch.with_settings(
        problem.walkable, problem.start, problem.goal, problem.settings
    )


def read_state(search: BidirectionalSearch, problem: SearchProblem) -> TapeFrame:
    """Both halves' frontiers, closed cells and trees, and where their best path meets.

    `TapeFrame.side` is 1 where the forward half holds the cell (closed, or failing that on
    its frontier), 2 where only the backward half does; g, f and parent are that half's, the
    parent pointing towards that half's end.
    """
    frame = TapeFrame.empty(problem.walkable.size)
    # Backward first, so the forward half wins where both hold a cell the same way; each
    # half's arrays are read once (each read copies a list of every cell).
    halves = [
        (number, half.frontier_mask().ravel(), half.closed_mask().ravel(), half)
        for number, half in ((2, search.backward), (1, search.forward))
        if half is not None
    ]
    values = {number: (h.g_costs(), h.f_costs(), h.came_from()) for number, _, _, h in halves}
    for mark, which in ((CellStatus.OPEN, 1), (CellStatus.CLOSED, 2)):
        for number, waiting, closed, _ in halves:
            mask = waiting if which == 1 else closed
            half_g, half_f, half_parent = values[number]
            frame.status[mask], frame.side[mask] = mark, number
            frame.g[mask] = half_g.ravel()[mask]
            frame.f[mask] = half_f.ravel()[mask]
            frame.parent[mask] = half_parent.ravel()[mask]
    return TapeFrame(frame.status, frame.g, frame.f, frame.parent, frame.side, search.meeting_cell)


def _guaranteed(case: RowCase) -> bool:
    return case.heuristic is not None and is_admissible(case.heuristic, diagonal=case.diagonal)


SEARCHES = (
    SearchKind(
        "BIDIRECTIONAL",
        "bidirectional",
        Algorithm.BIDIRECTIONAL,
        "shortest path, A* from both ends",
        order=80,
        solver=solve,
        stepper=BidirectionalSearch,
        recording=Tape(start_recording, read_state),
        table=TableFacts(
            80,
            own_loop=True,
            note=lambda case, guaranteed: "own loop: time includes its setup",
            guaranteed=_guaranteed,
        ),
        shortest=True,
        takes_heuristic=True,
        hints=ViewHints(two_frontiers=True),
    ),
)
"""Bidirectional A*, declared for the catalogue (`sim.navigation.catalogue`)."""
