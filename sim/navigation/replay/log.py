"""Record one search expansion by expansion, then replay it forward and back like a video.

`ExpansionLog` owns one `Search` and records it lazily, one expansion at a time, never running
it twice; `SearchReplay` is a cursor over the log that shows the search state after any number
of expansions and moves both ways. A 3D view draws `status`, `g`, `f` and `parent` as they are
after `SearchReplay.step` expansions.

Steps. Step ``k`` is the ``k``-th expansion: the cell popped from the frontier and closed,
then (unless it is the goal) each legal move from it relaxed. Step 0 is the state before any
expansion: only the start is on the frontier, with g = 0 (nothing at all when the search ended
at setup: a blocked start or goal, or a goal outside the grid). The last step expands the goal
when a path exists; otherwise it is the last cell the frontier held. A stale frontier entry
(a cell pushed again and closed since) is skipped without a step, so the number of steps is
`PathResult.expanded`, and the state after the last step is the one `Search` ends in.

Order. Every run expands cells in the same order
(`sim.navigation.searches.best_first` explains why):

- best-first variants (astar, weighted astar, greedy, dijkstra) pop the lowest priority
  ``g_weight * g + h``, floored to a multiple of ``1 / TIE_SCALE`` (about 1e-9) so that
  equal-cost paths tie despite float rounding; ties go to the smaller ``h`` (the cell deeper
  along its path), then to the smaller flat cell index ``row * width + col``;
- bfs is the same best-first loop on the number of moves (unit steps, cell costs ignored,
  h = 0), so ties on the move count go to the smaller flat index;
- dfs pops the most recent push (a stack, never a tie); a cell's neighbours are pushed in
  `sim.navigation.moves.DIRECTIONS` order, so the last legal one is expanded next.

Recording. After an expansion only the expanded cell and its legal neighbours can have
changed, so the log compares just those with its own copy of ``cost_so_far``/``came_from``
and stores, per step, the expanded cell and one event per changed neighbour: (cell, old g,
new g, old parent, new parent, was unseen), in flat typed arrays (about 41 bytes an event).
The replay applies a span of steps forward (the last event of each cell wins, then the
expanded cells close) and undoes it backward (the first event of each cell restores its old
values, then the expanded cells reopen and first-seen cells are forgotten): exactly what
applying the events one by one and undoing them in reverse order gives, so ``k`` steps forward and
``k`` back restore the state bit for bit, and moving costs only the steps crossed.

>>> import numpy as np
>>> log = ExpansionLog(np.ones((1, 4), dtype=bool), (0, 0), (0, 3))
>>> replay = SearchReplay(log)
>>> replay.forward(2), replay.current, replay.status.tolist()
(2, (0, 1), [[2, 2, 1, 0]])
>>> replay.back(), replay.current, replay.g.tolist()
(1, (0, 0), [[0.0, 1.0, inf, inf]])
>>> replay.seek(99); replay.at_end, replay.step, replay.path
(True, 4, ((0, 0), (0, 1), (0, 2), (0, 3)))
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell
from sim.navigation.heuristics import SQRT2_MINUS_1, Heuristic
from sim.navigation.query import Algorithm, PathResult, SearchSettings
from sim.navigation.searches.best_first import Search, start_search, start_search_with
from sim.navigation.searches.declaration import CellStatus, Expansions, SearchKind

__all__ = ["CellStatus", "ExpansionLog", "ReplayState", "SearchReplay"]


@dataclass(frozen=True, slots=True)
class ReplayState:
    """A replay's whole state as a value: equal states compare equal with ``==``.

    Attributes:
        step: how many expansions the state is after.
        current: the cell expanded by that step, None at step 0.
        status: bytes of the ``[row, col]`` uint8 `CellStatus` array.
        g: bytes of the ``[row, col]`` float64 ``cost_so_far`` array.
        parent: bytes of the ``[row, col]`` intp ``came_from`` array.
    """

    step: int
    current: Cell | None
    status: bytes
    g: bytes
    parent: bytes


@dataclass(frozen=True, slots=True)
class _Span:
    """The events of a span of steps, as numpy arrays in recording order."""

    cells: NDArray[np.int64]
    old_g: NDArray[np.float64]
    new_g: NDArray[np.float64]
    old_parent: NDArray[np.int64]
    new_parent: NDArray[np.int64]
    was_unseen: NDArray[np.bool_]
    expanded: NDArray[np.int64]


class ExpansionLog:
    """Every expansion of one search, recorded once, lazily, so a replay can go forward and back.

    The arguments, their checks and their errors are those of `start_search`; the search runs
    only as far as someone asks (`record_until`, `total_steps`, `result`, or a replay moving).

    Attributes:
        height: rows of the grid.
        width: columns of the grid.
        start: the start cell ``(row, col)``.
        goal: the goal cell ``(row, col)`` (may lie outside the grid: then there are no steps).
        algorithm: the variant searched.
        heuristic: the heuristic the priorities use (zero for dijkstra, bfs and dfs).
        weight: the weight on h in the priorities (the given weight for astar, else 1.0).
        heuristic_scale: what the heuristic is multiplied by under the grid's costs: the
            smallest walkable cost when below 1, else 1 (`sim.navigation.grid.heuristic_scale`);
            1.0 for dijkstra, bfs and dfs.
        diagonal: whether the 4 diagonal moves are allowed.
        h: ``[row, col]`` the h each cell's priority uses ((weight x heuristic_scale) x
            heuristic; 0 for dijkstra, bfs and dfs), for every cell whether reached or not.
        g_weight: 1.0, or 0.0 for greedy: a frontier cell's f is ``g_weight * g + h``.
        kind: the search recorded (by default the one of `algorithm`: weighted A* for astar
            with a weight above 1).

    >>> log = ExpansionLog(np.ones((3, 3), dtype=bool), (0, 0), (2, 2), algorithm="bfs")
    >>> log.recorded, log.finished
    (0, False)
    >>> log.total_steps(), log.finished, log.result().cells
    (9, True, ((0, 0), (1, 1), (2, 2)))
    """

    def __init__(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        *,
        diagonal: bool | str = True,
        heuristic: str = "octile",
        algorithm: str = "astar",
        costs: NDArray[Any] | None = None,
        weight: float = 1.0,
        kind: SearchKind | None = None,
    ) -> None:
        """Set the search up (ValueError naming a bad value, as `start_search`); record nothing."""
        search = start_search(
            walkable,
            start,
            goal,
            diagonal=diagonal,
            heuristic=heuristic,
            algorithm=algorithm,
            costs=costs,
            weight=weight,
        )
        self._begin(search, start, goal, kind)

    @classmethod
    def with_settings(
        cls,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        settings: SearchSettings,
        kind: SearchKind | None = None,
    ) -> ExpansionLog:
        """A log of the search `settings` make (`start_search_with`), recording nothing yet."""
        log = cls.__new__(cls)
        log._begin(start_search_with(walkable, start, goal, settings), start, goal, kind)
        return log

    def _begin(self, search: Search, start: Cell, goal: Cell, kind: SearchKind | None) -> None:
        graph = search.graph
        self._search = search
        self._graph = graph
        self.height, self.width = graph.height, graph.width
        # Search has checked both cells; this turns numpy integers into plain ints.
        self.start: Cell = (int(start[0]), int(start[1]))
        self.goal: Cell = (int(goal[0]), int(goal[1]))
        self.algorithm = search.algorithm
        self.heuristic = search.heuristic
        terms = search.terms
        self.g_weight, self.weight = terms.g_weight, terms.h_weight
        self.heuristic_scale = terms.h_scale
        self.diagonal = graph.diagonal  # a rule name (`sim.navigation.diagonal`) made bool
        self.h = _h_grid(self.heuristic, terms.h_factor, self.height, self.width, self.goal)
        self.h.flags.writeable = False
        self.kind = kind or _kind_of(self.algorithm, self.weight)

        size = self.height * self.width
        start_flat = self.start[0] * self.width + self.start[1]
        start_g, _ = search.cell_state(start_flat)
        self._start_flat = start_flat
        self._start_open = not math.isinf(start_g)
        # The log's own copy of the search state at `recorded` steps, to diff against.
        self._g = [math.inf] * size
        self._parent = [-1] * size
        if self._start_open:
            self._g[start_flat] = start_g
        self._finished = search.done
        self._result: PathResult | None = None
        # Per step: the expanded cell, and where its events end (event_end[0] is step 0).
        self._expanded = array("q")
        self._event_end = [0]
        # One event per changed neighbour, in recording order.
        self._cells = array("q")
        self._old_g = array("d")
        self._new_g = array("d")
        self._old_parent = array("q")
        self._new_parent = array("q")
        self._was_unseen = array("B")

    @property
    def recorded(self) -> int:
        """How many expansions have been recorded so far."""
        return len(self._expanded)

    @property
    def finished(self) -> bool:
        """Whether the whole search has been recorded (no expansion is left)."""
        return self._finished

    def record_until(self, steps: int | None) -> int:
        """Record until `steps` expansions exist or the search ends (None: to the end).

        Returns:
            `recorded`, which is less than `steps` when the search ended first.

        Raises:
            ValueError: for a negative `steps`.
        """
        if steps is not None and (isinstance(steps, bool) or steps < 0):
            raise ValueError(f"steps must be >= 0 or None, got {steps!r}")
        search, graph = self._search, self._graph
        moves, legal, width = graph.moves, graph.legal, self.width
        mirror_g, mirror_parent = self._g, self._parent
        cell_state = search.cell_state
        while not self._finished and (steps is None or len(self._expanded) < steps):
            before = search.expanded
            search.advance(1)
            if search.expanded > before:
                # Not None: a cell was expanded just now.
                row, col = cast(Cell, search.current)
                current = row * width + col
                self._expanded.append(current)
                # Only the expanded cell's neighbours can have a new g or parent.
                for offset, _ in moves[legal[current]]:
                    neighbour = current + offset
                    new_g, new_parent = cell_state(neighbour)
                    old_g, old_parent = mirror_g[neighbour], mirror_parent[neighbour]
                    if new_g != old_g or new_parent != old_parent:
                        self._cells.append(neighbour)
                        self._old_g.append(old_g)
                        self._new_g.append(new_g)
                        self._old_parent.append(old_parent)
                        self._new_parent.append(new_parent)
                        self._was_unseen.append(math.isinf(old_g))
                        mirror_g[neighbour], mirror_parent[neighbour] = new_g, new_parent
                self._event_end.append(len(self._cells))
            self._finished = search.done
        return len(self._expanded)

    def total_steps(self) -> int:
        """Return how many expansions the whole search makes (records to the end if needed)."""
        return self.record_until(None)

    def result(self) -> PathResult:
        """Return the search's result (records to the end if needed).

        It equals ``find_path(..., implementation="python")`` with the same arguments.
        """
        if self._result is None:
            self.record_until(None)
            self._result = self._search.result()
        return self._result

    def expanded_cell(self, step: int) -> Cell:
        """Return the cell expanded by step `step` (1 to `recorded`), ``(row, col)``.

        Raises:
            ValueError: for a step not recorded (or < 1).
        """
        self._check_step(step)
        return divmod(self._expanded[step - 1], self.width)

    def relaxed(self, step: int) -> tuple[Cell, ...]:
        """Return the neighbours whose ``cost_so_far``/``came_from`` step `step` changed.

        In move order (`sim.navigation.moves.DIRECTIONS`); empty for the goal's step.

        Raises:
            ValueError: for a step not recorded (or < 1).
        """
        self._check_step(step)
        events = self._cells[self._event_end[step - 1] : self._event_end[step]]
        return tuple(divmod(cell, self.width) for cell in events)

    def _check_step(self, step: int) -> None:
        if not 1 <= step <= len(self._expanded):
            raise ValueError(f"step must be 1..{len(self._expanded)} (recorded), got {step!r}")

    def _span(self, first: int, last: int) -> _Span:
        """The events of steps ``first + 1`` to `last` (the move from `first` to `last`)."""
        lo, hi = self._event_end[first], self._event_end[last]
        return _Span(
            cells=np.frombuffer(self._cells[lo:hi], dtype=np.int64),
            old_g=np.frombuffer(self._old_g[lo:hi], dtype=np.float64),
            new_g=np.frombuffer(self._new_g[lo:hi], dtype=np.float64),
            old_parent=np.frombuffer(self._old_parent[lo:hi], dtype=np.int64),
            new_parent=np.frombuffer(self._new_parent[lo:hi], dtype=np.int64),
            was_unseen=np.frombuffer(self._was_unseen[lo:hi], dtype=np.bool_),
            expanded=np.frombuffer(self._expanded[first:last], dtype=np.int64),
        )


class SearchReplay:
    """A cursor over an ExpansionLog: the search state after `step` expansions, moved both ways.

    `status`, `g` and `parent` are read-only views of arrays the cursor updates in place (read
    them again after a move, or copy them to keep them); `f` is computed when read.

    Attributes:
        log: the ExpansionLog replayed (several replays may share one).

    >>> log = ExpansionLog(np.ones((2, 2), dtype=bool), (0, 0), (1, 1), algorithm="dfs")
    >>> replay = SearchReplay(log)
    >>> replay.status.tolist(), replay.current
    ([[1, 0], [0, 0]], None)
    >>> replay.forward(5), replay.at_end, replay.path
    (2, True, ((0, 0), (1, 1)))
    >>> before = replay.snapshot(); replay.back(2), replay.forward(2), replay.snapshot() == before
    (2, 2, True)
    """

    def __init__(self, log: ExpansionLog) -> None:
        """Start at step 0: only the start on the frontier (nothing if the search never began)."""
        self.log = log
        size = log.height * log.width
        self._status = np.zeros(size, dtype=np.uint8)
        self._g = np.full(size, np.inf, dtype=np.float64)
        self._parent = np.full(size, -1, dtype=np.intp)
        if log._start_open:
            self._status[log._start_flat] = CellStatus.OPEN
            self._g[log._start_flat] = 0.0
        self._views = tuple(
            _read_only(array.reshape(log.height, log.width))
            for array in (self._status, self._g, self._parent)
        )
        self._step = 0
        self._f: tuple[int, NDArray[np.float64]] | None = None
        self._side = _read_only(np.zeros((log.height, log.width), dtype=np.uint8))

    @property
    def kind(self) -> SearchKind:
        """The search replayed."""
        return self.log.kind

    @property
    def step(self) -> int:
        """How many expansions the shown state is after (0 before the first)."""
        return self._step

    @property
    def at_end(self) -> bool:
        """Whether the search is fully recorded and the cursor is on its last step.

        On the last recorded step this may record one more to find out whether it was the last.
        """
        log = self.log
        if self._step == log.recorded and not log.finished:
            log.record_until(self._step + 1)
        return log.finished and self._step == log.recorded

    @property
    def status(self) -> NDArray[np.uint8]:
        """``[row, col]`` `CellStatus` of every cell now (read-only view, no copy)."""
        return self._views[0]

    @property
    def g(self) -> NDArray[np.float64]:
        """``[row, col]`` ``cost_so_far`` now, inf where unseen (read-only view, no copy)."""
        return self._views[1]

    @property
    def parent(self) -> NDArray[np.intp]:
        """``[row, col]`` flat index of ``came_from`` now, -1 for the start and unseen cells."""
        return self._views[2]

    @property
    def f(self) -> NDArray[np.float64]:
        """``[row, col]`` ``g_weight * g + h`` where seen, inf elsewhere (a fresh array)."""
        if self._f is None or self._f[0] != self._step:
            seen = self._status != CellStatus.UNSEEN
            f = np.full(self._g.shape, np.inf, dtype=np.float64)
            f[seen] = self.log.g_weight * self._g[seen] + self.log.h.ravel()[seen]
            self._f = (self._step, _read_only(f.reshape(self.log.height, self.log.width)))
        return self._f[1]

    @property
    def side(self) -> NDArray[np.uint8]:
        """``[row, col]`` zeros: one search from the start, no halves (see `TapeReplay.side`)."""
        return self._side

    @property
    def meeting_cell(self) -> Cell | None:
        """None: a search from one end has no halves to meet."""
        return None

    @property
    def current(self) -> Cell | None:
        """The cell expanded by step `step`, ``(row, col)``; None at step 0."""
        return None if self._step == 0 else self.log.expanded_cell(self._step)

    @property
    def path(self) -> tuple[Cell, ...]:
        """The path found, start to goal, once `at_end` and found; else ``()``."""
        if not self.at_end:
            return ()
        return self.log.result().cells

    def forward(self, count: int = 1) -> int:
        """Move up to `count` steps forward, recording as needed; return how many it moved."""
        _check_count(count)
        target = self._step + count
        available = self.log.record_until(target)
        return self._move_to(min(target, available))

    def back(self, count: int = 1) -> int:
        """Move up to `count` steps back (stopping at step 0); return how many it moved."""
        _check_count(count)
        return -self._move_to(max(self._step - count, 0))

    def seek(self, step: int) -> None:
        """Move to `step`, clamped to ``[0, total]`` (records up to `step` if needed)."""
        if isinstance(step, bool) or not isinstance(step, int | np.integer):
            raise ValueError(f"step must be an integer, got {step!r}")
        target = max(int(step), 0)
        available = self.log.record_until(target)
        self._move_to(min(target, available))

    def reset(self) -> None:
        """Go back to step 0."""
        self.seek(0)

    def snapshot(self) -> ReplayState:
        """Return the state now as a frozen value (compare two with ``==``)."""
        return ReplayState(
            self._step,
            self.current,
            self._status.tobytes(),
            self._g.tobytes(),
            self._parent.tobytes(),
        )

    def _move_to(self, target: int) -> int:
        """Apply or undo the steps between `step` and `target`; return target - step."""
        moved = target - self._step
        if moved > 0:
            self._apply(self.log._span(self._step, target))
        elif moved < 0:
            self._undo(self.log._span(target, self._step))
        self._step = target
        return moved

    def _apply(self, span: _Span) -> None:
        cells = span.cells
        if span.expanded.size == 1:
            # One step changes each neighbour once: no cell repeats.
            self._g[cells] = span.new_g
            self._parent[cells] = span.new_parent
        elif cells.size:
            # A cell changed by several steps ends with its last event's values.
            unique, first_from_end = np.unique(cells[::-1], return_index=True)
            last = cells.size - 1 - first_from_end
            self._g[unique] = span.new_g[last]
            self._parent[unique] = span.new_parent[last]
        # An event only touches a cell not closed yet: it is open after it.
        self._status[cells] = CellStatus.OPEN
        self._status[span.expanded] = CellStatus.CLOSED

    def _undo(self, span: _Span) -> None:
        cells = span.cells
        self._status[span.expanded] = CellStatus.OPEN
        if span.expanded.size == 1:
            self._g[cells] = span.old_g
            self._parent[cells] = span.old_parent
            self._status[cells[span.was_unseen]] = CellStatus.UNSEEN
        elif cells.size:
            # A cell changed by several steps goes back to its first event's old values.
            unique, first = np.unique(cells, return_index=True)
            self._g[unique] = span.old_g[first]
            self._parent[unique] = span.old_parent[first]
            self._status[unique[span.was_unseen[first]]] = CellStatus.UNSEEN


def _kind_of(algorithm: Algorithm, weight: float) -> SearchKind:
    """The search recorded by expansions that runs `algorithm` (weighted A* above weight 1)."""
    for kind in SearchKind:
        if (
            isinstance(kind.recording, Expansions)
            and kind.algorithm is algorithm
            and kind.takes_weight == (weight > 1.0)
        ):
            return kind
    raise ValueError(f"no search recorded by expansions runs {algorithm}")


def _check_count(count: int) -> None:
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
        raise ValueError(f"count must be an integer >= 0, got {count!r}")


def _read_only(values: NDArray[Any]) -> NDArray[Any]:
    view = values.view()
    view.flags.writeable = False
    return view


def _h_grid(
    heuristic: Heuristic, factor: float, height: int, width: int, goal: Cell
) -> NDArray[np.float64]:
    """``factor * heuristic`` toward `goal` for every cell, bit-equal to Search's own h.

    `factor` is the search's ``PriorityTerms.h_factor`` (weight times heuristic scale), the
    one float Search multiplies by.

    The same float operations as `sim.navigation.heuristics`, vectorized; euclidean uses the
    correctly rounded ``sqrt(dx*dx + dy*dy)``, which math.hypot matches on grid distances
    (np.hypot does not always).
    """
    dy = np.abs(np.arange(height, dtype=np.int64) - goal[0])[:, np.newaxis]
    dx = np.abs(np.arange(width, dtype=np.int64) - goal[1])[np.newaxis, :]
    dx, dy = np.broadcast_arrays(dx, dy)
    if heuristic is Heuristic.MANHATTAN:
        h = (dx + dy).astype(np.float64)
    elif heuristic is Heuristic.OCTILE:
        big, small = np.maximum(dx, dy), np.minimum(dx, dy)
        h = big.astype(np.float64) + SQRT2_MINUS_1 * small.astype(np.float64)
    elif heuristic is Heuristic.EUCLIDEAN:
        h = np.sqrt((dx * dx + dy * dy).astype(np.float64))
    elif heuristic is Heuristic.CHEBYSHEV:
        h = np.maximum(dx, dy).astype(np.float64)
    else:
        return np.zeros((height, width), dtype=np.float64)
    return factor * h
