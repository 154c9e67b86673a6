"""Record jps, bidirectional and theta searches step by step, and replay them both ways.

`ExpansionLog` records the searches of `sim.navigation.searches.best_first` by their relaxation
events; the
searches of issue 19 keep other state (jump points queued from afar, two halves, parents out of
sight of the grid's moves), so `SearchTape` records them more plainly: after each expansion it
reads the search's whole state (a cell's status, g, f, parent and, for bidirectional, the half
that reached it) and stores only the cells that changed, their old and new values. `TapeReplay`
applies those changes forward and restores the old values backward, one step at a time, so
``k`` steps forward and ``k`` back give the state before bit for bit.

It speaks `SearchReplay`'s language (`step`, `status`, `g`, `f`, `parent`, `current`, `path`,
`forward`, `back`, `seek`, `snapshot`, and a `log` with `recorded`, `finished`, `result`), so the
search view draws either. Reading the whole state costs O(cells) a step: fine for the scenes the
view shows, not for a 512x512 map (record those with `find_path`).

Per search:

- jps: the cells are the jump points queued so far; closed ones were expanded (a step is one
  jump point taken off the frontier), and each parent is the jump point it was reached from.
- bidirectional: `side` is 1 where the forward half holds the cell (closed, or failing that on
  its frontier), 2 where only the backward half does; g, f and parent are that half's, the
  parent pointing towards that half's end. `meeting_cell` is where the halves' best path meets.
- theta: parents are any-angle (they see their child), and the path's cells are its vertices.

>>> walkable = np.ones((3, 5), dtype=bool)
>>> tape = SearchTape(walkable, (0, 0), (0, 4), algorithm="bidirectional")
>>> replay = TapeReplay(tape)
>>> before = replay.snapshot(); replay.seek(99); replay.at_end, replay.meeting_cell
(True, (0, 2))
>>> replay.seek(0); replay.snapshot() == before
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.grid import Cell
from sim.navigation.heuristics import HEURISTICS, parse_heuristic
from sim.navigation.query import PathResult
from sim.navigation.replay.log import CellStatus
from sim.navigation.searches.bidirectional import BidirectionalSearch
from sim.navigation.searches.jps import JumpPointSearch
from sim.navigation.searches.theta import ThetaStar

TAPE_ALGORITHMS = ("jps", "bidirectional", "theta")
"""The `find_path` names a `SearchTape` records."""


@dataclass(frozen=True, slots=True)
class TapeState:
    """A tape replay's whole state as a value: equal states compare equal with ``==``."""

    step: int
    current: Cell | None
    meeting: Cell | None
    arrays: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class _Change:
    """What one step changed in one array: the cells, their old and new values."""

    cells: NDArray[np.intp]
    old: NDArray[Any]
    new: NDArray[Any]


class SearchTape:
    """Every step of one jps, bidirectional or theta search, recorded once, lazily.

    Args:
        walkable: ``[row, col]`` bool mask.
        start: first cell ``(row, col)``.
        goal: last cell ``(row, col)``.
        algorithm: "jps", "bidirectional" or "theta".
        diagonal: True, False or a diagonal rule's name (jps needs no-corner-cutting).
        heuristic: for jps and bidirectional (theta always uses the straight line).
        costs: cell costs (bidirectional only; jps and theta refuse costs other than 1).

    Raises:
        ValueError: naming the value, as the search itself does (jps on 4-connected moves,
            theta with costs, an unknown algorithm, ...).

    >>> tape = SearchTape(np.ones((3, 3), dtype=bool), (0, 0), (2, 2), algorithm="jps")
    >>> tape.total_steps(), tape.result().cells
    (2, ((0, 0), (1, 1), (2, 2)))
    """

    def __init__(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        *,
        algorithm: str,
        diagonal: bool | str = True,
        heuristic: str = "octile",
        costs: NDArray[Any] | None = None,
    ) -> None:
        self.algorithm = algorithm
        rule = parse_diagonal(diagonal)
        self._search: JumpPointSearch | BidirectionalSearch | ThetaStar
        if algorithm == "jps":
            if rule is not DiagonalRule.NO_CORNER_CUTTING:
                raise ValueError(
                    "jps needs 8-connected moves without corner cutting"
                    f" (diagonal=True), not {rule.value!r}"
                )
            if costs is not None and bool(np.any(np.asarray(costs)[walkable] != 1.0)):
                raise ValueError("jps takes no cell costs other than 1")
            self._search = JumpPointSearch(walkable, start, goal, heuristic=heuristic)
            self._h = HEURISTICS[parse_heuristic(heuristic)]
        elif algorithm == "bidirectional":
            self._search = BidirectionalSearch(
                walkable, start, goal, diagonal=rule.value, heuristic=heuristic, costs=costs
            )
        elif algorithm == "theta":
            self._search = ThetaStar(walkable, start, goal, diagonal=rule.value, costs=costs)
        else:
            raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {TAPE_ALGORITHMS}")
        self.height, self.width = (int(side) for side in walkable.shape)
        self.start: Cell = (int(start[0]), int(start[1]))
        self.goal: Cell = (int(goal[0]), int(goal[1]))
        self.rule = rule
        self.diagonal = rule is not DiagonalRule.NEVER  # whether the 4 diagonal moves exist
        self.initial = self._read_state()
        self._last = self.initial
        self.initial_meeting = self._meeting()
        self._changes: list[tuple[_Change, ...]] = []
        self._current: list[Cell] = []
        self._meetings: list[Cell | None] = []
        self._finished = self._search.done
        self._result: PathResult | None = None

    @property
    def recorded(self) -> int:
        """How many steps have been recorded so far."""
        return len(self._changes)

    @property
    def finished(self) -> bool:
        """Whether the whole search has been recorded."""
        return self._finished

    def record_until(self, steps: int | None) -> int:
        """Record until `steps` steps exist or the search ends (None: to the end)."""
        if steps is not None and (isinstance(steps, bool) or steps < 0):
            raise ValueError(f"steps must be >= 0 or None, got {steps!r}")
        search = self._search
        while not self._finished and (steps is None or len(self._changes) < steps):
            before = search.expanded
            search.advance(1)
            if search.expanded > before:
                state = self._read_state()
                self._changes.append(
                    tuple(_diff(old, new) for old, new in zip(self._last, state, strict=True))
                )
                self._last = state
                self._current.append(search.current)  # type: ignore[arg-type]
                self._meetings.append(self._meeting())
            self._finished = search.done
        return len(self._changes)

    def total_steps(self) -> int:
        """Return how many steps the whole search makes (records to the end if needed)."""
        return self.record_until(None)

    def result(self) -> PathResult:
        """Return the search's result (records to the end if needed)."""
        if self._result is None:
            self.record_until(None)
            self._result = self._search.result()
        return self._result

    def expanded_cell(self, step: int) -> Cell:
        """Return the cell expanded by step `step` (1 to `recorded`)."""
        if not 1 <= step <= len(self._changes):
            raise ValueError(f"step must be 1..{len(self._changes)} (recorded), got {step!r}")
        return self._current[step - 1]

    def meeting_at(self, step: int) -> Cell | None:
        """Where bidirectional's halves meet after `step` steps (None before, or not bidir)."""
        return self.initial_meeting if step == 0 else self._meetings[step - 1]

    def changes(self, step: int) -> tuple[_Change, ...]:
        """What step `step` (1 to `recorded`) changed, one entry per array of `TapeState`."""
        return self._changes[step - 1]

    def _meeting(self) -> Cell | None:
        search = self._search
        return search.meeting_cell if isinstance(search, BidirectionalSearch) else None

    def _read_state(self) -> tuple[NDArray[Any], ...]:
        """Status, g, f, parent and side of every cell now, flat."""
        size = self.height * self.width
        status = np.zeros(size, dtype=np.uint8)
        g = np.full(size, np.inf)
        f = np.full(size, np.inf)
        parent = np.full(size, -1, dtype=np.intp)
        side = np.zeros(size, dtype=np.uint8)
        search = self._search
        if isinstance(search, JumpPointSearch):
            queued = set(search.frontier)
            for (row, col), (came_from, cost) in search.jump_points.items():
                cell = row * self.width + col
                status[cell] = CellStatus.OPEN if (row, col) in queued else CellStatus.CLOSED
                g[cell] = cost
                f[cell] = cost + self._h(abs(col - self.goal[1]), abs(row - self.goal[0]))
                if came_from is not None:
                    parent[cell] = came_from[0] * self.width + came_from[1]
        elif isinstance(search, ThetaStar):
            status[search.frontier_mask().ravel()] = CellStatus.OPEN
            status[search.closed_mask().ravel()] = CellStatus.CLOSED
            g, f = search.g_costs().ravel(), search.f_costs().ravel()
            parent = search.came_from().ravel().astype(np.intp)
        else:
            # Backward first, so the forward half wins where both hold a cell the same way;
            # each half's arrays are read once (each read copies a list of every cell).
            halves = [
                (number, half.frontier_mask().ravel(), half.closed_mask().ravel(), half)
                for number, half in ((2, search.backward), (1, search.forward))
                if half is not None
            ]
            values = {
                number: (h.g_costs(), h.f_costs(), h.came_from()) for number, _, _, h in halves
            }
            for mark, which in ((CellStatus.OPEN, 1), (CellStatus.CLOSED, 2)):
                for number, waiting, closed, _ in halves:
                    mask = waiting if which == 1 else closed
                    half_g, half_f, half_parent = values[number]
                    status[mask], side[mask] = mark, number
                    g[mask] = half_g.ravel()[mask]
                    f[mask] = half_f.ravel()[mask]
                    parent[mask] = half_parent.ravel()[mask]
        return status, g, f, parent, side


class TapeReplay:
    """A cursor over a `SearchTape`: the state after `step` steps, moved both ways.

    `status`, `g`, `f`, `parent` and `side` are read-only ``[row, col]`` views of arrays the
    cursor updates in place.
    """

    def __init__(self, tape: SearchTape) -> None:
        self.log = tape
        self._arrays = [array.copy() for array in tape.initial]
        shape = (tape.height, tape.width)
        self._views = tuple(_read_only(array.reshape(shape)) for array in self._arrays)
        self._step = 0

    @property
    def step(self) -> int:
        """How many steps the shown state is after."""
        return self._step

    @property
    def at_end(self) -> bool:
        """Whether the search is fully recorded and the cursor is on its last step."""
        log = self.log
        if self._step == log.recorded and not log.finished:
            log.record_until(self._step + 1)
        return log.finished and self._step == log.recorded

    @property
    def status(self) -> NDArray[np.uint8]:
        """``[row, col]`` `CellStatus` now."""
        return self._views[0]

    @property
    def g(self) -> NDArray[np.float64]:
        """``[row, col]`` cost from the cell's end now (inf where unseen)."""
        return self._views[1]

    @property
    def f(self) -> NDArray[np.float64]:
        """``[row, col]`` the priority the cell was queued with (inf where unseen)."""
        return self._views[2]

    @property
    def parent(self) -> NDArray[np.intp]:
        """``[row, col]`` flat parent (-1 for the ends' roots and unseen cells)."""
        return self._views[3]

    @property
    def side(self) -> NDArray[np.uint8]:
        """``[row, col]`` 1 forward, 2 backward (bidirectional), else 0."""
        return self._views[4]

    @property
    def current(self) -> Cell | None:
        """The cell expanded by step `step`; None at step 0."""
        return None if self._step == 0 else self.log.expanded_cell(self._step)

    @property
    def meeting_cell(self) -> Cell | None:
        """Where bidirectional's halves meet now, or None."""
        return self.log.meeting_at(self._step)

    @property
    def path(self) -> tuple[Cell, ...]:
        """The path found (theta: its vertices) once `at_end` and found; else ``()``."""
        return self.log.result().cells if self.at_end else ()

    def forward(self, count: int = 1) -> int:
        """Move up to `count` steps forward; return how many it moved."""
        _check_count(count)
        available = self.log.record_until(self._step + count)
        return self._move_to(min(self._step + count, available))

    def back(self, count: int = 1) -> int:
        """Move up to `count` steps back; return how many it moved."""
        _check_count(count)
        return -self._move_to(max(self._step - count, 0))

    def seek(self, step: int) -> None:
        """Move to `step`, clamped to ``[0, total]``."""
        if isinstance(step, bool) or not isinstance(step, int | np.integer):
            raise ValueError(f"step must be an integer, got {step!r}")
        target = max(int(step), 0)
        self._move_to(min(target, self.log.record_until(target)))

    def reset(self) -> None:
        """Go back to step 0."""
        self.seek(0)

    def snapshot(self) -> TapeState:
        """Return the state now as a frozen value."""
        return TapeState(
            self._step,
            self.current,
            self.meeting_cell,
            tuple(array.tobytes() for array in self._arrays),
        )

    def _move_to(self, target: int) -> int:
        moved = target - self._step
        for step in range(self._step + 1, target + 1):
            for array, change in zip(self._arrays, self.log.changes(step), strict=True):
                array[change.cells] = change.new
        for step in range(self._step, target, -1):
            for array, change in zip(self._arrays, self.log.changes(step), strict=True):
                array[change.cells] = change.old
        self._step = target
        return moved


def _diff(old: NDArray[Any], new: NDArray[Any]) -> _Change:
    # NaN never appears (g and f are finite or inf), so != finds every changed value.
    cells = np.flatnonzero(old != new)
    return _Change(cells, old[cells].copy(), new[cells].copy())


def _check_count(count: int) -> None:
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
        raise ValueError(f"count must be an integer >= 0, got {count!r}")


def _read_only(values: NDArray[Any]) -> NDArray[Any]:
    view = values.view()
    view.flags.writeable = False
    return view
