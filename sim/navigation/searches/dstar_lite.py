"""D* Lite, the Python reference of the incremental search (Koenig & Likhachev 2002).

The search runs backward, from the goal toward the start, so that the start (the agent) may
move without invalidating anything: ``g[s]`` and ``rhs[s]`` estimate the cost from cell ``s`` to
the goal, ``rhs`` being the one-step lookahead ``min(c(s, s') + g[s'])`` over the legal moves
``s -> s'``. A cell whose ``g`` and ``rhs`` differ is *inconsistent* and waits in the queue under
the key ``(min(g, rhs) + h(start, s) + km, min(g, rhs))``; ``km`` grows by ``h(old start, new
start)`` whenever the start moves, which keeps the queued keys lower bounds instead of re-keying
the whole queue. This is the optimized version of the paper (its Figure 4): an overconsistent
cell sets ``g = rhs`` and lowers each predecessor's ``rhs`` in O(1); only an underconsistent one
(``g < rhs``, its cost went up) sets ``g = inf`` and rescans the predecessors that relied on it.
A predecessor is requeued only when its ``rhs`` changed: one whose ``g`` and ``rhs`` did not
change keeps its place, and a key left a lower bound by a moved start is refreshed when it
reaches the top, as the paper's loop does with every stale key. ``g`` and ``rhs`` that differ
only by float rounding count as equal (`differ`): otherwise such bits would ripple through every
cell behind a change.

The incremental search pays off when the changes lie near the start (the agent) or away from
the cells whose shortest route they cut. A change that cuts the route near the goal raises, and
then lowers again, every cell behind it as far as the start's key reaches, and when the start is
cut off the repair runs until the queue is empty; A* from scratch can be cheaper then (narrow
mazes, dense random walls).

The moves are those of `sim.navigation.moves` (Moving AI: 4 or 8 neighbours, no corner
cutting); a move ``s -> t`` costs its length (1 or sqrt 2) times the cost of the cell ``t``
entered, so ``c(s, t)`` and ``c(t, s)`` differ on terrain. A changed cell (toggled or recosted)
changes the moves into it, out of it, and the diagonals that squeeze past it, all of which start
at the cell or one of its 8 neighbours: those cells get their ``rhs`` recomputed. A cell that is
now blocked has no moves at all, so its ``g`` and ``rhs`` are set to ``inf`` at once.

Determinism: the queue orders entries by ``(floor(k1 * TIE_SCALE), k2, flat cell)``, a strict
total order (a cell is queued at most once), so this heap of lazily deleted entries and the C
kernel's indexed heap (`sim.navigation.searches._incremental`) pop the same sequence; every float is
computed by the same operations in the same order in both, so they agree bit for bit. ``k1`` is
floored like A*'s priorities (`sim.navigation.searches.best_first.TIE_SCALE`) so that equal real
keys that were summed in different orders still tie and fall to ``k2``, the order the algorithm's
correctness rests on (a cell whose ``rhs`` came from a stale neighbour always has a larger ``k2``
than that neighbour). The loop also runs on through keys one tie bucket above the start's, so a
neighbour whose key rounding put a hair above the start's is still repaired.

The path is read from the start by stepping to the successor ``s'`` that minimizes
``c(s, s') + g[s']`` (the first in `DIRECTIONS` order among equals); D* Lite's theorem makes that
a shortest path. Its cost is summed forward along the path, exactly as A* sums ``g``. Should
the walk meet a dead end or a loop (which float rounding could only cause after a repair), the
plan is redone from scratch.

Links (`sim.navigation.link_graph`) are edges like the moves, one way or both: a link ``s -> t``
is a successor of ``s`` and a predecessor of ``t``, costing the link's cost, usable while both
ends are walkable; a changed cell also recomputes the starts of the links into it. The key's
heuristic becomes the distance from the start in the relaxed graph of `LinkGraph.bounds` (over
the links reversed): a lower bound that keeps the triangle inequality, so raising ``km`` by it
when the start moves keeps every queued key a lower bound, as the grid heuristic does. The C
planner (`_incremental.c`) takes the links and the start's bounds as arrays and agrees bit for
bit.
"""

from __future__ import annotations

import itertools
import math
from heapq import heappop, heappush
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import Cell
from sim.navigation.heuristics import HEURISTICS, Heuristic
from sim.navigation.link_graph import Bound, LinkGraph
from sim.navigation.moves import DIRECTIONS, SQRT2
from sim.navigation.searches.best_first import TIE_SCALE
from sim.navigation.searches.linked import bounded

INF = math.inf

NOISE = 2.0**-44
"""g and rhs closer than this share of the larger count as equal: rounding, not a change."""

PlanOutcome = tuple[bool, tuple[Cell, ...], float, int, int, bool]
"""What `DStarLite.plan` returns: found, cells, cost, expanded, changed cells, repaired."""


def differ(g: float, rhs: float) -> bool:
    """Whether a cell is inconsistent: g and rhs differ by more than float rounding.

    Two equally long paths summed in different orders differ in the last bits; were those
    bits a change, a repair would ripple them through every cell behind (each raised, then
    lowered again). Measured differences of that kind are 1 to 4 units in the last place;
    `NOISE` (2**-44, 256 of them) counts them as equal, and any real change in a path's cost
    (at least a quarter step) as a change.

    >>> differ(1.0, 1.0 + 2.0**-50), differ(1.0, 1.25), differ(math.inf, 1.0)
    (False, True, True)
    """
    if g == rhs:
        return False
    if g == INF or rhs == INF:
        return True
    return abs(g - rhs) > NOISE * (g if g > rhs else rhs)


class DStarLite:
    """One agent's D* Lite state on a grid of fixed shape and move rules; the Python reference.

    `plan` takes the grid as it is now, diffs it against its own snapshot of the previous call's
    grid, repairs the search for the cells that changed and returns the path. The caller
    (`sim.navigation.searches.incremental.IncrementalSearch`) checks the arguments and decides when
    the state must start over (a new goal, a new heuristic scale).

    >>> planner = DStarLite(3, 3, rule=DiagonalRule.NO_CORNER_CUTTING, heuristic=Heuristic.OCTILE)
    >>> walkable = np.ones((3, 3), dtype=bool)
    >>> found, cells, cost, expanded, changed, repaired = planner.plan(
    ...     walkable, None, 0, 8, 1.0, fresh=True)
    >>> cells, round(cost, 4), repaired
    (((0, 0), (1, 1), (2, 2)), 2.8284, False)
    >>> walkable[1, 1] = False
    >>> found, cells, cost, expanded, changed, repaired = planner.plan(
    ...     walkable, None, 0, 8, 1.0, fresh=False)
    >>> cells, cost, changed, repaired
    (((0, 0), (1, 0), (2, 0), (2, 1), (2, 2)), 4.0, 1, True)
    """

    def __init__(
        self,
        height: int,
        width: int,
        *,
        rule: DiagonalRule,
        heuristic: Heuristic,
        links: LinkGraph | None = None,
    ) -> None:
        """Plan on a grid of `height` x `width` under `rule` (never or no-corner-cutting)."""
        self._height, self._width = height, width
        self._size = height * width
        self._heuristic = HEURISTICS[heuristic]
        self._heuristic_kind = heuristic
        self._links = links
        self._start_bounds: tuple[Bound, ...] = ()
        self._directions = DIRECTIONS[:4] if rule is DiagonalRule.NEVER else DIRECTIONS
        # The snapshot of the previous call's grid (None: nothing planned yet).
        self._walkable: NDArray[np.bool_] | None = None
        self._costs: NDArray[np.float64] | None = None
        self._open = bytearray(self._size)
        self._cost = [1.0] * self._size
        self._has_state = False
        self._g: list[float] = []
        self._rhs: list[float] = []
        self._queue: list[tuple[float, float, int, int]] = []
        self._queued_key: list[tuple[float, float] | None] = []
        self._version: list[int] = []
        self._goal = self._start = 0
        self._start_row = self._start_col = 0
        self._km = 0.0
        self._h_factor = 1.0
        self._expanded = 0

    def plan(
        self,
        walkable: NDArray[np.bool_],
        costs: NDArray[np.float64] | None,
        start: int,
        goal: int,
        h_factor: float,
        *,
        fresh: bool,
    ) -> PlanOutcome:
        """Plan from flat `start` to flat `goal` on the grid as it is now; see `PlanOutcome`.

        `walkable` and `costs` must have the planner's shape and be checked already
        (`sim.navigation.query.Query.check`); `start` and `goal` walkable flat cells;
        `h_factor` the heuristic's factor (the grid's heuristic scale). `fresh` forgets the
        kept search (the caller asks for it on a new goal or scale); the first call, another
        goal and another `h_factor` always start fresh. ``changed`` counts the cells that
        differ from the previous call's grid.
        """
        changed = self._take_snapshot(walkable, costs)
        self._expanded = 0
        repaired = (
            self._has_state and not fresh and (goal, h_factor) == (self._goal, self._h_factor)
        )
        if repaired:
            # The paper's order: raise km for the moved start, then repair the changed cells.
            self._move_start(start)
            self._repair(changed)
        else:
            self._start_over(start, goal, h_factor)
        self._compute()
        path = self._extract()
        if path is None and repaired:
            # Only float rounding after a repair could leave a walk that does not reach the
            # goal; a fresh search cannot (every finite g there came from an expanded cell).
            repaired = False
            self._start_over(start, goal, h_factor)
            self._compute()
            path = self._extract()
        if not path:
            return False, (), INF, self._expanded, len(changed), repaired
        cells = tuple(divmod(cell, self._width) for cell in path)
        return True, cells, self._path_cost(path), self._expanded, len(changed), repaired

    def _take_snapshot(
        self, walkable: NDArray[np.bool_], costs: NDArray[np.float64] | None
    ) -> list[int]:
        """Store the grid; return the flat cells that differ from the last one, ascending.

        A cell differs when its walkability flipped, or it is walkable and its cost changed
        (a blocked cell's cost is never paid). None stands for costs of 1 everywhere.
        """
        old_walkable, old_costs = self._walkable, self._costs
        self._walkable = walkable.copy()
        self._costs = None if costs is None else costs.copy()
        if old_walkable is None:
            self._open = bytearray(walkable.tobytes())
            self._cost = [1.0] * self._size if costs is None else costs.ravel().tolist()
            return []
        differs = walkable != old_walkable
        if costs is not None or old_costs is not None:
            new: Any = 1.0 if costs is None else costs
            old: Any = 1.0 if old_costs is None else old_costs
            differs |= walkable & (new != old)
        changed: list[int] = np.flatnonzero(differs).tolist()
        flat_walkable, flat_costs = walkable.ravel(), None if costs is None else costs.ravel()
        for cell in changed:
            self._open[cell] = 1 if flat_walkable[cell] else 0
            self._cost[cell] = 1.0 if flat_costs is None else float(flat_costs[cell])
        return changed

    def _start_over(self, start: int, goal: int, h_factor: float) -> None:
        """Forget the search: only the goal is consistent-to-be, queued with rhs 0."""
        size = self._size
        self._has_state = True
        self._g = [INF] * size
        self._rhs = [INF] * size
        self._queue = []
        self._queued_key = [None] * size
        self._version = [0] * size
        self._goal = goal
        self._h_factor = h_factor
        self._set_start(start)
        self._km = 0.0
        self._rhs[goal] = 0.0
        self._update_vertex(goal)

    def _set_start(self, start: int) -> None:
        self._start = start
        self._start_row, self._start_col = divmod(start, self._width)
        if self._links is not None:
            here = (self._start_row, self._start_col)
            kind, scale = self._heuristic_kind, self._h_factor
            self._start_bounds = self._links.bounds(here, kind, scale, reverse=True)

    def _move_start(self, start: int) -> None:
        """Raise km by h(old start, new start): every queued key stays a lower bound."""
        if start != self._start:
            self._km = self._km + self._h(self._start_row, self._start_col, start)
            self._set_start(start)

    def _repair(self, changed: list[int]) -> None:
        """Recompute rhs of each changed cell and its neighbours, and requeue them."""
        g, rhs, goal = self._g, self._rhs, self._goal
        touched: set[int] = set()
        for cell in changed:
            if not self._open[cell]:
                # No move enters or leaves a blocked cell: it is done with at once.
                g[cell] = rhs[cell] = INF
            touched.add(cell)
            touched.update(self._around(cell))
            if self._links is not None:
                touched.update(source for source, _ in self._links.into.get(cell, ()))
        for cell in sorted(touched):
            if cell != goal:
                rhs[cell] = self._lookahead(cell)
            self._update_vertex(cell)

    def _compute(self) -> None:
        """Pop and expand until the start is consistent and no key below its own is left."""
        g, rhs, goal = self._g, self._rhs, self._goal
        queue, version = self._queue, self._version
        cost = self._cost
        while queue:
            top = queue[0]
            cell = top[2]
            if top[3] != version[cell]:
                heappop(queue)  # a stale entry: the cell was requeued or removed since
                continue
            start = self._start
            start_key = self._key(start)
            underconsistent = rhs[start] > g[start] and differ(g[start], rhs[start])
            if not (top[0] <= start_key[0] + 1.0 or underconsistent):
                break
            old_key = (top[0], top[1])
            new_key = self._key(cell)
            if old_key < new_key:
                self._push(cell, new_key)  # queued before km grew: only its key was stale
                continue
            self._expanded += 1
            if g[cell] > rhs[cell]:
                # Overconsistent: its cost is now known; offer it to each predecessor.
                g[cell] = rhs[cell]
                self._remove(cell)
                g_cell = g[cell]
                for neighbour, step in self._into(cell, cost):
                    if neighbour != goal:
                        new_rhs = step + g_cell
                        if new_rhs < rhs[neighbour]:
                            rhs[neighbour] = new_rhs
                            self._update_vertex(neighbour)
            else:
                # Underconsistent: its cost went up; predecessors that used it look again.
                g_old = g[cell]
                g[cell] = INF
                for neighbour, step in self._into(cell, cost):
                    if neighbour != goal and rhs[neighbour] == step + g_old:
                        rhs[neighbour] = self._lookahead(neighbour)
                        self._update_vertex(neighbour)
                self._update_vertex(cell)

    def _extract(self) -> list[int] | None:
        """Walk from the start to the goal; [] when unreachable, None when the walk fails."""
        start, goal = self._start, self._goal
        if self._rhs[start] == INF:
            return []
        g, cost = self._g, self._cost
        path = [start]
        cell = start
        while cell != goal:
            best, best_value = -1, INF
            for neighbour, step in self._out(cell, cost):
                value = step + g[neighbour]
                if value < best_value:
                    best, best_value = neighbour, value
            if best < 0 or len(path) > self._size:
                return None
            path.append(best)
            cell = best
        return path

    def _path_cost(self, path: list[int]) -> float:
        """Sum the true step costs in path order, as `Search._path_cost` does."""
        width, cost = self._width, self._cost
        total = 0.0
        for here, there in itertools.pairwise(path):
            if self._links is not None:
                # The cheaper of the move and a link, a tie to the move (`link_hops`' rule).
                total += min(step for cell, step in self._out(here, cost) if cell == there)
                continue
            diagonal = (here % width != there % width) and (here // width != there // width)
            total += (SQRT2 if diagonal else 1.0) * cost[there]
        return total

    def _lookahead(self, cell: int) -> float:
        """``min(c(cell, s') + g[s'])`` over the legal moves from `cell` (inf if none)."""
        g, cost = self._g, self._cost
        best = INF
        for neighbour, step in self._out(cell, cost):
            value = step + g[neighbour]
            if value < best:
                best = value
        return best

    def _out(self, cell: int, cost: list[float]) -> list[tuple[int, float]]:
        """``(successor, step cost)`` of each move from `cell`, then each usable link."""
        steps = [(neighbour, length * cost[neighbour]) for neighbour, length in self._moves(cell)]
        if self._links is not None and self._open[cell]:
            is_open = self._open
            steps += [(end, hop) for end, hop in self._links.out.get(cell, ()) if is_open[end]]
        return steps

    def _into(self, cell: int, cost: list[float]) -> list[tuple[int, float]]:
        """``(predecessor, step cost)`` of each move into `cell`, then each usable link."""
        enter = cost[cell]
        steps = [(neighbour, length * enter) for neighbour, length in self._moves(cell)]
        if self._links is not None and self._open[cell]:
            is_open = self._open
            steps += [
                (start, hop) for start, hop in self._links.into.get(cell, ()) if is_open[start]
            ]
        return steps

    def _moves(self, cell: int) -> list[tuple[int, float]]:
        """``(neighbour, length)`` of each legal move from `cell`, in `DIRECTIONS` order.

        The rules are symmetric, so these are also the cells that may step onto `cell`.
        """
        is_open, width = self._open, self._width
        if not is_open[cell]:
            return []
        row, col = divmod(cell, width)
        up = row > 0 and is_open[cell - width]
        down = row + 1 < self._height and is_open[cell + width]
        left = col > 0 and is_open[cell - 1]
        right = col + 1 < width and is_open[cell + 1]
        moves = []
        if up:
            moves.append((cell - width, 1.0))
        if down:
            moves.append((cell + width, 1.0))
        if left:
            moves.append((cell - 1, 1.0))
        if right:
            moves.append((cell + 1, 1.0))
        if len(self._directions) == 8:
            if up and left and is_open[cell - width - 1]:
                moves.append((cell - width - 1, SQRT2))
            if up and right and is_open[cell - width + 1]:
                moves.append((cell - width + 1, SQRT2))
            if down and left and is_open[cell + width - 1]:
                moves.append((cell + width - 1, SQRT2))
            if down and right and is_open[cell + width + 1]:
                moves.append((cell + width + 1, SQRT2))
        return moves

    def _around(self, cell: int) -> list[int]:
        """The up to 8 cells around `cell` inside the grid (walkable or not)."""
        row, col = divmod(cell, self._width)
        return [
            (row + d_row) * self._width + col + d_col
            for d_row, d_col in DIRECTIONS
            if 0 <= row + d_row < self._height and 0 <= col + d_col < self._width
        ]

    def _h(self, row: int, col: int, cell: int) -> float:
        """The scaled heuristic between ``(row, col)`` and flat `cell`."""
        cell_row, cell_col = divmod(cell, self._width)
        h = self._h_factor * self._heuristic(abs(cell_col - col), abs(cell_row - row))
        if self._start_bounds:
            # ``(row, col)`` is the start: lowered by the links from it (module docstring).
            h = bounded(h, cell_row, cell_col, self._start_bounds, self._heuristic, self._h_factor)
        return h

    def _key(self, cell: int) -> tuple[float, float]:
        """``(floor(k1 * TIE_SCALE), k2)``; ``(inf, inf)`` for a cell with no path yet."""
        m = min(self._g[cell], self._rhs[cell])
        if m == INF:
            return INF, INF
        k1 = m + self._h(self._start_row, self._start_col, cell) + self._km
        return k1 * TIE_SCALE // 1.0, m

    def _update_vertex(self, cell: int) -> None:
        """Queue an inconsistent cell under its key now; take a consistent one out."""
        if differ(self._g[cell], self._rhs[cell]):
            key = self._key(cell)
            if self._queued_key[cell] != key:
                self._push(cell, key)
        elif self._queued_key[cell] is not None:
            self._remove(cell)

    def _push(self, cell: int, key: tuple[float, float]) -> None:
        self._version[cell] += 1
        self._queued_key[cell] = key
        heappush(self._queue, (key[0], key[1], cell, self._version[cell]))

    def _remove(self, cell: int) -> None:
        self._version[cell] += 1
        self._queued_key[cell] = None
