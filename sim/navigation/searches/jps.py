"""Jump point search: A* that jumps along straight and diagonal runs of a uniform-cost grid.

The readable Python reference of the compiled `_jps.c` (`sim.navigation.searches.kernel` runs it):
both return the same cells, the same cost to the last bit and the same expansion count.

Jump point search (Harabor & Grastien, "Online Graph Pruning for Pathfinding on Grid Maps",
AAAI 2011) finds the paths A* finds on an 8-connected grid where every step costs its length,
1 or sqrt(2), but puts far fewer cells on the frontier: from each cell it takes off the frontier
it scans straight or diagonal runs of cells and queues only the *jump points*, the cells where
an optimal path may turn. We use the rule of the Moving AI benchmarks (a diagonal step needs
both orthogonal cells it passes between walkable: no corner cutting) and the pruning that
Harabor & Grastien adapted to it ("The JPS Pathfinding System", SoCS 2012; "Improving Jump
Point Search", ICAPS 2014):

- Moving straight (say east) into a cell, the natural successor is the next cell east. A side
  cell (north or south) is a *forced* neighbour when it is walkable and the cell behind it (the
  north- or south-west one) is blocked: no shorter path reaches it without passing here. The
  diagonal beyond it (north- or south-east) comes with it, when that step is legal.
- Moving diagonally (say north-east) into a cell, its successors are the straight moves north
  and east and the diagonal north-east; without corner cutting a diagonal move has no forced
  neighbours.
- A straight jump runs until the next cell is blocked (no jump point), the goal, or a cell with
  a forced neighbour, which is queued. A diagonal jump steps while the step is legal (to the
  goal at most) and at each cell on the way scans straight along its two components (north,
  east); the jump points those scans find are queued at once, costed through that diagonal
  cell, with the expanded cell as their parent. Plain JPS would stop at the first such diagonal
  cell and queue it, only to expand it next and scan the same runs again; skipping those
  intermediate jump points is one of the improvements of the ICAPS 2014 paper. A jump point
  then lies diagonally and then straight from its parent, and the path runs that way. The start
  expands in all 8 directions.

The compiled search scans 64 cells per machine word of bit-packed copies of the grid (a row-major
one for rows, a transposed one for columns: the block-based jumps of the ICAPS 2014 paper); this
reference scans cell by cell, for reading. A jump stops on the first cell that is blocked, the
goal or has a forced neighbour however many cells are read at once, so both find the same jump
points.

The frontier is ordered exactly like A*'s (`sim.navigation.searches.best_first`): the priority
``floor((g + h) * TIE_SCALE)``, then the smaller ``h``, then the smaller flat cell index, with
``h = h_factor * heuristic(dx, dy)`` from `sim.navigation.heuristics`. A jump of ``k`` cells
costs ``k * 1.0`` or ``k * SQRT2``; closed cells are never reopened (the heuristics allowed are
consistent, so nothing is lost). The result holds the full path, each jump laid out cell by
cell; `expanded` counts the jump points taken off the frontier (not the cells scanned along the
jumps), and `cost` sums the path's steps from the start as A* does (1.0 or sqrt(2) each, left
to right), so the same cells cost what A*'s do to the last bit.

>>> walkable = np.ones((5, 7), dtype=bool)
>>> walkable[0:4, 3] = False  # a wall with a gap at the bottom
>>> result = JumpPointSearch(walkable, (1, 0), (1, 6)).run()
>>> result.cells  # doctest: +NORMALIZE_WHITESPACE
((1, 0), (2, 1), (3, 2), (4, 2), (4, 3), (4, 4), (3, 5), (2, 6), (1, 6))
>>> round(result.cost, 4), result.expanded  # A* expands 18 cells here
(9.6569, 4)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from heapq import heappop, heappush
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import Cell, check_walkable
from sim.navigation.heuristics import HEURISTICS, Heuristic, is_admissible
from sim.navigation.link_graph import LinkGraph
from sim.navigation.moves import DIRECTIONS, SQRT2
from sim.navigation.query import (
    Algorithm,
    PathResult,
    Query,
    Reason,
    SearchSettings,
    check_ends,
    check_jps,
    reason_before_search,
)
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
from sim.navigation.searches.linked import bounded

if TYPE_CHECKING:
    from sim.navigation.searches.landmarks import FieldTerms

TIE_SCALE = 2.0**30
"""Priorities are floored to multiples of 1 / TIE_SCALE,
as `sim.navigation.searches.best_first` does."""


def solve(query: Query) -> PathResult:
    """Run a checked `Query` (algorithm jps) on the Python reference and return its result.

    The query's costs, weight and connectivity are not read: `Query.check` lets jps through
    only without costs (or with every walkable cost 1), 8-connected and with weight 1.

    >>> from sim.navigation.query import Algorithm, SearchSettings
    >>> jps = SearchSettings(algorithm=Algorithm.JPS)
    >>> solve(Query.check(np.ones((1, 3), dtype=bool), (0, 0), (0, 2), jps)).cells
    ((0, 0), (0, 1), (0, 2))
    """
    return JumpPointSearch.with_settings(
        query.walkable, query.start, query.goal, query.settings, links=query.links
    ).run()


class JumpPointSearch:
    """One jump point search, run all at once or a few jump points at a time.

    Between expansions the search tree can be read for drawing: `current`, `jump_points`
    (every cell queued so far, with its parent jump point and cost from the start) and
    `frontier` (the jump points waiting, in no particular order).

    Args:
        walkable: ``[row, col]`` bool mask, every walkable step costing its length.
        start: first cell ``(row, col)``; must lie in the grid.
        goal: last cell; a goal outside the grid or on a blocked cell gives ``found=False``.
        heuristic: octile (the default), euclidean, chebyshev or zero
            (`sim.navigation.query.JPS_HEURISTICS`).
        landmarks: distance fields built from this very array
            (`sim.navigation.searches.landmarks.build`): with octile, the heuristic is raised by
            them as the compiled ``search_landmarks`` raises it; None (the default) for
            the plain one.

    Raises:
        ValueError: naming the value, for a mask that is not 2-D bool, a cell that is not two
            integers, a start outside the grid, a heuristic jps does not take, or landmarks
            with another heuristic than octile or built from other cells.

    >>> search = JumpPointSearch(np.ones((3, 3), dtype=bool), (0, 0), (2, 2))
    >>> search.advance(1), search.current, search.frontier
    (False, (0, 0), ((2, 2),))
    >>> search.run().cells
    ((0, 0), (1, 1), (2, 2))
    """

    def __init__(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        *,
        heuristic: str = "octile",
        landmarks: FieldTerms | None = None,
    ) -> None:
        settings = SearchSettings.parse(heuristic=heuristic)
        self._begin(walkable, start, goal, settings, landmarks)

    @classmethod
    def with_settings(
        cls,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        settings: SearchSettings,
        landmarks: FieldTerms | None = None,
        links: LinkGraph | None = None,
    ) -> JumpPointSearch:
        """A search with `settings`' heuristic (the rest is jump point search's own).

        With `links` (`sim.navigation.link_graph`), a link's ends become jump points: a jump
        stops at a cell a link leaves from (as at the goal), a cell a link arrives at jumps
        in all 8 directions whatever its parent, and an expanded cell's links are relaxed after
        its jumps; the heuristic is lowered as A*'s is, so the cost stays A*'s.
        """
        search = cls.__new__(cls)
        search._begin(walkable, start, goal, settings, landmarks, links)
        return search

    def _begin(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        settings: SearchSettings,
        landmarks: FieldTerms | None,
        links: LinkGraph | None = None,
    ) -> None:
        walkable = check_walkable(walkable)
        self._heuristic_name = settings.heuristic
        if landmarks is not None:
            if self._heuristic_name is not Heuristic.OCTILE:
                raise ValueError(
                    f"landmarks raise the octile heuristic only, got {settings.heuristic.value!r}"
                )
            if not landmarks.matches(walkable):
                raise ValueError("landmarks were built from other cells than walkable's")
        check_jps(
            walkable,
            None,
            diagonal=DiagonalRule.NO_CORNER_CUTTING,
            heuristic=self._heuristic_name,
            weight=1.0,
        )
        height, width = (int(side) for side in walkable.shape)
        start, goal = check_ends(start, goal, (height, width))
        self._height, self._width = height, width
        # A blocked border of one cell round the grid: the scans need no bounds checks. A
        # cell's place in it is its "padded" index, (row + 1) * stride + col + 1.
        self._stride = width + 2
        padded = np.zeros((height + 2, width + 2), dtype=np.uint8)
        padded[1:-1, 1:-1] = walkable
        self._open = padded.tobytes()
        self._start = start[0] * width + start[1]
        self._goal = goal[0] * width + goal[1]
        self._goal_row, self._goal_col = goal
        self._goal_padded = (goal[0] + 1) * self._stride + goal[1] + 1
        self._link_out = {} if links is None else links.out
        # Where jumps stop (link starts, padded) and where they fan out again (link ends).
        self._stops = frozenset(self._pad(cell) for cell in self._link_out)
        self._link_ends = frozenset(() if links is None else links.into)
        self._via_link: set[int] = set()  # cells whose best parent reached them by a link
        self._bounds: tuple[tuple[int, int, float], ...] = ()
        self._heuristic = HEURISTICS[self._heuristic_name]
        self._h_factor = 1.0  # weight 1 x heuristic scale 1: no costs (PriorityTerms.h_factor)
        self._landmarks = landmarks
        inside = 0 <= goal[0] < height and 0 <= goal[1] < width
        self._goal_terms = landmarks.goal_terms(self._goal) if landmarks and inside else ()
        self._cost_so_far: dict[int, float] = {}
        self._came_from: dict[int, int] = {}
        self._closed: set[int] = set()
        self._frontier: list[tuple[float, float, int]] = []
        self._expanded = 0
        self._current = -1
        self._done = False
        self._reason = Reason.UNREACHABLE
        early = reason_before_search(walkable, start, goal)
        if early is not None:
            self._finish(early)
            return
        if links is not None:
            self._bounds = links.bounds(goal, self._heuristic_name, 1.0)
        h = self._h_of(self._start)
        self._cost_so_far[self._start] = 0.0
        self._came_from[self._start] = -1
        heappush(self._frontier, (h * TIE_SCALE // 1.0, h, self._start))

    @property
    def done(self) -> bool:
        """Whether the search has ended (found the goal or proved there is no path)."""
        return self._done

    @property
    def expanded(self) -> int:
        """How many jump points have been taken off the frontier so far."""
        return self._expanded

    @property
    def current(self) -> Cell | None:
        """The jump point expanded last, ``(row, col)``; None before the first expansion."""
        return None if self._current < 0 else divmod(self._current, self._width)

    @property
    def frontier(self) -> tuple[Cell, ...]:
        """The jump points waiting on the frontier, ``(row, col)``, sorted by cell."""
        waiting = {cell for _, _, cell in self._frontier if cell not in self._closed}
        return tuple(divmod(cell, self._width) for cell in sorted(waiting))

    @property
    def jump_points(self) -> dict[Cell, tuple[Cell | None, float]]:
        """Every cell queued so far: its parent jump point (None for the start) and its g."""
        width = self._width
        return {
            divmod(cell, width): (
                None if parent < 0 else divmod(parent, width),
                self._cost_so_far[cell],
            )
            for cell, parent in self._came_from.items()
        }

    def advance(self, max_expansions: int | None = None) -> bool:
        """Expand up to `max_expansions` jump points (all it takes if None); return `done`."""
        if max_expansions is not None and max_expansions < 1:
            raise ValueError(f"max_expansions must be >= 1 or None, got {max_expansions!r}")
        frontier, closed = self._frontier, self._closed
        cost_so_far, came_from = self._cost_so_far, self._came_from
        budget = max_expansions
        while not self._done and budget != 0:
            if not frontier:
                self._finish(Reason.UNREACHABLE)
                break
            current = heappop(frontier)[2]
            if current in closed:
                continue  # a stale entry: the cell was queued again with a lower cost
            closed.add(current)
            self._current = current
            self._expanded += 1
            if budget is not None:
                budget -= 1
            if current == self._goal:
                self._finish(Reason.FOUND)
                break
            g = cost_so_far[current]
            via_link = self._via_link
            for cell, new_cost in self._successors(current, g):
                if cell in closed:
                    continue
                if new_cost < cost_so_far.get(cell, math.inf):
                    cost_so_far[cell] = new_cost
                    came_from[cell] = current
                    via_link.discard(cell)
                    h = self._h_of(cell)
                    heappush(frontier, ((new_cost + h) * TIE_SCALE // 1.0, h, cell))
            for cell, hop in self._link_out.get(current, ()):
                if cell in closed or not self._open[self._pad(cell)]:
                    continue
                if g + hop < cost_so_far.get(cell, math.inf):
                    cost_so_far[cell] = g + hop
                    came_from[cell] = current
                    via_link.add(cell)
                    h = self._h_of(cell)
                    heappush(frontier, ((g + hop + h) * TIE_SCALE // 1.0, h, cell))
        return self._done

    def run(self) -> PathResult:
        """Run the search to its end and return its result."""
        self.advance()
        return self.result()

    def result(self) -> PathResult:
        """Return the result of a finished search (RuntimeError if it is not finished)."""
        if not self._done:
            raise RuntimeError("the search has not finished; call run() or advance()")
        if self._reason is not Reason.FOUND:
            return PathResult.none(self._reason, self._expanded)
        cells, hops = self._path()
        cost = 0.0
        # As Search._path_cost: the true steps summed in path order, so equal paths cost the
        # same to the last bit.
        for index, ((row, col), (next_row, next_col)) in enumerate(itertools.pairwise(cells)):
            if index in hops:
                cost += hops[index]
            else:
                cost += SQRT2 if (row != next_row and col != next_col) else 1.0
        return PathResult(True, cells, cost, self._expanded, Reason.FOUND)

    def _successors(self, current: int, g: float) -> Iterator[tuple[int, float]]:
        """Yield each jump point found from `current` (cost so far `g`) and its cost from start.

        Straight directions yield the jump point their scan finds. A diagonal direction walks
        its diagonal to the end and yields, at each cell on the way, the jump points the
        straight scans along its two components find, costed through that cell (the goal
        itself ends the walk).
        """
        width, stride = self._width, self._stride
        row, col = divmod(current, width)
        here = (row + 1) * stride + col + 1
        for d_row, d_col in self._directions(current):
            if not (d_row and d_col):
                step = d_row * stride + d_col
                found = self._jump_straight(here, step, 1 if d_row else stride)
                if found >= 0:
                    yield self._unpad(found), g + ((found - here) // step) * 1.0
                continue
            open_, goal = self._open, self._goal_padded
            vertical = d_row * stride
            cell, steps = here, 0
            while open_[cell + vertical] and open_[cell + d_col] and open_[cell + vertical + d_col]:
                cell += vertical + d_col
                steps += 1
                cost = g + steps * SQRT2
                if cell == goal:
                    yield self._goal, cost
                    break
                if cell in self._stops:
                    yield self._unpad(cell), cost
                for step, side in ((vertical, 1), (d_col, stride)):
                    found = self._jump_straight(cell, step, side)
                    if found >= 0:
                        yield self._unpad(found), cost + ((found - cell) // step) * 1.0

    def _directions(self, cell: int) -> tuple[tuple[int, int], ...]:
        """The directions to jump in from `cell`, pruned by the direction it was reached in."""
        parent = self._came_from[cell]
        if parent < 0 or cell in self._link_ends:
            return DIRECTIONS
        d_row, d_col = _arrival(divmod(parent, self._width), divmod(cell, self._width))
        if d_row and d_col:
            return (d_row, 0), (0, d_col), (d_row, d_col)
        # Straight: ahead, plus each forced side and the diagonal toward it.
        directions = [(d_row, d_col)]
        open_, stride = self._open, self._stride
        row, col = divmod(cell, self._width)
        here = (row + 1) * stride + col + 1
        behind = here - (d_row * stride + d_col)
        side_step = 1 if d_row else stride
        for sign in (-1, 1):
            side = sign * side_step
            if open_[here + side] and not open_[behind + side]:
                side_row, side_col = (0, sign) if d_row else (sign, 0)
                directions.append((side_row, side_col))
                directions.append((d_row + side_row, d_col + side_col))
        return tuple(directions)

    def _jump_straight(self, here: int, step: int, side: int) -> int:
        """The first jump point from padded `here` by `step`, or -1; see the module docstring.

        `side` is the perpendicular unit (1 or the stride); the result is a padded index.
        """
        open_, goal, stops = self._open, self._goal_padded, self._stops
        while True:
            here += step
            if not open_[here]:
                return -1
            if here == goal or here in stops:
                return here
            behind = here - step
            if (open_[here + side] and not open_[behind + side]) or (
                open_[here - side] and not open_[behind - side]
            ):
                return here

    def _pad(self, cell: int) -> int:
        row, col = divmod(cell, self._width)
        return (row + 1) * self._stride + col + 1

    def _unpad(self, padded: int) -> int:
        row, col = divmod(padded, self._stride)
        return (row - 1) * self._width + col - 1

    def _h_of(self, cell: int) -> float:
        row, col = divmod(cell, self._width)
        dx, dy = abs(col - self._goal_col), abs(row - self._goal_row)
        h = self._h_factor * self._heuristic(dx, dy)
        if self._bounds:
            h = bounded(h, row, col, self._bounds, self._heuristic, self._h_factor)
        if self._landmarks is None:
            return h
        return self._landmarks.raise_by(h, cell, self._goal_terms)

    def _path(self) -> tuple[tuple[Cell, ...], dict[int, float]]:
        """The jump points from the start to the goal, with every cell between laid out.

        Also the steps that are links: the index of each such step in the cells, and its cost.
        """
        jump_points = [self._goal]
        while self._came_from[jump_points[-1]] >= 0:
            jump_points.append(self._came_from[jump_points[-1]])
        jump_points.reverse()
        width = self._width
        cells = [divmod(jump_points[0], width)]
        hops: dict[int, float] = {}
        for before, cell in itertools.pairwise(jump_points):
            row, col = cells[-1]
            to_row, to_col = divmod(cell, width)
            if cell in self._via_link:
                hops[len(cells) - 1] = dict(self._link_out[before])[cell]
                cells.append((to_row, to_col))
                continue
            d_row = (to_row > row) - (to_row < row)
            d_col = (to_col > col) - (to_col < col)
            # Diagonally while both differ, then straight: the way `_successors` went.
            for _ in range(min(abs(to_row - row), abs(to_col - col))):
                row, col = row + d_row, col + d_col
                cells.append((row, col))
            d_row, d_col = _arrival((row, col), (to_row, to_col))
            while (row, col) != (to_row, to_col):
                row, col = row + d_row, col + d_col
                cells.append((row, col))
        return tuple(cells), hops

    def _finish(self, reason: Reason) -> None:
        self._done = True
        self._reason = reason


def _arrival(parent: Cell, cell: Cell) -> tuple[int, int]:
    """The direction of the last step from jump point `parent` to `cell`.

    A jump runs diagonally while both coordinates differ, then straight, so its last step is
    straight unless the two lie on one diagonal.

    >>> _arrival((0, 0), (3, 1)), _arrival((0, 0), (-2, -2))
    ((1, 0), (-1, -1))
    """
    d_row, d_col = cell[0] - parent[0], cell[1] - parent[1]
    if abs(d_row) > abs(d_col):
        return (d_row > 0) - (d_row < 0), 0
    if abs(d_col) > abs(d_row):
        return 0, (d_col > 0) - (d_col < 0)
    return (d_row > 0) - (d_row < 0), (d_col > 0) - (d_col < 0)


def check_recording(problem: SearchProblem) -> None:
    """Raise ValueError unless a replay of jump point search can run `problem`.

    It jumps by the no-corner-cutting rule whatever rule it is handed, so it refuses the
    others here, in words, rather than show jumps the grid's moves do not allow.

    >>> always = SearchSettings(rule=DiagonalRule.ALWAYS)
    >>> check_recording(SearchProblem(np.ones((2, 2), dtype=bool), (0, 0), (1, 1),
    ...                 always))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: jps moves by the no-corner-cutting rule only (8-connected, ...), not 'always'
    """
    if problem.rule is not DiagonalRule.NO_CORNER_CUTTING:
        raise ValueError(
            "jps moves by the no-corner-cutting rule only (8-connected, diagonal=True), "
            f"not {problem.rule.value!r}"
        )
    costs = problem.costs
    if costs is not None and bool(np.any(np.asarray(costs)[problem.walkable] != 1.0)):
        raise ValueError("jps takes no cell costs other than 1")


def start_recording(problem: SearchProblem) -> JumpPointSearch:
    """A search of `problem` to record step by step (a step is one jump point expanded)."""
    return JumpPointSearch.with_settings(
        problem.walkable, problem.start, problem.goal, problem.settings
    )


def read_state(search: JumpPointSearch, problem: SearchProblem) -> TapeFrame:
    """The jump points queued so far: closed ones were expanded, parents are jump points."""
    height, width = problem.walkable.shape
    frame = TapeFrame.empty(height * width)
    h = HEURISTICS[problem.heuristic]
    goal_row, goal_col = int(problem.goal[0]), int(problem.goal[1])
    queued = set(search.frontier)
    for (row, col), (came_from, cost) in search.jump_points.items():
        cell = row * width + col
        frame.status[cell] = CellStatus.OPEN if (row, col) in queued else CellStatus.CLOSED
        frame.g[cell] = cost
        frame.f[cell] = cost + h(abs(col - goal_col), abs(row - goal_row))
        if came_from is not None:
            frame.parent[cell] = came_from[0] * width + came_from[1]
    return frame


def _guaranteed(case: RowCase) -> bool:
    return case.heuristic is not None and is_admissible(case.heuristic, diagonal=case.diagonal)


SEARCHES = (
    SearchKind(
        "JPS",
        "JPS",
        Algorithm.JPS,
        "A*'s shortest path, expanding jump points",
        order=70,
        solver=solve,
        stepper=JumpPointSearch,
        recording=Tape(start_recording, read_state),
        table=TableFacts(
            70,
            own_loop=True,
            note=lambda case, guaranteed: "own loop: time includes its setup",
            guaranteed=_guaranteed,
        ),
        shortest=True,
        takes_heuristic=True,
        kernel=True,  # its own extension, _jps
        check=check_recording,
        hints=ViewHints(arrows=True),  # its arrows are its jumps
    ),
)
"""Jump point search, declared for the catalogue (`sim.navigation.catalogue`)."""
